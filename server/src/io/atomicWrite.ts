import { randomBytes } from "node:crypto";
import { mkdirSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Replaces a file's content so readers see the old or the new file, never a truncated one: a crash
 * mid-write leaves a stray temp file beside it, not a damaged original. Keeps the file's mode, and writes
 * through a symlink to its target instead of replacing the link with a plain file.
 * `durable: false` skips the fsync, for files that are rewritten every few seconds (session heartbeats).
 */
export function writeFileAtomic(path: string, content: string, opts: { durable?: boolean } = {}): void {
  const target = resolveLink(path);
  mkdirSync(dirname(target), { recursive: true });
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  let mode: number | undefined;
  try {
    mode = statSync(target).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  try {
    writeFileSync(tmp, content, { mode: mode ?? 0o644, flush: opts.durable ?? true });
    renameSync(tmp, target);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* the temp file never appeared */
    }
    throw err;
  }
}

function resolveLink(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path; // does not exist yet
  }
}
