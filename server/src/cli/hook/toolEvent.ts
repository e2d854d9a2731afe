import { isAbsolute } from "node:path";
import {
  afterShell,
  afterWrite,
  afterWrites,
  beforeToolUse,
  callPaths,
  openAgentWorkspace,
  sessionEnded,
  type HookEnvironment,
  type HookSession,
} from "../../io/agent/events";
import { agentSessionId } from "../../io/agent/session";
import { jsonAnswer, str, type HookAnswer, type Json } from "./payload";
import { preToolUseDenial, withoutAsk, type Moment, type PlainDecision } from "./answers";

export type { Moment, PlainDecision };
import type { StringEdit } from "../../io/agent/agentWrite";
import type { ModelSources } from "../../io/modelSources";
import { recordedAs, type ToolCall } from "../../engine/agent/toolCall";
import type { GateDecision } from "../../engine/agent/decision";

/**
 * The tool-call flow every agent adapter shares once it has read its agent's payload: before the call, the
 * gate (and the shell snapshot); after it, the recorder. Each adapter only translates: its payload into a
 * `ToolEvent`, and the outcome into its agent's answer.
 */

export interface ToolEvent {
  /** The agent's name for the tool, kept in records of shell commands. */
  tool: string;
  call: ToolCall;
  /** The agent's id for this call, when it gives one: pairs the pre hook's stash with the post hook. */
  callId?: string;
  model: Omit<ModelSources, "settings">;
  /** After a write, when the payload proves the content before it (see WriteReport.before). */
  before?: (after: string) => string | null | undefined;
  edits?: readonly StringEdit[];
  /** After a write, what the tool wrote when the payload says (see WriteReport.wrote). */
  wrote?: (before: string | null | undefined) => string | undefined;
}

export function beforeTool(henv: HookEnvironment, session: HookSession, ev: ToolEvent): GateDecision {
  const ctx = openAgentWorkspace(henv, session, callPaths(ev.call));
  return beforeToolUse(ctx, ev.call, ev.callId);
}

export interface AfterTool {
  /** For the agent: files the call changed outside its intent, or lines that could not be recorded. */
  toAgent?: string;
  /** For the person: why nothing could be recorded. */
  toUser?: string;
}

/** After the call: its writes recorded (a write tool's files one by one, a shell command's in one record). */
export async function afterTool(henv: HookEnvironment, session: HookSession, ev: ToolEvent): Promise<AfterTool> {
  const call = recordedAs(ev.call);
  const ctx = openAgentWorkspace(henv, session, callPaths(call));
  if (call.kind === "shell") {
    const said = await afterShell(ctx, henv, { ...(ev.callId ? { callId: ev.callId } : {}), tool: ev.tool, command: call.command, model: ev.model }, session);
    return { ...(said.toAgent ? { toAgent: said.toAgent } : {}), ...(said.toUser ? { toUser: said.toUser } : {}) };
  }
  if (call.kind !== "write") return {};
  const unknown: string[] = [];
  const reports = [call.filePath, ...(call.otherPaths ?? [])].map((filePath) => ({
    filePath,
    ...(ev.callId ? { callId: ev.callId } : {}),
    model: ev.model,
    // what the payload proves is about the one file it names
    ...(ev.before && !call.otherPaths ? { before: ev.before } : {}),
    ...(ev.edits && !call.otherPaths ? { edits: ev.edits } : {}),
    ...(ev.wrote && !call.otherPaths ? { wrote: ev.wrote } : {}),
  }));
  // a move (`*** Move to:`, a move tool) names its source and destination: the destination is recorded as moved
  const outcomes = call.otherPaths ? await afterWrites(ctx, henv, reports) : [await afterWrite(ctx, henv, reports[0]!)];
  for (const outcome of outcomes) if (outcome?.kind === "unknown-before") unknown.push(outcome.path);
  return unknown.length
    ? {
        toUser: `intent-lsp did not record this write to ${unknown.join(", ")}: which lines it changed cannot be told (no pre-write stash). Configure the pre-tool hook for write tools too (see the README).`,
      }
    : {};
}

/**
 * A path from a payload, absolute: agents give paths relative to where they run. Joined as text, never
 * normalized: `lnk/../x` must reach the gate as written, since the kernel follows `lnk` before `..`.
 * `home`: the home folder, for an agent whose tools expand a leading `~` to it (Codex); for any other a
 * leading `~` is kept as given and the gate refuses to guess what it means.
 */
export function absolute(cwd: string, path: string, home?: string): string {
  if (isAbsolute(path)) return path;
  if (/^~[^/]*(\/|$)/.test(path)) return home !== undefined && (path === "~" || path.startsWith("~/")) ? `${home}${path.slice(1)}` : path;
  // never against this process's own folder: in the hook service that is not the agent's
  if (!isAbsolute(cwd)) throw new Error(`the folder "${cwd}" that "${path}" is relative to is not absolute; the hook cannot tell where the write goes`);
  return `${cwd.endsWith("/") ? cwd : `${cwd}/`}${path}`;
}

