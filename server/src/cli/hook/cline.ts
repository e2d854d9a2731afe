import { openAgentWorkspace, type HookEnvironment, type HookSession } from "../../io/agent/events";
import { agentSessionId } from "../../io/agent/session";
import { classifyTool, type ToolCall } from "../../engine/agent/toolCall";
import { asObject, jsonAnswer, str, type HookAnswer, type Json } from "./payload";
import { clineDecision, withoutAsk } from "./answers";
import { afterTool, agentFolder, anchored, beforeTool, type ToolEvent } from "./toolEvent";

/**
 * Cline (docs/AGENTS.md): hooks are executables named after the event, fed `hookName`, `taskId`,
 * `workspaceRoots` and a per-event object (`preToolUse: {toolName, parameters}`, `postToolUse: {…, result,
 * success}`). Writes are `write_to_file` and `replace_in_file` (`path`, relative to the workspace); the shell
 * is `execute_command`. Every answer is `{"cancel", "errorMessage", "contextModification"}` on stdout; a
 * cancel is the only blocking form Cline documents (exit codes are not documented as blocking).
 */

const SHELL_TOOLS = new Set(["execute_command"]);

export async function clineHook(payload: unknown, henv: HookEnvironment): Promise<HookAnswer> {
  const p = asObject(payload);
  const roots = Array.isArray(p["workspaceRoots"]) ? (p["workspaceRoots"] as unknown[]).filter((r): r is string => typeof r === "string") : [];
  const session: HookSession = { cwd: agentFolder(str(roots[0]), henv), sessionId: agentSessionId("cline", str(p["taskId"]) ?? "unknown"), client: "cline" };
  // a payload that names no hook but carries a tool call is judged by the call it carries: before it unless it is the call's result
  switch (str(p["hookName"]) ?? (p["preToolUse"] ? "PreToolUse" : p["postToolUse"] ? "PostToolUse" : undefined)) {
    case "PreToolUse":
      return clineDecision(withoutAsk(beforeTool(henv, session, toolEvent(p, "preToolUse", session.cwd, henv.env))));
    case "PostToolUse": {
      const said = await afterTool(henv, session, toolEvent(p, "postToolUse", session.cwd, henv.env));
      const text = [said.toAgent, said.toUser].filter(Boolean).join(" ");
      return jsonAnswer(text ? { cancel: false, contextModification: text } : { cancel: false });
    }
    default:
      openAgentWorkspace(henv, session);
      return jsonAnswer({ cancel: false });
  }
}

function toolEvent(p: Json, key: "preToolUse" | "postToolUse", cwd: string, env: NodeJS.ProcessEnv): ToolEvent {
  const ev = p[key] && typeof p[key] === "object" ? (p[key] as Json) : {};
  const tool = str(ev["toolName"]) ?? "";
  const params = ev["parameters"] && typeof ev["parameters"] === "object" ? (ev["parameters"] as Json) : {};
  if (tool === MCP_PROXY) return { tool, call: anchored(cwd, mcpCall(params)), model: { reported: str(p["model"]), env } };
  const call: ToolCall = SHELL_TOOLS.has(tool) ? { kind: "shell", command: str(params["command"]) ?? "" } : anchored(cwd, classifyTool(tool, params));
  return { tool, call, model: { reported: str(p["model"]), env } };
}

/** Cline's tool that calls an MCP server's tool: `{server_name, tool_name, arguments}`, the arguments as JSON text. */
const MCP_PROXY = "use_mcp_tool";

/**
 * The MCP tool a `use_mcp_tool` call makes, judged as the same tool is in other agents (`mcp__<server>__<tool>`);
 * arguments that are not a JSON object deny it (what it would do cannot be told).
 */
function mcpCall(params: Json): ToolCall {
  const server = str(params["server_name"]) ?? "";
  const tool = str(params["tool_name"]) ?? "";
  const raw = params["arguments"];
  let args: unknown = raw ?? {};
  if (typeof raw === "string") {
    try {
      args = raw.trim() === "" ? {} : JSON.parse(raw);
    } catch {
      args = undefined;
    }
  }
  if (!args || typeof args !== "object" || Array.isArray(args))
    return {
      kind: "write-without-path",
      tool: `mcp__${server}__${tool}`,
      why: `Cline's use_mcp_tool gave ${server}'s ${tool} arguments that are not a JSON object, so what it would do cannot be judged; ask the user.`,
    };
  return classifyTool(`mcp__${server}__${tool}`, args as Record<string, unknown>);
}
