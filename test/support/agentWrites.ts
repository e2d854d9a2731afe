import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { runHook, runHookInProcess } from "./cliRunner";
import { claudePayload } from "./hookPayloads";
import type { TempWorkspace } from "./workspace";

/** Claude Code writing `path` with `text`: the PreToolUse payload, the write itself, the PostToolUse payload. */
function claudeWrite(ws: TempWorkspace, path: string, text: string): { pre: unknown; write: () => void; post: unknown } {
  const input = { file_path: ws.path(path), content: text };
  return {
    pre: claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: input, tool_use_id: `toolu_w_${path}` }),
    write: () => {
      mkdirSync(dirname(ws.path(path)), { recursive: true });
      ws.write(path, text);
    },
    post: claudePayload(ws, "PostToolUse", { tool_name: "Write", tool_input: input, tool_use_id: `toolu_w_${path}`, tool_response: { type: "create" } }),
  };
}

/** Claude Code writes `path` with `text` through its hooks (PreToolUse, the Write, PostToolUse), as the agent does. */
export function claudeWrites(ws: TempWorkspace, path: string, text: string): void {
  const w = claudeWrite(ws, path, text);
  runHook("claude-code", w.pre, { cwd: ws.root });
  w.write();
  runHook("claude-code", w.post, { cwd: ws.root });
}

/** claudeWrites with the hooks run in this process (runHookInProcess): for tests whose subject is not the hook's process. */
export async function claudeWritesInProcess(ws: TempWorkspace, path: string, text: string): Promise<void> {
  const w = claudeWrite(ws, path, text);
  await runHookInProcess("claude-code", w.pre, { cwd: ws.root });
  w.write();
  await runHookInProcess("claude-code", w.post, { cwd: ws.root });
}
