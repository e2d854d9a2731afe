import { str, type Json } from "./payload";
import { flatHook, objectField, replacement, toolEventOf, type ToolShape } from "./flatHook";
import { KIRO } from "./protocols";

/**
 * Kiro CLI's agent hooks (docs/AGENTS.md): `preToolUse`/`postToolUse` with `cwd`, `tool_name` and
 * `tool_input`; the default engine adds `session_id`, the classic one sends none (its calls are one session,
 * `kiro-cli`). Neither sends a call id or a model id. The two engines name the same tools differently: writes
 * are `fs_write` or `write` (`command` `create`, `str_replace`/`strReplace`, `insert`, `append`; `path`), the
 * shell `execute_bash`, `execute_cmd` or `shell`.
 */

const SHAPE: ToolShape = {
  shells: new Set(["execute_bash", "execute_cmd", "shell"]),
  edit: (tool, input) => {
    if (tool !== "fs_write" && tool !== "write") return undefined;
    if (input["command"] === "str_replace") return replacement(input, "old_str", "new_str");
    return input["command"] === "strReplace" ? replacement(input, "oldStr", "newStr", "replaceAll") : undefined;
  },
};

export const kiroHook = flatHook(KIRO, "kiro", {
  session: (p) => str(p["session_id"]),
  cwd: (p) => str(p["cwd"]),
  toolEvent: (p: Json, cwd, env) => toolEventOf(SHAPE, str(p["tool_name"]) ?? "", objectField(p, "tool_input"), cwd, { model: { env } }),
});
