import type { HookEnvironment, HookSession } from "../../io/agent/events";
import { agentSessionId } from "../../io/agent/session";
import { classifyTool, type ToolCall } from "../../engine/agent/toolCall";
import { asObject, jsonAnswer, str, type HookAnswer, type Json } from "./payload";
import { geminiDecision } from "./answers";
import { agentFolder, anchored, answerMoment, momentOf, type ToolEvent } from "./toolEvent";

/**
 * Gemini CLI (docs/AGENTS.md): `BeforeTool`/`AfterTool` with `tool_name`/`tool_input`; writes are
 * `write_file` and `replace` (`file_path`), the shell is `run_shell_command` (`command`, `dir_path`). No
 * "ask". A deny is given both ways Gemini honours: `{"decision":"deny","reason"}` on stdout and exit code
 * 2 with the reason on stderr. After a tool, `hookSpecificOutput.additionalContext` reaches the model.
 */

const SHELL_TOOLS = new Set(["run_shell_command"]);

export async function geminiHook(payload: unknown, henv: HookEnvironment): Promise<HookAnswer> {
  const p = asObject(payload);
  const session: HookSession = {
    cwd: agentFolder(str(p["cwd"]), henv),
    sessionId: agentSessionId("gemini", str(p["session_id"]) ?? "unknown"),
    client: "gemini",
  };
  return answerMoment(henv, session, momentOf(str(p["hook_event_name"]), "BeforeTool", "AfterTool", "SessionEnd", p), {
    event: () => toolEvent(p, session.cwd, henv.env),
    decision: geminiDecision,
    afterText: (text) => jsonAnswer({ hookSpecificOutput: { hookEventName: "AfterTool", additionalContext: text } }),
  });
}

function toolEvent(p: Json, cwd: string, env: NodeJS.ProcessEnv): ToolEvent {
  const tool = toolName(p);
  const input = p["tool_input"] && typeof p["tool_input"] === "object" ? (p["tool_input"] as Json) : {};
  const classified = (name: string): ToolCall => (SHELL_TOOLS.has(name) ? { kind: "shell", command: str(input["command"]) ?? "" } : classifyTool(name, input));
  // the name the model called and the one its context gives are both read: a call either says is gated is
  const raw = str(p["tool_name"]) ?? "";
  const byContext = classified(tool);
  const call: ToolCall = anchored(cwd, byContext.kind === "other" && raw !== tool ? classified(raw) : byContext);
  // Gemini names no model in tool events: INTENT_LSP_MODEL or the contributor.modelId setting does
  return { tool, call, model: { env, defaultProvider: "google" } };
}

/**
 * The tool's name as the gate reads MCP tools' names (`mcp__<server>__<tool>`): Gemini has named them
 * `mcp_<server>_<tool>`, where the tool's own name cannot be told from the server's, so an MCP call is named
 * by the server and tool its `mcp_context` gives.
 */
function toolName(p: Json): string {
  const mcp = p["mcp_context"] && typeof p["mcp_context"] === "object" ? (p["mcp_context"] as Json) : undefined;
  const server = str(mcp?.["server_name"]);
  const own = str(mcp?.["tool_name"]);
  if (server !== undefined && own !== undefined) return `mcp__${server}__${own}`;
  return str(p["tool_name"]) ?? "";
}
