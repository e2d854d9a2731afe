/**
 * Blocks an agent's session wrote into a file before it removed them from another (docs/LEDGER.md "Renames,
 * moves and copies"): the paste comes first, the cut in a later tool call. At the paste nothing shows that a
 * cut will follow, so the write is recorded as the agent's lines; the session keeps the lines it inserted,
 * and a later cut of the same block from another file's recorded content gives them back to that block's
 * owners, in a record that names them in `moved_lines` (engine/agent/cuts.ts is the other order).
 *
 * A paste's lines are numbered in the content the write left (`hash`); it is only matched while the file
 * still holds exactly that content, so the line numbers always point at the lines matched.
 */
import { textLines } from "../lines";
import { changedSpans, type LineChange, type Span } from "../lineChange";
import { findMovedBlocks, type MovedLines } from "../lineage";
import { copiedAlong, joinMoved, type WholeSource } from "./copies";
import { CUT_TTL_MS, MAX_CUTS, MAX_CUT_LINES, MAX_MATCH_STARTS, cutSources, isMovableRun, matchStarts, parseCuts, type Cut } from "./cuts";

/** Lines a session inserted into one file's content (`hash`, after the write) that no cut explained. */
export interface Paste {
  path: string;
  hash: string;
  /** Runs of inserted lines that could be a moved block (`isMovableRun`); `start` 0-based. */
  blocks: { start: number; lines: string[] }[];
  /** When the write was recorded (ms since the epoch). */
  at: number;
}

/**
 * The lines a write left in a file (`after`, content hash `hash`; `change` from `before`) that a later cut
 * may claim: the lines it inserted, less blocks the file held before (moved within the file: the writer's
 * own), plus the lines of the session's earlier paste into this same content before the write (`earlier`,
 * whose `hash` is then `before`'s), carried to where they are now. Lines the write took from a cut stay
 * claimable: a block cut again later, from where it lives now, names its latest content (an agent merging a
 * file that took the block from an older cut, changed there since), and its record gives them back from it.
 */
export function pasteOf(
  path: string,
  hash: string,
  before: string | null,
  after: string,
  change: LineChange,
  earlier: Paste | undefined,
  at: number,
): Paste | undefined {
  const lines = after === "" ? [] : textLines(after);
  if (lines.length !== change.newCount) return undefined;
  const pasted = new Array<boolean>(lines.length).fill(false);
  const inserted = changedSpans(change);
  for (const s of inserted) pasted.fill(true, s.start, s.end + 1);
  if (before !== null && before !== "") {
    // a block the file held before is moved within it: never another file's
    const own = { path, hash: "", lines: textLines(before) };
    if (matchStarts(lines, inserted, [own]) <= MAX_MATCH_STARTS) unmark(pasted, findMovedBlocks(lines, inserted, [own]));
  }
  if (earlier) {
    const at = new Map<number, boolean>();
    for (const b of earlier.blocks) for (let k = 0; k < b.lines.length; k++) at.set(b.start + k, true);
    for (const s of change.carried) for (let k = 0; k < s.length; k++) if (at.has(s.oldStart + k)) pasted[s.newStart + k] = true;
  }
  const blocks = runsOf(pasted, lines);
  return blocks.length ? { path, hash, blocks, at } : undefined;
}

function unmark(pasted: boolean[], moved: readonly MovedLines[]): void {
  for (const m of moved) for (const r of m.runs) pasted.fill(false, r.newStart, r.newStart + r.length);
}

/** The marked runs of `lines` that could be a moved block: long enough, with a distinctive line. */
function runsOf(marked: readonly boolean[], lines: readonly string[]): Paste["blocks"] {
  const out: Paste["blocks"] = [];
  for (let i = 0; i < marked.length; ) {
    if (!marked[i]) {
      i++;
      continue;
    }
    let end = i;
    while (end < marked.length && marked[end]) end++;
    const run = lines.slice(i, end);
    if (isMovableRun(run)) out.push({ start: i, lines: run });
    i = end;
  }
  return out;
}

/**
 * A session's pastes after adding `added`: those older than `CUT_TTL_MS` dropped, and those of a path the
 * call wrote (`written`), whose line numbers no longer hold (a paste of the new content in `added` carried
 * their lines on), then the newest kept within the cuts' bounds, one per path.
 */
export function keepPastes(pastes: readonly Paste[], added: readonly Paste[], now: number, written: readonly string[]): Paste[] {
  const fresh = [...added, ...pastes.filter((p) => !written.includes(p.path))].filter((p) => now - p.at >= 0 && now - p.at < CUT_TTL_MS);
  const out: Paste[] = [];
  let lines = 0;
  for (const p of fresh) {
    if (out.some((o) => o.path === p.path)) continue;
    const n = p.blocks.reduce((sum, b) => sum + b.lines.length, 0);
    if (out.length >= MAX_CUTS || lines + n > MAX_CUT_LINES) continue;
    out.push(p);
    lines += n;
  }
  return out;
}

/** A paste of the session that a cut claims lines of, and those lines (`moved_lines` of the pasted file). */
export interface PastedBack {
  paste: Paste;
  movedIn: MovedLines[];
}

/**
 * The lines of the session's earlier pastes into other files that `cuts` removed (each cut's content before
 * it pinned by a record, `pinned`): blocks found whole, as a paste after the cut is matched. A paste that
 * takes a block from a cut also takes the blocks it copied from that file's whole content (`wholeOf`,
 * engine/agent/copies.ts).
 */
export function pastedBack(
  pastes: readonly Paste[],
  cuts: readonly Cut[],
  now: number,
  pinned: (path: string, hash: string) => boolean,
  wholeOf?: WholeSource,
): PastedBack[] {
  const out: PastedBack[] = [];
  for (const paste of pastes) {
    if (now - paste.at < 0 || now - paste.at >= CUT_TTL_MS) continue;
    const sources = cutSources(cuts, paste.path, now, pinned);
    if (!sources.length) continue;
    const { lines } = spread(paste);
    const spans: Span[] = paste.blocks.map((b) => ({ start: b.start, end: b.start + b.lines.length - 1 }));
    if (matchStarts(lines, spans, sources) > MAX_MATCH_STARTS) continue;
    const taken = findMovedBlocks(lines, spans, sources);
    if (taken.length) out.push({ paste, movedIn: joinMoved(taken, copiedAlong(lines, spans, taken, wholeOf)) });
  }
  return out;
}

/** `paste` without the lines a cut claimed (`movedIn`): those have their owners now, and are not claimed twice. */
export function pasteLess(paste: Paste, movedIn: readonly MovedLines[]): Paste | undefined {
  const { lines, marked } = spread(paste);
  unmark(marked, movedIn);
  const blocks = runsOf(marked, lines);
  return blocks.length ? { ...paste, blocks } : undefined;
}

/** A paste's lines at their places in the content (`marked`: which places hold one; the others are ""). */
function spread(paste: Paste): { lines: string[]; marked: boolean[] } {
  const end = paste.blocks.reduce((m, b) => Math.max(m, b.start + b.lines.length), 0);
  const lines = new Array<string>(end).fill("");
  const marked = new Array<boolean>(end).fill(false);
  for (const b of paste.blocks) {
    for (let k = 0; k < b.lines.length; k++) {
      lines[b.start + k] = b.lines[k]!;
      marked[b.start + k] = true;
    }
  }
  return { lines, marked };
}

/** Well-formed pastes from a session's stored JSON: a paste has a cut's shape (`hash` is of the content after it). */
export const parsePastes: (raw: unknown) => Paste[] = parseCuts;
