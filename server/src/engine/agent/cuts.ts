/**
 * Blocks an agent's session cut from files, for a later write of the same session (or another file of the
 * same tool call) to paste (docs/LEDGER.md "Renames, moves and copies"). An agent's hooks see one file per
 * tool call: an Edit that removes a block from one file, then a Write of another file that holds it. The
 * paste keeps the block's owners only when the session removed that block from the other file's recorded
 * content: a cut, not text that merely looks like another file's (which the agent may have written itself).
 *
 * Only the removed lines are kept, numbered as in the content before the cut (its hash pinned by a record
 * of the file), so a paste is matched against exactly what was cut, by the editor's rule (`findMovedBlocks`).
 */
import { MAX_LINE } from "../ledger/read";
import { textLines } from "../lines";
import { normalizeLine } from "../hashing";
import { changedSpans, removedSpans, type LineChange, type Span } from "../lineChange";
import { findMovedBlocks, isMovedBlock, lineScore, type BlockSource, type MovedLines } from "../lineage";

/** The lines a change removed from one file's content: runs that may be pasted elsewhere as a block. */
export interface Cut {
  path: string;
  /** The whole-file hash of the content before the cut (the line numbers refer to it). */
  hash: string;
  /** Removed runs that could be a moved block (`isMovableRun`); `start` 0-based. */
  blocks: { start: number; lines: string[] }[];
  /**
   * The whole content before the cut, for the blocks a paste copied from it (engine/agent/copies.ts); left
   * out when the session's line budget has no room for it.
   */
  whole?: string[];
  /** When the cut was recorded (ms since the epoch). */
  at: number;
}

/** A paste this long after the cut is not taken as its paste: the session has moved on. */
export const CUT_TTL_MS = 60 * 60 * 1000;
/** The most cuts one session keeps (the newest). */
export const MAX_CUTS = 32;
/** The most removed lines one session keeps in all (the newest cuts first): the hook reads them on every write. */
export const MAX_CUT_LINES = 20_000;

/**
 * The blocks `change` removed from `before` (the file's content before it, `hash` its whole-file hash), or
 * undefined when it removed none a paste could be matched against.
 */
export function cutOf(path: string, hash: string, before: string, change: LineChange, at: number): Cut | undefined {
  const lines = before === "" ? [] : textLines(before);
  if (lines.length !== change.oldCount) return undefined;
  const blocks: Cut["blocks"] = [];
  for (const { start, end } of removedSpans(change)) {
    const run = lines.slice(start, end + 1);
    if (isMovableRun(run)) blocks.push({ start, lines: run });
  }
  return blocks.length ? { path, hash, blocks, whole: lines, at } : undefined;
}

/** Whether a run of lines could be a block moved between files (engine/lineage.ts `findMovedBlocks`). */
export function isMovableRun(run: readonly string[]): boolean {
  return isMovedBlock(
    run.length,
    run.reduce((sum, l) => sum + lineScore(l), 0),
  );
}

/**
 * `cut` without the lines a paste it gave back took (`claimed`: moved lines naming its path and content): a
 * cut that claimed its paste has found it, and its block is matched no more (a later write that holds the
 * same text, the file having moved on, is not taken from this old content). What is left is kept in movable
 * runs; undefined when none is.
 */
export function cutLess(cut: Cut, claimed: readonly MovedLines[]): Cut | undefined {
  const taken = new Set<number>();
  for (const m of claimed) {
    if (m.from !== cut.path || m.preHash !== cut.hash) continue;
    for (const r of m.runs) for (let k = 0; k < r.length; k++) taken.add(r.oldStart + k);
  }
  if (!taken.size) return cut;
  const blocks: Cut["blocks"] = [];
  for (const b of cut.blocks) {
    let run: string[] = [];
    let start = b.start;
    for (let k = 0; k <= b.lines.length; k++) {
      if (k < b.lines.length && !taken.has(b.start + k)) {
        if (!run.length) start = b.start + k;
        run.push(b.lines[k]!);
        continue;
      }
      if (isMovableRun(run)) blocks.push({ start, lines: run });
      run = [];
    }
  }
  return blocks.length ? { ...cut, blocks } : undefined;
}

