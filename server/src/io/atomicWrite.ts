/**
 * Replaces a file's content so readers see the old or the new file, never a truncated one: a crash
 * mid-write leaves a stray temp file beside it, not a damaged original. write-file-atomic does the temp file,
 * fsync and rename, keeps the file's mode and owner, writes through a symlink to its target instead of
 * replacing the link, and removes its temp file if the process exits mid-write.
 * `durable: false` skips the fsync, for files that are rewritten every few seconds (session heartbeats).
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, realpathSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import writeFileAtomicLib from "write-file-atomic";

export function writeFileAtomic(path: string, content: string, opts: { durable?: boolean } = {}): void {
  mkdirSync(dirname(resolveLink(path)), { recursive: true });
  writeFileAtomicLib.sync(path, content, { encoding: "utf8", fsync: opts.durable ?? true });
}

function resolveLink(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path; // does not exist yet
  }
}

/**
 * Writes `lines` (each followed by a newline) to `path` the same way, streamed: a temporary file beside
 * it (created exclusively), fsynced, then renamed over it. Returns the number of lines written.
 */
export function writeLinesAtomic(path: string, lines: Iterable<Uint8Array>): number {
  const target = resolveLink(path);
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(tmp, "wx");
  let count = 0;
  try {
    try {
      for (const line of lines) {
        writeAll(fd, line);
        writeAll(fd, NEWLINE);
        count++;
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  return count;
}

const NEWLINE = new Uint8Array([0x0a]);

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}
