import { str, type Json } from "./payload";
import { flatHook, objectField, replacement, toolEventOf, type ToolShape } from "./flatHook";
import { GOOSE } from "./protocols";

/**
 * Goose's plugin hooks (docs/AGENTS.md): the event in `event`, `session_id`, `working_dir`, `tool_call_id`,
 * `tool_name` and `tool_input`, with the developer extension's tools: `developer__write` (`path`,
 * `content`), `developer__edit` (`path`, `before`, `after`) and the shell `developer__shell`. No model id.
 */

const SHAPE: ToolShape = {
  shells: new Set(["developer__shell"]),
  edit: (tool, input) => (tool === "developer__edit" ? replacement(input, "before", "after") : undefined),
};

export const gooseHook = flatHook(GOOSE, "goose", {
  session: (p) => str(p["session_id"]),
  cwd: (p) => str(p["working_dir"]),
  toolEvent: (p: Json, cwd, env) =>
    toolEventOf(SHAPE, str(p["tool_name"]) ?? "", objectField(p, "tool_input"), cwd, { callId: str(p["tool_call_id"]), model: { env } }),
});
