/**
 * How the lines of one file changed in one write: which old lines carried over to which new positions, and
 * which of those only changed whitespace. Every new line that is not carried is a line the writer changed,
 * so a record built from a `LineChange` claims exactly those lines and nothing else (the complement of
 * `carried` is the record's ranges; it is never stored separately, so the two cannot disagree).
 *
 * Lines are counted as people count them (`textLines`: a final line break ends the last line, it does not
 * start another). Lines compare by their *loose* form, whitespace removed: re-indenting, re-spacing or
 * changing line endings is not authorship, so such a line is carried (owner kept) and listed as reformatted.
 */
import { diffArrays } from "diff";
import { normalizeLine } from "./hashing";
import { textLines } from "./lines";

/** `length` lines carried from `oldStart` in the old text to `newStart` in the new one (0-based). */
export interface Segment {
  oldStart: number;
  newStart: number;
  length: number;
}

/** 0-based, inclusive span of new lines. */
export interface Span {
  start: number;
  end: number;
}

export interface LineChange {
  oldCount: number;
  newCount: number;
  /** Ascending in both old and new positions, non-overlapping, each length ≥ 1. */
  carried: Segment[];
  /** New lines inside `carried` whose text changed in whitespace only; ascending, disjoint. */
  reformatted: Span[];
}

/** A line with all whitespace removed: equal loose forms mean a formatter-only difference. */
export function looseLine(line: string): string {
  return line.replace(/\s+/g, "");
}

/** Above this many differing lines the Myers diff gives up and unique lines anchor the comparison instead. */
const MAX_EDIT_LENGTH = 1000;
/** Regions larger than this (old + new lines) are first split at unique lines, as patience diff does. */
const LARGE_REGION = 4000;

/**
 * The line change from `before` to `after` when only the two texts are known (an agent's whole-file write, a
 * reload from disk): a line diff over loose forms. `before` null: the file is new, nothing carries.
 */
export function diffTexts(before: string | null, after: string): LineChange {
  const oldLines = before === null ? [] : textLines(before);
  const newLines = textLines(after);
  // an empty text is one empty line to textLines, but no line to a record
  const o = before === null || before === "" ? [] : oldLines;
  const n = after === "" ? [] : newLines;
  return diffLines(o, n);
}

/** `diffTexts` over already split lines. */
export function diffLines(oldLines: readonly string[], newLines: readonly string[]): LineChange {
  const carried: Segment[] = [];
  matchLines(oldLines, newLines, 0, oldLines.length, 0, newLines.length, carried);
  return { oldCount: oldLines.length, newCount: newLines.length, carried: mergeSegments(carried), reformatted: reformattedLines(oldLines, newLines, carried) };
}

/** Regions up to this many cells (old × new lines) are aligned exactly by `weightedAlign`. */
const MAX_ALIGN_CELLS = 4_000_000;

/**
 * The carried segments between old[oLo, oHi) and new[nLo, nHi): as many lines paired as their whitespace-free
 * forms allow, and among such pairings the one with the most lines equal as the hashes see them. Neither
 * alone is right: pairing by exact text first breaks a re-indented block apart at a brace that happens to
 * equal another one's old indentation; pairing by loose form alone takes a new `}` for an old one of other
 * depth. Lines equal at both ends are paired first; the middle is aligned by a weighted LCS when it is
 * small enough, else by a diff of loose forms.
 */
export function matchLines(oldLines: readonly string[], newLines: readonly string[], oLo: number, oHi: number, nLo: number, nHi: number, out: Segment[]): void {
  const oldExact = oldLines.slice(oLo, oHi).map(normalizeLine);
  const newExact = newLines.slice(nLo, nHi).map(normalizeLine);
  let head = 0;
  while (head < oldExact.length && head < newExact.length && oldExact[head] === newExact[head]) head++;
  let tail = 0;
  while (tail < oldExact.length - head && tail < newExact.length - head && oldExact[oldExact.length - 1 - tail] === newExact[newExact.length - 1 - tail])
    tail++;
  if (head) out.push({ oldStart: oLo, newStart: nLo, length: head });
  const n = oldExact.length - head - tail;
  const m = newExact.length - head - tail;
  if (n > 0 && m > 0) {
    const o0 = oLo + head;
    const n0 = nLo + head;
    if (n * m <= MAX_ALIGN_CELLS) {
      weightedAlign(oldExact.slice(head, head + n), newExact.slice(head, head + m), o0, n0, out);
    } else {
      matchRegion(oldLines.map(looseLine), newLines.map(looseLine), o0, o0 + n, n0, n0 + m, out);
    }
  }
  if (tail) out.push({ oldStart: oHi - tail, newStart: nHi - tail, length: tail });
}

