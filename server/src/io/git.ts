/**
 * The few git questions `intent check`, `intent context` and the recorders ask. Diffs, merge-bases and
 * the index are answered by the `git` executable (the only way to read packs and the index faithfully);
 * HEAD's commit, asked on every save, is read from the files (`headRevision`). Output parsing is pure and
 * exported for tests.
 */
import type { spawnSync as SpawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** git's well-known empty tree: the base for a repository without commits, so every line counts as added. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

export class GitError extends Error {
  override name = "GitError";
}

/** Options that make git's output the same whatever the user's configuration says. */
const STABLE_CONFIG = ["-c", "core.quotePath=false", "-c", "color.ui=false", "-c", "diff.noprefix=false"];

export function runGit(cwd: string, args: readonly string[]): string {
  // required here: reading HEAD (every recorded write) needs no process, and loading this module costs a hook
  const spawnSync = (require("node:child_process") as { spawnSync: typeof SpawnSync }).spawnSync;
  const r = spawnSync("git", [...STABLE_CONFIG, ...args], { cwd, encoding: "utf8", maxBuffer: 512 * 1024 * 1024 });
  if (r.error) {
    const why = (r.error as NodeJS.ErrnoException).code === "ENOENT" ? "git is not installed or not on PATH" : r.error.message;
    throw new GitError(`could not run git ${args[0]} in ${cwd}: ${why}`);
  }
  if (r.status !== 0) {
    const first = (r.stderr || r.stdout || "").trim().split("\n")[0] || `exit code ${r.status}`;
    throw new GitError(`git ${args.join(" ")} failed in ${cwd}: ${first}`);
  }
  return r.stdout;
}

function tryGit(cwd: string, args: readonly string[]): string | undefined {
  try {
    return runGit(cwd, args);
  } catch {
    return undefined;
  }
}

export function gitTopLevel(cwd: string): string | undefined {
  return tryGit(cwd, ["rev-parse", "--show-toplevel"])?.trim() || undefined;
}

/** The commit a ref names, or undefined when it does not exist. */
function resolveCommit(root: string, ref: string): string | undefined {
  return tryGit(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`])?.trim() || undefined;
}

interface Base {
  /** What the user reads: the ref as given, or how the default was chosen. */
  label: string;
  /** What git diffs against: a commit, or the empty tree. */
  rev: string;
}

/**
 * `--base REF` when given; else the merge-base of HEAD with the first of origin/HEAD, main, master that
 * exists (what a pull request would show); else HEAD (local, uncommitted work); else the empty tree.
 */
export function chooseBase(root: string, given: string | undefined): Base {
  if (given) {
    const rev = resolveCommit(root, given);
    if (!rev) throw new GitError(`--base ${given} is not a commit in ${root}; fetch it first (e.g. \`git fetch origin ${given}\`) or pass another ref`);
    return { label: given, rev };
  }
  const head = resolveCommit(root, "HEAD");
  if (!head) return { label: "the empty tree (no commits yet)", rev: EMPTY_TREE };
  for (const candidate of ["origin/HEAD", "main", "master"]) {
    if (!resolveCommit(root, candidate)) continue;
    const mb = tryGit(root, ["merge-base", "HEAD", candidate])?.trim();
    if (mb) return { label: `merge-base of HEAD and ${candidate} (${mb.slice(0, 12)})`, rev: mb };
  }
  return { label: "HEAD", rev: head };
}

interface FileDiff {
  /** Workspace-relative path in the new version (the old path for a deletion). */
  path: string;
  status: "added" | "modified" | "deleted" | "renamed";
  binary: boolean;
  /** 1-based line numbers of the new version that were added or changed, ascending. */
  lines: number[];
}

/**
 * Changed lines between `base` and the working tree (tracked files), or the index with `staged`. Files git
 * does not track yet are not in a diff; with `includeUntracked` each of them counts as wholly added.
 */
export function diffLines(root: string, base: string, opts: { staged: boolean; includeUntracked: boolean }): FileDiff[] {
  // --relative: paths relative to (and only under) the workspace, which may be a folder inside the repository
  const args = ["diff", "--relative", "--unified=0", "--no-color", "--no-ext-diff", "--no-textconv", "-M", "--src-prefix=a/", "--dst-prefix=b/"];
  if (opts.staged) args.push("--cached");
  args.push(base, "--");
  const files = parseUnifiedDiff(runGit(root, args));
  if (opts.includeUntracked) {
    const untracked = runGit(root, ["ls-files", "--others", "--exclude-standard", "-z"]).split("\0").filter(Boolean);
    for (const path of untracked) files.push(wholeFileAdded(root, path));
  }
  return files;
}

/** An untracked file, every line of it new (binary when it holds a NUL byte, as git decides). */
function wholeFileAdded(root: string, path: string): FileDiff {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(root, path));
  } catch {
    return { path, status: "added", binary: false, lines: [] }; // vanished between listing and reading
  }
  if (bytes.includes(0)) return { path, status: "added", binary: true, lines: [] };
  return { path, status: "added", binary: false, lines: lineNumbers(bytes.toString("utf8")) };
}

