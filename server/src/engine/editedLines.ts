/**
 * Which lines of a document were edited since its baseline (the text at open, last save or reload), kept
 * right as lines are inserted and deleted above them, and which baseline line every other line is.
 *
 * The document is a list of runs: a run of baseline lines (with their baseline numbers) or a run of edited
 * lines. An edit splices runs, so its cost grows with the number of runs near the edit and the size of the
 * edited region, never with the length of the file. After each edit the edited region is compared with the
 * baseline lines it replaced from both ends, so text typed and then undone stops being "edited".
 *
 * Edited regions that merged (an edit next to another) may hold unchanged baseline lines between changed
 * ones, and lines whose change is whitespace only (not an edit: the line keeps its origin and is remembered
 * as reformatted); `refine` compares each region with its baseline lines line by line and gives those back.
 * It is the costlier step, so it runs when an answer is needed (publish, save, hover), not per keystroke.
 */
import { normalizeLine } from "./hashing";
import { matchLines, toSpans, type LineChange, type Segment } from "./lineChange";
import { appendAll } from "./appendAll";
import { blocksAt, coalesceWithin, cutRuns, editedBlocks, editedWithin, type LineBlock, originOf, originsOf, type Run } from "./lineRuns";

export type { LineBlock } from "./lineRuns";

export interface EditedLinesSnapshot {
  readonly baseline: readonly string[];
  readonly runs: readonly Run[];
  readonly reformatted: ReadonlySet<number>;
}

/** More regions to compare than this, and `refine` rebuilds the runs in one pass instead of splicing each in. */
export const SPLICED_REGIONS = 64;
/** A region that comes back as more runs than this is joined in by copying, not spread into a splice. */
const SPLICED_PIECES = 10_000;

export class EditedLines {
  /** Owned by the tracker alone (a snapshot copies them), so an edit splices it in place. */
  private runs: Run[];
  /** Baseline lines given back whose text differs from the baseline's in whitespace only. */
  private reformatted = new Set<number>();
  /**
   * A run whose first current line is known: run `index` starts at line `at`. Runs before the last edit do
   * not move, so the next edit, typed near it, finds its run by walking from here, not from the top.
   */
  private near = { index: 0, at: 0 };
  private walked = 0;

  constructor(private baseline: readonly string[]) {
    this.runs = baseline.length ? [{ base: 0, length: baseline.length }] : [];
  }

  /** Starts over from `baseline` (after a save, or when the document is reloaded). */
  reset(baseline: readonly string[]): void {
    this.baseline = baseline;
    this.runs = baseline.length ? [{ base: 0, length: baseline.length }] : [];
    this.reformatted.clear();
    this.near = { index: 0, at: 0 };
  }

  /** A copy of the tracker's state, to go back to with `restore`. */
  snapshot(): EditedLinesSnapshot {
    return { baseline: this.baseline, runs: this.runs.map((r) => ({ ...r })), reformatted: new Set(this.reformatted) };
  }

  restore(s: EditedLinesSnapshot): void {
    this.baseline = s.baseline;
    this.runs = s.runs.map((r) => ({ ...r }));
    this.reformatted = new Set(s.reformatted);
    this.near = { index: 0, at: 0 };
  }

  /** Runs an edit stepped over to find where it lands, since the tracker was made (what tests count instead of time). */
  get runsWalked(): number {
    return this.walked;
  }

  get lineCount(): number {
    let n = 0;
    for (const r of this.runs) n += r.length;
    return n;
  }

  /**
   * Lines `startLine..endLine` (inclusive; `endLine = startLine - 1` for a pure insertion) were replaced by
   * `newLineCount` lines, all of which now count as edited. `lineAt` reads the document after the change.
   */
  replace(startLine: number, endLine: number, newLineCount: number, lineAt: (line: number) => string): void {
    const removed = Math.max(0, endLine - startLine + 1);
    if (removed === 0 && newLineCount <= 0) return;
    const from = this.cut(startLine);
    const to = this.cut(startLine + removed);
    this.runs.splice(from, to - from, { base: null, length: newLineCount, refined: false });
    this.normalize(from, startLine, lineAt);
  }

