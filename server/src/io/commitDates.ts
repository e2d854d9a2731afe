/**
 * When untraced lines entered the code, for the history of `intent stats` / `intent report` and the window
 * of `intent check`'s summary (docs/INSIGHT.md: "When an untraced line was written"). A line is dated at
 * the committer time of the commit that brought it onto the current branch: HEAD's first-parent history
 * is walked once, oldest first, and each commit's changes are applied to every file's lines
 * (engine/lineTimes.ts). A line merged from a side branch dates at the merge. A line changed since HEAD
 * (in the working tree, or the index for a staged check), or in a file HEAD does not have, is not
 * committed yet: of today.
 *
 * The walk is two git calls (`git log --raw` for the files each commit adds, deletes and renames, and
 * `git log -p -U0` of the files it modifies, read as a stream), bounded in time and size. What it learnt is
 * kept per commit in the cache folder, so the next run walks only the commits since, when that commit is
 * still on HEAD's first-parent history, or from the walk kept at the commit the last walk went on from
 * when that one is (a HEAD reset or amended; else it walks from the start). A walk stopped by its bound keeps
 * what it walked; the lines stay undated, with the reason, until a later run reaches HEAD: never guessed.
 * So do lines from before a shallow clone's first commit.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import type { CommitDate, UntracedDates } from "../engine/insight";
import { COMMIT_MARK, parseRawLog, PatchReader, type RawCommit, walkCuts } from "../engine/gitPatch";
import { applyPatch, applyRawChanges, BEFORE_SHALLOW, datesOfRanges, NOT_COMMITTED, type FilePatch, type LineRun, type LineState } from "../engine/lineTimes";
import { boundedGit, boundedGitAsync, lineSplitter, streamGitInOrder } from "./boundedGit";
import { CACHE_DIR, workspaceCacheDir } from "./cacheDir";
import { type CacheKind, readCheckedCache, writeCheckedCache } from "./checkedCache";

/** How long one walk of the history may take, in all; a longer one goes on from there next run. */
export const WALK_TIMEOUT_MS = 30_000;
/** Bytes of patches one walk reads at most (a larger history goes on from there next run). */
const MAX_PATCH_BYTES = 2 * 1024 * 1024 * 1024;
/** Bytes of the list of changed files one walk reads at most. */
const MAX_RAW_BYTES = 512 * 1024 * 1024;
/** How long one short git question may take. */
const SHORT_TIMEOUT_MS = 10_000;

export const LINE_TIMES_CACHE = `${CACHE_DIR}/insight-lines.json`;
/**
 * The walk as it was at the commit the last walk went on from: when HEAD moves back to it or past it on
 * another line (`git commit --amend`, `git reset HEAD~`, a rebuilt last commit), the walk goes on from there
 * instead of from the start of the history.
 */
export const LINE_TIMES_BASE = `${CACHE_DIR}/insight-lines-base.json`;
const FORMAT = 2;
/** The kept walks as io/checkedCache.ts checks them (one kind: the walk at HEAD is copied to the base as it is). */
const WALK_KIND: CacheKind = { name: "insight-lines", format: FORMAT, checksum: "sha256" };

const HEAD_ARGS = ["rev-parse", "--verify", "-q", "HEAD^{commit}"];
const REPO_ARGS = ["rev-parse", "--git-dir"];

/** HEAD's commit; null when the repository has no commit yet; undefined when git cannot say. */
export function headCommit(root: string): string | null | undefined {
  const head = boundedGit(root, HEAD_ARGS, { timeoutMs: SHORT_TIMEOUT_MS });
  if (head === undefined) return undefined;
  if (head.ok) return head.out.trim();
  const repo = boundedGit(root, REPO_ARGS, { timeoutMs: SHORT_TIMEOUT_MS });
  return repo?.ok ? null : undefined;
}

