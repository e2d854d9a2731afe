import { closeSync, constants, lstatSync, mkdirSync, realpathSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { writeFileAtomic } from "./atomicWrite";
import { toWorkspacePath } from "../engine/paths";
import { landingPath } from "./realPath";
import { APPEND_FLAGS, fileKind, openRegularSync } from "./regularFiles";

/**
 * The one answer to "may intent-lsp write this file of its own?" — the intents file, the ledger, AGENT.md,
 * `.intentignore`, `intent_map.md`, the session files and the hooks' stashes. A repository can commit
 * symbolic links (git stores them), so `.orchestration/.sessions` may lead to `~/.ssh` and AGENT.md to
 * `~/.bashrc`. Every writer goes through here: the write goes where the path really lands (links followed,
 * dangling ones too), only when that is inside the workspace, and only into a regular file (a FIFO would
 * block the writer forever).
 */

export class UnsafeWriteError extends Error {
  override name = "UnsafeWriteError";
  readonly code = "EUNSAFE";
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** The absolute path a write to `rel` lands on, checked; throws UnsafeWriteError when it may not be written. */
export function ownFilePath(root: string, rel: string, expect: "file" | "directory" = "file"): string {
  const landing = landingPath(root, rel);
  if (landing === undefined) throw new UnsafeWriteError(`${rel} cannot be resolved (a loop of symbolic links, or the workspace ${root} is unreadable); intent-lsp did not write it`);
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    throw new UnsafeWriteError(`the workspace ${root} cannot be read; intent-lsp did not write ${rel}`);
  }
  if (landing !== realRoot && toWorkspacePath(realRoot, landing) === undefined) {
    throw new UnsafeWriteError(
      `${rel} leads outside the workspace (to ${landing}) through a symbolic link; intent-lsp writes its files only inside the workspace, so it did not write it. Replace the link with a real file or folder.`,
    );
  }
  let kind: string | undefined;
  try {
    const st = lstatSync(landing);
    if (expect === "file" ? !st.isFile() : !st.isDirectory()) kind = fileKind(st);
  } catch {
    /* does not exist yet: it will be created where it lands */
  }
  if (kind) throw new UnsafeWriteError(`${rel} is ${kind}, where intent-lsp expects ${expect === "file" ? "a regular file" : "a folder"}; it did not write it. Remove or rename it.`);
  return landing;
}

/** Creates a folder of ours (and its parents) where it really lands; returns its absolute path. */
export function ensureOwnDir(root: string, rel: string): string {
  const dir = ownFilePath(root, rel, "directory");
  mkdirSync(dir, { recursive: true }); // every existing part of `dir` is a real folder: nothing is followed
  return dir;
}

/** Replaces a file of ours atomically (see writeFileAtomic). */
export function writeOwnFile(root: string, rel: string, content: string, opts: { durable?: boolean } = {}): void {
  const file = ownFilePath(root, rel);
  ensureOwnDir(root, relDir(rel));
  writeFileAtomic(file, content, opts);
}

/** Appends to a file of ours (creating it), in one write, never following a link at the last step. */
export function appendOwnFile(root: string, rel: string, text: string): void {
  const file = ownFilePath(root, rel);
  ensureOwnDir(root, relDir(rel));
  const fd = openRegularSync(file, APPEND_FLAGS | NOFOLLOW);
  try {
    const bytes = Buffer.from(text, "utf8");
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes a file of ours: the entry itself (a link is removed, not its target), and only when its folder
 * lies inside the workspace. False when there was nothing to remove or it may not be removed.
 */
export function removeOwnFile(root: string, rel: string): boolean {
  let dir: string;
  try {
    dir = ownFilePath(root, relDir(rel), "directory");
  } catch {
    return false;
  }
  try {
    unlinkSync(join(dir, basename(rel)));
    return true;
  } catch {
    return false;
  }
}

function relDir(rel: string): string {
  const d = dirname(rel);
  return d === "." ? "" : d;
}
