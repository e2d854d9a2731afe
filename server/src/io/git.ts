/**
 * The few git questions `intent check`, `intent context` and the recorders ask. Diffs, merge-bases and
 * the index are answered by the `git` executable (the only way to read packs and the index faithfully);
 * HEAD's commit, asked on every save, is read from the files (`headRevision`). Output parsing is pure and
 * exported for tests.
 */
import { join } from "node:path";
import { textLines } from "../engine/lines";
import { findGitDir, readCommonDir, readText } from "./gitDir";
import { gitSpawn, gitSync } from "./gitRunner";
import { readRegularBytes } from "./regularFiles";
import { flaggedToDiff, privateIndex } from "./flaggedFiles";

/** git's well-known empty tree: the base for a repository without commits, so every line counts as added. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

export class GitError extends Error {
  override name = "GitError";
}

export function runGit(cwd: string, args: readonly string[]): string {
  const r = gitSync(cwd, args, { encoding: "utf8" });
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

/**
 * The person git knows for this workspace (`user.name`, `user.email`, with git's own precedence of local,
 * global and system configuration). Reading configuration runs no hook, alias or other configured command.
 */
export function gitIdentity(root: string): { name?: string; email?: string } {
  const out = tryGit(root, ["config", "-z", "--get-regexp", "^user\\.(name|email)$"]) ?? "";
  const found: { name?: string; email?: string } = {};
  for (const item of out.split("\0")) {
    const nl = item.indexOf("\n");
    if (nl < 0) continue;
    const key = item.slice(0, nl);
    if (key === "user.name") found.name = item.slice(nl + 1);
    else if (key === "user.email") found.email = item.slice(nl + 1);
  }
  return found;
}

interface Base {
  /** What the user reads: the ref as given, or how the default was chosen. */
  label: string;
  /** What git diffs against: a commit, or the empty tree. */
  rev: string;
}

/** A git question of the base rule (its arguments); the answer is git's output, undefined when git failed. */
type GitQuestion = readonly string[];
type BaseSteps = Generator<GitQuestion, Base, string | undefined>;

/** The commit a ref names, or undefined when it does not exist. */
function* commitOf(ref: string): Generator<GitQuestion, string | undefined, string | undefined> {
  return (yield ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`])?.trim() || undefined;
}

/**
 * `--base REF` when given; else, for staged changes, HEAD (a pre-commit check judges what this commit adds,
 * not the branch); else the merge-base of HEAD with the first of origin/HEAD, main, master that exists
 * (what a pull request would show); else HEAD (local, uncommitted work); else the empty tree. Written once
 * as the questions it asks git, so that `intent check` (`chooseBase`) and the editor (`chooseBaseAsync`,
 * which never blocks the server while git runs) choose by the same rule.
 */
function* baseRule(root: string, given: string | undefined, staged: boolean): BaseSteps {
  if (given) {
    const rev = yield* commitOf(given);
    if (!rev) throw new GitError(`--base ${given} is not a commit in ${root}; fetch it first (e.g. \`git fetch origin ${given}\`) or pass another ref`);
    return { label: given, rev };
  }
  const head = yield* commitOf("HEAD");
  if (!head) return { label: "the empty tree (no commits yet)", rev: EMPTY_TREE };
  if (staged) return { label: "HEAD", rev: head };
  for (const candidate of ["origin/HEAD", "main", "master"]) {
    if (!(yield* commitOf(candidate))) continue;
    const mb = (yield ["merge-base", "HEAD", candidate])?.trim();
    if (mb) return { label: `merge-base of HEAD and ${candidate} (${mb.slice(0, 12)})`, rev: mb };
  }
  return { label: "HEAD", rev: head };
}

export function chooseBase(root: string, given: string | undefined, opts: { staged?: boolean } = {}): Base {
  const rule = baseRule(root, given, opts.staged ?? false);
  for (let step = rule.next(); ; ) {
    if (step.done) return step.value;
    step = rule.next(tryGit(root, step.value));
  }
}

/** `chooseBase` with git asked through `ask` (undefined when git failed): the editor's, without blocking. */
export async function chooseBaseAsync(root: string, ask: (args: readonly string[]) => Promise<string | undefined>): Promise<Base> {
  const rule = baseRule(root, undefined, false);
  for (let step = rule.next(); ; ) {
    if (step.done) return step.value;
    step = rule.next(await ask(step.value));
  }
}

export interface FileDiff {
  /** Workspace-relative path in the new version (the old path for a deletion). */
  path: string;
  status: "added" | "modified" | "deleted" | "renamed";
  /** The path in the base a renamed or copied file came from. */
  from?: string;
  binary: boolean;
  /** 1-based line numbers of the new version that were added or changed, ascending. */
  lines: number[];
  /**
   * Hunks that removed lines and added none: `after` is the new version's line they follow (0: the top),
   * `count` how many went. A deleted file's removal is its status, not a hunk here.
   */
  removed: { after: number; count: number }[];
}

