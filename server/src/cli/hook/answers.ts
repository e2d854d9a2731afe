/**
 * Each agent's answer to a gate decision in its own protocol. Pure, with no I/O and nothing of the CLI:
 * failures.ts, which the launcher loads, answers a hook that failed with these.
 */
import type { GateDecision } from "../../engine/agent/decision";
import { jsonAnswer, str, type HookAnswer, type Json } from "./payload";

/** What an agent without an "ask" answer can be told: allow, deny or nothing. */
export type PlainDecision = { kind: "allow" | "none"; reason?: string } | { kind: "deny"; code: string; reason: string; stop?: string };

/** The moment of a tool call an event is. */
export type Moment = "pre" | "post" | "end" | "other";

/**
 * For agents whose protocol has no "ask": a change to intent-lsp's own files needs a person, so it is
 * denied (a shell command that changes them too, telling the agent to ask the person to run it); a shell
 * command that looks like it writes runs under the agent's own permission rules, since its writes are
 * recorded and checked against the scope right after it.
 */
export function withoutAsk(d: GateDecision): PlainDecision {
  if (d.kind === "ask") {
    if (d.code === "shell-write") return { kind: "none" };
    if (d.code === "rule-command")
      return {
        kind: "deny",
        code: d.code,
        reason: `${d.reason} This agent cannot put the question to the user, so the command is denied: ask the user to run it themselves if it is wanted.`,
      };
    return {
      kind: "deny",
      code: d.code,
      reason: `${d.reason} This agent cannot put the question to the user, so the call is denied: ask the user to make this change.`,
    };
  }
  if (d.kind === "deny") return { kind: "deny", code: d.code, reason: d.reason, ...(d.stop ? { stop: d.stop } : {}) };
  return d.kind === "allow" ? { kind: "allow", reason: d.reason } : { kind: "none" };
}

/** The text an agent reads for a denial: the code first, so a person scanning a log finds it. */
export const denialText = (d: { code: string; reason: string }) => `[intent-lsp: ${d.code}] ${d.reason}`;

/**
 * Claude Code's PreToolUse answer; "none" leaves the call to Claude Code's own permission rules. A denial
 * that trips the circuit breaker also stops Claude (`continue: false`), with `stopReason` shown to the user.
 */
export function claudeCodeDecision(d: GateDecision): HookAnswer {
  if (d.kind === "none") return jsonAnswer({});
  const reason = d.kind === "deny" ? `[intent-lsp: ${d.code}] ${d.reason}` : d.reason;
  const stop = d.kind === "deny" && d.stop ? { continue: false, stopReason: d.stop } : {};
  return jsonAnswer({ ...stop, hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: d.kind, permissionDecisionReason: reason } });
}

/** Claude Code's PreToolUse denial, which Codex and Droid read in the same form: the JSON and exit code 2. */
export function preToolUseDenial(d: PlainDecision): HookAnswer {
  if (d.kind !== "deny") return jsonAnswer({});
  const reason = denialText(d);
  return {
    stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } })}\n`,
    stderr: `${reason}\n`,
    exitCode: 2,
  };
}

/** Cursor's permission answer; "none" answers nothing, so Cursor applies its own rules. */
export function cursorPermission(d: GateDecision): HookAnswer {
  if (d.kind === "none") return jsonAnswer({});
  if (d.kind === "allow") return jsonAnswer({ permission: "allow" });
  const agentMessage = d.kind === "deny" ? `[intent-lsp: ${d.code}] ${d.reason}` : d.reason;
  const userMessage = d.kind === "deny" ? `intent-lsp denied this call (${d.code}): ${d.reason}` : `intent-lsp asks: ${d.reason}`;
  return jsonAnswer({ permission: d.kind, userMessage, agentMessage, user_message: userMessage, agent_message: agentMessage });
}

export function clineDecision(d: PlainDecision): HookAnswer {
  if (d.kind !== "deny") return jsonAnswer({ cancel: false });
  return jsonAnswer({ cancel: true, errorMessage: denialText(d) });
}

/**
 * Copilot's denial. The camelCase payloads (`toolName`) read `permissionDecision` on stdout. The PascalCase
 * ones, which VS Code's agent hooks send for the same `.github/hooks` files and Copilot CLI sends when the
 * file names its events so, read Claude Code's `hookSpecificOutput` (VS Code) or the top-level field (Copilot
 * CLI); both block on exit code 2 with the reason on stderr, so such a denial is given every way at once.
 */
export function copilotDecision(d: PlainDecision, form: CopilotForm = "camel"): HookAnswer {
  if (d.kind !== "deny") return jsonAnswer({});
  const reason = denialText(d);
  const plain = { permissionDecision: "deny", permissionDecisionReason: reason };
  if (form === "camel") return jsonAnswer(plain);
  return { stdout: `${JSON.stringify({ ...plain, hookSpecificOutput: { hookEventName: "PreToolUse", ...plain } })}\n`, stderr: `${reason}\n`, exitCode: 2 };
}

/**
 * Gemini CLI's BeforeTool denial, given both ways it honours (the JSON, and exit code 2 with the reason on
 * stderr). A denial that trips the circuit breaker also stops the agent loop (`continue: false`); read as
 * stderr alone, the reason says to stop.
 */
export function geminiDecision(d: PlainDecision): HookAnswer {
  if (d.kind !== "deny") return jsonAnswer({});
  const reason = denialText(d);
  const stop = d.stop ? { continue: false, stopReason: d.stop } : {};
  return { stdout: `${JSON.stringify({ decision: "deny", reason, ...stop })}\n`, stderr: `${reason}\n`, exitCode: 2 };
}

/** Exit code 2 with the reason on stderr and nothing on stdout: Windsurf's only denial (it has no JSON decision), Kiro's, and the plugins' contract. */
export function exit2Decision(d: PlainDecision): HookAnswer {
  if (d.kind !== "deny") return { stdout: "", exitCode: 0 };
  return { stdout: "", stderr: `${denialText(d)}\n`, exitCode: 2 };
}

/** Which of Copilot's two payload forms `p` is: camelCase (`toolName`, `toolArgs`) or PascalCase (`tool_name`, `tool_input`). */
export type CopilotForm = "camel" | "pascal";

export function copilotForm(p: Json): CopilotForm {
  const named = str(p["hookEventName"]) ?? str(p["hook_event_name"]);
  if (named !== undefined) return /^[A-Z]/.test(named) ? "pascal" : "camel";
  return str(p["toolName"]) === undefined && str(p["tool_name"]) !== undefined ? "pascal" : "camel";
}

/**
 * Copilot's moment, in either form and either spelling of the event's field; with no event named, told by
 * whether the payload names a tool and carries its result. A tool call it cannot place is a call about to run.
 */
export function copilotPhase(p: Json): Moment {
  const named = str(p["hookEventName"]) ?? str(p["hook_event_name"]);
  if (named) {
    const event = named.charAt(0).toLowerCase() + named.slice(1);
    return event === "preToolUse" ? "pre" : event === "postToolUse" ? "post" : event === "sessionEnd" ? "end" : "other";
  }
  if (str(p["toolName"]) === undefined && str(p["tool_name"]) === undefined) return "other";
  return "toolResult" in p || "tool_result" in p || "tool_response" in p ? "post" : "pre";
}