/**
 * Weighted LCS: a pair of lines with equal loose forms scores `n + m + 1` plus 1 more when they are equal
 * exactly, so the most loose pairs always win and, among those, the most exact ones. O(n·m) time, one byte
 * a cell for the way back.
 */
function weightedAlign(oldExact: readonly string[], newExact: readonly string[], oBase: number, nBase: number, out: Segment[]): void {
  const n = oldExact.length;
  const m = newExact.length;
  const oldLoose = oldExact.map(looseLine);
  const newLoose = newExact.map(looseLine);
  const pair = n + m + 1;
  const UP = 1;
  const LEFT = 2;
  const DIAG = 3;
  const way = new Uint8Array((n + 1) * (m + 1));
  let prev = new Int32Array(m + 1);
  let row = new Int32Array(m + 1);
  for (let i = 1; i <= n; i++) {
    row[0] = 0;
    for (let j = 1; j <= m; j++) {
      let best = prev[j]!;
      let dir = UP;
      // on a tie the way back takes the new line as inserted: the old line is then matched further on, so
      // of two equally long readings the one that removes first and inserts last wins, as git's diff reads
      // it (old "A, B" to new "B, A" keeps B)
      if (row[j - 1]! >= best) {
        best = row[j - 1]!;
        dir = LEFT;
      }
      if (oldLoose[i - 1] === newLoose[j - 1]) {
        const score = prev[j - 1]! + pair + (oldExact[i - 1] === newExact[j - 1] ? 1 : 0);
        if (score > best) {
          best = score;
          dir = DIAG;
        }
      }
      row[j] = best;
      way[i * (m + 1) + j] = dir;
    }
    [prev, row] = [row, prev];
  }
  const pairs: Segment[] = [];
  for (let i = n, j = m; i > 0 && j > 0; ) {
    const dir = way[i * (m + 1) + j];
    if (dir === DIAG) {
      pairs.push({ oldStart: oBase + i - 1, newStart: nBase + j - 1, length: 1 });
      i--;
      j--;
    } else if (dir === LEFT) j--;
    else i--;
  }
  for (let k = pairs.length - 1; k >= 0; k--) out.push(pairs[k]!);
}

/**
 * Appends to `out` the carried segments between old[oLo, oHi) and new[nLo, nHi): the common head and tail,
 * then a Myers diff of the middle, or (when that is too costly) lines unique on both sides as anchors with
 * the regions between them compared recursively, as patience diff does. Lines that match nothing are changed.
 */
export function matchRegion(oldKeys: readonly string[], newKeys: readonly string[], oLo: number, oHi: number, nLo: number, nHi: number, out: Segment[]): void {
  let head = 0;
  while (oLo + head < oHi && nLo + head < nHi && oldKeys[oLo + head] === newKeys[nLo + head]) head++;
  let tail = 0;
  while (oLo + head < oHi - tail && nLo + head < nHi - tail && oldKeys[oHi - 1 - tail] === newKeys[nHi - 1 - tail]) tail++;
  if (head) out.push({ oldStart: oLo, newStart: nLo, length: head });
  const o0 = oLo + head;
  const o1 = oHi - tail;
  const n0 = nLo + head;
  const n1 = nHi - tail;
  if (o0 < o1 && n0 < n1 && !(o1 - o0 + n1 - n0 > LARGE_REGION && matchByAnchors(oldKeys, newKeys, o0, o1, n0, n1, out))) {
    // Myers costs (N+M)·D: bounded by MAX_EDIT_LENGTH, then unique lines anchor the rest
    const changes = diffArrays(oldKeys.slice(o0, o1) as string[], newKeys.slice(n0, n1) as string[], { maxEditLength: MAX_EDIT_LENGTH });
    if (changes) {
      let o = o0;
      let n = n0;
      for (const c of changes) {
        const count = c.count ?? c.value.length;
        if (c.added) n += count;
        else if (c.removed) o += count;
        else {
          out.push({ oldStart: o, newStart: n, length: count });
          o += count;
          n += count;
        }
      }
    } else {
      matchByAnchors(oldKeys, newKeys, o0, o1, n0, n1, out);
    }
  }
  if (tail) out.push({ oldStart: oHi - tail, newStart: nHi - tail, length: tail });
}

