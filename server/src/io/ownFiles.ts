import {
  type Stats,
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { basename, dirname, isAbsolute, join } from "node:path";
import { toWorkspacePath } from "../engine/paths";
import { landingPath, realWorkspacePath } from "./realPath";
import { APPEND_FLAGS, fileKind, openRegularSync, readRegularBytes } from "./regularFiles";
import { readOptional } from "./optionalFile";

/**
 * The one answer to "may intent-lsp write (or read as its own) this file in the workspace?" — the intents
 * file, the rule files, the ledger, AGENT.md, `.intentignore`, `intent_map.md`, the session files, the hooks'
 * stashes and snapshots, the cache folder and its files, and what `intent init` sets up (`.gitignore`,
 * `.gitattributes`, every agent's hook configuration). A repository can commit symbolic links (git stores
 * them), so `.orchestration/.sessions` may lead to `~/.ssh`, AGENT.md to `~/.bashrc` and `.claude` to another
 * project's folder. Every writer goes through here: the write goes where the path really lands, only when
 * that is inside the workspace, never through a dangling link or a loop of links (where it would land is a
 * guess), and only into a regular file (a FIFO would block the writer forever) or, for a folder, a folder.
 */

export class UnsafeWriteError extends Error {
  override name = "UnsafeWriteError";
  readonly code = "EUNSAFE";
}

/** A file of the repository's that intent-lsp does not read: it leads outside the workspace, or nowhere. */
export class UnsafeReadError extends Error {
  override name = "UnsafeReadError";
  readonly code = "EUNSAFE";
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * The first symbolic link on the way to `rel` that makes it unsafe, described: one that dangles, loops,
 * or leads out of the workspace. Undefined when every link on the way leads to something inside.
 */
export function unsafeLinkOnTheWay(root: string, rel: string): string | undefined {
  let prefix = "";
  for (const part of rel.split(/[\\/]+/)) {
    if (part === "" || part === ".") continue;
    prefix = prefix ? `${prefix}/${part}` : part;
    const abs = join(root, prefix);
    let st: Stats;
    try {
      st = lstatSync(abs);
    } catch {
      return undefined; // from here on nothing exists: nothing more to follow
    }
    if (!st.isSymbolicLink()) continue;
    let target = "?";
    try {
      target = readlinkSync(abs);
    } catch {
      /* unreadable: described without its target */
    }
    try {
      statSync(abs);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ELOOP") return `${prefix} is a symbolic link in a loop of links (${prefix} → ${target})`;
      return `${prefix} is a dangling symbolic link (${prefix} → ${target}, which does not exist)`;
    }
    if (realWorkspacePath(root, prefix) === undefined) return `${prefix} is a symbolic link to ${target}, outside the workspace`;
  }
  return undefined;
}

/** The absolute path a write to `rel` lands on, checked; throws UnsafeWriteError when it may not be written. */
export function ownFilePath(root: string, rel: string, expect: "file" | "directory" = "file"): string {
  const landing = landingPath(root, rel);
  if (landing === undefined)
    throw new UnsafeWriteError(`${rel} cannot be resolved (a loop of symbolic links, or the workspace ${root} is unreadable); intent-lsp did not write it`);
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    throw new UnsafeWriteError(`the workspace ${root} cannot be read; intent-lsp did not write ${rel}`);
  }
  const link = unsafeLinkOnTheWay(root, rel);
  if (landing !== realRoot && toWorkspacePath(realRoot, landing) === undefined) {
    throw new UnsafeWriteError(
      `${rel} leads outside the workspace (to ${landing}) through a symbolic link${link ? ` (${link})` : ""}; intent-lsp writes its files only inside the workspace, so it did not write it. Replace the link with a real file or folder.`,
    );
  }
  if (link) throw new UnsafeWriteError(`${rel} cannot be written: ${link}; intent-lsp did not write it. Replace the link with a real file or folder.`);
  let kind: string | undefined;
  try {
    const st = lstatSync(landing);
    if (expect === "file" ? !st.isFile() : !st.isDirectory()) kind = fileKind(st);
  } catch {
    /* does not exist yet: it will be created where it lands */
  }
  if (kind)
    throw new UnsafeWriteError(
      `${rel} is ${kind}, where intent-lsp expects ${expect === "file" ? "a regular file" : "a folder"}; it did not write it. Remove or rename it.`,
    );
  return landing;
}

/**
 * A file of the repository's that intent-lsp reads as input it trusts to be the repository's own (rule
 * files, hook configurations, `.gitignore`): its text, or undefined when there is none. Throws
 * UnsafeReadError when it leads outside the workspace, through a dangling link or a loop: what lies outside
 * must never reach an answer, a message or a file. A FIFO or a device throws too (see readOptional).
 */
export function readOwnFile(root: string, rel: string): string | undefined {
  checkOwnRead(root, rel);
  return readOptional(join(root, rel));
}

/** A file of ours as bytes (see readOwnFile): undefined when there is none. */
export function readOwnBytes(root: string, rel: string): Buffer | undefined {
  checkOwnRead(root, rel);
  try {
    return readRegularBytes(join(root, rel));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}

/** Throws UnsafeReadError unless `rel` really lands inside the workspace, through no dangling link or loop. */
export function checkOwnRead(root: string, rel: string): void {
  const link = unsafeLinkOnTheWay(root, rel);
  if (link)
    throw new UnsafeReadError(
      `${rel} was not read: ${link}; intent-lsp reads the repository's files only inside the workspace. Replace the link with a real file.`,
    );
  if (realWorkspacePath(root, rel) === undefined)
    throw new UnsafeReadError(`${rel} was not read: it leads outside the workspace; replace it with a file inside`);
}

/** Creates a folder of ours (and its parents) where it really lands; returns its absolute path. */
export function ensureOwnDir(root: string, rel: string): string {
  const dir = ownFilePath(root, rel, "directory");
  mkdirSync(dir, { recursive: true }); // every existing part of `dir` is a real folder: nothing is followed
  return dir;
}

export interface ReplaceOptions {
  /**
   * false: no fsync, for files rewritten every few seconds (session heartbeats) or dropped at will (a hook's
   * stashes). Caches are flushed (io/checkedCache.ts): a crash must not leave one zeroed at its length.
   */
  durable?: boolean;
  /** The new file's mode; default: the replaced file's, or 0o666 less the umask for a new one. */
  mode?: number;
}

/**
 * Replaces a file of ours so that readers see the old or the new file, never a truncated one: the content
 * goes to a fresh temporary file beside it (created exclusively, so a link planted under that name is never
 * followed), then is renamed over it. A crash mid-write leaves a stray `.tmp` file, not a damaged original.
 */
export function replaceOwnFile(root: string, rel: string, write: (fd: number) => void, opts: ReplaceOptions = {}): void {
  const file = ownFilePath(root, rel);
  ensureOwnDir(root, relDir(rel));
  replaceWhole(file, write, opts);
}

/**
 * `replaceOwnFile` for a writer that writes in steps (a generator), for a caller that runs each step in a
 * turn of its own: the temporary file is renamed over the file after the last step; when a step throws, or
 * the steps are given up (`return()`), it is removed and the file is left as it was.
 */
export function* replaceOwnFileInSteps(root: string, rel: string, write: (fd: number) => Generator<void>, opts: ReplaceOptions = {}): Generator<void> {
  const file = ownFilePath(root, rel);
  ensureOwnDir(root, relDir(rel));
  const r = openReplacement(file, opts);
  let replaced = false;
  try {
    yield* write(r.fd);
    finishReplacement(r, file, opts);
    replaced = true;
  } finally {
    if (!replaced) abandonReplacement(r);
  }
}

/** `file` replaced by what `write` puts in a fresh temporary file beside it, renamed over it (see replaceOwnFile). */
function replaceWhole(file: string, write: (fd: number) => void, opts: ReplaceOptions): void {
  const r = openReplacement(file, opts);
  try {
    write(r.fd);
    finishReplacement(r, file, opts);
  } catch (e) {
    abandonReplacement(r);
    throw e;
  }
}

interface Replacement {
  fd: number;
  tmp: string;
  mode: number | undefined;
  closed: boolean;
}

/** A fresh temporary file beside `file`, created exclusively (a link planted under its name is never followed). */
function openReplacement(file: string, opts: ReplaceOptions): Replacement {
  let mode = opts.mode;
  if (mode === undefined) {
    try {
      mode = lstatSync(file).mode & 0o7777;
    } catch {
      /* a new file */
    }
  }
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, mode ?? 0o666);
  return { fd, tmp, mode, closed: false };
}

function finishReplacement(r: Replacement, file: string, opts: ReplaceOptions): void {
  try {
    if (r.mode !== undefined) fchmodSync(r.fd, r.mode); // exactly this mode, whatever the umask
    if (opts.durable ?? true) fsyncSync(r.fd);
  } finally {
    r.closed = true;
    closeSync(r.fd);
  }
  renameSync(r.tmp, file);
}

function abandonReplacement(r: Replacement): void {
  if (!r.closed) {
    r.closed = true;
    try {
      closeSync(r.fd);
    } catch {
      /* closed already */
    }
  }
  try {
    unlinkSync(r.tmp);
  } catch {
    /* already renamed or gone */
  }
}

/** Replaces a file of ours with `content` (see replaceOwnFile); bytes are written as they are. */
export function writeOwnFile(root: string, rel: string, content: string | readonly Uint8Array[], opts: ReplaceOptions = {}): void {
  replaceOwnFile(
    root,
    rel,
    (fd) => {
      if (typeof content === "string") writeAllSync(fd, Buffer.from(content, "utf8"));
      else for (const part of content) writeAllSync(fd, part);
    },
    opts,
  );
}

/** Creates a file of ours that must not exist yet; false when something (a file, a link) is already there. */
export function createOwnFile(root: string, rel: string, content: string): boolean {
  const file = ownFilePath(root, rel);
  ensureOwnDir(root, relDir(rel));
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o666);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  try {
    writeAllSync(fd, Buffer.from(content, "utf8"));
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Appends to a file of ours (creating it), in one write, never following a link at the last step. */
export function appendOwnFile(root: string, rel: string, text: string): void {
  const file = ownFilePath(root, rel);
  ensureOwnDir(root, relDir(rel));
  const fd = openRegularSync(file, APPEND_FLAGS | NOFOLLOW);
  try {
    writeAllSync(fd, Buffer.from(text, "utf8"));
  } finally {
    closeSync(fd);
  }
}

export function writeAllSync(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
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

/**
 * Writes a file the person named on the command line (`intent report --out`, `intent export --out`,
 * `intent migrate --out`): a path typed by the person is theirs to choose, inside the workspace or not, while
 * the paths that come from a repository or an agent go through `ownFilePath`. The file is replaced whole or
 * not at all: the content goes to a temporary file in the same folder (created exclusively), then is renamed
 * over it. A symbolic link is written through to its target. Only a regular file is replaced, or a new one
 * created; a folder, a FIFO or a device is refused, and so is a folder that does not exist.
 */
export function writeNamedFile(path: string, content: string | Iterable<Uint8Array>, opts: ReplaceOptions = {}): void {
  if (!isAbsolute(path)) throw new Error(`${path} is not an absolute path; resolve it against the current directory first`);
  replaceWhole(
    namedFileTarget(path),
    (fd) => {
      if (typeof content === "string") writeAllSync(fd, Buffer.from(content, "utf8"));
      else for (const part of content) writeAllSync(fd, part);
    },
    opts,
  );
}

/** Where a write to the person's `path` lands (its link followed), checked: a regular file or none, in a folder that exists. */
function namedFileTarget(path: string): string {
  let st: Stats | undefined;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new Error(`${path} is a symbolic link in a loop of links; nothing was written. Name another file.`);
    if (code === "ENOTDIR") throw new Error(`${dirname(path)} is not a folder; nothing was written to ${path}. Name a file in an existing folder.`);
    if (code !== "ENOENT") throw e;
  }
  if (st) {
    if (!st.isFile()) throw new Error(`${path} is ${fileKind(st)}, not a regular file; nothing was written. Name a file (new or regular) instead.`);
    return realpathSync(path);
  }
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink())
    throw new Error(`${path} is a dangling symbolic link (→ ${readlinkSync(path)}); nothing was written. Remove the link or name another file.`);
  const dir = dirname(path);
  const dirSt = statSync(dir, { throwIfNoEntry: false });
  if (!dirSt) throw new Error(`the folder ${dir} does not exist; nothing was written to ${path}. Create the folder first, or name a file in an existing one.`);
  if (!dirSt.isDirectory()) throw new Error(`${dir} is not a folder; nothing was written to ${path}. Name a file in an existing folder.`);
  return join(realpathSync(dir), basename(path));
}

function relDir(rel: string): string {
  const d = dirname(rel);
  return d === "." ? "" : d;
}
