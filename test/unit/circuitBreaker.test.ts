import { describe, expect, it } from "vitest";
import { denialsAfter, MAX_DENIAL_TIMES, tripped, withStop } from "../../server/src/engine/agent/circuitBreaker";
import { deny, type GateDecision } from "../../server/src/engine/agent/decision";

const S = { denials: 5, windowSeconds: 60 };
const NOW = 1_800_000_000_000;
const DENY = deny("out-of-scope", "docs/notes.md is outside the scope of INT-001.");
const ALLOW: GateDecision = { kind: "allow", code: "in-scope", reason: "ok" };

/** The rule alone (engine/agent/circuitBreaker.ts); the doors and the session file are test/cli/circuitBreaker.test.ts's. */
describe("circuit breaker", () => {
  it("a denial is remembered, those older than the window forgotten; an allowed call clears; a question or no opinion leaves them", () => {
    expect(denialsAfter([], DENY, NOW, S)).toEqual([NOW]);
    expect(denialsAfter([NOW - 60_000, NOW - 59_999], DENY, NOW, S)).toEqual([NOW - 59_999, NOW]);
    expect(denialsAfter([NOW - 1], ALLOW, NOW, S)).toEqual([]);
    expect(denialsAfter([], ALLOW, NOW, S)).toBeUndefined();
    expect(denialsAfter([NOW - 1], { kind: "ask", code: "rule-file", reason: "?" }, NOW, S)).toBeUndefined();
    expect(denialsAfter([NOW - 1], { kind: "none", code: "not-gated" }, NOW, S)).toBeUndefined();
    // off: nothing is kept
    expect(denialsAfter([], DENY, NOW, { ...S, denials: 0 })).toBeUndefined();
  });

  it("trips at as many denials within the window as the setting says, never when off", () => {
    const four = [1, 2, 3, 4].map((k) => NOW - k * 1000);
    expect(tripped(four, NOW, S)).toBe(false);
    expect(tripped([...four, NOW], NOW, S)).toBe(true);
    expect(tripped([NOW - 61_000, ...four], NOW, S)).toBe(false);
    expect(tripped([...four, NOW], NOW, { ...S, denials: 0 })).toBe(false);
  });

  it("keeps a bounded number of times whatever the setting", () => {
    const many = Array.from({ length: MAX_DENIAL_TIMES }, (_, k) => NOW - k);
    expect(denialsAfter(many, DENY, NOW + 1, { denials: 1000, windowSeconds: 86400 })).toHaveLength(MAX_DENIAL_TIMES);
  });

  it("a stop is the same denial with the instruction after its reason", () => {
    const stopped = withStop(DENY as GateDecision & { kind: "deny" }, 5, S);
    expect(stopped).toEqual({
      kind: "deny",
      code: "out-of-scope",
      reason: `${(DENY as { reason: string }).reason} ${stopped.stop}`,
      stop: "intent-lsp denied 5 calls of this session within 60 s: stop, and ask the user how to go on (which intent to select, or whether its scope should grow) before trying again.",
    });
  });
});