/**
 * Changed lines between `base` and the working tree (tracked files), or the index with `staged`. Files git
 * does not track yet are not in a diff; with `includeUntracked` each of them counts as wholly added.
 */
export function diffLines(root: string, base: string, opts: { staged: boolean; includeUntracked: boolean }): FileDiff[] {
  // --relative: paths relative to (and only under) the workspace, which may be a folder inside the repository.
  // -z --raw names every file exactly (NUL-separated, never quoted) at no extra cost (no line diff); the
  // --unified=0 patch that follows gives each file's hunks, its sections in the same order.
  const args = ["diff", "--relative", "-z", "--raw", "--patch", "--unified=0", "--no-color", "--no-ext-diff", "--no-textconv", "-M"];
  if (opts.staged) args.push("--cached");
  args.push(base);
  const files = parseRawPatch(runGit(root, [...args, "--"]));
  // the working tree's own bytes of files git is told not to look at (the index is what a staged diff reads)
  if (!opts.staged) withFlaggedFiles(root, base, args, files);
  if (opts.includeUntracked) {
    const untracked = runGit(root, ["ls-files", "--others", "--exclude-standard", "-z"]).split("\0").filter(Boolean);
    for (const path of untracked) files.push(wholeFileAdded(root, path));
  }
  return files;
}

/**
 * `files` with what git says of each flagged file (io/flaggedFiles.ts) when it looks at it: diffed through a
 * private index made from the base, in place of what git said of it through the real one.
 */
function withFlaggedFiles(root: string, base: string, args: readonly string[], files: FileDiff[]): void {
  const paths = flaggedToDiff(root, runGit(root, ["ls-files", "-v", "-z", "--", "."]));
  if (!paths.length) return;
  const index = privateIndex();
  try {
    const run = (a: readonly string[]) => {
      const r = gitSync(root, a, { encoding: "utf8", env: index.env });
      if (r.error || r.status !== 0)
        throw new GitError(
          `git ${a[0]} failed in ${root} (diffing the files git is told not to look at): ${(r.error?.message ?? r.stderr).trim().split("\n")[0]}`,
        );
      return r.stdout;
    };
    run(["read-tree", base]);
    const flagged = parseRawPatch(run([...args, "--", ...paths]));
    const named = new Set(paths);
    for (let i = files.length - 1; i >= 0; i--) if (named.has(files[i]!.path)) files.splice(i, 1);
    files.push(...flagged);
  } finally {
    index.dispose();
  }
}

/** An untracked file, every line of it new (binary when it holds a NUL byte, as git decides). */
function wholeFileAdded(root: string, path: string): FileDiff {
  let bytes: Buffer;
  try {
    bytes = readRegularBytes(join(root, path)); // an untracked FIFO must not hang `intent check`
  } catch {
    return { path, status: "added", binary: false, lines: [], removed: [] }; // vanished between listing and reading, or not a regular file
  }
  if (bytes.includes(0)) return { path, status: "added", binary: true, lines: [], removed: [] };
  return { path, status: "added", binary: false, lines: lineNumbers(bytes.toString("utf8")), removed: [] };
}

/** 1..n for the lines of a text as blame counts them (`textLines`); an empty file has none. */
function lineNumbers(text: string): number[] {
  return text === "" ? [] : textLines(text).map((_, i) => i + 1);
}

