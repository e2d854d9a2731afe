import { str, type Json } from "./payload";
import { flatHook, objectField, replacement, toolEventOf, type ToolShape } from "./flatHook";
import { AUGGIE } from "./protocols";

/**
 * Auggie, Augment's CLI (docs/AGENTS.md): Claude Code's nesting in `.augment/settings.json`; the payload has
 * `hook_event_name`, `conversation_id`, `workspace_roots`, `tool_name` and `tool_input` (and `tool_output`
 * after the tool), no `cwd` and no model id. Writes are `save-file` (`path`), `str-replace-editor` (`path`
 * relative to the workspace root; numbered `old_str_1`/`new_str_1` or `str_replace_entries`), `remove-files`
 * (`file_paths`) and `apply_patch` (`input`, Codex's envelope); the last two name several files in one call.
 * The shell is `launch-process`.
 */

const SHAPE: ToolShape = {
  shells: new Set(["launch-process"]),
  patches: { apply_patch: "input" },
  edit: (tool, input) =>
    tool === "str-replace-editor" && input["command"] === "str_replace" && input["old_str_2"] === undefined
      ? replacement(input, "old_str_1", "new_str_1")
      : undefined,
};

export const auggieHook = flatHook(AUGGIE, "auggie", {
  session: (p) => str(p["conversation_id"]),
  cwd: (p) => (Array.isArray(p["workspace_roots"]) ? str(p["workspace_roots"][0]) : undefined),
  toolEvent: (p: Json, cwd, env) =>
    toolEventOf(SHAPE, str(p["tool_name"]) ?? "", objectField(p, "tool_input"), cwd, { callId: str(p["tool_use_id"]), model: { env } }),
});