/** `headCommit` without blocking (the editor never waits for a process). */
async function headCommitAsync(root: string): Promise<string | null | undefined> {
  const head = await boundedGitAsync(root, HEAD_ARGS, { timeoutMs: SHORT_TIMEOUT_MS });
  if (head === undefined) return undefined;
  if (head.ok) return head.out.trim();
  const repo = await boundedGitAsync(root, REPO_ARGS, { timeoutMs: SHORT_TIMEOUT_MS });
  return repo?.ok ? null : undefined;
}

/**
 * `git log` of HEAD's first-parent history, a merge shown as what it brought onto the branch, whatever the
 * user's configuration says: what the walk and `pathsChangedSince` read.
 */
const FIRST_PARENT_LOG = ["-c", "log.showRoot=true", "-c", "log.showSignature=false", "log", "--first-parent", "--diff-merges=first-parent"];

/** Commits `pathsChangedSince` lists at most: past that, git's walk of the history is asked instead. */
const MAX_CHANGED_COMMITS = 1000;

/**
 * The workspace paths the commits since `from` changed, when `from` is on HEAD's first-parent history: each
 * commit's changes against its first parent (a merge: what it brought onto the branch; a rename: both
 * paths). A file none of them changed has at `head` the lines it had at `from`, each brought onto the branch
 * by the same commit. Undefined when `from` is not on that history (an amended or rebased commit, a HEAD
 * moved back), the commits are too many, or git does not answer: the caller then asks the walk.
 */
export async function pathsChangedSince(root: string, from: string, head: string): Promise<Set<string> | undefined> {
  const out = await boundedGitAsync(
    root,
    [
      ...FIRST_PARENT_LOG,
      "--no-renames",
      "--relative",
      "--name-only",
      "-z",
      `--max-count=${MAX_CHANGED_COMMITS}`,
      "--format=%x01%H %P",
      `${from}..${head}`,
      "--",
    ],
    { timeoutMs: SHORT_TIMEOUT_MS, maxBytes: MAX_RAW_BYTES },
  );
  if (!out?.ok) return undefined;
  const paths = new Set<string>();
  let oldestParent: string | undefined;
  // each commit: \x01, its hash and parents, NUL, then the paths it changed, each ended by NUL
  for (const commit of out.out.split("\x01").slice(1)) {
    const headerEnd = commit.indexOf("\0");
    oldestParent = commit.slice(0, headerEnd === -1 ? undefined : headerEnd).split(" ")[1];
    if (headerEnd === -1) continue;
    for (const path of commit.slice(headerEnd + 1).split("\0")) {
      const p = path.replace(/^\n/, "");
      if (p) paths.add(p);
    }
  }
  // the oldest commit listed must sit right on `from`: otherwise `from` is not on HEAD's first-parent line
  return oldestParent === from ? paths : undefined;
}

/** When the lines of the working tree's (or the index's) files entered the code. */
export interface LineDating {
  /** The times of `ranges` (1-based, ascending) of `path` (workspace-relative), or why git cannot tell. */
  datesOf(path: string, ranges: readonly { start: number; end: number }[]): UntracedDates;
}

const undatedAll = (undated: string): LineDating => ({ datesOf: () => ({ undated }) });

/** How long the walk may take (ms), and when it must be done (epoch ms). */
interface Bound {
  ms: number;
  deadline: number;
  /** Ranges of the history whose patches git reads at once, at most; each has at least `perPart` patches of files. */
  parts: number;
  perPart: number;
}

/** How a walk is bounded and split (`lineDating`). */
export interface WalkOptions {
  /** How long it may take in all (default WALK_TIMEOUT_MS). */
  ms?: number;
  /**
   * Git processes reading patches at once (default: the processors, at most 4): git's diffs are most of a
   * walk's time, so a long history is read in consecutive ranges side by side and applied in order.
   */
  parts?: number;
  /** Files' patches each range has at least (default PATCHES_PER_PART): a short history is one range. */
  perPart?: number;
}

