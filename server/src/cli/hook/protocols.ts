/**
 * The answers of the agents whose hooks send one flat JSON object per event (Qwen Code, Kiro,
 * Goose, Auggie, OpenCode's and Amp's plugins): where the payload names its event, the names of the moments
 * that matter, and how a decision and a report are said. Pure, like answers.ts, which loads it: a hook that
 * cannot run still denies in the agent's own protocol. What each relies on, with sources: docs/AGENTS.md.
 */
import { claudeCodeDecision, denialText, exit2Decision, preToolUseDenial, withoutAsk, type Moment } from "./answers";
import { jsonAnswer, str, type HookAnswer, type Json } from "./payload";
import type { GateDecision } from "../../engine/agent/decision";

export interface FlatProtocol {
  /** The name `intent hook` knows the agent by. */
  agent: string;
  /** The payload fields that may name the event, in the order they are read. */
  eventKeys: readonly string[];
  pre: string;
  post: string;
  end?: string;
  /** The answer before a call, from the gate's decision (an "ask" only where the agent has one). */
  decide(d: GateDecision): HookAnswer;
  /** The answer after a call whose writes the agent is to hear about. */
  afterText(text: string): HookAnswer;
  /** The answer to anything else, and after a call with nothing to say. */
  quiet: HookAnswer;
}

/** The moment a flat payload is; one that names a tool but no event is a call, before it unless it carries the result. */
export function flatMoment(proto: FlatProtocol, p: Json): Moment {
  const named = proto.eventKeys.map((k) => str(p[k])).find((v) => v !== undefined);
  if (named === undefined) {
    if (str(p["tool_name"]) === undefined) return "other";
    return "tool_response" in p || "tool_output" in p ? "post" : "pre";
  }
  return named === proto.pre ? "pre" : named === proto.post ? "post" : named === proto.end ? "end" : "other";
}

const NOTHING: HookAnswer = { stdout: "", exitCode: 0 };

/** Exit code 2 with the reason on stderr, nothing on stdout: the one denial Kiro documents, and the plugins' contract. */
const exit2Only = (d: GateDecision): HookAnswer => exit2Decision(withoutAsk(d));

/** Claude Code's PreToolUse JSON and exit code 2 with the reason on stderr; nothing but a denial is said. */
const claudeShapedDenial = (d: GateDecision): HookAnswer => preToolUseDenial(withoutAsk(d));

/**
 * Qwen Code: Claude Code's shape, "ask" included (a confirmation in its terminal; a denial where it cannot
 * ask). An "allow" is left unsaid, so Qwen's own permission rules still apply to a call in scope.
 */
export const QWEN: FlatProtocol = {
  agent: "qwen",
  eventKeys: ["hook_event_name"],
  pre: "PreToolUse",
  post: "PostToolUse",
  end: "SessionEnd",
  decide: (d) => (d.kind === "ask" ? claudeCodeDecision(d) : claudeShapedDenial(d)),
  afterText: (text) => jsonAnswer({ decision: "block", reason: text }),
  quiet: jsonAnswer({}),
};

/** Kiro CLI's agent hooks: camelCase events; exit code 2 blocks with stderr as the reason; no JSON, no "ask". */
export const KIRO: FlatProtocol = {
  agent: "kiro",
  eventKeys: ["hook_event_name"],
  pre: "preToolUse",
  post: "postToolUse",
  end: "stop",
  decide: exit2Only,
  afterText: (text) => ({ stdout: `${text}\n`, exitCode: 0 }),
  quiet: NOTHING,
};

/**
 * Goose's plugin hooks: the event in `event`; a denial is `{"decision":"block","reason"}` on stdout, which
 * Goose honours whatever the exit code, and exit code 2 with the reason on stderr; both are given.
 */
export const GOOSE: FlatProtocol = {
  agent: "goose",
  eventKeys: ["event"],
  pre: "PreToolUse",
  post: "PostToolUse",
  end: "SessionEnd",
  decide: (d) => {
    const plain = withoutAsk(d);
    if (plain.kind !== "deny") return NOTHING;
    const reason = denialText(plain);
    return { stdout: `${JSON.stringify({ decision: "block", reason })}\n`, stderr: `${reason}\n`, exitCode: 2 };
  },
  afterText: (text) => ({ stdout: "", stderr: `${text}\n`, exitCode: 0 }),
  quiet: NOTHING,
};

/**
 * Auggie (Augment's CLI): Claude Code's PreToolUse JSON (exit 0) and exit code 2 with the reason on stderr
 * both block; both are given. After a tool, `decision: "block"` adds its reason to the tool's result.
 */
export const AUGGIE: FlatProtocol = {
  agent: "auggie",
  eventKeys: ["hook_event_name"],
  pre: "PreToolUse",
  post: "PostToolUse",
  end: "SessionEnd",
  decide: claudeShapedDenial,
  afterText: (text) => jsonAnswer({ decision: "block", reason: text }),
  quiet: jsonAnswer({}),
};

/**
 * OpenCode and Amp, through the plugin `intent init` writes for each (cli/hook/plugins.ts): the plugin sends
 * the call in Claude Code's field names and reads the exit code. Anything but 0 before a call (a denial,
 * a crash, no `intent` on the PATH) makes the plugin refuse the call, with stderr as the reason; after a call,
 * stdout is added to the tool's result, which the model reads.
 */
export const PLUGIN: Omit<FlatProtocol, "agent"> = {
  eventKeys: ["hook_event_name"],
  pre: "PreToolUse",
  post: "PostToolUse",
  end: "SessionEnd",
  decide: exit2Only,
  afterText: (text) => ({ stdout: `${text}\n`, exitCode: 0 }),
  quiet: NOTHING,
};
export const OPENCODE: FlatProtocol = { ...PLUGIN, agent: "opencode" };
export const AMP: FlatProtocol = { ...PLUGIN, agent: "amp" };

export const FLAT_PROTOCOLS: readonly FlatProtocol[] = [QWEN, KIRO, GOOSE, AUGGIE, OPENCODE, AMP];
