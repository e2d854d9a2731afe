import { createHash } from "node:crypto";
import { lstatSync, readFileSync, realpathSync, type Stats } from "node:fs";
import { join, relative, sep } from "node:path";
import { gitTopLevel, runGit } from "../git";
import { gitSync } from "../gitRunner";
import { flaggedPaths } from "../flaggedFiles";
import { SESSIONS_DIR } from "../../engine/workspaceFiles";
import { readOwnFile, removeOwnFile, writeOwnFile } from "../ownFiles";

/**
 * What a shell command changed, told from git's view of the working tree before and after it (a shell
 * command names no files, so the pre-tool hook cannot stash them one by one as it does for a Write).
 *
 * Before: `git status` lists the files that differ from HEAD (modified, added, deleted, untracked); each is
 * fingerprinted and, when small, its content kept, because after the command it is gone. Every other file
 * is clean: its content before is HEAD's, read back with one `git cat-file --batch`. After: `git status`
 * again; a file is changed when it is listed now and was clean, or its fingerprint moved. The cost grows
 * with the number of dirty files, not the size of the repository (git's own status walk aside).
 */

const PENDING_DIR = `${SESSIONS_DIR}/pending`;
/** A dirty file larger than this is fingerprinted by size and time only, and its lines cannot be recorded. */
const CONTENT_LIMIT = 1024 * 1024;
/** Past this much kept content the snapshot keeps fingerprints only: a bounded stash. */
const CONTENT_TOTAL_LIMIT = 32 * 1024 * 1024;
/** Past this many dirty files the rest are fingerprinted by size and time, unread: bounded time. */
const READ_FILES_LIMIT = 5000;

interface SnapshotEntry {
  /** sha256 of the bytes, or "stat:<size>:<mtime>" for a file too large to read; null: no regular file there. */
  print: string | null;
  /** The content before the command (null: no file); absent when it was too large or binary to keep. */
  content?: string | null;
}

export interface ShellSnapshot {
  command: string;
  /** HEAD's commit before the command (undefined: no commit yet): what "clean" meant then. */
  head?: string;
  /** Dirty files (workspace-relative) before the command. */
  files: Record<string, SnapshotEntry>;
}

/** One file the command changed: its content before and after (null: no file). */
export interface ShellFileChange {
  path: string;
  before: string | null;
  after: string | null;
}

export interface ShellChanges {
  changed: ShellFileChange[];
  /** Changed, but which lines cannot be told: binary, too large to keep, or not a regular file. */
  unreadable: { path: string; why: string }[];
}

/** The snapshot's file, relative to the workspace root. */
function snapshotFile(callKey: string): string {
  return `${PENDING_DIR}/shell-${createHash("sha256").update(callKey).digest("hex").slice(0, 32)}.json`;
}

interface GitView {
  top: string;
  /** The workspace's folder inside the repository, "" or "app/". */
  prefix: string;
}

/** Where the workspace sits in its git repository, or undefined when it is not in one. */
export function gitView(root: string): GitView | undefined {
  const top = gitTopLevel(root);
  if (!top) return undefined;
  const rel = relative(realOrSame(top), realOrSame(root)).split(sep).join("/");
  return { top, prefix: rel ? `${rel}/` : "" };
}

/**
 * Before a shell command: fingerprints of every dirty file, kept until the post-tool hook. Returns false
 * when the workspace is not in a git repository (nothing is kept; the command's changes cannot be told).
 */
export function takeShellSnapshot(root: string, callKey: string, command: string): boolean {
  const view = gitView(root);
  if (!view) return false;
  const files: Record<string, SnapshotEntry> = {};
  let kept = 0;
  let count = 0;
  const status = gitStatus(root, view);
  for (const path of status.paths) {
    const read = readRegular(join(root, path), ++count > READ_FILES_LIMIT);
    const entry: SnapshotEntry = { print: read.print };
    if (read.print === null) entry.content = null;
    else if (read.text !== undefined && kept + read.text.length <= CONTENT_TOTAL_LIMIT) {
      entry.content = read.text;
      kept += read.text.length;
    }
    files[path] = entry;
  }
  const snapshot: ShellSnapshot = { command, ...(status.head ? { head: status.head } : {}), files };
  // it holds the content of every uncommitted file: written only where it really lands inside the workspace
  writeOwnFile(root, snapshotFile(callKey), JSON.stringify(snapshot), { durable: false });
  return true;
}