/** Patches of files a range of the walk has at least: fewer are not worth another git process. */
const PATCHES_PER_PART = 2000;
/** Characters of patches a range held while those before it are read (`streamGitInOrder`), at most, in all. */
const HELD_CHARS = 256 * 1024 * 1024;

/** What the walk knows at a commit: each file's runs, and the shallow clone's cuts it was walked with. */
interface Walked {
  commit: string;
  /** Whether the files were checked against the commit's tree (a walk stopped by its bound is not). */
  checked: boolean;
  shallow: string[];
  files: Map<string, LineRun[]>;
}

/**
 * The dating of the lines of the working tree (`against: "worktree"`: `intent stats`, `intent report`,
 * `intent check`) or of the index (`"index"`: `intent check --staged`), as one walk of HEAD's history and
 * one diff from HEAD. `walkOptions`: how long the walk may take and how it is split (`WalkOptions`; tests set them).
 */
export async function lineDating(root: string, against: "worktree" | "index", walkOptions: WalkOptions = {}): Promise<LineDating> {
  const head = await headCommitAsync(root);
  if (head === undefined) return undatedAll("git cannot be asked when lines were committed here (no repository, or git did not answer)");
  if (head === null) return { datesOf: (_p, ranges) => ranges.map((r) => ({ start: r.start, end: r.end, ms: null })) };
  const walkMs = walkOptions.ms ?? WALK_TIMEOUT_MS;
  const bound: Bound = {
    ms: walkMs,
    deadline: Date.now() + walkMs,
    parts: walkOptions.parts ?? Math.min(4, availableParallelism()),
    perPart: walkOptions.perPart ?? PATCHES_PER_PART,
  };
  const walked = await linesAtHead(root, head, bound);
  if ("undated" in walked) return undatedAll(walked.undated);
  const now = await sinceHead(root, head, against, bound.deadline, walked.files);
  if ("undated" in now) return undatedAll(now.undated);
  const { changed, lost } = now;
  return {
    datesOf(path, ranges) {
      if (lost.has(path)) return { undated: `git diff's changes to ${path} since HEAD could not be followed` };
      const runs = changed.has(path) ? changed.get(path) : walked.files.get(path);
      // the walk holds every file of HEAD (checked against its tree) and the diff every file the index adds:
      // a file in neither is untracked, not committed at all
      if (!runs) return ranges.map((r) => ({ start: r.start, end: r.end, ms: null }));
      const known = datesOfRanges(runs, ranges);
      if (!known) return { undated: `${path} has more lines than git's history accounts for` };
      const dates: CommitDate[] = known.dates;
      return known.cut
        ? { undated: "the clone is shallow: lines from before its first commit have no date (`git fetch --unshallow` dates them)", dates }
        : dates;
    },
  };
}

/** The lines of HEAD's files as the walk dates them: from the cache, walked on from it, or walked anew. */
async function linesAtHead(root: string, head: string, bound: Bound): Promise<Walked | { undated: string }> {
  const shallow = await shallowCuts(root);
  if (shallow === undefined) return { undated: "git cannot say whether this clone is shallow" };
  const kept = loadWalked(root, shallow, LINE_TIMES_CACHE);
  if (kept?.walked.commit === head) return atHead(root, kept.walked, LINE_TIMES_CACHE);
  let walked: Walked | { undated: string } | "not on HEAD" = "not on HEAD";
  if (kept) {
    walked = await walk(root, kept.walked, head, bound);
    // the walk went on from the kept one: that one is the base a HEAD moved back to it goes on from
    if (walked !== "not on HEAD") saveText(root, LINE_TIMES_BASE, kept.text);
  }
  if (walked === "not on HEAD") {
    const base = loadWalked(root, shallow, LINE_TIMES_BASE);
    if (base?.walked.commit === head) return atHead(root, base.walked, LINE_TIMES_BASE);
    if (base) walked = await walk(root, base.walked, head, bound);
  }
  if (walked === "not on HEAD") walked = await walk(root, { commit: "", checked: false, shallow, files: new Map() }, head, bound);
  if (walked === "not on HEAD") return { undated: "git's history of HEAD could not be read" };
  return walked;
}

