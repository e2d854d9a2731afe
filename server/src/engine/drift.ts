/**
 * Drift (docs/INTENTS.md "Acceptance criteria", **Drift**): lines in an intent's scope that changed since the commit
 * it started at (or, for a COMPLETE intent, the commit it was completed at), and how many of them were not
 * written under it. The lines and their owners are given; finding them is the door's (git, the ledger).
 */
import type { Intent } from "./intents/model";
import type { LifecycleEvent } from "./ledger/lifecycle";
import { lastMove } from "./ledger/lifecycle";

/** One changed line of a file in scope, with the intent of the record that explains it (null: none does). */
export interface ChangedLine {
  path: string;
  /** 1-based, in the file as it is now. */
  line: number;
  intent: string | null;
}

export interface Drift {
  intentId: string;
  /** Measured from its start (an IN_PROGRESS or BLOCKED intent) or its completion (a COMPLETE one). */
  since: "started" | "completed";
  revision: string;
  changed: number;
  /** Changed lines under another intent or with no record. */
  notUnder: number;
  /** The not-under lines, for the code action that lists them. */
  lines: ChangedLine[];
}

/**
 * The commit drift is measured from, or undefined when the ledger has none for this intent (moved before
 * moves were recorded, or by hand): no drift is said rather than a guess.
 */
export function driftBase(intent: Pick<Intent, "id" | "status">, events: readonly LifecycleEvent[]): { since: Drift["since"]; revision: string } | undefined {
  if (intent.status === "COMPLETE") {
    const done = lastMove(events, intent.id, "COMPLETE");
    return done?.revision ? { since: "completed", revision: done.revision } : undefined;
  }
  if (intent.status !== "IN_PROGRESS" && intent.status !== "BLOCKED") return undefined;
  const started = lastMove(events, intent.id, "IN_PROGRESS");
  return started?.revision ? { since: "started", revision: started.revision } : undefined;
}

/** The drift of an intent from its changed lines; undefined when nothing worth saying changed. */
export function driftOf(
  intent: Pick<Intent, "id" | "status">,
  base: { since: Drift["since"]; revision: string },
  lines: readonly ChangedLine[],
): Drift | undefined {
  // after completion every change counts: the work it finished was changed; before, only others' changes do
  const notUnder = base.since === "completed" ? [...lines] : lines.filter((l) => l.intent !== intent.id);
  if (!notUnder.length) return undefined;
  return { intentId: intent.id, since: base.since, revision: base.revision, changed: lines.length, notUnder: notUnder.length, lines: notUnder };
}

/** "14 lines in src/api/** changed since WX-001 started (commit …), 9 of them not under WX-001." */
export function driftMessage(d: Drift, scope: readonly string[]): string {
  const where = scope.filter((g) => !g.startsWith("!")).join(", ");
  const lines = `${d.changed} line${d.changed === 1 ? "" : "s"} in ${where}`;
  const commit = `(commit ${d.revision.slice(0, 12)})`;
  if (d.since === "completed") {
    const others = d.lines.filter((l) => l.intent !== d.intentId).length;
    return `Changed after completion: ${lines} changed since ${d.intentId} was completed ${commit}${others ? `, ${ofThem(others, d.changed, d.intentId)}` : ""}.`;
  }
  return `${lines} changed since ${d.intentId} started ${commit}, ${ofThem(d.notUnder, d.changed, d.intentId)}.`;
}

const ofThem = (k: number, n: number, id: string) => (n === 1 ? `not under ${id}` : k === n ? `all of them not under ${id}` : `${k} of them not under ${id}`);

/** The drifted lines as runs of consecutive lines of one file with the same owner, in file and line order. */
export function driftRuns(lines: readonly ChangedLine[]): { path: string; start: number; end: number; intent: string | null }[] {
  const sorted = [...lines].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
  const runs: { path: string; start: number; end: number; intent: string | null }[] = [];
  for (const l of sorted) {
    const last = runs[runs.length - 1];
    if (last && last.path === l.path && last.intent === l.intent && last.end === l.line - 1) last.end = l.line;
    else runs.push({ path: l.path, start: l.line, end: l.line, intent: l.intent });
  }
  return runs;
}

/** A run as `intent blame` takes it, and who it is under. */
export function runText(r: { path: string; start: number; end: number; intent: string | null }): string {
  return `${r.path}:${r.start === r.end ? r.start : `${r.start}-${r.end}`} ${r.intent ? `under ${r.intent}` : "with no record"}`;
}
