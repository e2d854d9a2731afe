/**
 * The completion contract (docs/INTENTS.md "Acceptance criteria"): an intent becomes COMPLETE only when every
 * runnable criterion passed and every sentence was confirmed by a person. This module judges outcomes and
 * words them; running the commands is `io/criteria/runCriterion.ts`, asking the person is the door's.
 */
import type { CriterionCheckMetadata, VerificationMetadata } from "@shared/agentTrace";
import { criterionText } from "./load";
import type { Criterion, Intent } from "./model";

/** How one command ended. `exitCode` null: it was killed (timeout, cancellation), died of a signal or never started. */
export interface RunOutcome {
  exitCode: number | null;
  /** The signal the command died of ("SIGTERM"), when one ended it. */
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** The last lines of its output (stdout and stderr interleaved as they came). */
  tail: string;
}

export type RunCriterion = Extract<Criterion, { kind: "run" }>;
export type ConfirmCriterion = Extract<Criterion, { kind: "confirm" }>;

export const runnable = (intent: Pick<Intent, "criteria">): RunCriterion[] => intent.criteria.filter((c): c is RunCriterion => c.kind === "run");
export const sentences = (intent: Pick<Intent, "criteria">): ConfirmCriterion[] => intent.criteria.filter((c): c is ConfirmCriterion => c.kind === "confirm");

export const passed = (o: RunOutcome): boolean => o.exitCode === 0 && !o.timedOut && !o.cancelled;

/** One command's result as the ledger keeps it. */
export function runCheck(c: RunCriterion, o: RunOutcome): CriterionCheckMetadata {
  return {
    kind: "run",
    name: criterionText(c),
    run: c.run,
    exit_code: o.exitCode,
    timed_out: o.timedOut,
    duration_ms: Math.round(o.durationMs),
    passed: passed(o),
  };
}

/** Why a command did not pass, as a clause: "exit 1", "killed at its 5 s timeout", "cancelled", "killed by SIGTERM". */
export function failureClause(c: RunCriterion, o: RunOutcome): string {
  if (o.timedOut) return `killed at its ${seconds(c.timeoutSeconds)} timeout`;
  if (o.cancelled) return "cancelled";
  if (o.signal) return `killed by ${o.signal}`;
  // no exit code and no signal: the shell never ran (its output's tail says why)
  return o.exitCode === null ? "its shell could not start" : `exit ${o.exitCode}`;
}

/** A verification that checked everything: what is recorded with the move to COMPLETE. */
export function verified(checks: CriterionCheckMetadata[], person: VerificationMetadata["confirmed_by"]): VerificationMetadata {
  return { result: "passed", criteria: checks, ...(person ? { confirmed_by: person } : {}) };
}

export function skipped(person: VerificationMetadata["confirmed_by"]): VerificationMetadata {
  return { result: "skipped", criteria: [], ...(person ? { confirmed_by: person } : {}) };
}

/** The refusal when an intent's criteria cannot be read: none of them runs until they are fixed. */
export function invalidCriteriaReason(id: string): string {
  return `${id}'s acceptance_criteria have errors (\`intent status\` shows where), so they cannot be verified; fix them first. Nothing was run or changed.`;
}

/** The last `lines` lines of an output, without trailing blank lines. */
export function outputTail(text: string, lines = 20): string {
  const all = text.replace(/\r\n?/g, "\n").replace(/\s+$/, "").split("\n");
  return all.slice(-lines).join("\n");
}

/** A duration as people read it: "850 ms", "12 s", "3 min 5 s". */
export function seconds(s: number): string {
  if (s < 60) return `${s} s`;
  // whole seconds before minutes, so 119.7 s reads "2 min", never "1 min 60 s"
  const whole = Math.round(s);
  const m = Math.floor(whole / 60);
  const rest = whole - m * 60;
  return rest ? `${m} min ${rest} s` : `${m} min`;
}

export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : seconds(Math.round(ms / 100) / 10);
}
