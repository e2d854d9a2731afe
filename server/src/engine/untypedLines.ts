/**
 * Lines of an open buffer that the person did not type (docs/AGENTS.md "Edits inside the editor"). An editor
 * reports every change as the person's; a client that can tell otherwise (the VS Code extension: a change
 * to an editor without the focus, text inserted at once that was neither typed nor pasted) says so before
 * the change, and the lines that change produces are recorded with an `unknown` contributor and the reason,
 * never as the person's. The reasons are a fixed table: the words in the ledger are ours, not a client's.
 */

import type { UntypedReason } from "@shared/notifications";

export type { UntypedReason };

export const UNTYPED_REASONS: Readonly<Record<UntypedReason, string>> = {
  "not-focused": "changed while its editor did not have the focus: an extension, an agent or another tool edited it",
  "inserted-at-once":
    "inserted at once, neither typed nor pasted: an accepted completion, a snippet, a replace or an extension's edit (the editor does not say which)",
};

export function isUntypedReason(value: unknown): value is UntypedReason {
  return typeof value === "string" && Object.hasOwn(UNTYPED_REASONS, value);
}

/** A run of untyped lines, 0-based and inclusive, with why they are not the person's. */
export interface UntypedSpan {
  start: number;
  end: number;
  why: UntypedReason;
}

/**
 * The untyped lines of one buffer, kept in step with its edits: a change shifts the spans after it and
 * drops the lines it removed; a line the person edits after an untyped change stays untyped (what they
 * changed of it is not told apart from what they did not). Spans are sorted and never overlap.
 */
export class UntypedLines {
  private spans: UntypedSpan[] = [];

  /**
   * Lines `start..end` of the buffer were replaced by `newCount` lines; `why`: the new lines are untyped.
   * Work in proportion to the number of spans, not of lines: this runs on every keystroke.
   */
  replace(start: number, end: number, newCount: number, why?: UntypedReason): void {
    // the keystroke path of almost every buffer: nothing untyped, nothing to move
    if (why === undefined && this.spans.length === 0) return;
    const delta = newCount - (end - start + 1);
    const out: UntypedSpan[] = [];
    // new lines that replace untyped ones stay untyped, for the same reason, unless the change says otherwise
    let inherited: UntypedReason | undefined;
    for (const s of this.spans) {
      if (s.end < start) out.push(s);
      else if (s.start > end) out.push({ ...s, start: s.start + delta, end: s.end + delta });
      else {
        if (s.start < start) out.push({ ...s, end: start - 1 });
        if (s.end > end) out.push({ ...s, start: end + 1 + delta, end: s.end + delta });
        // a pure insertion (end < start) inside an untyped run replaces none of it: its lines are the change's own
        if (end >= start) inherited ??= s.why;
      }
    }
    const reason = why ?? inherited;
    if (reason !== undefined && newCount > 0) out.push({ start, end: start + newCount - 1, why: reason });
    this.spans = merged(out);
  }

  /** The spans, and none kept: a save takes them into its record. */
  take(): UntypedSpan[] {
    const spans = this.spans;
    this.spans = [];
    return spans;
  }

  /** Back to `spans` (an earlier `all`): a reload that was this editor's own save after all. */
  restore(spans: readonly UntypedSpan[]): void {
    this.spans = [...spans];
  }

  clear(): void {
    this.spans = [];
  }

  get all(): readonly UntypedSpan[] {
    return this.spans;
  }
}

/** Disjoint spans sorted by start, touching spans of the same reason joined. */
function merged(spans: UntypedSpan[]): UntypedSpan[] {
  spans.sort((a, b) => a.start - b.start);
  const out: UntypedSpan[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && last.end === s.start - 1 && last.why === s.why) out[out.length - 1] = { ...last, end: s.end };
    else out.push(s);
  }
  return out;
}

/**
 * Splits 0-based claimed spans at the untyped lines: each piece says whether its lines are untyped, and why.
 * Used by the record builder to give untyped lines a range of their own with an `unknown` contributor.
 */
export function splitByUntyped(
  claimed: readonly { start: number; end: number }[],
  untyped: readonly UntypedSpan[],
): { start: number; end: number; why?: UntypedReason }[] {
  if (!untyped.length) return claimed.map((s) => ({ start: s.start, end: s.end }));
  const whyAt = new Map<number, UntypedReason>();
  for (const u of untyped) for (let l = u.start; l <= u.end; l++) whyAt.set(l, u.why);
  const out: { start: number; end: number; why?: UntypedReason }[] = [];
  for (const s of claimed) {
    for (let l = s.start; l <= s.end; l++) {
      const why = whyAt.get(l);
      const last = out[out.length - 1];
      if (last && last.end === l - 1 && last.why === why && l !== s.start) last.end = l;
      else out.push(why === undefined ? { start: l, end: l } : { start: l, end: l, why });
    }
  }
  return out;
}
