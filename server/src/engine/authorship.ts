/**
 * Who wrote a line, as the numbers count it (docs/INSIGHT.md): the one rule behind `intent blame`'s
 * `author`, `intent stats`, `intent report`, the pull request summary and the CodeLens file summary.
 *
 * A line is counted once, by the record that owns it now (engine/attribution.ts): `ai`, `human`, `mixed`
 * or `unknown` as that record's Agent Trace contributor type says; a line no record explains is
 * `beforeAdoption` when it is still as it was when the repository took up intent-lsp (engine/adoption.ts),
 * else `untraced`. Nothing is inferred: an unexplained line is never split between people and AI.
 */
import type { ScopeVerdict } from "@shared/agentTrace";
import type { TraceEntry } from "./ledger/read";

export type Author = "ai" | "human" | "mixed" | "unknown" | "untraced" | "beforeAdoption";

/** An author a record names: the lines a record wrote, as the history counts them by record time. */
export type RecordedAuthor = Exclude<Author, "untraced" | "beforeAdoption">;

/** Whether no record explains a line of this author (it is dated by git's commit time, not a record's). */
export const isUnexplained = (author: Author): author is "untraced" | "beforeAdoption" => author === "untraced" || author === "beforeAdoption";

/** In the order of the codes the caches store (an author's index): a new author goes last. */
export const AUTHORS: readonly Author[] = ["ai", "human", "mixed", "unknown", "untraced", "beforeAdoption"];

/** The author of a line whose owning record is `entry` (none: untraced). */
export function authorOfEntry(entry: Pick<TraceEntry, "contributor"> | undefined): Author {
  if (!entry) return "untraced";
  const type = entry.contributor.type;
  return type === "ai" || type === "human" || type === "mixed" ? type : "unknown";
}

/** The verdict a record written outside its intent's scope carries; typed, so a misspelling does not compile. */
const OUT_OF_SCOPE: ScopeVerdict = "OUT_OF_SCOPE";

/**
 * A line counts as out of scope when the record that owns it was written outside its intent's scope. The
 * one test of that verdict: the numbers, blame, the CodeLens, the inlay hints and the hover all ask here.
 */
export function isOutOfScopeEntry(entry: Pick<TraceEntry, "scope"> | undefined): boolean {
  return entry?.scope === OUT_OF_SCOPE;
}

/**
 * Lines counted by author. `total` is their sum; `outOfScope` counts the traced lines among them whose
 * record was written out of scope.
 */
export interface LineCounts {
  total: number;
  ai: number;
  human: number;
  mixed: number;
  unknown: number;
  untraced: number;
  /** Lines no record explains that are as they were at the adoption point (engine/adoption.ts). */
  beforeAdoption: number;
  outOfScope: number;
}

export function emptyCounts(): LineCounts {
  return { total: 0, ai: 0, human: 0, mixed: 0, unknown: 0, untraced: 0, beforeAdoption: 0, outOfScope: 0 };
}

export function addLines(counts: LineCounts, author: Author, outOfScope: boolean, n = 1): void {
  counts.total += n;
  counts[author] += n;
  if (outOfScope) counts.outOfScope += n;
}

export function addCounts(into: LineCounts, from: LineCounts): void {
  // each field by name: summed for every file and folder of a workspace
  into.total += from.total;
  into.ai += from.ai;
  into.human += from.human;
  into.mixed += from.mixed;
  into.unknown += from.unknown;
  into.untraced += from.untraced;
  into.beforeAdoption += from.beforeAdoption;
  into.outOfScope += from.outOfScope;
}

/** The AI's share of the counted lines, in whole per cent ("–" when there are none); `mixed` is not AI's. */
export function percent(part: number, whole: number): string {
  if (whole === 0) return "–";
  const p = (100 * part) / whole;
  return `${p > 0 && p < 1 ? "<1" : p > 99 && p < 100 ? ">99" : Math.round(p)}%`;
}
