/**
 * Cursor's hook protocol (docs/AGENTS.md): camelCase event names, `conversation_id`, `model` and
 * `workspace_roots` in every payload; permission answers `{permission, userMessage, agentMessage}`. The same
 * messages are also given under the snake_case names newer Cursor documentation uses; Cursor ignores keys it
 * does not know, so either reading gets them.
 */
import {
  afterWrite,
  beforeShell,
  beforeToolUse,
  callPaths,
  openAgentWorkspace,
  sessionEnded,
  type HookEnvironment,
  type HookSession,
  afterShell,
} from "../../io/agent/events";
import { undoEdits, wroteByEdits, type StringEdit } from "../../io/agent/agentWrite";
import { agentSessionId } from "../../io/agent/session";
import { classifyTool } from "../../engine/agent/toolCall";
import { asObject, jsonAnswer, str, type HookAnswer, type Json } from "./payload";
import { cursorPermission } from "./answers";
import { afterTool, agentFolder, anchored, unnamedMoment } from "./toolEvent";

export async function cursorHook(payload: unknown, henv: HookEnvironment): Promise<HookAnswer> {
  const p = asObject(payload);
  const roots = Array.isArray(p["workspace_roots"]) ? (p["workspace_roots"] as unknown[]).filter((r): r is string => typeof r === "string") : [];
  const session: HookSession = {
    cwd: agentFolder(str(roots[0]) ?? str(p["cwd"]), henv),
    sessionId: agentSessionId("cursor", str(p["conversation_id"]) ?? "unknown"),
    client: "cursor",
  };
  // a payload that names a tool but no event is judged as the call about to run (unnamedMoment)
  switch (str(p["hook_event_name"]) ?? (unnamedMoment(p) === "pre" ? "preToolUse" : undefined)) {
    case "preToolUse":
    // an MCP tool's call: its own name (`write_file`, `move_file`), judged as any tool's
    case "beforeMCPExecution": {
      const call = classifyTool(str(p["tool_name"]) ?? "", toolInput(p["tool_input"]));
      const ctx = openAgentWorkspace(henv, session, callPaths(call));
      return cursorPermission(beforeToolUse(ctx, call));
    }
    case "afterMCPExecution":
      return afterMcp(p, henv, session);
    case "beforeShellExecution":
      return cursorPermission(beforeShell(openAgentWorkspace(henv, session), str(p["command"]) ?? ""));
    case "afterFileEdit":
      return afterFileEdit(p, henv, session);
    case "afterShellExecution": {
      // the one shell event pair that brackets the command: preToolUse(Shell) may snapshot too, but only
      // this event records, so the command is recorded once
      const command = str(p["command"]) ?? "";
      const said = await afterShell(
        openAgentWorkspace(henv, session),
        henv,
        { tool: "Shell", command, model: { reported: str(p["model"]), env: henv.env } },
        session,
      );
      const text = [said.toAgent, said.toUser].filter(Boolean).join(" ");
      if (!text) return jsonAnswer({});
      return { ...jsonAnswer({ agentMessage: text, agent_message: text }), stderr: `${text}\n` };
    }
    case "sessionEnd":
      sessionEnded(henv, session);
      return jsonAnswer({});
    default:
      // sessionStart and any other event: the session file; Cursor's answer to them carries nothing of ours
      openAgentWorkspace(henv, session);
      return jsonAnswer({});
  }
}

async function afterFileEdit(p: Json, henv: HookEnvironment, session: HookSession): Promise<HookAnswer> {
  const filePath = str(p["file_path"]);
  const ctx = openAgentWorkspace(henv, session, filePath);
  if (!filePath) return jsonAnswer({});
  const edits = Array.isArray(p["edits"]) ? (p["edits"] as StringEdit[]) : [];
  const outcome = await afterWrite(ctx, henv, {
    filePath,
    model: { reported: str(p["model"]), env: henv.env },
    before: (after) => (edits.length ? undoEdits(after, edits) : undefined),
    ...(edits.length ? { wrote: wroteByEdits(edits) } : {}),
  });
  const answer = jsonAnswer({});
  if (outcome?.kind === "unknown-before")
    answer.stderr = `intent-lsp did not record the edit of ${outcome.path}: which lines it changed cannot be told from this event.\n`;
  return answer;
}

/**
 * After an MCP tool's call: the files it names recorded as any tool's writes are (the pre-write stash
 * `beforeMCPExecution` left proves what they were); Cursor's own `afterFileEdit` does not report them.
 */
async function afterMcp(p: Json, henv: HookEnvironment, session: HookSession): Promise<HookAnswer> {
  const tool = str(p["tool_name"]) ?? "";
  const said = await afterTool(henv, session, {
    tool,
    call: anchored(session.cwd, classifyTool(tool, toolInput(p["tool_input"]))),
    model: { reported: str(p["model"]), env: henv.env },
  });
  const text = [said.toAgent, said.toUser].filter(Boolean).join(" ");
  if (!text) return jsonAnswer({});
  return { ...jsonAnswer({ agentMessage: text, agent_message: text }), stderr: `${text}\n` };
}

/** Cursor has sent tool_input both as an object and as a JSON string. */
function toolInput(v: unknown): Json {
  if (typeof v === "string") {
    try {
      const parsed = JSON.parse(v) as unknown;
      return parsed && typeof parsed === "object" ? (parsed as Json) : {};
    } catch {
      return {};
    }
  }
  return v && typeof v === "object" ? (v as Json) : {};
}