/** A kept walk (in `rel`) at HEAD itself, checked against HEAD's tree once. */
async function atHead(root: string, walked: Walked, rel: string): Promise<Walked | { undated: string }> {
  if (walked.checked) return walked;
  const wrong = await sameFilesAsHead(root, walked);
  if (wrong) return wrong;
  saveWalked(root, { ...walked, checked: true }, rel);
  return walked;
}

/** The commits of a shallow clone whose parents it does not have; [] when it is not shallow. */
async function shallowCuts(root: string): Promise<string[] | undefined> {
  const file = await boundedGitAsync(root, ["rev-parse", "--git-path", "shallow"], { timeoutMs: SHORT_TIMEOUT_MS });
  if (!file?.ok) return undefined;
  try {
    return readFileSync(resolve(root, file.out.trim()), "utf8").split("\n").filter(Boolean).sort();
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? [] : undefined;
  }
}

/** A commit's changes, kept apart until the commit is whole: a walk stopped inside one keeps none of it. */
class CommitChanges implements LineState {
  /** Each changed path's runs (undefined: deleted). */
  readonly changed = new Map<string, LineRun[] | undefined>();
  constructor(private readonly base: Map<string, LineRun[]>) {}
  get(path: string): LineRun[] | undefined {
    return this.changed.has(path) ? this.changed.get(path) : this.base.get(path);
  }
  set(path: string, runs: LineRun[]): void {
    this.changed.set(path, runs);
  }
  delete(path: string): void {
    this.changed.set(path, undefined);
  }
  /** Applies the commit's changes to the base. */
  commit(): void {
    for (const [path, runs] of this.changed) {
      if (runs) this.base.set(path, runs);
      else this.base.delete(path);
    }
    this.changed.clear();
  }
}

/** Git's options for the walk. */
const WALK_OPTIONS = [...FIRST_PARENT_LOG, "--reverse", "-M", "--relative", "--no-ext-diff", "--no-textconv"];

/**
 * Walks `from.commit`..`head` (from the start when `from.commit` is ""), applying each commit to `from`'s
 * files. "not on HEAD" when `from.commit` is not on HEAD's first-parent history.
 */
