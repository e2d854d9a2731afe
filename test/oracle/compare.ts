import type { Seen } from "./answers";
import type { LedgerRecord } from "./ledger";
import { identicalRuns, normalizedText, sameOwner, type Owner } from "./truth";

/**
 * Comparing what the server says with the truth: per line (hover, `intent blame --json`), and per ledger
 * record (the lines it claims against the lines its contributor changed).
 */

export type Outcome =
  | "correct"
  /** traced to someone else of the same type (another model, another intent) */
  | "wrong"
  /** a human's line shown as an AI's, or the reverse */
  | "swap"
  /** "Untraced" although the line's change was recorded */
  | "untraced"
  /** "Edited, not saved yet" although the file is saved */
  | "edited"
  | "other";

/** A line of the truth as the comparison needs it. */
export interface TruthView {
  text: string;
  owner: Owner;
  /** Compare within runs of identical lines as a multiset (the change that made it came as content only). */
  contentOnly: boolean;
}

export function classify(truth: Owner, seen: Seen): Outcome {
  if (truth.unrecorded) return seen.kind === "untraced" ? "correct" : seen.kind === "traced" ? (seen.type === truth.type ? "wrong" : "swap") : seen.kind;
  if (seen.kind !== "traced") return seen.kind;
  if (seen.type !== truth.type) return seen.type === "human" || seen.type === "ai" ? "swap" : "wrong";
  return sameOwner(truth, { type: seen.type, ...(seen.modelId ? { modelId: seen.modelId } : {}), intentId: seen.intentId ?? "" }) ? "correct" : "wrong";
}

export interface LineOutcome {
  outcome: Outcome;
  /** The answer this line was judged by: its own, or within a run of identical lines the one matched to it. */
  seen: Seen;
}

/**
 * One outcome per truth line. Line by line, except among lines with identical normalized text of which one
 * came as content only (an agent's write, a replayed commit): there which of the identical lines is the new
 * one cannot be known, so owners are matched as a multiset. `grouping`: "runs" groups adjacent identical
 * lines (the seeded oracle, whose truth knows where each line went); "text" groups every line with the same
 * text in the file (equally valid readings of a replayed history, whose truth is git's own diff).
 */
export function compareLines(truth: readonly TruthView[], seen: readonly Seen[], grouping: "runs" | "text" = "runs"): LineOutcome[] {
  if (truth.length !== seen.length) throw new Error(`oracle: the server answered for ${seen.length} lines, the file has ${truth.length}`);
  const out = truth.map((t, i): LineOutcome => ({ outcome: classify(t.owner, seen[i]!), seen: seen[i]! }));
  for (const group of identicalGroups(
    truth.map((t) => t.text),
    grouping,
  )) {
    if (group.length < 2 || !group.some((i) => truth[i]!.contentOnly)) continue;
    const unmatchedTruth = new Set<number>(group);
    const unmatchedSeen: number[] = [];
    for (const j of group) {
      const hit = [...unmatchedTruth].find((i) => classify(truth[i]!.owner, seen[j]!) === "correct");
      if (hit === undefined) unmatchedSeen.push(j);
      else {
        unmatchedTruth.delete(hit);
        out[hit] = { outcome: "correct", seen: seen[j]! };
      }
    }
    [...unmatchedTruth].forEach((i, k) => {
      const s = seen[unmatchedSeen[k]!]!;
      out[i] = { outcome: classify(truth[i]!.owner, s), seen: s };
    });
  }
  return out;
}

/** Indices of lines with identical normalized text: adjacent runs, or every such line in the file. */
export function identicalGroups(texts: readonly string[], grouping: "runs" | "text"): number[][] {
  if (grouping === "runs") return identicalRuns(texts).map(([start, end]) => range(start, end));
  const groups = new Map<string, number[]>();
  texts.forEach((t, i) => {
    const key = normalizedText(t);
    const g = groups.get(key);
    if (g) g.push(i);
    else groups.set(key, [i]);
  });
  return [...groups.values()];
}

export interface ClaimCheck {
  /** 1-based lines the record claims that its contributor did not change. */
  overClaimed: number[];
  /** The record's contributor is not the one who made the change. */
  wrongContributor: boolean;
}

/**
 * The lines a record claims against the lines its contributor changed (`changed`, 1-based, of the content
 * recorded). Among identical lines only counts matter: `runs` groups adjacent identical lines (the seeded
 * oracle), `text` groups all lines with the same text (a replayed history, whose truth is git's own diff).
 * `givenBack`: lines a later record of the same step names as moved in from another file (an agent's paste
 * recorded before its cut: docs/LEDGER.md); the earlier claim of them is withdrawn, not over-claimed.
 */
export function checkClaims(
  record: LedgerRecord,
  path: string,
  texts: readonly string[],
  changed: ReadonlySet<number>,
  owner: Owner,
  grouping: "runs" | "text",
  givenBack: ReadonlySet<number> = new Set(),
): ClaimCheck {
  const claimed = new Set<number>();
  let wrongContributor = false;
  for (const c of record.claims) {
    if (c.path !== path) continue;
    if (!sameOwner(owner, { type: c.type as Owner["type"], ...(c.modelId ? { modelId: c.modelId } : {}), intentId: c.intentId ?? "" })) wrongContributor = true;
    for (const [a, b] of c.ranges) for (let n = a; n <= b; n++) if (!givenBack.has(n)) claimed.add(n);
  }
  const overClaimed: number[] = [];
  for (const lines of identicalGroups(texts, grouping).map((g) => g.map((i) => i + 1))) {
    const claimedHere = lines.filter((n) => claimed.has(n));
    const changedHere = lines.filter((n) => changed.has(n)).length;
    const unchangedClaims = claimedHere.filter((n) => !changed.has(n));
    overClaimed.push(...unchangedClaims.slice(0, Math.max(0, claimedHere.length - changedHere)));
  }
  // claims past the end of the content are claims of lines nobody changed
  for (const n of claimed) if (n > texts.length) overClaimed.push(n);
  return { overClaimed: overClaimed.sort((a, b) => a - b), wrongContributor };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, k) => from + k);
}
