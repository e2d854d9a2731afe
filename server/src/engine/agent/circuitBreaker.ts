/**
 * The circuit breaker (docs/AGENTS.md "Circuit breaker"): an agent session the gate denies again and again in
 * a short time is stuck (it retries the same write, or tries paths one after another), and more attempts
 * only spend the person's time and tokens. After `denials` denials within `windowSeconds` the denial also
 * tells it to stop and ask the person; the next call the gate allows resets the count. The breaker never
 * turns a decision into another: what is denied stays denied, what is allowed stays allowed.
 */
import type { GateDecision } from "./decision";

export interface BreakerSettings {
  /** Denials within the window that stop the session; 0 turns the breaker off. */
  denials: number;
  windowSeconds: number;
}

/** What a session remembers between its hook calls: when the gate denied it, within the window (ms since the epoch, oldest first). */
export type DenialTimes = readonly number[];

/** The most denial times a session keeps, whatever the settings: a session file stays small. */
export const MAX_DENIAL_TIMES = 1000;

/**
 * The session's denial times after `decision` at `now`: a denial is added (those older than the window
 * dropped), an allowed call clears them, and anything else (a question to the person, no opinion) leaves
 * them as they are. Undefined when nothing changes, so a caller writes nothing.
 */
export function denialsAfter(times: DenialTimes, decision: GateDecision, now: number, s: BreakerSettings): number[] | undefined {
  if (decision.kind === "allow") return times.length ? [] : undefined;
  if (decision.kind !== "deny" || s.denials <= 0) return undefined;
  return [...within(times, now, s), now].slice(-MAX_DENIAL_TIMES);
}

/** The denial times that count at `now`: within the window (a time in the future, from a clock set back, counts too). */
function within(times: DenialTimes, now: number, s: BreakerSettings): number[] {
  const from = now - s.windowSeconds * 1000;
  return times.filter((t) => t > from);
}

/** Whether the session is to stop: as many denials within the window as the settings allow, or more. */
export function tripped(times: DenialTimes, now: number, s: BreakerSettings): boolean {
  return s.denials > 0 && within(times, now, s).length >= s.denials;
}

/**
 * A denial that trips the breaker, with what to tell the agent and the person: the decision is the same
 * denial, its reason followed by the instruction to stop, and `stop` says it for agents that can be stopped.
 */
export function withStop(d: GateDecision & { kind: "deny" }, count: number, s: BreakerSettings): GateDecision & { kind: "deny" } {
  const stop = `intent-lsp denied ${count} calls of this session within ${s.windowSeconds} s: stop, and ask the user how to go on (which intent to select, or whether its scope should grow) before trying again.`;
  return { ...d, reason: `${d.reason} ${stop}`, stop };
}
