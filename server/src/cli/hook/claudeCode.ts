/**
 * Claude Code's hook protocol (docs/AGENTS.md): one JSON object on stdin per event; for PreToolUse
 * the answer is `hookSpecificOutput.permissionDecision` on stdout with exit code 0. Nothing here may throw
 * past `claudeCodeHook` into an exit code Claude Code would read as "allow": errors become denials.
 */
import {
  afterWrite,
  afterWrites,
  beforeToolUse,
  callPaths,
  openAgentWorkspace,
  sessionBriefing,
  sessionEnded,
  type HookEnvironment,
  type HookSession,
  afterShell,
} from "../../io/agent/events";
import { undoEdits, wroteByEdits, type StringEdit, type WriteReport } from "../../io/agent/agentWrite";
import { agentSessionId } from "../../io/agent/session";
import { classifyTool, recordedAs } from "../../engine/agent/toolCall";
import { asObject, jsonAnswer, str, type HookAnswer, type Json } from "./payload";
import { claudeCodeDecision } from "./answers";
import { agentFolder, unnamedMoment } from "./toolEvent";

export async function claudeCodeHook(payload: unknown, henv: HookEnvironment): Promise<HookAnswer> {
  const p = asObject(payload);
  const event = claudeEvent(p);
  const session: HookSession = {
    cwd: agentFolder(str(p["cwd"]), henv),
    sessionId: agentSessionId("claude", str(p["session_id"]) ?? str(p["sessionId"]) ?? "unknown"),
    client: "claude-code",
  };
  switch (event) {
    case "PreToolUse": {
      const call = classifyTool(str(p["tool_name"]) ?? "", asObject(p["tool_input"] ?? {}));
      return claudeCodeDecision(beforeToolUse(openAgentWorkspace(henv, session, callPaths(call)), call, str(p["tool_use_id"])));
    }
    // a tool that failed may have changed files (and the rules) before it failed: recorded as one that succeeded
    case "PostToolUse":
    case "PostToolUseFailure":
      return postToolUse(p, henv, session);
    case "SessionStart": {
      const ctx = openAgentWorkspace(henv, session);
      if (!ctx) return jsonAnswer({});
      return jsonAnswer({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: sessionBriefing(ctx) } });
    }
    case "SessionEnd":
      sessionEnded(henv, session);
      return jsonAnswer({});
    default:
      // any other event (UserPromptSubmit, Stop, …) is only a heartbeat
      openAgentWorkspace(henv, session);
      return jsonAnswer({});
  }
}

/**
 * The event a payload in Claude Code's shape is. Other agents read Claude Code's hook files and run this
 * hook with their own spelling (VS Code's agent hooks: `hookEventName`, `sessionId`); one that names no event
 * is placed by what it carries (`unnamedMoment`).
 */
function claudeEvent(p: Json): string | undefined {
  const named = str(p["hook_event_name"]) ?? str(p["hookEventName"]);
  if (named !== undefined) return named;
  const moment = unnamedMoment(p);
  return moment === "pre" ? "PreToolUse" : moment === "post" ? "PostToolUse" : undefined;
}

async function postToolUse(p: Json, henv: HookEnvironment, session: HookSession): Promise<HookAnswer> {
  const tool = str(p["tool_name"]) ?? "";
  const input = asObject(p["tool_input"] ?? {});
  const call = recordedAs(classifyTool(tool, input));
  const ctx = openAgentWorkspace(henv, session, callPaths(call));
  if (call.kind === "shell") {
    const said = await afterShell(
      ctx,
      henv,
      {
        callId: str(p["tool_use_id"]),
        tool,
        command: call.command,
        model: { env: henv.env, transcriptPath: str(p["transcript_path"]), defaultProvider: "anthropic" },
      },
      session,
    );
    // the command already ran: "block" only puts the reason before Claude, which is the point
    return jsonAnswer({ ...(said.toAgent ? { decision: "block", reason: said.toAgent } : {}), ...(said.toUser ? { systemMessage: said.toUser } : {}) });
  }
  if (call.kind !== "write") return jsonAnswer({});
  // every file the call names (a move's source and destination): what the payload proves is about a single file
  const single = !call.otherPaths;
  const unknown: string[] = [];
  const reports = [call.filePath, ...(call.otherPaths ?? [])].map((filePath) => ({
    filePath,
    callId: str(p["tool_use_id"]),
    model: { env: henv.env, transcriptPath: str(p["transcript_path"]), defaultProvider: "anthropic" },
    ...(single ? { before: (after: string) => beforeFromPayload(tool, input, p["tool_response"], after) } : {}),
    ...(single && stringEdits(tool, input) ? { edits: stringEdits(tool, input) } : {}),
    ...(single ? toolWrote(tool, input) : {}),
  }));
  // a move names its source and destination: recorded together, the destination as moved from the source
  const outcomes = single ? [await afterWrite(ctx, henv, reports[0]!)] : await afterWrites(ctx, henv, reports);
  for (const outcome of outcomes) if (outcome?.kind === "unknown-before") unknown.push(outcome.path);
  if (unknown.length) {
    return jsonAnswer({
      systemMessage: `intent-lsp did not record this write to ${unknown.join(", ")}: which lines it changed cannot be told (no pre-write stash). Add the PreToolUse hook for Write|Edit|MultiEdit|NotebookEdit too.`,
    });
  }
  return jsonAnswer({});
}

/**
 * The content before the write, from what Claude Code reports when no stash exists: the tool's own
 * `originalFile`, a Write that created the file, or an Edit undone on the content now on disk.
 */
function beforeFromPayload(tool: string, input: Json, response: unknown, after: string): string | null | undefined {
  const r = response && typeof response === "object" ? (response as Json) : {};
  if (typeof r["originalFile"] === "string") return r["originalFile"];
  if (tool === "Write" && r["type"] === "create") return null;
  if (tool === "Edit") return undoEdits(after, [input as unknown as StringEdit]);
  if (tool === "MultiEdit" && Array.isArray(input["edits"])) return undoEdits(after, input["edits"] as StringEdit[]);
  return undefined;
}

/** What a Write or an Edit wrote, as its input states it (the content, or the replacements on the content before). */
function toolWrote(tool: string, input: Json): Pick<WriteReport, "wrote"> {
  if (tool === "Write" && typeof input["content"] === "string") {
    const content = input["content"];
    return { wrote: () => content };
  }
  const edits = stringEdits(tool, input);
  return edits ? { wrote: wroteByEdits(edits) } : {};
}

/** The replacements an Edit or MultiEdit made, in order, as its input states them. */
function stringEdits(tool: string, input: Json): StringEdit[] | undefined {
  if (tool === "Edit") return [input as unknown as StringEdit];
  if (tool === "MultiEdit" && Array.isArray(input["edits"])) return input["edits"] as StringEdit[];
  return undefined;
}