  /** The index of the run that starts at current line `line`, walking from the last edit (`cutRuns`). */
  private cut(line: number): number {
    const found = cutRuns(this.runs, this.near, line);
    this.walked += found.walked;
    this.near = { index: found.index, at: line };
    return found.index;
  }

  /** Baseline line number of a current line, or undefined if the line was edited. */
  origin(line: number): number | undefined {
    return originOf(this.runs, line);
  }

  /** How many current lines are edited (no baseline line), counted over the runs, not the lines. */
  editedCount(): number {
    let n = 0;
    for (const r of this.runs) if (r.base === null) n += r.length;
    return n;
  }

  /** Baseline line number of every current line (undefined where edited), in one pass over the runs. */
  origins(): (number | undefined)[] {
    return originsOf(this.runs);
  }

  /**
   * Where baseline lines are now: a function of a 0-based inclusive baseline range that gives the blocks of
   * current lines still those baseline lines (edited ones are not). The runs are read once (`blocksAt`), so
   * many ranges cost them once.
   */
  blockFinder(): (baseStart: number, baseEnd: number) => LineBlock[] {
    return blocksAt(this.runs);
  }

  /** Whether any of current lines `start`..`end` (0-based, inclusive) is edited, without making the blocks. */
  touchesEdited(start: number, end: number): boolean {
    return editedWithin(this.runs, start, end);
  }

  /** Contiguous blocks of edited lines, in document order. */
  blocks(): LineBlock[] {
    return editedBlocks(this.runs).blocks;
  }

  /** The first `limit` blocks of edited lines, and how many there are: a file edited on every other line makes no object for each. */
  firstBlocks(limit: number): { blocks: LineBlock[]; total: number } {
    return editedBlocks(this.runs, limit);
  }

  isEdited(): boolean {
    return this.runs.some((r) => r.base === null && r.length > 0);
  }

  /** Whether a baseline line was carried with a whitespace-only change. */
  isReformatted(baseLine: number): boolean {
    return this.reformatted.has(baseLine);
  }

  /**
   * Compares every edited region not compared yet with the baseline lines it stands in for, line by line,
   * giving back the lines that are unchanged. True when anything was given back.
   */
  refine(lineAt: (line: number) => string): boolean {
    const refined = refineRuns(this.runs, this.baseline, lineAt, (base, text) => this.noteGivenBack(base, text));
    this.runs = refined.runs;
    this.near = { index: 0, at: 0 };
    return refined.changed;
  }

  /**
   * How the lines changed from the baseline to the current text: baseline runs are carried, reformatted where
   * remembered so, everything else changed. `oldCount`/`newCount` clip away the phantom last line that a final
   * line break leaves in `splitLines` (records count lines as `textLines` does).
   */
  lineChange(oldCount: number, newCount: number, lineAt: (line: number) => string): LineChange {
    return lineChangeOf(this.runs, this.baseline, this.reformatted, oldCount, newCount, lineAt);
  }

  private noteGivenBack(base: number, current: string): void {
    if (normalizeLine(current) === normalizeLine(this.baseline[base]!)) this.reformatted.delete(base);
    else this.reformatted.add(base);
  }

