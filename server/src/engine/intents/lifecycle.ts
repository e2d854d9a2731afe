import type { IntentStatus } from "./model";

/** README "What it reads and writes": the only moves an intent may make. ARCHIVED is terminal. */
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
