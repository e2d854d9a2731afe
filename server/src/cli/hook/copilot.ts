import type { HookEnvironment, HookSession } from "../../io/agent/events";
import { agentSessionId } from "../../io/agent/session";
import { classifyTool, type ToolCall } from "../../engine/agent/toolCall";
import { asObject, jsonAnswer, str, type HookAnswer, type Json } from "./payload";
import { copilotDecision, copilotPhase } from "./answers";
import { agentFolder, anchored, answerMoment, type ToolEvent } from "./toolEvent";

/**
 * GitHub Copilot CLI and coding agent hooks (docs/AGENTS.md): `preToolUse`/`postToolUse` payloads
 * with camelCase `toolName` and `toolArgs` (a JSON string in the CLI, an object in the SDK) and no event
 * name; a post payload carries `toolResult`. The deny is `{"permissionDecision":"deny",…}` on stdout with
 * exit code 0: it is the only blocking form documented for command hooks (what a non-zero exit does is
 * not documented, so it is not relied on). "ask" is documented for the SDK only, so it is not used.
 */

const SHELL_TOOLS = new Set(["bash", "powershell", "shell"]);

export async function copilotHook(payload: unknown, henv: HookEnvironment): Promise<HookAnswer> {
  const p = asObject(payload);
  const session: HookSession = { cwd: agentFolder(str(p["cwd"]), henv), sessionId: agentSessionId("copilot", str(p["sessionId"]) ?? "cli"), client: "copilot" };
  return answerMoment(henv, session, copilotPhase(p), {
    event: () => toolEvent(p, session.cwd, henv.env),
    decision: copilotDecision,
    // Copilot's CLI documents no way to reach the model after a tool; the person sees stderr in the log
    afterText: (text) => ({ ...jsonAnswer({ additionalContext: text }), stderr: `${text}\n` }),
  });
}

function toolEvent(p: Json, cwd: string, env: NodeJS.ProcessEnv): ToolEvent {
  const tool = str(p["toolName"]) ?? "";
  const args = toolArgs(p["toolArgs"]);
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