  /**
   * Merges the edited run at `index` (starting at current line `at`) with edited neighbours, then gives back
   * to the baseline every line at either end of it that equals the baseline line it stands in for.
   */
  private normalize(index: number, at: number, lineAt: (line: number) => string): void {
    let lo = index;
    let hi = index;
    let first = at; // current line number of the edited region
    while (lo > 0 && this.runs[lo - 1]!.base === null) first -= this.runs[--lo]!.length;
    while (hi + 1 < this.runs.length && this.runs[hi + 1]!.base === null) hi++;
    let length = 0;
    for (let i = lo; i <= hi; i++) length += this.runs[i]!.length;
    const prev = lo > 0 ? (this.runs[lo - 1] as { base: number; length: number }) : undefined;
    const next = hi + 1 < this.runs.length ? (this.runs[hi + 1] as { base: number; length: number }) : undefined;
    // baseline lines [gapStart, gapEnd) were replaced by the edited region
    let gapStart = prev ? prev.base + prev.length : 0;
    let gapEnd = next ? next.base : this.baseline.length;

    let head = 0;
    while (head < length && gapStart < gapEnd && sameLine(lineAt(first + head), this.baseline[gapStart])) {
      this.noteGivenBack(gapStart, lineAt(first + head));
      head++;
      gapStart++;
    }
    let tail = 0;
    while (tail < length - head && gapStart < gapEnd && sameLine(lineAt(first + length - 1 - tail), this.baseline[gapEnd - 1])) {
      this.noteGivenBack(gapEnd - 1, lineAt(first + length - 1 - tail));
      tail++;
      gapEnd--;
    }

    const middle: Run[] = [];
    if (head) middle.push({ base: gapStart - head, length: head });
    if (length - head - tail) middle.push({ base: null, length: length - head - tail, refined: false });
    if (tail) middle.push({ base: gapEnd, length: tail });
    this.runs.splice(lo, hi - lo + 1, ...middle);
    // the run before the region may grow by what joins it but keeps its start: the next edit walks from there
    this.near = lo > 0 ? { index: lo - 1, at: first - this.runs[lo - 1]!.length } : { index: 0, at: 0 };
    coalesceWithin(this.runs, lo, lo + middle.length + 1);
  }
}

/** `EditedLines.lineChange` of the tracker's runs over `baseline` (`reformatted`: baseline lines given back reformatted). */
function lineChangeOf(
  runs: readonly Run[],
  baseline: readonly string[],
  reformattedLines: ReadonlySet<number>,
  oldCount: number,
  newCount: number,
  lineAt: (line: number) => string,
): LineChange {
  const carried: Segment[] = [];
  const reformatted: number[] = [];
  let at = 0;
  for (const r of runs) {
    if (r.base !== null) {
      const length = Math.min(r.length, oldCount - r.base, newCount - at);
      if (length > 0) {
        carried.push({ oldStart: r.base, newStart: at, length });
        if (reformattedLines.size) {
          for (let k = 0; k < length; k++) {
            const b = r.base + k;
            if (reformattedLines.has(b) && normalizeLine(lineAt(at + k)) !== normalizeLine(baseline[b]!)) reformatted.push(at + k);
          }
        }
      }
    }
    at += r.length;
  }
  return { oldCount, newCount, carried, reformatted: toSpans(reformatted) };
}

/** What `refine` hears of: a baseline line given back, and the text that stands for it now. */
type GivenBack = (base: number, text: string) => void;

/**
 * `EditedLines.refine` over `runs`: each region not compared yet matched line by line against the baseline
 * lines between its neighbours. A few regions (the usual publish) are spliced in where they are, the last
 * first so that earlier ones keep their index; many (a replace-all) rebuild the runs in one pass.
 */
function refineRuns(runs: Run[], baseline: readonly string[], lineAt: (line: number) => string, givenBack: GivenBack): { runs: Run[]; changed: boolean } {
  // the regions not compared yet, and the current line each starts at (lines do not move in a refine)
  const regions: number[] = [];
  const starts: number[] = [];
  let at = 0;
  for (let i = 0; i < runs.length; i++) {
    const r = runs[i]!;
    if (r.base === null && !r.refined) {
      regions.push(i);
      starts.push(at);
    }
    at += r.length;
  }
  if (regions.length === 0) return { runs, changed: false };
  if (regions.length > SPLICED_REGIONS) return refineInOnePass(runs, baseline, regions[0]!, starts[0]!, lineAt, givenBack);
  let out = runs;
  let changed = false;
  for (let k = regions.length - 1; k >= 0; k--) {
    const i = regions[k]!;
    const pieces = regionPieces(out, i, out, i, starts[k]!, baseline, lineAt, givenBack);
    if (pieces.length !== 1 || pieces[0]!.base !== null) changed = true;
    if (pieces.length <= SPLICED_PIECES) out.splice(i, 1, ...pieces);
    else out = appendAll(appendAll(out.slice(0, i), pieces), out.slice(i + 1));
    coalesceWithin(out, i, i + pieces.length + 1);
  }
  return { runs: out, changed };
}

