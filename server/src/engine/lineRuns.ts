/**
 * A document as a list of runs: a run of baseline lines (with the baseline number of its first) or a run of
 * edited lines. What the runs say about current lines (where a line came from, where baseline lines are now,
 * which blocks are edited) is read here in one pass over the runs, never over the lines; engine/editedLines.ts
 * keeps the runs right as the document is edited. Baseline runs are always in baseline order: edits insert,
 * delete and give back lines, never reorder them.
 */

export type Run = { base: number; length: number } | { base: null; length: number; refined: boolean };

export interface LineBlock {
  /** 0-based, inclusive. */
  start: number;
  end: number;
}

/** Baseline line number of a current line, or undefined if the line is edited. */
export function originOf(runs: readonly Run[], line: number): number | undefined {
  let at = 0;
  for (const r of runs) {
    if (line < at + r.length) return r.base === null ? undefined : r.base + (line - at);
    at += r.length;
  }
  return undefined;
}

/** Baseline line number of every current line (undefined where edited). */
export function originsOf(runs: readonly Run[]): (number | undefined)[] {
  const out: (number | undefined)[] = [];
  for (const r of runs) for (let i = 0; i < r.length; i++) out.push(r.base === null ? undefined : r.base + i);
  return out;
}

/** Contiguous blocks of edited lines, in document order: the first `limit` made, and how many there are in all. */
export function editedBlocks(runs: readonly Run[], limit = Number.POSITIVE_INFINITY): { blocks: LineBlock[]; total: number } {
  const blocks: LineBlock[] = [];
  let total = 0;
  let at = 0;
  for (const r of runs) {
    if (r.base === null && r.length > 0 && total++ < limit) blocks.push({ start: at, end: at + r.length - 1 });
    at += r.length;
  }
  return { blocks, total };
}

/** Whether an edited line lies among current lines `start`..`end` (0-based, inclusive): one walk, ending past `end`. */
export function editedWithin(runs: readonly Run[], start: number, end: number): boolean {
  let at = 0;
  for (const r of runs) {
    if (at > end) return false;
    if (r.base === null && r.length > 0 && at + r.length - 1 >= start) return true;
    at += r.length;
  }
  return false;
}

/**
 * Where baseline lines `baseStart..baseEnd` (0-based, inclusive) are now, for any number of ranges: one pass
 * over the runs, then each range found by binary search over the baseline runs, so a file's saved findings
 * cost the runs once, not once each. Blocks that touch in the current text are one block.
 */
export function blocksAt(runs: readonly Run[]): (baseStart: number, baseEnd: number) => LineBlock[] {
  const bases: number[] = [];
  const lengths: number[] = [];
  const starts: number[] = [];
  let at = 0;
  for (const r of runs) {
    if (r.base !== null) {
      bases.push(r.base);
      lengths.push(r.length);
      starts.push(at);
    }
    at += r.length;
  }
  return (baseStart, baseEnd) => {
    // the first baseline run that ends at or after baseStart
    let lo = 0;
    let hi = bases.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (bases[mid]! + lengths[mid]! <= baseStart) lo = mid + 1;
      else hi = mid;
    }
    const out: LineBlock[] = [];
    for (let k = lo; k < bases.length && bases[k]! <= baseEnd; k++) {
      const base = bases[k]!;
      const from = Math.max(baseStart, base);
      const to = Math.min(baseEnd, base + lengths[k]! - 1);
      if (from > to) continue;
      const start = starts[k]! + (from - base);
      const end = starts[k]! + (to - base);
      const last = out[out.length - 1];
      if (last && last.end === start - 1) last.end = end;
      else out.push({ start, end });
    }
    return out;
  };
}

/**
 * The index of the run that starts at current line `line` (the number of runs past the end), splitting in
 * place the run that holds it. The walk starts at `near` (run `index` starts at line `at`), where the last
 * edit was: an edit typed near it steps over the few runs between, not every run above it.
 */
export function cutRuns(runs: Run[], near: { index: number; at: number }, line: number): { index: number; walked: number } {
  let { index, at } = near;
  if (index > runs.length) index = at = 0;
  const start = index;
  while (index > 0 && at > line) at -= runs[--index]!.length;
  while (index < runs.length && at + runs[index]!.length <= line) at += runs[index++]!.length;
  const walked = Math.abs(index - start);
  if (index < runs.length && at < line) {
    const r = runs[index]!;
    const left = line - at;
    if (r.base === null) runs.splice(index, 1, { base: null, length: left, refined: r.refined }, { base: null, length: r.length - left, refined: r.refined });
    else runs.splice(index, 1, { base: r.base, length: left }, { base: r.base + left, length: r.length - left });
    index++;
  }
  return { index, walked };
}

/**
 * Joins each run in [from, to) to the run before it (the run just before `from` included) where both are
 * edited, or both baseline runs with contiguous numbers, and drops empty ones; in place, touching only
 * those runs, so an edit pays for the few runs it made.
 */
export function coalesceWithin(runs: Run[], from: number, to: number): void {
  const end = Math.min(to, runs.length);
  let w = from;
  for (let i = from; i < end; i++) {
    const r = runs[i]!;
    if (r.length === 0) continue;
    const last = w > 0 ? runs[w - 1] : undefined;
    if (last && last.base === null && r.base === null) runs[w - 1] = { base: null, length: last.length + r.length, refined: last.refined && r.refined };
    else if (last && last.base !== null && r.base !== null && last.base + last.length === r.base)
      runs[w - 1] = { base: last.base, length: last.length + r.length };
    else runs[w++] = r;
  }
  runs.splice(w, end - w);
}
