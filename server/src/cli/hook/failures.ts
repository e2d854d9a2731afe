/**
 * What a hook that failed answers, per agent, in its own protocol. Pure, with no I/O and nothing of the CLI:
 * the launcher (launch/cli.ts) loads it too, so that a hook that cannot run at all (the service died, the
 * folder is gone, the CLI bundle fails to load) still denies in the agent's own protocol, not only with an
 * exit code that some agents read as "go ahead".
 */
import { internalErrorDecision } from "../../engine/agent/decision";
import {
  claudeCodeDecision,
  clineDecision,
  copilotDecision,
  copilotForm,
  copilotPhase,
  cursorPermission,
  geminiDecision,
  preToolUseDenial,
  exit2Decision,
  withoutAsk,
} from "./answers";
import { FLAT_PROTOCOLS, flatMoment, type FlatProtocol } from "./protocols";
import { jsonAnswer, type HookAnswer, type Json } from "./payload";

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const field = (payload: unknown, key: string): unknown => (payload && typeof payload === "object" ? (payload as Json)[key] : undefined);
const failedText = (what: unknown, err: unknown) => `intent-lsp's ${String(what)} hook failed: ${message(err)}`;
const logLine = (what: unknown, err: unknown) => `${failedText(what, err)}\n`;

/**
 * What a failed hook answers, per agent. Before a tool call (or when the input could not even be read) that
 * is a denial carrying the error, never a crash; after one, or for other events, a message, since there is
 * nothing left to deny.
 */
const FAILURES: Record<string, (err: unknown, payload?: unknown) => HookAnswer> = {
  ...Object.fromEntries(FLAT_PROTOCOLS.map((proto) => [proto.agent, (err: unknown, payload?: unknown) => flatFailure(proto, err, payload)])),
  "claude-code": (err, payload) => {
    const event = field(payload, "hook_event_name") ?? field(payload, "hookEventName");
    if (event === undefined || event === "PreToolUse") return claudeCodeDecision(internalErrorDecision(err));
    return jsonAnswer({ systemMessage: failedText(event, err) });
  },
  cursor: (err, payload) => {
    const event = field(payload, "hook_event_name");
    if (event === undefined || event === "preToolUse" || event === "beforeShellExecution") return cursorPermission(internalErrorDecision(err));
    return { ...jsonAnswer({}), stderr: logLine(event, err) };
  },
  codex: (err, payload) => claudeLikeFailure(err, payload),
  droid: (err, payload) => claudeLikeFailure(err, payload),
  gemini: (err, payload) => {
    const event = field(payload, "hook_event_name");
    if (event === undefined || event === "BeforeTool") return geminiDecision(withoutAsk(internalErrorDecision(err)));
    return { ...jsonAnswer({}), stderr: logLine(event, err) };
  },
  copilot: (err, payload) => {
    const p = payload && typeof payload === "object" && !Array.isArray(payload) ? (payload as Json) : undefined;
    const phase = p ? copilotPhase(p) : "pre";
    if (phase === "pre") return copilotDecision(withoutAsk(internalErrorDecision(err)), p ? copilotForm(p) : "camel");
    return { ...jsonAnswer({}), stderr: logLine(phase, err) };
  },
  windsurf: (err, payload) => {
    const action = field(payload, "agent_action_name");
    if (action === undefined || action === "pre_write_code" || action === "pre_run_command") return exit2Decision(withoutAsk(internalErrorDecision(err)));
    return { stdout: "", stderr: logLine(action, err), exitCode: 0 };
  },
  cline: (err, payload) => {
    const hook = field(payload, "hookName");
    if (hook === undefined || hook === "PreToolUse") return clineDecision(withoutAsk(internalErrorDecision(err)));
    return { ...jsonAnswer({ cancel: false }), stderr: logLine(hook, err) };
  },
};

/** A flat protocol's failure: a denial before a call (or when the payload is not one), a log line after. */
function flatFailure(proto: FlatProtocol, err: unknown, payload?: unknown): HookAnswer {
  const p = payload && typeof payload === "object" && !Array.isArray(payload) ? (payload as Json) : undefined;
  const named = p !== undefined && proto.eventKeys.some((k) => p[k] !== undefined);
  const moment = p ? flatMoment(proto, p) : "pre";
  if (!named || moment === "pre") return proto.decide(internalErrorDecision(err));
  return { ...proto.quiet, stderr: logLine(moment, err) };
}

function claudeLikeFailure(err: unknown, payload?: unknown): HookAnswer {
  const event = field(payload, "hook_event_name");
  if (event === undefined || event === "PreToolUse") return preToolUseDenial(withoutAsk(internalErrorDecision(err)));
  return { ...jsonAnswer({}), stderr: logLine(event, err) };
}

/** Every agent `intent hook` speaks to, by the name its configuration uses. */
export const HOOK_AGENTS = Object.keys(FAILURES);

/** The answer of a failed hook in `agent`'s protocol; an unknown agent gets exit code 2, which blocks in most. */
export function failureAnswer(agent: string, err: unknown, payload?: unknown): HookAnswer {
  const failure = Object.hasOwn(FAILURES, agent) ? FAILURES[agent] : undefined;
  return failure ? failure(err, payload) : { stdout: "", stderr: `intent: ${message(err)} (blocking the call)\n`, exitCode: 2 };
}

/** `failureAnswer` for the hook input as its text: input that is not JSON is answered as unreadable input. */
export function failureAnswerForInput(agent: string, err: unknown, input: string | undefined): HookAnswer {
  let payload: unknown;
  try {
    payload = input === undefined ? undefined : JSON.parse(input);
  } catch {
    payload = undefined;
  }
  return failureAnswer(agent, err, payload);
}
