/**
 * Replaces a file's content so readers see the old or the new file, never a truncated one: a crash
 * mid-write leaves a stray temp file beside it, not a damaged original. write-file-atomic does the temp file,
 * fsync and rename, keeps the file's mode and owner, writes through a symlink to its target instead of
 * replacing the link, and removes its temp file if the process exits mid-write.
 * `durable: false` skips the fsync, for files that are rewritten every few seconds (session heartbeats).
 */
import { mkdirSync, realpathSync } from "node:fs";
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