/** `refineRuns` for many regions: the runs rebuilt in one pass from the first region on. */
function refineInOnePass(
  runs: readonly Run[],
  baseline: readonly string[],
  first: number,
  firstStart: number,
  lineAt: (line: number) => string,
  givenBack: GivenBack,
): { runs: Run[]; changed: boolean } {
  let changed = false;
  let at = firstStart;
  const out: Run[] = runs.slice(0, first);
  for (let i = first; i < runs.length; i++) {
    const r = runs[i]!;
    if (r.base === null && !r.refined) {
      const pieces = regionPieces(runs, i, out, out.length, at, baseline, lineAt, givenBack);
      if (pieces.length !== 1 || pieces[0]!.base !== null) changed = true;
      appendAll(out, pieces);
    } else out.push(r);
    at += r.length;
  }
  // the runs before the first region compared are as they were, joined already
  if (changed) coalesceWithin(out, first, out.length);
  return { runs: out, changed };
}

/**
 * The runs the unrefined region `runs[i]`, starting at current line `at`, becomes: matched against the baseline
 * lines between its neighbours (the one before it is `before[beforeEnd - 1]`, the one after `runs[i + 1]`).
 */
function regionPieces(
  runs: readonly Run[],
  i: number,
  before: readonly Run[],
  beforeEnd: number,
  at: number,
  baseline: readonly string[],
  lineAt: (line: number) => string,
  givenBack: GivenBack,
): Run[] {
  const prev = before[beforeEnd - 1];
  const next = runs[i + 1];
  const gapStart = prev && prev.base !== null ? prev.base + prev.length : baseEndBefore(before, beforeEnd);
  const gapEnd = next && next.base !== null ? next.base : baseStartAfter(runs, i + 1, baseline.length);
  return regionRuns(baseline, gapStart, gapEnd, at, runs[i]!.length, lineAt, givenBack);
}

/**
 * The runs for an edited region of `length` lines at current line `at`, matched line by line against baseline
 * lines [gapStart, gapEnd); `givenBack` hears of each line matched.
 */
function regionRuns(
  baseline: readonly string[],
  gapStart: number,
  gapEnd: number,
  at: number,
  length: number,
  lineAt: (line: number) => string,
  givenBack: (base: number, text: string) => void,
): Run[] {
  if (gapEnd <= gapStart || length === 0) return [{ base: null, length, refined: true }];
  const oldLines = baseline.slice(gapStart, gapEnd);
  const newLines: string[] = [];
  for (let k = 0; k < length; k++) newLines.push(lineAt(at + k));
  const segments: Segment[] = [];
  matchLines(oldLines, newLines, 0, oldLines.length, 0, newLines.length, segments);
  const out: Run[] = [];
  let n = 0;
  for (const s of segments) {
    if (s.newStart > n) out.push({ base: null, length: s.newStart - n, refined: true });
    out.push({ base: gapStart + s.oldStart, length: s.length });
    for (let k = 0; k < s.length; k++) givenBack(gapStart + s.oldStart + k, newLines[s.newStart + k]!);
    n = s.newStart + s.length;
  }
  if (n < length) out.push({ base: null, length: length - n, refined: true });
  return out;
}

/** Baseline line just after the last baseline run in `runs` before index `end` (0 if none). */
function baseEndBefore(runs: readonly Run[], end: number): number {
  for (let i = end - 1; i >= 0; i--) {
    const r = runs[i]!;
    if (r.base !== null) return r.base + r.length;
  }
  return 0;
}

/** Baseline line of the first baseline run from `from` on (`end` if none). */
function baseStartAfter(runs: readonly Run[], from: number, end: number): number {
  for (let i = from; i < runs.length; i++) {
    const r = runs[i]!;
    if (r.base !== null) return r.base;
  }
  return end;
}

/**
 * Equal as the hashes see lines (trailing blanks and line endings aside). Whitespace-only changes inside a
 * line are recognized by `refine`, which pairs them only where no exactly equal line is left to pair.
 */
function sameLine(a: string, b: string | undefined): boolean {
  return b !== undefined && normalizeLine(a) === normalizeLine(b);
}
