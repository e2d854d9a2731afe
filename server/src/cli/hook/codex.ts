import type { HookEnvironment } from "../../io/agent/events";
import { classifyTool, type ToolCall } from "../../engine/agent/toolCall";
import { applyPatchFiles } from "../../engine/agent/applyPatch";
import { asObject, str, type HookAnswer, type Json } from "./payload";
import { anchored, answerClaudeLike, writeCall, type ToolEvent } from "./toolEvent";

/**
 * OpenAI Codex CLI (docs/AGENTS.md): Claude-like events and fields, plus `model` in every payload.
 * Shell tools and `apply_patch` both send `tool_input.command`; for `apply_patch` it is the patch, whose
 * file headers name the files, read as Codex reads them (engine/agent/applyPatch.ts). Codex has no "ask" and ignores an
 * "allow" without updatedInput, so the answers are deny or nothing. A deny is given both ways Codex
 * honours: the JSON decision on stdout and exit code 2 with the reason on stderr.
 */

const SHELL_TOOLS = new Set(["Bash", "shell", "exec_command", "local_shell", "unified_exec"]);

export async function codexHook(payload: unknown, henv: HookEnvironment): Promise<HookAnswer> {
  return answerClaudeLike("codex", asObject(payload), henv, toolEvent);
}

function toolEvent(p: Json, cwd: string, env: NodeJS.ProcessEnv): ToolEvent {
  const tool = str(p["tool_name"]) ?? "";
  const input = p["tool_input"] && typeof p["tool_input"] === "object" ? (p["tool_input"] as Json) : {};
  return {
    tool,
    call: codexCall(tool, input, cwd, env["HOME"]),
    ...(str(p["tool_use_id"]) ? { callId: str(p["tool_use_id"]) } : {}),
    model: { reported: str(p["model"]), env, defaultProvider: "openai" },
  };
}

/** `home`: Codex's tools expand a leading `~` to the home folder, so its paths are read the same way. */
function codexCall(tool: string, input: Json, cwd: string, home: string | undefined): ToolCall {
  const command = commandText(input["command"]);
  if (tool === "apply_patch") {
    const paths = applyPatchFiles(patchText(input["command"]) ?? "");
    if (paths === undefined) return { kind: "write-without-path", tool, why: UNREADABLE_PATCH };
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

/** The patch of an apply_patch call: the text itself, or the argument of an argv `["apply_patch", patch]`. */
function patchText(v: unknown): string | undefined {
  if (Array.isArray(v) && v.length === 2 && (v[0] === "apply_patch" || v[0] === "applypatch") && typeof v[1] === "string") return v[1];
  return commandText(v);
}

const UNREADABLE_PATCH =
  "This apply_patch input is not a patch Codex can read, so intent-lsp cannot tell which files it writes. Send a patch that starts with `*** Begin Patch`, names each file on an `*** Add File:`, `*** Update File:` or `*** Delete File:` line, and ends with `*** End Patch`.";
