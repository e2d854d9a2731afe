import type { TempWorkspace } from "./workspace";

/** Claude Code's and Cursor's hook payloads and answers, in the exact shapes of docs/AGENTS.md. */

export function claudePayload(ws: TempWorkspace, event: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    session_id: "7f3a2c1e-0b5d-4c7e-9a41-2f6d8e9b1c30",
    transcript_path: ws.path(TRANSCRIPT),
    cwd: ws.root,
    permission_mode: "default",
    hook_event_name: event,
    ...extra,
  };
}

/** Claude Code keeps transcripts outside the project; here it sits in an exempt folder so `intent check` ignores it. */
export const TRANSCRIPT = ".orchestration/test-transcript.jsonl";

export const CLAUDE_SESSION = "claude-7f3a2c1e-0b5d-4c7e-9a41-2f6d8e9b1c30";

export function claudeEdit(
  ws: TempWorkspace,
  event: "PreToolUse" | "PostToolUse",
  path: string,
  oldString: string,
  newString: string,
  extra: Record<string, unknown> = {},
) {
  return claudePayload(ws, event, {
    tool_name: "Edit",
    tool_input: {
      file_path: path.startsWith("/") ? path : ws.path(path),
      old_string: oldString,
      new_string: newString,
      replace_all: false,
      ...((extra["tool_input"] as object) ?? {}),
    },
    tool_use_id: "toolu_01ABCDEF",
    ...(event === "PostToolUse" ? { tool_response: { filePath: path.startsWith("/") ? path : ws.path(path), success: true } } : {}),
  });
}

export function cursorPayload(ws: TempWorkspace, event: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    hook_event_name: event,
    conversation_id: "c0nv-42",
    generation_id: "gen-7",
    model: "gpt-5",
    workspace_roots: [ws.root],
    ...extra,
  };
}

/** What Claude Code's transcript holds after an assistant turn: the model id is in `message.model`. */
export function writeTranscript(ws: TempWorkspace, model: string): void {
  ws.write(
    TRANSCRIPT,
    `${[
      JSON.stringify({ type: "user", message: { role: "user", content: "Add a unit to the weather type" } }),
      JSON.stringify({ type: "assistant", message: { model, role: "assistant", content: [{ type: "text", text: "Editing." }] } }),
    ].join("\n")}\n`,
  );
}

export function claudeAnswer(decision: "allow" | "deny" | "ask", reason: string) {
  return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, permissionDecisionReason: reason } };
}

/**
 * Claude Code's PreToolUse of a Read of `<dir>/x`, `dir` being outside any workspace: answered with no decision
 * (`{}`), which the agent takes as allowed. The plainest call a hook can get.
 */
export function outsideRead(dir: string): string {
  return JSON.stringify({
    session_id: "s",
    transcript_path: "",
    cwd: dir,
    hook_event_name: "PreToolUse",
    tool_name: "Read",
    tool_input: { file_path: `${dir}/x` },
  });
}

/**
 * A tool call as VS Code's agent hooks send it (their Local harness): `hookEventName` and `sessionId` in place
 * of Claude Code's spelling, VS Code's own tool names. They run both Claude Code's and Copilot's hook files.
 */
export function vscodePayload(ws: TempWorkspace, tool_name: string, tool_input: Record<string, unknown>, event = "PreToolUse"): Record<string, unknown> {
  return {
    timestamp: "2026-11-29T10:00:00.000Z",
    hookEventName: event,
    sessionId: "vscode-session-1",
    transcript_path: ws.path(".vscode-transcript.json"),
    cwd: ws.root,
    tool_name,
    tool_input,
    tool_use_id: "tool-123",
  };
}
