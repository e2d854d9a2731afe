import type { HookEnvironment, HookSession } from "../../io/agent/events";
import { agentSessionId } from "../../io/agent/session";
import { classifyTool, type ToolCall } from "../../engine/agent/toolCall";
import { internalErrorDecision } from "../../engine/agent/decision";
import { asObject, jsonAnswer, str, type HookAnswer, type Json } from "./payload";
import { anchored, answerMoment, momentOf, preToolUseDenial, withoutAsk, writeCall, type ToolEvent } from "./toolEvent";

/**
 * OpenAI Codex CLI (shared/agent-hooks.md): Claude-like events and fields, plus `model` in every payload.
 * Shell tools and `apply_patch` both send `tool_input.command`; for `apply_patch` it is the patch, whose
 * `*** Add/Update/Delete File:` and `*** Move to:` lines name the files. Codex has no "ask" and ignores an
 * "allow" without updatedInput, so the answers are deny or nothing. A deny is given both ways Codex
 * honours: the JSON decision on stdout and exit code 2 with the reason on stderr.
 */

const SHELL_TOOLS = new Set(["Bash", "shell", "exec_command", "local_shell", "unified_exec"]);

export async function codexHook(payload: unknown, henv: HookEnvironment): Promise<HookAnswer> {
  const p = asObject(payload);
  const session: HookSession = { cwd: str(p["cwd"]) ?? process.cwd(), sessionId: agentSessionId("codex", str(p["session_id"]) ?? "unknown"), client: "codex" };
  return answerMoment(henv, session, momentOf(str(p["hook_event_name"]), "PreToolUse", "PostToolUse", "SessionEnd"), {
    event: () => toolEvent(p, session.cwd, henv.env),
    decision: preToolUseDenial,
    afterText: (text) => jsonAnswer({ decision: "block", reason: text }),
  });
}

function toolEvent(p: Json, cwd: string, env: NodeJS.ProcessEnv): ToolEvent {
  const tool = str(p["tool_name"]) ?? "";
  const input = p["tool_input"] && typeof p["tool_input"] === "object" ? (p["tool_input"] as Json) : {};
  return { tool, call: codexCall(tool, input, cwd, env["HOME"]), ...(str(p["tool_use_id"]) ? { callId: str(p["tool_use_id"]) } : {}), model: { reported: str(p["model"]), env, defaultProvider: "openai" } };
}

/** `home`: Codex's tools expand a leading `~` to the home folder, so its paths are read the same way. */
function codexCall(tool: string, input: Json, cwd: string, home: string | undefined): ToolCall {
  const command = commandText(input["command"]);
  if (tool === "apply_patch") {
    const paths = patchPaths(command ?? "");
    return paths.length ? writeCall(cwd, paths, home) : { kind: "write-without-path", tool };
  }
  if (SHELL_TOOLS.has(tool)) return { kind: "shell", command: command ?? "" };
  return anchored(cwd, classifyTool(tool, input), home);
}

/** Codex has sent a command as one string and as an argv array (`["bash", "-lc", "…"]`). */
function commandText(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return (v as string[]).join(" ");
  return undefined;
}

/** Every file an apply_patch envelope adds, updates, deletes or moves to, in order, each once. */
export function patchPaths(patch: string): string[] {
  const out: string[] = [];
  for (const m of patch.matchAll(/^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$/gm)) out.push(m[1]!);
  return [...new Set(out)];
}

export function codexFailure(err: unknown, payload?: unknown): HookAnswer {
  const event = payload && typeof payload === "object" ? (payload as Json)["hook_event_name"] : undefined;
  if (event === undefined || event === "PreToolUse") return preToolUseDenial(withoutAsk(internalErrorDecision(err)));
  return { ...jsonAnswer({}), stderr: `intent-lsp's ${String(event)} hook failed: ${err instanceof Error ? err.message : String(err)}\n` };
}