/**
 * The snapshot the pre-tool hook kept for this call, or undefined. It stays on disk until `dropSnapshot`,
 * after the record is appended: a hook service killed between the two leaves it for the call's own process,
 * which answers the call again and skips every file whose change the ledger already holds.
 */
export function readSnapshot(root: string, callKey: string): ShellSnapshot | undefined {
  let text: string | undefined;
  try {
    text = readOwnFile(root, snapshotFile(callKey));
  } catch {
    return undefined; // not where the pre-tool hook could have written it
  }
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as ShellSnapshot;
    return parsed && typeof parsed.files === "object" && parsed.files !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Removes a call's snapshot once its post hook is done with it (false from removeOwnFile: gone already). */
export function dropSnapshot(root: string, callKey: string): void {
  removeOwnFile(root, snapshotFile(callKey));
}

/** After the command: every file whose content is not what the snapshot says it was. */
export function changesSince(root: string, snapshot: ShellSnapshot): ShellChanges {
  const view = gitView(root);
  if (!view) return { changed: [], unreadable: [] };
  const { paths: now, head } = gitStatus(root, view);
  // a command that committed (or checked out) moved HEAD: files it committed are clean again, so also
  // look at what changed between the two commits
  const moved = snapshot.head && head !== snapshot.head ? committedPaths(root, view, snapshot.head, head) : [];
  // intent-lsp's own session files (this call's snapshot among them, kept until the record is appended) are
  // nobody's change
  const candidates = [...new Set([...Object.keys(snapshot.files), ...now, ...moved])].filter((p) => !p.startsWith(`${SESSIONS_DIR}/`)).sort();
  const out: ShellChanges = { changed: [], unreadable: [] };
  const cleanBefore: string[] = [];
  const after = new Map<string, ReturnType<typeof readRegular>>();
  for (const path of candidates) {
    const was = snapshot.files[path];
    // compared the way it was fingerprinted: unread files by size and time
    const read = readRegular(join(root, path), was?.print?.startsWith("stat:") === true);
    if (was && was.print === read.print) continue;
    after.set(path, read);
    if (!was) cleanBefore.push(path);
  }
  const atHead = headBlobs(view, snapshot.head, cleanBefore);
  for (const [path, read] of after) {
    const was = snapshot.files[path];
    const before = was ? was.content : atHead.contents.get(path);
    if (read.print !== null && read.text === undefined) out.unreadable.push({ path, why: read.why ?? "it cannot be read as text" });
    else if (before === undefined && !was && atHead.failed)
      out.unreadable.push({ path, why: `git did not give its content at HEAD (${atHead.failed}), so what the command changed in it is not known` });
    else if (before === undefined) out.unreadable.push({ path, why: "its content before the command was too large or binary to keep" });
    else out.changed.push({ path, before, after: read.print === null ? null : read.text! });
  }
  return out;
}

/**
 * Workspace-relative paths git lists as differing from HEAD or untracked (ignored files are not listed),
 * and HEAD's commit (from the same call's branch header: one process, not two).
 */
function gitStatus(root: string, view: GitView): { paths: string[]; head?: string } {
  const raw = runGit(root, ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all", "--", "."]);
  const paths: string[] = [];
  // files git is told not to look at (assume-unchanged, skip-worktree) are never in its status, whatever a
  // command writes there (a command can set the flag itself): each is compared as a dirty file is
  for (const path of [...parsePorcelainV2(raw), ...flaggedPaths(runGit(root, ["ls-files", "-v", "-z", "--full-name", "--", "."]))]) {
    // porcelain paths are relative to the repository's top, whatever the working directory
    if (path.startsWith(view.prefix)) paths.push(path.slice(view.prefix.length));
  }
  const oid = /(?:^|\0)# branch\.oid ([0-9a-f]{40,64})(?:\0|$)/.exec(raw)?.[1];
  return { paths, ...(oid ? { head: oid } : {}) };
}

/** Workspace paths that differ between two commits (undefined `to`: HEAD is gone, nothing to compare). */
function committedPaths(root: string, view: GitView, from: string, to: string | undefined): string[] {
  if (!to) return [];
  try {
    return runGit(root, ["diff", "--name-only", "--no-renames", "-z", from, to, "--", "."])
      .split("\0")
      .filter((p) => p !== "" && p.startsWith(view.prefix))
      .map((p) => p.slice(view.prefix.length));
  } catch {
    return [];
  }
}

/** Paths of `git status --porcelain=v2 -z --no-renames` entries (changed, unmerged, untracked). */
export function parsePorcelainV2(raw: string): string[] {
  const paths: string[] = [];
  for (const entry of raw.split("\0")) {
    if (!entry) continue;
    const kind = entry[0];
    // "1 XY sub mH mI mW hH hI path", "u XY sub m1 m2 m3 mW h1 h2 h3 path", "? path"
    const fields = kind === "1" ? 8 : kind === "u" ? 10 : kind === "?" ? 1 : -1;
    if (fields < 0) continue; // "!" ignored, "#" headers; "2" does not occur with --no-renames
    let at = 0;
    for (let i = 0; i < fields && at !== -1; i++) at = entry.indexOf(" ", at) + 1 || -1;
    if (at > 0) paths.push(entry.slice(at));
  }
  return paths;
}

/**
 * HEAD's content of each path: null when HEAD does not have it (the command created the file), absent when
 * it is not text. `failed`: git did not answer, and no path's content is known — never taken for "new", which
 * would credit the whole file to the command.
 */
function headBlobs(view: GitView, head: string | undefined, paths: readonly string[]): { contents: Map<string, string | null>; failed?: string } {
  const out = new Map<string, string | null>();
  if (!paths.length) return { contents: out };
  if (!head) {
    for (const p of paths) out.set(p, null); // no HEAD yet: every file was new
    return { contents: out };
  }
  const r = gitSync(view.top, ["cat-file", "--batch"], {
    input: `${paths.map((p) => `${head}:${view.prefix}${p}`).join("\n")}\n`,
    maxBuffer: 1024 * 1024 * 1024,
  });
  if (r.status !== 0 || !r.stdout) {
    const said = r.stderr?.toString().trim().split("\n")[0];
    // git that exits before reading the names leaves an EPIPE, yet its message says why
    const answered = r.error && (r.error as NodeJS.ErrnoException).code === "EPIPE" && r.status !== null;
    return { contents: out, failed: r.error && !answered ? r.error.message : said || `git cat-file exited ${r.status}` };
  }
  const buf = r.stdout as Buffer;
  let at = 0;
  for (const path of paths) {
    const eol = buf.indexOf(0x0a, at);
    if (eol === -1) break;
    const header = buf.subarray(at, eol).toString("utf8");
    at = eol + 1;
    const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
    if (!m) {
      out.set(path, null); // "<spec> missing": not in HEAD, so the command created it
      continue;
    }
    const size = Number(m[2]);
    const bytes = buf.subarray(at, at + size);
    at += size + 1;
    if (m[1] === "blob" && !bytes.includes(0)) out.set(path, bytes.toString("utf8"));
  }
  return { contents: out };
}

interface Read {
  print: string | null;
  /** The text, when the file is a small regular text file. */
  text?: string;
  why?: string;
}

/**
 * A regular file's fingerprint and text. Never follows a link or opens a FIFO or device (it could block
 * the hook or read without end); a large file is fingerprinted by size and time without being read.
 */
function readRegular(abs: string, statOnly = false): Read {
  let st: Stats;
  try {
    st = lstatSync(abs);
  } catch {
    return { print: null };
  }
  if (!st.isFile()) return { print: `kind:${st.mode}`, why: "it is not a regular file" };
  if (statOnly) return { print: `stat:${st.size}:${st.mtimeMs}:${st.ino}`, why: `more than ${READ_FILES_LIMIT} files differed from HEAD before the command` };
  if (st.size > CONTENT_LIMIT) return { print: `stat:${st.size}:${st.mtimeMs}:${st.ino}`, why: `it is larger than ${CONTENT_LIMIT / 1024 / 1024} MiB` };
  let bytes: Buffer;
  try {
    bytes = readFileSync(abs);
  } catch {
    return { print: null };
  }
  const print = createHash("sha256").update(bytes).digest("hex");
  return bytes.includes(0) ? { print, why: "it is binary" } : { print, text: bytes.toString("utf8") };
}

function realOrSame(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