/**
 * The folder an agent says it runs in (a payload's `cwd`, a workspace root), absolute: a relative one is
 * relative to the folder the agent started the hook in (`henv.cwd`), never to the process that answers it
 * (the hook service runs elsewhere). Joined as text, as `absolute` joins paths.
 */
export function agentFolder(given: string | undefined, henv: { cwd: string }): string {
  return given === undefined ? henv.cwd : absolute(henv.cwd, given);
}

/** A write call with every path made absolute against `cwd` (see `absolute`). */
export function writeCall(cwd: string, paths: readonly string[], home?: string): ToolCall {
  const [first, ...others] = paths.map((p) => absolute(cwd, p, home));
  return { kind: "write", filePath: first!, ...(others.length ? { otherPaths: others } : {}) };
}

/** A ToolCall whose paths are made absolute against the agent's working folder (see `absolute`). */
export function anchored(cwd: string, call: ToolCall, home?: string): ToolCall {
  if (call.kind !== "write") return call;
  return {
    ...call,
    filePath: absolute(cwd, call.filePath, home),
    ...(call.otherPaths ? { otherPaths: call.otherPaths.map((p) => absolute(cwd, p, home)) } : {}),
  };
}

/** How one agent's protocol reads a call and writes the answers; the flow around it is `answerMoment`'s. */
export interface Protocol {
  event(): ToolEvent;
  /** The answer before a call: a denial in the agent's own form, or nothing. */
  decision(d: PlainDecision): HookAnswer;
  /** The answer after a call that has something to say (files out of scope, lines not recorded). */
  afterText(text: string): HookAnswer;
}

/**
 * The flow the agents with plain pre/post tool hooks share (Codex, Gemini, Copilot, Droid): gate before, record
 * after, forget the session at its end, and open the workspace (session file, stale stashes) on anything else.
 */
export async function answerMoment(henv: HookEnvironment, session: HookSession, moment: Moment, protocol: Protocol): Promise<HookAnswer> {
  switch (moment) {
    case "pre":
      return protocol.decision(withoutAsk(beforeTool(henv, session, protocol.event())));
    case "post": {
      const said = await afterTool(henv, session, protocol.event());
      const text = [said.toAgent, said.toUser].filter(Boolean).join(" ");
      return text ? protocol.afterText(text) : jsonAnswer({});
    }
    case "end":
      sessionEnded(henv, session);
      return jsonAnswer({});
    default:
      openAgentWorkspace(henv, session);
      return jsonAnswer({});
  }
}

/**
 * The protocol Codex and Droid share with Claude Code's plain hooks: `PreToolUse` / `PostToolUse` /
 * `SessionEnd` events, `cwd` and `session_id` in the payload, Claude Code's PreToolUse denial, and text after
 * a call given as a "block" with its reason. `event` reads the agent's own tool names.
 */
export function answerClaudeLike(
  agent: "codex" | "droid",
  p: Json,
  henv: HookEnvironment,
  event: (p: Json, cwd: string, env: NodeJS.ProcessEnv) => ToolEvent,
): Promise<HookAnswer> {
  const session: HookSession = { cwd: agentFolder(str(p["cwd"]), henv), sessionId: agentSessionId(agent, str(p["session_id"]) ?? "unknown"), client: agent };
  return answerMoment(henv, session, momentOf(str(p["hook_event_name"]), "PreToolUse", "PostToolUse", "SessionEnd", p), {
    event: () => event(p, session.cwd, henv.env),
    decision: preToolUseDenial,
    afterText: (text) => jsonAnswer({ decision: "block", reason: text }),
  });
}

/**
 * The moment an event named `event` is, by the agent's names for before a tool, after it and the session's
 * end; with no event named, the moment the payload `p` carries (`unnamedMoment`).
 */
export function momentOf(event: string | undefined, pre: string, post: string, end: string, p?: Json): Moment {
  if (event === undefined) return (p && unnamedMoment(p)) ?? "other";
  return event === pre ? "pre" : event === post ? "post" : event === end ? "end" : "other";
}

/**
 * The moment of a payload that names no event but a tool (`tool_name`, as Claude Code's shape has it): a tool
 * call all the same, after it when it carries the tool's result (`tool_response`), else before it. What a gate
 * cannot place is judged as a call about to run, never answered as another event (which the agent reads as
 * allowed). Undefined when it names no tool.
 */
export function unnamedMoment(p: Json): "pre" | "post" | undefined {
  if (str(p["tool_name"]) === undefined) return undefined;
  return "tool_response" in p ? "post" : "pre";
}
