import { openAgentWorkspace, sessionEnded, type HookEnvironment, type HookSession } from "../../io/agent/events";
import { undoEdits, wroteByEdits, type StringEdit } from "../../io/agent/agentWrite";
import { agentSessionId, type AgentPrefix } from "../../io/agent/session";
import { applyPatchFiles } from "../../engine/agent/applyPatch";
import { classifyTool, type ToolCall } from "../../engine/agent/toolCall";
import { asObject, str, type HookAnswer, type Json } from "./payload";
import { flatMoment, type FlatProtocol } from "./protocols";
import { afterTool, agentFolder, anchored, beforeTool, writeCall, type ToolEvent } from "./toolEvent";

/**
 * The door of an agent whose hook sends one flat JSON object per event (protocols.ts): the session and the
 * folder read from the payload, the moment from its event, the call from its tool, and the shared gate and
 * recorder around them.
 */

/** How one agent's payload names its session, its folder and its tool call. */
export interface FlatReading {
  /** The agent's own session id, when the payload carries one (else every call is one session, "cli"). */
  session(p: Json): string | undefined;
  /** The folder the agent runs in, when the payload says (else the folder the hook was started in). */
  cwd(p: Json): string | undefined;
  toolEvent(p: Json, cwd: string, env: NodeJS.ProcessEnv): ToolEvent;
}

export function flatHook(proto: FlatProtocol, prefix: AgentPrefix, reading: FlatReading) {
  return async (payload: unknown, henv: HookEnvironment): Promise<HookAnswer> => {
    const p = asObject(payload);
    const session: HookSession = {
      cwd: agentFolder(reading.cwd(p), henv),
      sessionId: agentSessionId(prefix, reading.session(p) ?? "cli"),
      client: proto.agent,
    };
    switch (flatMoment(proto, p)) {
      case "pre":
        return proto.decide(beforeTool(henv, session, reading.toolEvent(p, session.cwd, henv.env)));
      case "post": {
        const said = await afterTool(henv, session, reading.toolEvent(p, session.cwd, henv.env));
        const text = [said.toAgent, said.toUser].filter(Boolean).join(" ");
        return text ? proto.afterText(text) : proto.quiet;
      }
      case "end":
        sessionEnded(henv, session);
        return proto.quiet;
      default:
        openAgentWorkspace(henv, session);
        return proto.quiet;
    }
  };
}

export interface ToolShape {
  /** The agent's shell tools, by the name it sends. */
  shells: ReadonlySet<string>;
  /** The fields of a shell tool's input that may hold the command, in the order read (default: `command`). */
  commandKeys?: readonly string[];
  /** Tools whose input is a patch in Codex's envelope (`*** Begin Patch`), with the field holding it. */
  patches?: Readonly<Record<string, string>>;
  /** The one replacement an edit tool's input describes, when it describes one (for recording without a stash). */
  edit?(tool: string, input: Json): StringEdit | undefined;
}

/**
 * The call a tool name and its input make, in the agent's folder: its shell, its patch tools read as Codex's
 * parser reads a patch, and every other tool as the gate reads any tool (engine/agent/toolCall.ts).
 */
export function toolCallOf(shape: ToolShape, tool: string, input: Json, cwd: string): ToolCall {
  if (shape.shells.has(tool))
    return { kind: "shell", command: (shape.commandKeys ?? ["command"]).map((k) => str(input[k])).find((c) => c !== undefined) ?? "" };
  const patchKey = shape.patches?.[tool];
  if (patchKey !== undefined) {
    const paths = applyPatchFiles(str(input[patchKey]) ?? "");
    if (paths === undefined) return { kind: "write-without-path", tool, why: unreadablePatch(tool) };
    return paths.length ? writeCall(cwd, paths) : { kind: "write-without-path", tool };
  }
  return anchored(cwd, classifyTool(tool, input));
}

/** A ToolEvent from a tool's name and input: the call, the call id and model given, and its one replacement. */
export function toolEventOf(shape: ToolShape, tool: string, input: Json, cwd: string, extra: Pick<ToolEvent, "callId" | "model">): ToolEvent {
  const edit = shape.edit?.(tool, input);
  const edits = edit ? [edit] : undefined;
  return {
    tool,
    call: toolCallOf(shape, tool, input, cwd),
    ...(extra.callId ? { callId: extra.callId } : {}),
    model: extra.model,
    ...(edits ? { edits, before: (after: string) => undoEdits(after, edits), wrote: wroteByEdits(edits) } : {}),
  };
}

/** The replacement in `input` under the keys named, when both texts are strings (`replaceAll`: the flag's key). */
export function replacement(input: Json, oldKey: string, newKey: string, replaceAll?: string): StringEdit | undefined {
  const from = input[oldKey];
  const to = input[newKey];
  if (typeof from !== "string" || typeof to !== "string" || from === "") return undefined;
  return { old_string: from, new_string: to, ...(replaceAll && input[replaceAll] === true ? { replace_all: true } : {}) };
}

/** A payload field holding an object, else an empty one. */
export function objectField(p: Json, key: string): Json {
  const v = p[key];
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {};
}

const unreadablePatch = (tool: string) =>
  `This ${tool} input is not a patch intent-lsp can read, so it cannot tell which files it writes. Send a patch that starts with \`*** Begin Patch\`, names each file on an \`*** Add File:\`, \`*** Update File:\` or \`*** Delete File:\` line, and ends with \`*** End Patch\`.`;