async function walk(root: string, from: Walked, head: string, bound: Bound): Promise<Walked | { undated: string } | "not on HEAD"> {
  const { deadline } = bound;
  const range = from.commit ? `${from.commit}..${head}` : head;
  const tooLarge = (walkedTo: string) => `git's history is too large to walk in ${bound.ms / 1000} s (walked to ${walkedTo}); the next run goes on from there`;
  const raw = await boundedGitAsync(root, [...WALK_OPTIONS, "--raw", "-z", "--no-abbrev", `--format=${COMMIT_MARK}%H %ct %P`, range, "--"], {
    timeoutMs: Math.max(1, deadline - Date.now()),
    maxBytes: MAX_RAW_BYTES,
  });
  if (raw === undefined) return { undated: tooLarge(from.commit ? `commit ${from.commit.slice(0, 12)}` : "no commit yet") };
  if (!raw.ok) return from.commit ? "not on HEAD" : { undated: "git log could not read HEAD's history" };
  const commits = parseRawLog(raw.out);
  if (!commits) return { undated: "git log's list of changed files could not be read" };
  if (from.commit && commits[0]?.parents[0] !== from.commit) return "not on HEAD";
  if (commits.at(-1)?.sha !== head) return { undated: "git log did not walk to HEAD" };
  const shallow = new Set(from.shallow);
  const files = from.files;
  let done = from.commit;
  let next = 0;
  let changes: CommitChanges | undefined;
  let at = 0;
  let broken: string | undefined;
  /** Applies the changed-files lists of commits up to `sha` (those before it have no patch of their own). */
  const begin = (c: RawCommit) => {
    changes?.commit();
    if (changes) done = commits[next - 1]!.sha;
    changes = new CommitChanges(files);
    // a shallow clone's cut shows its whole tree as added: those lines have no known time
    at = shallow.has(c.sha) && c.parents.length === 0 ? BEFORE_SHALLOW : c.time;
    applyRawChanges(changes, c.changes, at);
    next++;
  };
  const reader = new PatchReader(
    (patch: FilePatch) => {
      if (!changes || broken) return;
      // the changed-files list moved a renamed file already: its hunks apply at the new path
      const { from: _from, ...atPath } = patch;
      if (!applyPatch(changes, atPath, at)) broken = patch.path;
    },
    (header) => {
      while (next < commits.length && commits[next]!.sha !== header.sha) begin(commits[next]!);
      if (next < commits.length) begin(commits[next]!);
      else broken = `commit ${header.sha}`;
    },
  );
  // the patches of each range, in order; each range's output split into lines of its own
  const ranges = walkRanges(commits, from.commit, bound);
  let lines = lineSplitter((l) => reader.push(l));
  let part = 0;
  const end = await streamGitInOrder(
    root,
    ranges.map((r) => [
      ...WALK_OPTIONS,
      "-p",
      "-U0",
      "--inter-hunk-context=0",
      "--no-color",
      "--diff-filter=MR",
      "--src-prefix=a/",
      "--dst-prefix=b/",
      `--format=${COMMIT_MARK}%H %ct`,
      r,
      "--",
    ]),
    { deadline, maxBytes: MAX_PATCH_BYTES, heldBytes: HELD_CHARS / Math.max(1, ranges.length - 1) },
    (text, k) => {
      if (k !== part) {
        lines.end();
        lines = lineSplitter((l) => reader.push(l));
        part = k;
      }
      lines.push(text);
      return broken === undefined;
    },
  );
  if (broken !== undefined || reader.malformed) return { undated: `git log's patches could not be followed (at ${broken ?? "a malformed line"})` };
  if (end.kind !== "exited") {
    // what was walked is kept: the next run goes on from the last whole commit
    if (done && done !== from.commit) saveWalked(root, { commit: done, checked: false, shallow: from.shallow, files });
    return { undated: tooLarge(done ? `commit ${done.slice(0, 12)}` : "no commit yet") };
  }
  if (end.code !== 0) return { undated: "git log could not show HEAD's patches" };
  lines.end();
  reader.end();
  while (next < commits.length) begin(commits[next]!);
  changes?.commit();
  const walked: Walked = { commit: head, checked: false, shallow: from.shallow, files };
  const wrong = await sameFilesAsHead(root, walked);
  if (wrong) return wrong;
  walked.checked = true;
  saveWalked(root, walked);
  return walked;
}

/**
 * The ranges of `commits` (oldest first, walked from `from`: "" for the start) whose patches git reads side
 * by side (`engine/gitPatch.ts` `walkCuts`), as git's revision ranges.
 */
function walkRanges(commits: readonly RawCommit[], from: string, bound: Bound): string[] {
  const starts = [0, ...walkCuts(commits, bound.parts, bound.perPart)];
  return starts.map((start, k) => {
    const last = commits[(starts[k + 1] ?? commits.length) - 1]!.sha;
    const before = start === 0 ? from : commits[start - 1]!.sha;
    return before ? `${before}..${last}` : last;
  });
}

/**
 * Checks the walk against HEAD's tree: a file the walk lost or kept too long means its patches were not
 * read right, and nothing of the walk is trusted.
 */
async function sameFilesAsHead(root: string, walked: Walked): Promise<{ undated: string } | undefined> {
  const tree = await boundedGitAsync(root, ["ls-tree", "-r", "-z", "--name-only", walked.commit], { timeoutMs: SHORT_TIMEOUT_MS });
  if (!tree?.ok) return { undated: "git ls-tree could not list HEAD's files" };
  const paths = tree.out.split("\0").filter(Boolean);
  const missing = paths.find((p) => !walked.files.has(p));
  if (missing !== undefined || paths.length !== walked.files.size)
    return { undated: `git's history walk does not match HEAD's files (${missing ?? "a file HEAD does not have"})` };
  return undefined;
}