/** The change that removes every line of `before` (the file was deleted). */
export function removedAll(before: string): LineChange {
  return { oldCount: before === "" ? 0 : textLines(before).length, newCount: 0, carried: [], reformatted: [] };
}

/**
 * A session's cuts after adding `added`: those older than `CUT_TTL_MS` dropped, a cut of the same content
 * of the same path replaced, then the newest kept within `MAX_CUTS` and `MAX_CUT_LINES`. Newest first.
 */
export function keepCuts(cuts: readonly Cut[], added: readonly Cut[], now: number): Cut[] {
  const fresh = [...added, ...cuts].filter((c) => now - c.at >= 0 && now - c.at < CUT_TTL_MS);
  const out: Cut[] = [];
  let lines = 0;
  for (const c of fresh) {
    if (out.some((o) => o.path === c.path && o.hash === c.hash)) continue;
    const n = c.blocks.reduce((sum, b) => sum + b.lines.length, 0);
    if (out.length >= MAX_CUTS || lines + n > MAX_CUT_LINES) continue;
    // the whole content goes with the cut while the budget has room for it (it holds the removed lines too)
    const whole = c.whole && lines + c.whole.length <= MAX_CUT_LINES ? c.whole : undefined;
    const { whole: _, ...bare } = c;
    out.push(whole ? { ...bare, whole } : bare);
    lines += whole ? whole.length : n;
  }
  return out;
}

/**
 * The cuts a write of `path` may paste from, as the matcher's sources: those of other paths, still fresh,
 * whose content before the cut `pinned` says a record of that path pins (so a reader finds the lines' owners
 * there). Only the removed lines can match; the rest of the content is left out.
 */
export function cutSources(cuts: readonly Cut[], path: string, now: number, pinned: (path: string, hash: string) => boolean): BlockSource[] {
  const out: BlockSource[] = [];
  for (const c of cuts) {
    if (c.path === path || now - c.at < 0 || now - c.at >= CUT_TTL_MS || !pinned(c.path, c.hash)) continue;
    const end = c.blocks.reduce((m, b) => Math.max(m, b.start + b.lines.length), 0);
    const lines = new Array<string | undefined>(end).fill(undefined);
    for (const b of c.blocks) for (let k = 0; k < b.lines.length; k++) lines[b.start + k] = b.lines[k];
    out.push({ path: c.path, hash: c.hash, lines });
  }
  return out;
}

/**
 * The lines a write of a file (`after`, its line change from `before`; null: the file is new) took from
 * blocks cut elsewhere (`sources`, from `cutSources`). A block the file itself held before is the writer's
 * own, moved within the file. A block a cut file still holds whole now (`held`: the cut files' current
 * contents, each pinned by its newest record) is not taken from an older cut of it: the text came back there
 * since, and the write copies it, or moves it ahead of that file's own cut, which gives it back then
 * (engine/agent/pastes.ts). A run the cut file held elsewhere already when it was cut (`keptBy`: what each
 * cut left behind, `leftBehind`) says nothing of a block that came back: it is taken from the cut.
 */
