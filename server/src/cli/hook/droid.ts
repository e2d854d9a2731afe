import type { HookEnvironment } from "../../io/agent/events";
import { undoEdits, wroteByEdits, type StringEdit } from "../../io/agent/agentWrite";
import { classifyTool, type ToolCall } from "../../engine/agent/toolCall";
import { asObject, str, type HookAnswer, type Json } from "./payload";
import { anchored, answerClaudeLike, type ToolEvent } from "./toolEvent";

/**
 * Factory Droid (docs/AGENTS.md): Claude Code's hook shape (`hook_event_name`, `tool_name`,
 * `tool_input`, `hookSpecificOutput.permissionDecision`, exit code 2 blocks) with Droid's tools: `Create`,
 * `Edit` (`file_path`, `old_str`/`new_str`) and `Execute` (the shell, `command`). Whether Droid honours
 * "ask" is not documented, so intent-lsp asks nothing of it; a deny is given both ways: the JSON decision
 * on stdout and exit code 2 with the reason on stderr.
 */

const SHELL_TOOLS = new Set(["Execute"]);

export async function droidHook(payload: unknown, henv: HookEnvironment): Promise<HookAnswer> {
  return answerClaudeLike("droid", asObject(payload), henv, toolEvent);
}

function toolEvent(p: Json, cwd: string, env: NodeJS.ProcessEnv): ToolEvent {
  const tool = str(p["tool_name"]) ?? "";
  const input = p["tool_input"] && typeof p["tool_input"] === "object" ? (p["tool_input"] as Json) : {};
  const call: ToolCall = SHELL_TOOLS.has(tool) ? { kind: "shell", command: str(input["command"]) ?? "" } : anchored(cwd, classifyTool(tool, input));
  const edit =
    tool === "Edit" && typeof input["old_str"] === "string" && typeof input["new_str"] === "string"
      ? [{ old_string: input["old_str"], new_string: input["new_str"] } as StringEdit]
      : undefined;
  return {
    tool,
    call,
    ...(str(p["tool_use_id"]) ? { callId: str(p["tool_use_id"]) } : {}),
    model: { reported: str(p["model"]), env, transcriptPath: str(p["transcript_path"]) },
    ...(edit ? { edits: edit, before: (after: string) => undoEdits(after, edit), wrote: wroteByEdits(edit) } : {}),
  };
}
