import { normalizeLine } from "./hashing";

/**
 * Which lines of a document were edited since its baseline (the text at open or last save), kept right
 * as lines are inserted and deleted above them.
 *
 * The document is a list of runs: a run of baseline lines (unchanged, with their baseline numbers) or a
 * run of edited lines. An edit splices runs, so its cost grows with the number of runs near the edit and
 * the size of the edited region, never with the length of the file. After each edit the edited region is
 * compared with the baseline lines it replaced, from both ends, so text typed and then undone stops being
 * "edited".
 */

type Run = { base: number; length: number } | { base: null; length: number };

export interface LineBlock {
  /** 0-based, inclusive. */
  start: number;
  end: number;
}

export class EditedLines {
  private runs: Run[];

  constructor(private baseline: readonly string[]) {
    this.runs = baseline.length ? [{ base: 0, length: baseline.length }] : [];
  }

  /** Starts over from `baseline` (after a save, or when the document is reloaded). */
  reset(baseline: readonly string[]): void {
    this.baseline = baseline;
    this.runs = baseline.length ? [{ base: 0, length: baseline.length }] : [];
  }

  get lineCount(): number {
    let n = 0;
    for (const r of this.runs) n += r.length;
    return n;
  }

  /**
   * Lines `startLine..endLine` (inclusive) were replaced by `newLineCount` lines, all of which now count as
   * edited. `lineAt` reads the document after the change, for the comparison with the baseline.
   */
  replace(startLine: number, endLine: number, newLineCount: number, lineAt: (line: number) => string): void {
    const removed = endLine - startLine + 1;
    const [before, rest] = split(this.runs, startLine);
    const [, after] = split(rest, removed);
    this.runs = [...before, { base: null, length: newLineCount }, ...after];
    this.normalize(before.length, lineAt);
  }

  /** Baseline line number of a current line, or undefined if the line was edited. */
  origin(line: number): number | undefined {
    let at = 0;
    for (const r of this.runs) {
      if (line < at + r.length) return r.base === null ? undefined : r.base + (line - at);
      at += r.length;
    }
    return undefined;
  }

  /** Baseline line number of every current line (undefined where edited), in one pass over the runs. */
  origins(): (number | undefined)[] {
    const out: (number | undefined)[] = [];
    for (const r of this.runs) for (let i = 0; i < r.length; i++) out.push(r.base === null ? undefined : r.base + i);
    return out;
  }

  /** Contiguous blocks of edited lines, in document order. */
  blocks(): LineBlock[] {
    const out: LineBlock[] = [];
    let at = 0;
    for (const r of this.runs) {
      if (r.base === null && r.length > 0) out.push({ start: at, end: at + r.length - 1 });
      at += r.length;
    }
    return out;
  }

  isEdited(): boolean {
    return this.runs.some((r) => r.base === null && r.length > 0);
  }

  /**
   * Merges the edited run at `index` with edited neighbours, then gives back to the baseline every line at
   * either end of it that equals the baseline line it stands in for.
   */
  private normalize(index: number, lineAt: (line: number) => string): void {
    let lo = index;
    let hi = index;
    while (lo > 0 && this.runs[lo - 1].base === null) lo--;
    while (hi + 1 < this.runs.length && this.runs[hi + 1].base === null) hi++;
    let length = 0;
    for (let i = lo; i <= hi; i++) length += this.runs[i].length;

    let first = 0; // current line number of the edited region
    for (let i = 0; i < lo; i++) first += this.runs[i].length;
    const prev = lo > 0 ? (this.runs[lo - 1] as { base: number; length: number }) : undefined;
    const next = hi + 1 < this.runs.length ? (this.runs[hi + 1] as { base: number; length: number }) : undefined;
    // baseline lines [gapStart, gapEnd) were replaced by the edited region
    let gapStart = prev ? prev.base + prev.length : 0;
    let gapEnd = next ? next.base : this.baseline.length;

    let head = 0;
    while (head < length && gapStart < gapEnd && sameLine(lineAt(first + head), this.baseline[gapStart])) {
      head++;
      gapStart++;
    }
    let tail = 0;
    while (tail < length - head && gapStart < gapEnd && sameLine(lineAt(first + length - 1 - tail), this.baseline[gapEnd - 1])) {
      tail++;
      gapEnd--;
    }

    const middle: Run[] = [];
    if (head) middle.push({ base: gapStart - head, length: head });
    if (length - head - tail) middle.push({ base: null, length: length - head - tail });
    if (tail) middle.push({ base: gapEnd, length: tail });
    this.runs = coalesce([...this.runs.slice(0, lo), ...middle, ...this.runs.slice(hi + 1)], Math.max(0, lo - 1), lo + middle.length + 1);
  }
}

/** Splits runs so that the first part holds exactly `lines` lines. */
function split(runs: readonly Run[], lines: number): [Run[], Run[]] {
  const before: Run[] = [];
  let i = 0;
  let left = lines;
  while (i < runs.length && left >= runs[i].length) {
    left -= runs[i].length;
    before.push(runs[i++]);
  }
  if (i < runs.length && left > 0) {
    const r = runs[i];
    before.push({ base: r.base, length: left } as Run);
    const rest = { base: r.base === null ? null : r.base + left, length: r.length - left } as Run;
    return [before, [rest, ...runs.slice(i + 1)]];
  }
  return [before, runs.slice(i)];
}

/** Joins neighbouring runs of the same kind (and contiguous baseline numbers) within [from, to). */
function coalesce(runs: Run[], from: number, to: number): Run[] {
  const out = runs.slice(0, from);
  for (let i = from; i < runs.length; i++) {
    const r = runs[i];
    if (r.length === 0) continue;
    const last = out[out.length - 1];
    if (i < to && last && last.base === null && r.base === null) last.length += r.length;
    else if (i < to && last && last.base !== null && r.base !== null && last.base + last.length === r.base) last.length += r.length;
    else out.push({ ...r });
  }
  return out;
}

/** Equal as the ledger's hashes see lines, so the editor and the hooks agree on what was edited. */
function sameLine(a: string, b: string | undefined): boolean {
  return b !== undefined && normalizeLine(a) === normalizeLine(b);
}