export function pastedFromCuts(
  path: string,
  before: string | null,
  after: string,
  change: LineChange,
  sources: readonly BlockSource[],
  held: readonly BlockSource[] = [],
  keptBy: readonly BlockSource[] = [],
): MovedLines[] {
  if (!sources.length) return [];
  const lines = after === "" ? [] : textLines(after);
  const inserted = changedSpans(change);
  if (matchStarts(lines, inserted, sources) > MAX_MATCH_STARTS) return [];
  const own = before === null || before === "" ? undefined : { path, hash: "", lines: textLines(before) };
  const taken = findMovedBlocks(lines, inserted, sources, own);
  if (!taken.length || !held.length || matchStarts(lines, inserted, held) > MAX_MATCH_STARTS) return taken;
  const stillThere = coveredBy(lines, inserted, held, own);
  const out: MovedLines[] = [];
  for (const m of taken) {
    // what the very cut this block is taken from left behind (not another cut of the file, which may have
    // left the block there after it came back)
    const left = keptBy.filter((k) => k.path === m.from && k.hash === m.preHash);
    const keptCopy = left.length && matchStarts(lines, inserted, left) <= MAX_MATCH_STARTS ? coveredBy(lines, inserted, left, own) : new Set<number>();
    const runs = m.runs.filter((r) => {
      const at = Array.from({ length: r.length }, (_, k) => r.newStart + k);
      return !at.every((n) => stillThere.has(n)) || at.every((n) => keptCopy.has(n));
    });
    if (runs.length) out.push({ ...m, runs });
  }
  return out;
}

/** The written lines (0-based) that blocks of `sources` explain. */
function coveredBy(lines: readonly string[], inserted: readonly Span[], sources: readonly BlockSource[], own: BlockSource | undefined): Set<number> {
  const out = new Set<number>();
  for (const m of findMovedBlocks(lines, inserted, sources, own)) for (const r of m.runs) for (let k = 0; k < r.length; k++) out.add(r.newStart + k);
  return out;
}

/** What a cut left in its file (the content before it without the removed lines), when the cut knows that content. */
export function leftBehind(cut: Cut): BlockSource | undefined {
  if (!cut.whole) return undefined;
  const lines: (string | undefined)[] = [...cut.whole];
  for (const b of cut.blocks) for (let k = 0; k < b.lines.length; k++) lines[b.start + k] = undefined;
  return { path: cut.path, hash: cut.hash, lines };
}

/**
 * The most places the matcher may try a block at: text so repetitive that it would try more (thousands of
 * blank or identical lines on both sides) is not matched at all, so that the post hook answers in bounded
 * time; its lines are then the writer's, as with no cut.
 */
export const MAX_MATCH_STARTS = 1_000_000;

/** How many (new line, cut line) pairs of equal text the matcher would start a block at. */
export function matchStarts(lines: readonly string[], inserted: readonly Span[], sources: readonly BlockSource[]): number {
  const count = new Map<string, number>();
  for (const src of sources) for (const l of src.lines) if (l !== undefined) count.set(normalizeLine(l), (count.get(normalizeLine(l)) ?? 0) + 1);
  let starts = 0;
  for (const span of inserted) for (let i = span.start; i <= span.end; i++) starts += count.get(normalizeLine(lines[i] ?? "")) ?? 0;
  return starts;
}

/** Well-formed cuts from a session's stored JSON (anything else is dropped: a hand-edited file claims nothing). */
export function parseCuts(raw: unknown): Cut[] {
  if (!Array.isArray(raw)) return [];
  const out: Cut[] = [];
  for (const c of raw as Partial<Cut>[]) {
    if (!c || typeof c.path !== "string" || typeof c.hash !== "string" || typeof c.at !== "number") continue;
    if (!Array.isArray(c.blocks)) continue;
    const blocks = c.blocks.filter(
      (b) => b && Number.isInteger(b.start) && b.start >= 0 && Array.isArray(b.lines) && b.start <= MAX_LINE && b.lines.every((l) => typeof l === "string"),
    );
    if (blocks.length !== c.blocks.length) continue;
    const whole = Array.isArray(c.whole) && c.whole.length <= MAX_CUT_LINES && c.whole.every((l) => typeof l === "string") ? c.whole : undefined;
    out.push({ path: c.path, hash: c.hash, blocks, ...(whole ? { whole } : {}), at: c.at });
  }
  return out;
}