/** The files changed since HEAD (in the working tree, or the index) as runs. */
async function sinceHead(
  root: string,
  head: string,
  against: "worktree" | "index",
  deadline: number,
  files: Map<string, LineRun[]>,
): Promise<{ changed: Map<string, LineRun[] | undefined>; lost: Set<string> } | { undated: string }> {
  const timeoutMs = Math.max(SHORT_TIMEOUT_MS, deadline - Date.now());
  const diff = await boundedGitAsync(
    root,
    [
      "diff",
      ...(against === "index" ? ["--cached"] : []),
      "-U0",
      "--inter-hunk-context=0",
      "-M",
      "--relative",
      "--no-color",
      "--no-ext-diff",
      "--no-textconv",
      "--src-prefix=a/",
      "--dst-prefix=b/",
      head,
      "--",
    ],
    { timeoutMs, maxBytes: MAX_RAW_BYTES },
  );
  if (!diff?.ok) return { undated: "git diff could not say which lines changed since HEAD" };
  const changes = new CommitChanges(files);
  const lost = new Set<string>();
  const reader = new PatchReader((p) => {
    if (!applyPatch(changes, p, NOT_COMMITTED)) lost.add(p.path);
  });
  for (const line of diff.out.split("\n")) reader.push(line);
  reader.end();
  if (reader.malformed) return { undated: "git diff's patch since HEAD could not be read" };
  return { changed: changes.changed, lost };
}

/** Reads a walk kept in the cache folder (and its text), when it was walked with the same shallow cuts. */
function loadWalked(root: string, shallow: readonly string[], rel: string): { walked: Walked; text: string } | undefined {
  let stored: { format: number; commit: string; checked: boolean; shallow: string[]; files: (string | number)[][] };
  let text: string | undefined;
  try {
    text = readCheckedCache(root, rel, WALK_KIND)?.toString("utf8");
    if (text === undefined) return undefined;
    stored = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (stored?.format !== FORMAT || typeof stored.commit !== "string" || !Array.isArray(stored.files)) return undefined;
  if (JSON.stringify(stored.shallow) !== JSON.stringify(shallow)) return undefined;
  const files = new Map<string, LineRun[]>();
  for (const f of stored.files) {
    if (!Array.isArray(f) || typeof f[0] !== "string") return undefined;
    const runs: LineRun[] = [];
    for (let i = 1; i + 1 < f.length; i += 2) {
      const lines = f[i];
      const at = f[i + 1];
      if (typeof lines !== "number" || typeof at !== "number") return undefined;
      // an open run (the rest of a file) is kept as -1 lines: JSON has no Infinity
      runs.push({ lines: lines < 0 ? Number.POSITIVE_INFINITY : lines, at });
    }
    files.set(f[0], runs);
  }
  return { walked: { commit: stored.commit, checked: stored.checked === true, shallow: stored.shallow, files }, text };
}

/** Keeps the walk in the cache folder (`rel`: the walk at HEAD unless named). */
function saveWalked(root: string, walked: Walked, rel = LINE_TIMES_CACHE): void {
  const files: (string | number)[][] = [];
  for (const [path, runs] of walked.files) {
    const row: (string | number)[] = [path];
    for (const r of runs) row.push(r.lines === Number.POSITIVE_INFINITY ? -1 : r.lines, r.at);
    files.push(row);
  }
  saveText(root, rel, JSON.stringify({ format: FORMAT, commit: walked.commit, checked: walked.checked, shallow: walked.shallow, files }));
}

/** Writes a kept walk's text (quietly nothing when it cannot be: it is only a cache). */
function saveText(root: string, rel: string, text: string): void {
  if (!workspaceCacheDir(root, { create: true })) return;
  writeCheckedCache(root, rel, WALK_KIND, text); // false in a read-only checkout: walked again next time
}
