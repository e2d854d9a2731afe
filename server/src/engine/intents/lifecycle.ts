import type { IntentStatus } from "./model";

/** docs/INTENTS.md "What it reads and writes": the only moves an intent may make. ARCHIVED is terminal. */
const TRANSITIONS: Readonly<Record<IntentStatus, readonly IntentStatus[]>> = {
  PENDING: ["IN_PROGRESS", "ARCHIVED"],
  IN_PROGRESS: ["COMPLETE", "BLOCKED", "ARCHIVED"],
  BLOCKED: ["IN_PROGRESS", "ARCHIVED"],
  COMPLETE: ["ARCHIVED"],
  ARCHIVED: [],
};

export function allowedTransitions(from: IntentStatus): readonly IntentStatus[] {
  return TRANSITIONS[from];
}

export type TransitionCheck = { ok: true } | { ok: false; reason: string };

export function checkTransition(id: string, from: IntentStatus, to: IntentStatus): TransitionCheck {
  if (from === to) return { ok: false, reason: `${id} is already ${to}.` };
  if (TRANSITIONS[from].includes(to)) return { ok: true };
  const allowed = TRANSITIONS[from];
  const next = allowed.length ? `From ${from} it can move to ${allowed.join(" or ")}.` : `${from} is terminal.`;
  return { ok: false, reason: `${id} cannot move from ${from} to ${to}. ${next}` };
}

/** The title of the code action (in active_intents.yaml) that makes a move: `Start INT-004 (PENDING → IN_PROGRESS)`. */
export function transitionTitle(id: string, from: IntentStatus, to: IntentStatus): string {
  return `${transitionVerb(from, to)} ${id} (${from} → ${to})`;
}

/** Verbs used in code-action titles and CLI commands. */
export function transitionVerb(from: IntentStatus, to: IntentStatus): string {
  switch (to) {
    case "IN_PROGRESS":
      return from === "BLOCKED" ? "Resume" : "Start";
    case "COMPLETE":
      return "Complete";
    case "BLOCKED":
      return "Block";
    case "ARCHIVED":
      return "Archive";
    default:
      return `Move to ${to}`;
  }
}

/** How an intent in `status` can be selected: as it is, started or resumed first; undefined: its work is closed. */
export type SelectMove = "select" | "start" | "resume";

export function selectMove(status: IntentStatus): SelectMove | undefined {
  if (status === "IN_PROGRESS") return "select";
  if (!TRANSITIONS[status].includes("IN_PROGRESS")) return undefined;
  return status === "BLOCKED" ? "resume" : "start";
}

/**
 * A step that works from where a refusal left the person, named by each door in its own words (a command
 * line, an editor's picker or code action): every refusal of a selection or a move names at least one.
 */
export type NextStep =
  /** Select the intent, starting (or resuming) it first when `start`. */
  | { kind: "select"; id: string; start?: SelectMove }
  /** A lifecycle move the intent may make now. */
  | { kind: "move"; id: string; from: IntentStatus; to: IntentStatus }
  /** See the intents: select another one, or declare a new one. */
  | { kind: "list" };

export interface Refusal {
  /** What is wrong, without a next step (a sentence fragment, no final period). */
  reason: string;
  next: NextStep[];
}

const unknownIntent = (id: string): Refusal => ({ reason: `no intent ${id} in active_intents.yaml`, next: [{ kind: "list" }] });

/** Why `id` (in `status`; undefined: not in the catalogue) cannot be selected, with `start` or not; undefined: it can. */
export function selectRefusal(id: string, status: IntentStatus | undefined, start: boolean): Refusal | undefined {
  if (status === undefined) return unknownIntent(id);
  const how = selectMove(status);
  if (how === "select" || (how && start)) return undefined;
  if (how)
    return {
      reason: `${id} is ${status}`,
      next: [
        { kind: "select", id, start: how },
        { kind: "move", id, from: status, to: "IN_PROGRESS" },
      ],
    };
  return { reason: `${id} is ${status}: its work is closed, so it cannot be selected or started again`, next: closedNext(id, status) };
}

/** Why `id` (in `status`; undefined: not in the catalogue) cannot move to `to`; undefined: it can. */
export function moveRefusal(id: string, status: IntentStatus | undefined, to: IntentStatus): Refusal | undefined {
  if (status === undefined) return unknownIntent(id);
  const check = checkTransition(id, status, to);
  if (check.ok) return undefined;
  const reason = check.reason.replace(/\.$/, "");
  if (status === to) return { reason, next: to === "IN_PROGRESS" ? [{ kind: "select", id }] : [{ kind: "list" }] };
  if (status === "COMPLETE" || status === "ARCHIVED") return { reason, next: closedNext(id, status) };
  // work not in progress (pending, blocked) reaches any other status through IN_PROGRESS
  const through = TRANSITIONS[status]
    .map((next) => ({ kind: "move" as const, id, from: status, to: next }))
    .filter((s) => s.to === "IN_PROGRESS" || s.to === to);
  return { reason, next: through.length ? through : [{ kind: "list" }] };
}

/** Closed work: more of it is a new intent; a complete one may still be archived. */
function closedNext(id: string, status: IntentStatus): NextStep[] {
  return [{ kind: "list" }, ...(status === "COMPLETE" ? [{ kind: "move" as const, id, from: status, to: "ARCHIVED" as const }] : [])];
}

/** A refusal as one message: the reason, then every next step in the door's words. */
export function refusalMessage(refusal: Refusal, words: (step: NextStep) => string): string {
  const steps = refusal.next.map(words).join("; or ");
  return `${refusal.reason}. ${steps.charAt(0).toUpperCase()}${steps.slice(1)}.`;
}