/** False when no line is unique on both sides (nothing was matched; every line in here then counts as changed). */
function matchByAnchors(oldKeys: readonly string[], newKeys: readonly string[], oLo: number, oHi: number, nLo: number, nHi: number, out: Segment[]): boolean {
  const anchors = uniqueAnchors(oldKeys, newKeys, oLo, oHi, nLo, nHi);
  if (!anchors.length) return false;
  let o = oLo;
  let n = nLo;
  for (const [ao, an] of anchors) {
    matchRegion(oldKeys, newKeys, o, ao, n, an, out);
    out.push({ oldStart: ao, newStart: an, length: 1 });
    o = ao + 1;
    n = an + 1;
  }
  matchRegion(oldKeys, newKeys, o, oHi, n, nHi, out);
  return true;
}

/** Lines occurring exactly once on each side, kept in an order increasing on both sides (longest such chain). */
function uniqueAnchors(oldKeys: readonly string[], newKeys: readonly string[], oLo: number, oHi: number, nLo: number, nHi: number): [number, number][] {
  const count = new Map<string, { o: number; oPos: number; n: number; nPos: number }>();
  for (let i = oLo; i < oHi; i++) {
    const c = count.get(oldKeys[i]!) ?? { o: 0, oPos: i, n: 0, nPos: -1 };
    c.o++;
    count.set(oldKeys[i]!, c);
  }
  for (let j = nLo; j < nHi; j++) {
    const c = count.get(newKeys[j]!);
    if (c) {
      c.n++;
      c.nPos = j;
    }
  }
  const pairs: [number, number][] = [];
  for (const c of count.values()) if (c.o === 1 && c.n === 1) pairs.push([c.oPos, c.nPos]);
  pairs.sort((a, b) => a[1] - b[1]);
  return longestIncreasing(pairs);
}

/** Longest subsequence of `pairs` (sorted by new position) whose old positions increase: patience sorting. */
function longestIncreasing(pairs: [number, number][]): [number, number][] {
  const tails: number[] = []; // index into pairs of the smallest tail of each length
  const prev = new Int32Array(pairs.length).fill(-1);
  for (let i = 0; i < pairs.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]!]![0] < pairs[i]![0]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const out: [number, number][] = [];
  for (let i = tails.length ? tails[tails.length - 1]! : -1; i !== -1; i = prev[i]!) out.push(pairs[i]!);
  return out.reverse();
}

/** Joins segments that continue each other; input in ascending order. */
export function mergeSegments(segments: readonly Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const s of segments) {
    if (s.length <= 0) continue;
    const last = out[out.length - 1];
    if (last && last.oldStart + last.length === s.oldStart && last.newStart + last.length === s.newStart) last.length += s.length;
    else out.push({ ...s });
  }
  return out;
}

/** Carried lines whose text differs from the old line in more than trailing blanks and line endings. */
function reformattedLines(oldLines: readonly string[], newLines: readonly string[], carried: readonly Segment[]): Span[] {
  const lines: number[] = [];
  for (const s of carried) {
    for (let k = 0; k < s.length; k++) {
      if (normalizeLine(oldLines[s.oldStart + k]!) !== normalizeLine(newLines[s.newStart + k]!)) lines.push(s.newStart + k);
    }
  }
  return toSpans(lines);
}

