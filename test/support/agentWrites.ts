import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { runHook } from "./cliRunner";
import { claudePayload } from "./hookPayloads";
import type { TempWorkspace } from "./workspace";

/** Claude Code writes `path` with `text` through its hooks (PreToolUse, the Write, PostToolUse), as the agent does. */
export function claudeWrites(ws: TempWorkspace, path: string, text: string): void {
  const input = { file_path: ws.path(path), content: text };
  runHook("claude-code", claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: input, tool_use_id: `toolu_w_${path}` }), { cwd: ws.root });
  mkdirSync(dirname(ws.path(path)), { recursive: true });
  ws.write(path, text);
  runHook(
    "claude-code",
    claudePayload(ws, "PostToolUse", { tool_name: "Write", tool_input: input, tool_use_id: `toolu_w_${path}`, tool_response: { type: "create" } }),
    { cwd: ws.root },
  );
}
