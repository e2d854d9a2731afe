import { diffArrays } from "diff";
import { identicalRuns, normalizedText, type TruthLine } from "./truth";

/**
 * An agent's write reaches intent-lsp as content only (the hook diffs the file before and after it; the
 * editor reloads the new text), so what it changed is whatever a line diff says. Where two diffs of the same
 * minimal size disagree — a block whose last line equals the line above it can "slide" — nobody can know
 * which lines are new. The generator therefore only lets an agent make changes that a minimal line diff
 * (Myers, on normalized lines, as the hashes see them) reads exactly as the truth has them, up to the one
 * ambiguity the comparison tolerates: adjacent identical lines, compared as runs. A block inserted or deleted
 * where an equally small diff could place it a line up or down is refused even when this diff happens to
 * place it right: another diff (git's, or one over a smaller region) may not.
 */
export function diffReadsAsTruth(before: readonly TruthLine[], after: readonly TruthLine[], step: number): boolean {
  const oldTexts = before.map((l) => normalizedText(l.text));
  const newTexts = after.map((l) => normalizedText(l.text));
  const added = new Array<boolean>(after.length).fill(false);
  const removed = new Array<boolean>(before.length).fill(false);
  const parts = diffArrays(oldTexts, newTexts);
  let i = 0;
  let j = 0;
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p]!;
    const n = part.count ?? part.value.length;
    const pure = !(parts[p - 1]?.added || parts[p - 1]?.removed || parts[p + 1]?.added || parts[p + 1]?.removed);
    if (part.added) {
      if (pure && n > 1 && canSlide(newTexts, j, j + n)) return false;
      for (let k = 0; k < n; k++) added[j++] = true;
    } else if (part.removed) {
      if (pure && n > 1 && canSlide(oldTexts, i, i + n)) return false;
      for (let k = 0; k < n; k++) removed[i++] = true;
    } else {
      i += n;
      j += n;
    }
  }
  // what the truth says the step changed, as a diff of normalized text can see it
  const truthAdded = after.map((l) => l.touch === step && !trailingOnly(l));
  const survivors = new Set(after.map((l) => l.id));
  const keptAsIs = new Set(after.filter(trailingOnly).map((l) => l.prev!.id));
  const truthRemovedOrChanged = before.map((l) => !survivors.has(l.id) && !keptAsIs.has(l.id));

  return sameCountsPerRun(newTexts, added, truthAdded, after) && sameCountsPerRun(oldTexts, removed, truthRemovedOrChanged, before);
}

/** Per run of identical lines, the diff and the truth must change the same number; in a run of lines with
 * different owners, which ones is then ambiguous, so the run must be changed whole or not at all. */
function sameCountsPerRun(texts: readonly string[], byDiff: readonly boolean[], byTruth: readonly boolean[], lines: readonly TruthLine[]): boolean {
  for (const [start, end] of identicalRuns(texts)) {
    let d = 0;
    let t = 0;
    for (let k = start; k < end; k++) {
      if (byDiff[k]) d++;
      if (byTruth[k]) t++;
    }
    if (d !== t) return false;
    if (end - start === 1 || t === 0 || t === end - start) continue;
    for (let k = start; k < end; k++) if (byDiff[k] !== byTruth[k] && !sameOwnerAs(lines[k]!, lines, start, end)) return false;
  }
  return true;
}

function sameOwnerAs(line: TruthLine, lines: readonly TruthLine[], start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const o = lines[k]!.owner;
    if (o.type !== line.owner.type || o.modelId !== line.owner.modelId || o.intentId !== line.owner.intentId) return false;
  }
  return true;
}

/**
 * Lines [a, b) inserted (or deleted) as one block can be read one line up or down by an equally small diff
 * when the line above the block equals its last line, or its first line equals the line below it.
 * (A one-line block sliding is a run of identical lines, which the comparison already allows for.)
 */
function canSlide(texts: readonly string[], a: number, b: number): boolean {
  return (a > 0 && texts[a - 1] === texts[b - 1]) || (b < texts.length && texts[a] === texts[b]);
}

/** A whitespace-only change of trailing blanks or the line ending: a diff of normalized lines sees none. */
function trailingOnly(l: TruthLine): boolean {
  return l.prev !== undefined && normalizedText(l.prev.text) === normalizedText(l.text);
}