/** Ascending line numbers → maximal spans. */
export function toSpans(lines: readonly number[]): Span[] {
  const out: Span[] = [];
  for (const l of lines) {
    const last = out[out.length - 1];
    if (last && last.end + 1 === l) last.end = l;
    else if (!last || l > last.end) out.push({ start: l, end: l });
  }
  return out;
}

/** The old lines a change removed (or replaced): every old line that is not carried. */
export function removedSpans(change: LineChange): Span[] {
  return uncarried(change.carried, (s) => s.oldStart, change.oldCount);
}

/** The new lines the writer changed: every new line that is not carried. */
export function changedSpans(change: LineChange): Span[] {
  return uncarried(change.carried, (s) => s.newStart, change.newCount);
}

/** The lines of one side (`startOf` reads a segment's start there) between and after the carried segments. */
function uncarried(carried: readonly Segment[], startOf: (s: Segment) => number, count: number): Span[] {
  const out: Span[] = [];
  let next = 0;
  for (const s of carried) {
    if (startOf(s) > next) out.push({ start: next, end: startOf(s) - 1 });
    next = startOf(s) + s.length;
  }
  if (count > next) out.push({ start: next, end: count - 1 });
  return out;
}

/**
 * Whether a change read from a ledger is well formed for texts of these sizes: segments ascending on both
 * sides, inside both texts, reformatted lines inside carried ones. A ledger is read, never trusted.
 */
export function isValidChange(change: LineChange): boolean {
  let o = 0;
  let n = 0;
  for (const s of change.carried) {
    if (!Number.isInteger(s.oldStart) || !Number.isInteger(s.newStart) || !Number.isInteger(s.length) || s.length < 1) return false;
    if (s.oldStart < o || s.newStart < n) return false;
    o = s.oldStart + s.length;
    n = s.newStart + s.length;
    if (o > change.oldCount || n > change.newCount) return false;
  }
  let last = -1;
  let seg = 0;
  for (const r of change.reformatted) {
    if (!Number.isInteger(r.start) || !Number.isInteger(r.end) || r.start <= last || r.end < r.start) return false;
    last = r.end;
    for (let l = r.start; l <= r.end; l++) {
      while (seg < change.carried.length && change.carried[seg]!.newStart + change.carried[seg]!.length <= l) seg++;
      const s = change.carried[seg];
      if (!s || l < s.newStart) return false;
    }
  }
  return true;
}

