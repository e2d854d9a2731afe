import { agentSessionId } from "./agentSession";
import { asObject, jsonAnswer, str, type HookAnswer, type Json } from "./payload";
import { internalErrorDecision, type GateDecision } from "./gateWrite";
import { openWorkspace, postWrite, preShell, preWrite, sessionEnded, type HookEnvironment, type HookSession } from "./flows";
import { normalizeModelId, undoEdits, type StringEdit } from "./recordWrite";

/**
 * Cursor's hook protocol (shared/agent-hooks.md): camelCase event names, `conversation_id`, `model` and
 * `workspace_roots` in every payload; permission answers `{permission, userMessage, agentMessage}`. The same
 * messages are also given under the snake_case names newer Cursor documentation uses; Cursor ignores keys it
 * does not know, so either reading gets them.
 */

const SHELL_TOOLS = /^(shell|bash|terminal|run_terminal_cmd|run_command)$/i;
/**
 * Tools that only read. Any other tool naming a file is gated as a write: Cursor's tool names vary between
 * versions, and an unknown writer slipping through would be worse than an unknown reader asked about.
 */
const READ_TOOLS = /^(read|read_file|view|grep|grep_search|glob|ls|list_dir|list_files|file_search|codebase_search|search|web_search|fetch)$/i;

export async function cursorHook(payload: unknown, henv: HookEnvironment): Promise<HookAnswer> {
  const p = asObject(payload);
  const roots = Array.isArray(p["workspace_roots"]) ? (p["workspace_roots"] as unknown[]).filter((r): r is string => typeof r === "string") : [];
  const session: HookSession = {
    cwd: roots[0] ?? str(p["cwd"]) ?? process.cwd(),
    sessionId: agentSessionId("cursor", str(p["conversation_id"]) ?? "unknown"),
    client: "cursor",
  };
  switch (str(p["hook_event_name"])) {
    case "preToolUse":
      return preToolUse(p, henv, session);
    case "beforeShellExecution":
      return permission(preShell(openWorkspace(henv, session), str(p["command"]) ?? ""));
    case "afterFileEdit":
      return afterFileEdit(p, henv, session);
    case "sessionStart":
      openWorkspace(henv, session); // the session file; Cursor's answer to this event carries nothing of ours
      return jsonAnswer({});
    case "sessionEnd":
      sessionEnded(henv, session);
      return jsonAnswer({});
    default:
      openWorkspace(henv, session);
      return jsonAnswer({});
  }
}

function preToolUse(p: Json, henv: HookEnvironment, session: HookSession): HookAnswer {
  const tool = str(p["tool_name"]) ?? "";
  const input = toolInput(p["tool_input"]);
  const ctx = openWorkspace(henv, session);
  if (SHELL_TOOLS.test(tool)) return permission(preShell(ctx, str(input["command"]) ?? ""));
  if (READ_TOOLS.test(tool)) return jsonAnswer({});
  const filePath = str(input["file_path"]) ?? str(input["path"]) ?? str(input["target_file"]) ?? str(input["notebook_path"]);
  if (!filePath) return jsonAnswer({}); // not a file tool: nothing for the gate to say
  return permission(preWrite(ctx, filePath, str(input["expected_hash"]) ?? str(input["expected_content_hash"])));
}

async function afterFileEdit(p: Json, henv: HookEnvironment, session: HookSession): Promise<HookAnswer> {
  const filePath = str(p["file_path"]);
  const ctx = openWorkspace(henv, session);
  if (!filePath) return jsonAnswer({});
  const edits = Array.isArray(p["edits"]) ? (p["edits"] as StringEdit[]) : [];
  const modelId = normalizeModelId(str(p["model"]) ?? henv.env["INTENT_LSP_MODEL"]);
  const outcome = await postWrite(ctx, henv, { filePath, modelId, before: (after) => (edits.length ? undoEdits(after, edits) : undefined) });
  const answer = jsonAnswer({});
  if (outcome.kind === "unknown-before") answer.stderr = `intent-lsp did not record the edit of ${outcome.path}: which lines it changed cannot be told from this event.\n`;
  return answer;
}

/** The permission answer for a gate decision; "none" answers nothing, so Cursor applies its own rules. */
export function permission(d: GateDecision): HookAnswer {
  if (d.kind === "none") return jsonAnswer({});
  if (d.kind === "allow") return jsonAnswer({ permission: "allow" });
  const agentMessage = d.kind === "deny" ? `[intent-lsp: ${d.code}] ${d.reason}` : d.reason;
  const userMessage = d.kind === "deny" ? `intent-lsp denied this call (${d.code}): ${d.reason}` : `intent-lsp asks: ${d.reason}`;
  return jsonAnswer({ permission: d.kind, userMessage, agentMessage, user_message: userMessage, agent_message: agentMessage });
}

/** A failed hook: a denial where Cursor asks for a permission (or the input was unreadable), else a log line. */
export function cursorFailure(err: unknown, payload?: unknown): HookAnswer {
  const event = payload && typeof payload === "object" ? (payload as Json)["hook_event_name"] : undefined;
  if (event === undefined || event === "preToolUse" || event === "beforeShellExecution") return permission(internalErrorDecision(err));
  return { ...jsonAnswer({}), stderr: `intent-lsp's ${String(event)} hook failed: ${err instanceof Error ? err.message : String(err)}\n` };
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
