import type { HookEnvironment, HookSession } from "../../io/agent/events";
import { agentSessionId } from "../../io/agent/session";
import { classifyTool, type ToolCall } from "../../engine/agent/toolCall";
import { asObject, jsonAnswer, str, type HookAnswer, type Json } from "./payload";
import { copilotDecision, copilotForm, copilotPhase } from "./answers";
import { agentFolder, anchored, answerMoment, type ToolEvent } from "./toolEvent";

/**
 * GitHub Copilot CLI and coding agent hooks (docs/AGENTS.md), and VS Code's agent hooks, which run the same
 * `.github/hooks` files. Two payload forms: camelCase `preToolUse`/`postToolUse` with `toolName` and
 * `toolArgs` (a JSON string in the CLI, an object in the SDK), a post payload carrying `toolResult`; and
 * PascalCase `PreToolUse`/`PostToolUse` with `tool_name`/`tool_input` (Copilot CLI's "VS Code compatible"
 * form, and VS Code's own, which spells the event `hookEventName` and uses its tool names). Each form gets its
 * own denial (`copilotDecision`). "ask" is not used: the cloud agent reads it as a denial.
 */

const SHELL_TOOLS = new Set(["bash", "powershell", "shell", "Bash", "PowerShell", "runTerminalCommand", "run_in_terminal"]);

export async function copilotHook(payload: unknown, henv: HookEnvironment): Promise<HookAnswer> {
  const p = asObject(payload);
  const session: HookSession = {
    cwd: agentFolder(str(p["cwd"]), henv),
    sessionId: agentSessionId("copilot", str(p["sessionId"]) ?? str(p["session_id"]) ?? "cli"),
    client: "copilot",
  };
  return answerMoment(henv, session, copilotPhase(p), {
    event: () => toolEvent(p, session.cwd, henv.env),
    decision: (d) => copilotDecision(d, copilotForm(p)),
    // Copilot's CLI documents no way to reach the model after a tool; the person sees stderr in the log
    afterText: (text) => ({ ...jsonAnswer({ additionalContext: text }), stderr: `${text}\n` }),
  });
}

function toolEvent(p: Json, cwd: string, env: NodeJS.ProcessEnv): ToolEvent {
  const tool = str(p["toolName"]) ?? str(p["tool_name"]) ?? "";
  const args = toolArgs(p["toolArgs"] ?? p["tool_input"]);
  const call: ToolCall = SHELL_TOOLS.has(tool) ? { kind: "shell", command: str(args["command"]) ?? "" } : anchored(cwd, classifyTool(tool, args));
  return { tool, call, model: { reported: str(p["model"]), env } };
}

/** `toolArgs` as an object, whether sent as one or as its JSON text. */
function toolArgs(v: unknown): Json {
  if (typeof v === "string") {
    const parsed = JSON.parse(v) as unknown; // unreadable arguments are a failure: denied before a tool
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("toolArgs is not a JSON object");
    return parsed as Json;
  }
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {};
}
