/* What the agent gate answers, whatever the agent: the doors turn it into their agent's JSON. */

export type DenyCode =
  | "out-of-scope"
  | "intent-not-in-progress"
  | "no-active-intent"
  | "outside-workspace"
  | "stale-file"
  | "intents-file-broken"
  | "config-file-broken"
  | "not-a-regular-file"
  | "bad-path"
  | "rules-changed"
  | "internal-error";

export type GateDecision =
  | { kind: "allow"; code: "in-scope" | "exempt"; reason: string }
  /** `stop`: the session was denied again and again; it is to stop and ask the person (engine/agent/circuitBreaker.ts). */
  | { kind: "deny"; code: DenyCode; reason: string; stop?: string }
  /** `rule-file`: a write to intent-lsp's own files; `rule-command`: a shell command that changes them; `shell-write`: a shell command that may write. */
  | { kind: "ask"; code: "rule-file" | "rule-command" | "shell-write"; reason: string }
  /** No opinion: leave the call to the agent's own permission rules. */
  | { kind: "none"; code: "not-gated" | "no-intents-file" | "shell-read-only" };

export function deny(code: DenyCode, reason: string): GateDecision {
  return { kind: "deny", code, reason };
}

/** Why a hook failed, as a denial: an error must never turn into "allow". */
export function internalErrorDecision(err: unknown): GateDecision {
  const message = err instanceof Error ? err.message : String(err);
  return deny(
    "internal-error",
    `intent-lsp's hook failed (${message}), so the call is denied to be safe. Ask the user to run \`intent status\` in the workspace to see what is wrong.`,
  );
}
