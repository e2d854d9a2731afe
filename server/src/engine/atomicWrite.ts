import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, basename } from "node:path";

/**
 * Replaces a file's content so readers see the old or the new file, never a truncated one: a crash
 * mid-write leaves a stray temp file beside it, not a damaged original. Keeps the file's mode.
 */
export function writeFileAtomic(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  let mode: number | undefined;
  try {
    mode = statSync(path).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  try {
    writeFileSync(tmp, content, { mode: mode ?? 0o644, flush: true });
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* the temp file never appeared */
    }
    throw err;
  }
}
