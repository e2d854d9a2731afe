import { str, type Json } from "./payload";
import { flatHook, objectField, replacement, toolEventOf, type ToolShape } from "./flatHook";
import { AMP, OPENCODE } from "./protocols";
import type { ModelSources } from "../../io/modelSources";

/**
 * OpenCode and Amp, whose hooks are in-process plugins: the plugin `intent init` writes (plugins.ts) sends
 * each tool call in Claude Code's field names (`hook_event_name`, `session_id`, `cwd`, `tool_name`,
 * `tool_input`, `tool_use_id`, and `model` when the agent has told the plugin), with the agent's own tools.
 */

const OPENCODE_SHAPE: ToolShape = {
  shells: new Set(["bash"]),
  patches: { apply_patch: "patchText" },
  edit: (tool, input) => (tool === "edit" ? replacement(input, "oldString", "newString", "replaceAll") : undefined),
};

/** Amp's tools (its plugin API is experimental): `edit_file` (`path`, `old_str`/`new_str`), `create_file`, the shell `Bash` (`cmd`). */
const AMP_SHAPE: ToolShape = {
  shells: new Set(["Bash", "shell_command"]),
  commandKeys: ["cmd", "command"],
  edit: (tool, input) => (tool === "edit_file" ? replacement(input, "old_str", "new_str", "replace_all") : undefined),
};

const model = (p: Json, env: NodeJS.ProcessEnv): Omit<ModelSources, "settings"> => ({ reported: str(p["model"]), env });

export const opencodeHook = flatHook(OPENCODE, "opencode", {
  session: (p) => str(p["session_id"]),
  cwd: (p) => str(p["cwd"]),
  toolEvent: (p: Json, cwd, env) =>
    toolEventOf(OPENCODE_SHAPE, str(p["tool_name"]) ?? "", objectField(p, "tool_input"), cwd, { callId: str(p["tool_use_id"]), model: model(p, env) }),
});

export const ampHook = flatHook(AMP, "amp", {
  session: (p) => str(p["session_id"]),
  cwd: (p) => str(p["cwd"]),
  toolEvent: (p: Json, cwd, env) =>
    toolEventOf(AMP_SHAPE, str(p["tool_name"]) ?? "", objectField(p, "tool_input"), cwd, { callId: str(p["tool_use_id"]), model: model(p, env) }),
});
