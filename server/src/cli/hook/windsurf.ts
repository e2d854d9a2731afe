import { openAgentWorkspace, type HookEnvironment, type HookSession } from "../../io/agent/events";
import { undoEdits, wroteByEdits, type StringEdit } from "../../io/agent/agentWrite";
import { agentSessionId } from "../../io/agent/session";
import { asObject, str, type HookAnswer, type Json } from "./payload";
import { exit2Decision, withoutAsk } from "./answers";
import { absolute, afterTool, agentFolder, anchored, beforeTool, type ToolEvent } from "./toolEvent";
import { classifyTool } from "../../engine/agent/toolCall";

/**
 * Windsurf Cascade hooks (docs/AGENTS.md): the event is `agent_action_name` (`pre_write_code`,
 * `post_write_code`, `pre_run_command`, `post_run_command`, `pre_mcp_tool_use`, …) and the call is in
 * `tool_info` (`file_path` and `edits`; `command_line` and `cwd`; `mcp_server_name`, `mcp_tool_name` and
 * `mcp_tool_arguments`). There is no JSON decision: exit code 2 blocks, with the reason on
 * stderr; any other exit lets the action run. Standard output is shown to the person (`show_output`).
 */

export async function windsurfHook(payload: unknown, henv: HookEnvironment): Promise<HookAnswer> {
  const p = asObject(payload);
  const info = p["tool_info"] && typeof p["tool_info"] === "object" ? (p["tool_info"] as Json) : {};
  const session: HookSession = {
    cwd: agentFolder(str(info["cwd"]), henv),
    sessionId: agentSessionId("windsurf", str(p["trajectory_id"]) ?? "unknown"),
    client: "windsurf",
  };
  const model = { reported: str(p["model_name"]), env: henv.env };
  // a payload that names no action but a file or a command is judged as the write or command about to run
  const action =
    str(p["agent_action_name"]) ??
    (str(info["file_path"]) !== undefined ? "pre_write_code" : str(info["command_line"]) !== undefined ? "pre_run_command" : undefined);
  switch (action) {
    case "pre_write_code":
    case "pre_run_command":
    case "pre_mcp_tool_use":
      return exit2Decision(withoutAsk(beforeTool(henv, session, toolEvent(action, info, session.cwd, model))));
    case "post_write_code":
    case "post_run_command":
    case "post_mcp_tool_use": {
      const said = await afterTool(henv, session, toolEvent(action, info, session.cwd, model));
      const text = [said.toAgent, said.toUser].filter(Boolean).join(" ");
      return { stdout: text ? `${text}\n` : "", exitCode: 0 };
    }
    default:
      openAgentWorkspace(henv, session);
      return { stdout: "", exitCode: 0 };
  }
}

function toolEvent(action: string, info: Json, cwd: string, model: ToolEvent["model"]): ToolEvent {
  if (action.endsWith("_mcp_tool_use")) {
    // an MCP tool's call: judged by its own name and the paths its arguments name, as any agent's MCP tool is
    const tool = `mcp__${str(info["mcp_server_name"]) ?? ""}__${str(info["mcp_tool_name"]) ?? ""}`;
    const args = info["mcp_tool_arguments"] && typeof info["mcp_tool_arguments"] === "object" ? (info["mcp_tool_arguments"] as Json) : {};
    return { tool, call: anchored(cwd, classifyTool(tool, args)), model };
  }
  if (action.endsWith("_run_command")) return { tool: "run_command", call: { kind: "shell", command: str(info["command_line"]) ?? "" }, model };
  const filePath = str(info["file_path"]);
  if (!filePath) return { tool: "write_code", call: { kind: "write-without-path", tool: "write_code" }, model };
  const edits = Array.isArray(info["edits"]) ? (info["edits"] as StringEdit[]) : [];
  return {
    tool: "write_code",
    call: { kind: "write", filePath: absolute(cwd, filePath) },
    model,
    ...(edits.length ? { before: (after: string) => undoEdits(after, edits), wrote: wroteByEdits(edits) } : {}),
  };
}
