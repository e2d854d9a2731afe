import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { runHook, runHookInProcess } from "./cliRunner";
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

/** claudeWrites with the hooks run in this process (runHookInProcess): for tests whose subject is not the hook's process. */
export async function claudeWritesInProcess(ws: TempWorkspace, path: string, text: string): Promise<void> {
  const input = { file_path: ws.path(path), content: text };
  await runHookInProcess("claude-code", claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: input, tool_use_id: `toolu_w_${path}` }), {
    cwd: ws.root,
  });
  mkdirSync(dirname(ws.path(path)), { recursive: true });
  ws.write(path, text);
  await runHookInProcess(
    "claude-code",
    claudePayload(ws, "PostToolUse", { tool_name: "Write", tool_input: input, tool_use_id: `toolu_w_${path}`, tool_response: { type: "create" } }),
    { cwd: ws.root },
  );
}