/** 1..n for the lines of a text; a final newline ends the last line rather than starting another. */
function lineNumbers(text: string): number[] {
  if (text === "") return [];
  const n = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  return Array.from({ length: n }, (_, i) => i + 1);
}

/** A file's content at a revision (`HEAD`, a sha) or in the index (`""`); undefined when absent there. */
export function showFile(root: string, rev: string, path: string): string | undefined {
  return tryGit(root, ["show", `${rev}:${path}`]);
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Parses `git diff --unified=0` output (with a/ b/ prefixes) into changed line numbers per file. */
export function parseUnifiedDiff(text: string): FileDiff[] {
  const files: FileDiff[] = [];
  let current: FileDiff | undefined;
  let oldLeft = 0;
  let newLeft = 0;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // inside a hunk body every line belongs to the hunk, whatever it looks like ("+++ b/x" can be content)
    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith("-")) oldLeft--;
      else if (line.startsWith("+")) newLeft--;
      else if (line.startsWith(" ")) {
        oldLeft--;
        newLeft--;
      }
      continue;
    }
    if (line.startsWith("diff --git ")) {
      current = { path: headerPath(line), status: "modified", binary: false, lines: [] };
      files.push(current);
    } else if (!current) {
      continue;
    } else if (line.startsWith("new file mode")) current.status = "added";
    else if (line.startsWith("deleted file mode")) current.status = "deleted";
    else if (line.startsWith("rename to ")) {
      current.status = "renamed";
      current.path = unquote(line.slice("rename to ".length));
    } else if (line.startsWith("Binary files ")) current.binary = true;
    else if (line.startsWith("--- ")) {
      if (current.status === "deleted") current.path = stripPrefix(line.slice(4), "a/");
    } else if (line.startsWith("+++ ")) {
      const p = line.slice(4);
      if (!p.startsWith("/dev/null")) current.path = stripPrefix(p, "b/");
    } else {
      const m = HUNK.exec(line);
      if (!m) continue;
      const oldCount = m[2] === undefined ? 1 : Number(m[2]);
      const start = Number(m[3]);
      const count = m[4] === undefined ? 1 : Number(m[4]);
      for (let n = 0; n < count; n++) current.lines.push(start + n);
      oldLeft = oldCount;
      newLeft = count;
    }
  }
  return files;
}

/** The new path of a `diff --git a/X b/Y` header; only used when no ---/+++ lines follow (binary, mode-only). */
function headerPath(line: string): string {
  const rest = line.slice("diff --git ".length);
  if (rest.startsWith('"')) {
    const parts = rest.match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? [];
    return stripPrefix(parts[parts.length - 1] ?? "", "b/");
  }
  // unquoted "a/X b/X": for an unchanged name both halves are equal, so split in the middle
  const half = (rest.length - 1) / 2;
  return Number.isInteger(half) && rest[half] === " " ? stripPrefix(rest.slice(half + 1), "b/") : stripPrefix(rest.split(" b/").pop() ?? rest, "b/");
}

