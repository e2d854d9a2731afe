/**
 * Blocks an agent copied from a file it took a cut block from (docs/LEDGER.md "Renames, moves and copies").
 * Splitting a file apart moves some blocks and copies others: the imports both halves keep, a signature
 * that stays in the old file while its body moves. As `git blame -C` credits a block copied from a file the
 * same commit changed, those lines keep the owners they have there. The session's cut from that file is
 * what ties the two writes together; text that merely equals another file's, with no cut from it, stays
 * the writer's.
 */
import { normalizeLine } from "../hashing";
import { mergeSegments, toSpans, type Span } from "../lineChange";
import { findMovedBlocks, lineScore, type BlockSource, type MovedLines } from "../lineage";
import { MAX_MATCH_STARTS, matchStarts } from "./cuts";

/**
 * The whole content of a file a cut block came from (`path`; `cutHash`: its content before the cut), as a
 * record of it pins some version of it: undefined when none is at hand.
 */
export type WholeSource = (path: string, cutHash: string) => BlockSource | undefined;

/**
 * The lines of `spans` (0-based spans of `lines`) that no block in `taken` gave owners to, found whole in
 * the content of a file `taken` took a block from (`wholeOf`). `own`: the written file's content before the
 * write; a block found there is the writer's own, moved within the file.
 */
export function copiedAlong(
  lines: readonly string[],
  spans: readonly Span[],
  taken: readonly MovedLines[],
  wholeOf: WholeSource | undefined,
  own?: BlockSource,
): MovedLines[] {
  if (!wholeOf || !taken.length) return [];
  const sources: BlockSource[] = [];
  for (const m of taken) {
    if (sources.some((s) => s.path === m.from)) continue;
    const whole = wholeOf(m.from, m.preHash);
    if (whole) sources.push(whole);
  }
  const along = carriedAlong(lines, spans, taken, sources);
  const rest = spansLess(spans, [...taken, ...along]);
  if (!sources.length || !rest.length || matchStarts(lines, rest, sources) > MAX_MATCH_STARTS) return along;
  return joinMoved(along, findMovedBlocks(lines, rest, sources, own));
}

/**
 * Lines right above or below a taken block that continue it in the content the block is numbered in (a
 * `// @ts-check` or a decorator above a moved class, copied with it): one block with it, as `git blame -C`
 * reads the run they make together, however short the line is on its own. Lines without a letter or digit
 * (a blank line, a lone brace) end the run: they are as likely the writer's own layout.
 */
function carriedAlong(lines: readonly string[], spans: readonly Span[], taken: readonly MovedLines[], sources: readonly BlockSource[]): MovedLines[] {
  const free = new Set<number>();
  for (const s of spans) for (let i = s.start; i <= s.end; i++) free.add(i);
  for (const m of taken) for (const r of m.runs) for (let k = 0; k < r.length; k++) free.delete(r.newStart + k);
  const out: MovedLines[] = [];
  for (const m of taken) {
    const src = sources.find((s) => s.path === m.from && s.hash === m.preHash);
    if (!src) continue;
    const runs: MovedLines["runs"] = [];
    const continues = (i: number, p: number) => {
      const old = src.lines[p];
      const line = lines[i];
      return free.has(i) && old !== undefined && line !== undefined && normalizeLine(old) === normalizeLine(line) && lineScore(line) > 0;
    };
    for (const r of m.runs) {
      for (let i = r.newStart - 1, p = r.oldStart - 1; p >= 0 && continues(i, p); i--, p--) {
        runs.push({ oldStart: p, newStart: i, length: 1 });
        free.delete(i);
      }
      for (let i = r.newStart + r.length, p = r.oldStart + r.length; continues(i, p); i++, p++) {
        runs.push({ oldStart: p, newStart: i, length: 1 });
        free.delete(i);
      }
    }
    if (runs.length) out.push({ from: m.from, preHash: m.preHash, runs: mergeSegments(runs.sort((a, b) => a.newStart - b.newStart)) });
  }
  return out;
}

/** `taken` and `copied` as one list: blocks from the same content of the same file in one entry, in line order. */
export function joinMoved(taken: readonly MovedLines[], copied: readonly MovedLines[]): MovedLines[] {
  const out: MovedLines[] = taken.map((m) => ({ ...m, runs: [...m.runs] }));
  for (const c of copied) {
    const same = out.find((m) => m.from === c.from && m.preHash === c.preHash);
    if (same) same.runs = mergeSegments([...same.runs, ...c.runs].sort((a, b) => a.newStart - b.newStart));
    else out.push({ ...c, runs: [...c.runs] });
  }
  return out;
}

/** `spans` less the new lines `taken` gives owners to. */
export function spansLess(spans: readonly Span[], taken: readonly MovedLines[]): Span[] {
  const covered = new Set<number>();
  for (const m of taken) for (const r of m.runs) for (let k = 0; k < r.length; k++) covered.add(r.newStart + k);
  const free: number[] = [];
  for (const s of spans) for (let i = s.start; i <= s.end; i++) if (!covered.has(i)) free.push(i);
  return toSpans(free);
}
