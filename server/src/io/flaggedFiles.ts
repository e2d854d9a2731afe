/**
 * Files git is told not to look at (`git update-index --assume-unchanged` or `--skip-worktree`): git's diff
 * takes them to be as the index has them, whatever the working tree holds, and a command can set the flag
 * itself. `intent check`, the editor and the shell snapshot judge the working tree, so such a file's lines
 * are diffed here, against the base, with the engine's line diff (every line whose text differs, whitespace
 * included, counts as changed, and a hunk runs across such lines, as in git's diff).
 */
import { diffTexts, type Segment } from "../engine/lineChange";
import { textLines } from "../engine/lines";
import type { FileDiff } from "./git";

/**
 * The paths of `git ls-files -v -z` output whose entry is flagged: a lower-case tag (assume-unchanged) or
 * `S`/`s` (skip-worktree). Paths as git printed them (relative to its working directory, or with
 * `--full-name` to the repository's top).
 */
export function flaggedPaths(lsFilesV: string): string[] {
  const out: string[] = [];
  for (const entry of lsFilesV.split("\0")) {
    const tag = entry.slice(0, 1);
    if (tag !== tag.toUpperCase() || tag === "S") out.push(entry.slice(2));
  }
  return out;
}

/**
 * How the flagged file `path` differs from the base: `before` its text there (undefined: not in the base),
 * `after` its text in the working tree. Undefined when the two are the same.
 */
export function flaggedDiff(path: string, before: string | undefined, after: string): FileDiff | undefined {
  if (before === after) return undefined;
  const status = before === undefined ? "added" : "modified";
  if (after.includes("\0") || before?.includes("\0")) return { path, status, binary: true, lines: [], removed: [] };
  const change = diffTexts(before ?? null, after);
  // a file new since the base carries no line
  const exact = before === undefined ? [] : exactlyCarried(change.carried, textLines(before), textLines(after));
  return { path, status, binary: false, lines: uncarriedNewLines(exact, change.newCount), removed: removedHunks(exact, change.oldCount, change.newCount) };
}

/**
 * The carried lines whose text is exactly the same, one segment each: the engine pairs lines equal but for
 * their whitespace, which git counts as changed (and a hunk of its own runs across them).
 */
function exactlyCarried(carried: readonly Segment[], oldLines: readonly string[], newLines: readonly string[]): Segment[] {
  const out: Segment[] = [];
  for (const s of carried) {
    // Stryker disable next-line EqualityOperator: equivalent: one line past a segment is the next segment's first (already pushed, or not carried, then different text) or past both texts' ends, where no line is counted
    for (let k = 0; k < s.length; k++)
      if (oldLines[s.oldStart + k] === newLines[s.newStart + k]) out.push({ oldStart: s.oldStart + k, newStart: s.newStart + k, length: 1 });
  }
  return out;
}

/** 1-based new lines outside the carried segments. */
function uncarriedNewLines(carried: readonly Segment[], newCount: number): number[] {
  const out: number[] = [];
  let next = 0;
  for (const s of [...carried, { oldStart: 0, newStart: newCount, length: 0 }]) {
    for (let l = next; l < s.newStart; l++) out.push(l + 1);
    next = s.newStart + s.length;
  }
  return out;
}

/** Where old lines went and no new line took their place: after new line `after` (0: the top), `count` of them. */
function removedHunks(carried: readonly Segment[], oldCount: number, newCount: number): FileDiff["removed"] {
  const out: FileDiff["removed"] = [];
  let oldNext = 0;
  let newNext = 0;
  for (const s of [...carried, { oldStart: oldCount, newStart: newCount, length: 0 }]) {
    if (s.oldStart > oldNext && s.newStart === newNext) out.push({ after: newNext, count: s.oldStart - oldNext });
    oldNext = s.oldStart + s.length;
    newNext = s.newStart + s.length;
  }
  return out;
}
