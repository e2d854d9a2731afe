/**
 * When each line of a file entered the current branch, followed through git's history as data: the
 * files' lines as runs of one commit time, and the changes of each commit (its -U0 hunks, renames, added and
 * deleted files) applied to them in order. io/commitDates.ts feeds it one walk of `git log --first-parent`;
 * the rule of how a line is dated is here once (docs/INSIGHT.md: "When an untraced line was written").
 */

/** A line not committed yet (changed since HEAD, or in a file HEAD does not have): of today. */
export const NOT_COMMITTED = -1;
/** A line git gives no time: it comes from before a shallow clone's first commit. */
export const BEFORE_SHALLOW = -2;

/** Consecutive lines of a file that entered the branch at one time: `at` (epoch s, or the marks above). */
export interface LineRun {
  /** How many lines; Infinity for the rest of a file, whatever its length (a file added whole). */
  lines: number;
  at: number;
}

/** One hunk of a `git diff -U0`: `@@ -oldStart,oldLines +newStart,newLines @@`. */
export interface Hunk {
  oldStart: number;
  oldLines: number;
  newLines: number;
}

/** Parses a hunk header (`@@ -3,2 +4 @@ context`); undefined when the line is not one. */
export function parseHunkHeader(line: string): Hunk | undefined {
  const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
  if (!m) return undefined;
  return { oldStart: Number(m[1]), oldLines: m[2] === undefined ? 1 : Number(m[2]), newLines: m[4] === undefined ? 1 : Number(m[4]) };
}

/** A whole file written at one time: what an added file (or one rewritten as binary) is. */
export const wholeFile = (at: number): LineRun[] => [{ lines: Number.POSITIVE_INFINITY, at }];

/**
 * A file's runs after a change: the lines each hunk removes go, the lines it adds enter at `at`, and every
 * other line keeps its time. Undefined when the hunks do not fit the runs (a hunk past the file's end, or
 * hunks out of order): the file's history is then not known, never guessed.
 */
export function applyHunks(runs: readonly LineRun[], hunks: readonly Hunk[], at: number): LineRun[] | undefined {
  const out: LineRun[] = [];
  const push = (lines: number, time: number) => {
    if (lines <= 0) return;
    const last = out.at(-1);
    if (last && last.at === time) last.lines += lines;
    else out.push({ lines, at: time });
  };
  let i = 0;
  // lines of runs[i] already taken or dropped
  let used = 0;
  // old lines passed so far
  let pos = 0;
  /** Takes `n` old lines from the runs, keeping them when `keep`; false when the runs end first. */
  const take = (n: number, keep: boolean): boolean => {
    while (n > 0) {
      const r = runs[i];
      if (!r) return false;
      const here = Math.min(n, r.lines - used);
      if (keep) push(here, r.at);
      used += here;
      n -= here;
      pos += here;
      if (used === r.lines) {
        i++;
        used = 0;
      }
    }
    return true;
  };
  for (const h of hunks) {
    // -U0: a hunk that removes nothing adds after line oldStart; one that removes starts at oldStart
    const before = h.oldLines === 0 ? h.oldStart : h.oldStart - 1;
    if (before < pos || !take(before - pos, true) || !take(h.oldLines, false)) return undefined;
    push(h.newLines, at);
  }
  for (; i < runs.length; i++, used = 0) push(runs[i]!.lines - used, runs[i]!.at);
  return out;
}

/** A file's section of a patch (`git log -p` / `git diff`), as far as dating its lines needs. */
export interface FilePatch {
  /** The path after the change (before it, for a deleted file). */
  path: string;
  /** The path before the change, when it is a rename. */
  from?: string;
  kind: "added" | "deleted" | "modified" | "binary";
  hunks: Hunk[];
}

/** One commit's change to a file as `git log --raw` names it. */
export interface RawChange {
  status: "A" | "D" | "M" | "T" | "R";
  path: string;
  from?: string;
}

/** The files' runs at some commit: path to runs (a file absent is not in that commit). A `Map` is one. */
export interface LineState {
  get(path: string): LineRun[] | undefined;
  set(path: string, runs: LineRun[]): unknown;
  delete(path: string): unknown;
}

/**
 * A commit's renames, deletions and additions (`git log --raw`) applied to `state`: a renamed file keeps
 * its runs under its new path, a deleted file drops them, an added (or type-changed) file is whole at `at`.
 * Its modifications' hunks come separately (`applyPatch`), after this.
 */
export function applyRawChanges(state: LineState, changes: readonly RawChange[], at: number): void {
  // a commit may rename a file away and add another at its old path: moves read the state before the commit
  const moved = changes.filter((c) => c.status === "R").map((c) => ({ path: c.path, runs: state.get(c.from!) }));
  for (const c of changes) if (c.status === "R") state.delete(c.from!);
  for (const c of changes) if (c.status === "D") state.delete(c.path);
  for (const m of moved) state.set(m.path, m.runs ?? wholeFile(at));
  for (const c of changes) if (c.status === "A" || c.status === "T") state.set(c.path, wholeFile(at));
}

/**
 * A file's patch applied to `state` at time `at`: a rename carries the runs, a deletion drops them, an added
 * file or a change git shows as binary (its lines cannot be followed through it) is whole at `at`, a
 * modification applies its hunks. False when the hunks do not fit what is known of the file.
 */
export function applyPatch(state: LineState, patch: FilePatch, at: number): boolean {
  if (patch.kind === "deleted") {
    state.delete(patch.path);
    return true;
  }
  let runs = patch.from !== undefined ? state.get(patch.from) : state.get(patch.path);
  if (patch.from !== undefined) state.delete(patch.from);
  if (patch.kind === "added" || patch.kind === "binary") {
    state.set(patch.path, wholeFile(at));
    return true;
  }
  if (!runs) return false;
  if (patch.hunks.length) runs = applyHunks(runs, patch.hunks, at);
  if (!runs) return false;
  state.set(patch.path, runs);
  return true;
}

/** A run of lines with the time they entered the branch: epoch ms, null (not committed yet: today). */
export interface DatedRange {
  start: number;
  end: number;
  ms: number | null;
}

/**
 * The times of the lines `ranges` (1-based, ascending) of a file with `runs`: one entry per stretch of one
 * time. Lines before a shallow clone's cut get none (undated); `cut` says whether any did. Undefined when a
 * range lies past the runs' end (what is known of the file does not match it).
 */
export function datesOfRanges(runs: readonly LineRun[], ranges: readonly { start: number; end: number }[]): { dates: DatedRange[]; cut: boolean } | undefined {
  const dates: DatedRange[] = [];
  let cut = false;
  let r = 0;
  // the first line of runs[r]
  let first = 1;
  for (const range of ranges) {
    let line = range.start;
    while (line <= range.end) {
      while (r < runs.length && first + runs[r]!.lines <= line) first += runs[r++]!.lines;
      const run = runs[r];
      if (!run) return undefined;
      const end = Math.min(range.end, first + run.lines - 1);
      if (run.at === BEFORE_SHALLOW) cut = true;
      else {
        const ms = run.at === NOT_COMMITTED ? null : run.at * 1000;
        const last = dates.at(-1);
        if (last && last.end === line - 1 && last.ms === ms) last.end = end;
        else dates.push({ start: line, end, ms });
      }
      line = end + 1;
    }
  }
  return { dates, cut };
}
