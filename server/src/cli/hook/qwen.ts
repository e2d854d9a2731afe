import { str, type Json } from "./payload";
import { flatHook, objectField, replacement, toolEventOf, type ToolShape } from "./flatHook";
import { QWEN } from "./protocols";

/**
 * Qwen Code (docs/AGENTS.md): Claude Code's hook shape in `.qwen/settings.json`, with Qwen's tools:
 * `write_file` and `edit` (`file_path`, `old_string`/`new_string`), the shell `run_shell_command`. Tool
 * events name no model (INTENT_LSP_MODEL or `contributor.modelId` does).
 */

const SHAPE: ToolShape = {
  shells: new Set(["run_shell_command"]),
  edit: (tool, input) => (tool === "edit" ? replacement(input, "old_string", "new_string", "replace_all") : undefined),
};

export const qwenHook = flatHook(QWEN, "qwen", {
  session: (p) => str(p["session_id"]),
  cwd: (p) => str(p["cwd"]),
  toolEvent: (p: Json, cwd, env) =>
    toolEventOf(SHAPE, str(p["tool_name"]) ?? "", objectField(p, "tool_input"), cwd, {
      callId: str(p["tool_use_id"]),
      model: { env, defaultProvider: "qwen" },
    }),
});