/** A file's content at a revision (`HEAD`, a sha) or in the index (`""`); undefined when absent there. */
export function showFile(root: string, rev: string, path: string): string | undefined {
  return tryGit(root, ["show", `${rev}:${path}`]);
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

const RAW_STATUS: Record<string, FileDiff["status"]> = { A: "added", C: "added", D: "deleted", R: "renamed" };

/**
 * Parses `git diff -z --raw --patch --unified=0` output: NUL-separated raw entries (`:modes shas STATUS`,
 * the path, and for a rename or copy the old and the new path), an empty entry, then the patch. Names and
 * statuses come from the raw side only, so no quoted or escaped header is ever parsed; the patch gives the
 * hunks, one `diff --git` section per entry in the same order, except a type change (a file become a
 * link), which git shows as a deletion and an addition. Output that does not line up is an error, never a
 * guess: a line credited to the wrong file would be a wrong finding.
 */
export function parseRawPatch(output: string): FileDiff[] {
  const files: FileDiff[] = [];
  const sectionsOf: number[] = [];
  let at = 0;
  const field = () => {
    const end = output.indexOf("\0", at);
    const value = output.slice(at, end === -1 ? output.length : end);
    at = end === -1 ? output.length : end + 1;
    return value;
  };
  while (at < output.length) {
    const header = field();
    if (header === "") break; // the separator before the patch
    if (!header.startsWith(":")) throw new GitError(`git diff printed "${header.slice(0, 80)}" where a raw entry was expected`);
    const status = header.slice(header.lastIndexOf(" ") + 1)[0] ?? "M";
    const from = status === "R" || status === "C" ? field() : undefined;
    files.push({ path: field(), status: RAW_STATUS[status] ?? "modified", ...(from !== undefined ? { from } : {}), binary: false, lines: [], removed: [] });
    sectionsOf.push(status === "T" ? 2 : 1);
  }
  const owner: number[] = sectionsOf.flatMap((n, i) => Array<number>(n).fill(i));
  const sections = readPatchSections(output.slice(at), files, owner);
  if (sections !== owner.length)
    throw new GitError(
      `git diff gave ${sections} patch sections for ${files.length} files (${owner.length} expected); run it again, or report this with the output of \`git diff --raw\``,
    );
  return files;
}

/** Adds each section's changed lines and binary flag to the file that owns it; how many sections there were. */
function readPatchSections(patch: string, files: FileDiff[], owner: readonly number[]): number {
  let section = -1;
  let oldLeft = 0;
  let newLeft = 0;
  let wholeDeletion = false;
  for (const line of patch.split("\n")) {
    // inside a hunk body every line belongs to the hunk, whatever it looks like ("diff --git" can be content)
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
      section++;
      wholeDeletion = false;
      continue;
    }
    const current = files[owner[section] ?? -1];
    if (!current) continue;
    if (line.startsWith("deleted file mode "))
      wholeDeletion = true; // a deletion, or the old half of a type change
    else if (line.startsWith("Binary files ")) current.binary = true;
    else {
      const m = HUNK.exec(line);
      if (!m) continue;
      const oldCount = m[2] === undefined ? 1 : Number(m[2]);
      const start = Number(m[3]);
      const count = m[4] === undefined ? 1 : Number(m[4]);
      for (let n = 0; n < count; n++) current.lines.push(start + n);
      if (count === 0 && oldCount > 0 && !wholeDeletion) current.removed.push({ after: start, count: oldCount });
      oldLeft = oldCount;
      newLeft = count;
    }
  }
  return section + 1;
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

/**
 * Objects by name (`<rev>:./<path>`, each without a line break) read with one `git cat-file --batch`: each
 * blob's bytes, or undefined where git has none of that name or it is not a blob. Undefined when git did not
 * answer, or its answer did not line up with the names asked (never a blob given to the wrong name).
 */
export function catFileBatch(cwd: string, names: readonly string[], timeoutMs: number): (Buffer | undefined)[] | undefined {
  if (!names.length) return [];
  const r = gitSync(cwd, ["cat-file", "--batch"], { input: batchInput(names), timeoutMs, maxBuffer: BATCH_MAX_BYTES });
  return r.error || r.status !== 0 ? undefined : readBatch(r.stdout, names);
}

/** `catFileBatch` in the background (the editor never waits for a process): git's output gathered as bytes. */
export function catFileBatchAsync(cwd: string, names: readonly string[], timeoutMs: number): Promise<(Buffer | undefined)[] | undefined> {
  if (!names.length) return Promise.resolve([]);
  return new Promise((resolve) => {
    const child = gitSpawn(cwd, ["cat-file", "--batch"], { stdio: ["pipe", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const end = (answer: (Buffer | undefined)[] | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (answer === undefined) child.kill("SIGKILL");
      resolve(answer);
    };
    const timer = setTimeout(() => end(undefined), timeoutMs);
    child.on("error", () => end(undefined));
    child.stdin!.on("error", () => end(undefined));
    child.stdout!.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > BATCH_MAX_BYTES) end(undefined);
      else chunks.push(chunk);
    });
    child.on("close", (code) => end(code === 0 ? readBatch(Buffer.concat(chunks), names) : undefined));
    child.stdin!.end(batchInput(names));
  });
}

/** The most bytes of objects one batch reads. */
const BATCH_MAX_BYTES = 2 * 1024 * 1024 * 1024 - 1;

const batchInput = (names: readonly string[]) => `${names.join("\n")}\n`;

/** `git cat-file --batch`'s output read against the names asked, in order (see catFileBatch). */
function readBatch(buf: Buffer, names: readonly string[]): (Buffer | undefined)[] | undefined {
  const out: (Buffer | undefined)[] = [];
  let at = 0;
  for (const name of names) {
    const eol = buf.indexOf(0x0a, at);
    if (eol === -1) return undefined;
    const header = buf.subarray(at, eol).toString("utf8");
    at = eol + 1;
    const m = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(header);
    if (!m) {
      // "<name> missing" (or "ambiguous"): nothing of that name
      if (!header.startsWith(name)) return undefined;
      out.push(undefined);
      continue;
    }
    const size = Number(m[2]);
    if (at + size + 1 > buf.length) return undefined;
    out.push(m[1] === "blob" ? buf.subarray(at, at + size) : undefined);
    at += size + 1;
  }
  return out;
}