/** One string replacement an agent's edit tool made (Claude Code `Edit`, each edit of `MultiEdit`). */
export interface StringEdit {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/**
 * The line change of string replacements applied in order to `before`, when they reproduce `after`
 * exactly; undefined otherwise (an edit not found, or not where it must be: the file changed meanwhile).
 * Unlike a diff of the two texts, it knows where each edit went: a line inserted next to an identical one
 * (a blank line, a `}`) is the new one, not its twin.
 */
export function changeFromEdits(before: string, after: string, edits: readonly StringEdit[]): LineChange | undefined {
  const applied = replayEdits(before, edits);
  if (!applied || applied.text !== after) return undefined;
  const oldLines = before === "" ? [] : textLines(before);
  const newLines = after === "" ? [] : textLines(after);
  return { ...applied.change, reformatted: reformattedLines(oldLines, newLines, applied.change.carried) };
}

/**
 * The text string replacements make of `before`, applied in order as the agent's tool applies them; undefined
 * when one of them cannot be applied exactly once where it must be (not found, or ambiguous).
 */
export function applyEdits(before: string, edits: readonly StringEdit[]): string | undefined {
  return replayEdits(before, edits)?.text;
}

function replayEdits(before: string, edits: readonly StringEdit[]): { text: string; change: LineChange } | undefined {
  let text = before;
  let change: LineChange | undefined;
  for (const e of edits) {
    if (typeof e.old_string !== "string" || typeof e.new_string !== "string" || e.old_string === "") return undefined;
    const at: number[] = [];
    for (let i = text.indexOf(e.old_string); i !== -1; i = text.indexOf(e.old_string, i + e.old_string.length)) {
      at.push(i);
      if (!e.replace_all) break;
    }
    if (!at.length || (!e.replace_all && text.indexOf(e.old_string, at[0]! + 1) !== -1)) return undefined; // ambiguous, as the tool itself refuses
    let next = "";
    let from = 0;
    const replacements: { offset: number; oldLength: number; newOffset: number; newLength: number }[] = [];
    for (const offset of at) {
      next += text.slice(from, offset);
      replacements.push({ offset, oldLength: e.old_string.length, newOffset: next.length, newLength: e.new_string.length });
      next += e.new_string;
      from = offset + e.old_string.length;
    }
    next += text.slice(from);
    const step = replacementChange(text, next, replacements);
    change = change ? composeChanges(change, step) : step;
    text = next;
  }
  return change ? { text, change } : undefined;
}

/** The change made by replacements at known places: lines outside them carried as they are, lines inside diffed. */
function replacementChange(
  before: string,
  after: string,
  replacements: readonly { offset: number; oldLength: number; newOffset: number; newLength: number }[],
): LineChange {
  const oldLines = before === "" ? [] : textLines(before);
  const newLines = after === "" ? [] : textLines(after);
  const oldStarts = lineStarts(before);
  const newStarts = lineStarts(after);
  // each replacement touches whole lines [o0, o1] of the old text and [n0, n1] of the new; touching ones merge
  const regions: { o0: number; o1: number; n0: number; n1: number }[] = [];
  for (const r of replacements) {
    const region = {
      o0: lineOf(oldStarts, r.offset),
      o1: Math.min(lineOf(oldStarts, r.offset + r.oldLength), oldLines.length - 1),
      n0: lineOf(newStarts, r.newOffset),
      n1: Math.min(lineOf(newStarts, r.newOffset + r.newLength), newLines.length - 1),
    };
    const last = regions[regions.length - 1];
    if (last && region.o0 <= last.o1 + 1) {
      last.o1 = Math.max(last.o1, region.o1);
      last.n1 = Math.max(last.n1, region.n1);
    } else regions.push(region);
  }
  const carried: Segment[] = [];
  let o = 0;
  let n = 0;
  for (const r of regions) {
    if (r.o0 > o) carried.push({ oldStart: o, newStart: n, length: r.o0 - o });
    matchLines(oldLines, newLines, r.o0, r.o1 + 1, r.n0, r.n1 + 1, carried);
    o = r.o1 + 1;
    n = r.n1 + 1;
  }
  if (o < oldLines.length) carried.push({ oldStart: o, newStart: n, length: oldLines.length - o });
  return { oldCount: oldLines.length, newCount: newLines.length, carried: mergeSegments(carried), reformatted: [] };
}

/** Offsets at which each line of `text` starts (line breaks as `splitLines` counts them). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) starts.push(i + 1);
  }
  return starts;
}

/** The line holding `offset` (the last line start ≤ offset). */
function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** `first` then `second`: lines carried through both are carried; whitespace changes are worked out by the caller. */
export function composeChanges(first: LineChange, second: LineChange): LineChange {
  const carried: Segment[] = [];
  let i = 0;
  for (const s2 of second.carried) {
    // the part of s2's old range (lines of the middle text) that `first` carried from the original text
    while (i < first.carried.length && first.carried[i]!.newStart + first.carried[i]!.length <= s2.oldStart) i++;
    for (let j = i; j < first.carried.length; j++) {
      const s1 = first.carried[j]!;
      if (s1.newStart >= s2.oldStart + s2.length) break;
      const lo = Math.max(s1.newStart, s2.oldStart);
      const hi = Math.min(s1.newStart + s1.length, s2.oldStart + s2.length);
      if (hi > lo) carried.push({ oldStart: s1.oldStart + (lo - s1.newStart), newStart: s2.newStart + (lo - s2.oldStart), length: hi - lo });
    }
  }
  return { oldCount: first.oldCount, newCount: second.newCount, carried: mergeSegments(carried), reformatted: [] };
}