function stripPrefix(raw: string, prefix: string): string {
  // git appends a tab to ---/+++ names that contain a space
  const p = unquote(raw.endsWith("\t") ? raw.slice(0, -1) : raw);
  return p.startsWith(prefix) ? p.slice(prefix.length) : p;
}

/** git's C-style quoting of unusual names ("tab\there", octal escapes for non-UTF-8 bytes). */
function unquote(s: string): string {
  if (!s.startsWith('"') || !s.endsWith('"') || s.length < 2) return s;
  const bytes: number[] = [];
  const body = s.slice(1, -1);
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, "\\": 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const next = body[i + 1] ?? "";
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

// --- HEAD without a process ----------------------------------------------------------------------------

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
/** Refs that live in each worktree's own git dir; every other ref is shared through the common dir. */
const PER_WORKTREE_REF = /^(HEAD|refs\/(bisect|worktree|rewritten)\/)/;

/**
 * The commit HEAD points at, for the repository `root` lies in (the workspace may be a folder inside it),
 * read from the files, never by starting `git`: records are written on every save, and `git` may be absent.
 * Follows a `.git` file (`gitdir: …`, worktrees and submodules), `commondir` (a worktree's branches live in
 * the main repository), loose refs, then `packed-refs`. Undefined for an unborn branch, no repository, or a
 * ref store this does not read (reftable).
 */
export function headRevision(root: string): string | undefined {
  const gitDir = findGitDir(root);
  if (!gitDir) return undefined;
  const commonDir = readCommonDir(gitDir);
  let ref = "HEAD";
  for (let depth = 0; depth < 5; depth++) {
    const value = readRef(PER_WORKTREE_REF.test(ref) ? gitDir : commonDir, ref);
    if (value === undefined) return undefined;
    if (!value.startsWith("ref:")) return OBJECT_ID.test(value) ? value : undefined;
    ref = value.slice(4).trim(); // a symbolic ref: HEAD → refs/heads/main
  }
  return undefined;
}

/** The git dir of the repository `start` is in: the nearest `.git` at or above it, a folder or a `gitdir:` file. */
function findGitDir(start: string): string | undefined {
  let dir = resolve(start);
  for (;;) {
    const dotGit = join(dir, ".git");
    const kind = fileKind(dotGit);
    if (kind === "dir") return dotGit;
    if (kind === "file") {
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? "");
      return m ? resolve(dir, m[1]!) : undefined; // relative to the folder holding the .git file
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** A linked worktree's git dir names the main one in `commondir` (relative to itself); else it is its own. */
function readCommonDir(gitDir: string): string {
  const common = readText(join(gitDir, "commondir"))?.trim();
  return common ? resolve(gitDir, common) : gitDir;
}

/** A ref's value as stored: a loose file first, then `packed-refs` (which never holds HEAD). */
function readRef(dir: string, ref: string): string | undefined {
  const loose = readText(join(dir, ref))?.trim();
  if (loose) return loose;
  if (ref === "HEAD") return undefined;
  const packed = readText(join(dir, "packed-refs"));
  if (!packed) return undefined;
  for (const line of packed.split("\n")) {
    if (line.startsWith("#") || line.startsWith("^")) continue; // the header, peeled tags
    const space = line.indexOf(" ");
    if (space > 0 && line.slice(space + 1).trimEnd() === ref) return line.slice(0, space);
  }
  return undefined;
}

function fileKind(path: string): "dir" | "file" | undefined {
  try {
    const s = statSync(path);
    return s.isDirectory() ? "dir" : s.isFile() ? "file" : undefined;
  } catch {
    return undefined;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
