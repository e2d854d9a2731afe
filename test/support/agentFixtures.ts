import type { HookAgent } from "./cliRunner";
import type { TempWorkspace } from "./workspace";

/** Codex, Gemini, Copilot, Windsurf, Cline and Droid: one fixture each, shared by their tests. */

/** What a hook printed and returned: exactly what the agent reads. */
export interface HookReply {
  stdout: string;
  stderr: string;
  status: number;
}

/** One file edit, as the tests plant it: replace `from` with `to` in `path` (workspace-relative). */
export interface PlannedEdit {
  path: string;
  from: string;
  to: string;
}

/**
 * An agent's hook protocol as its documentation gives it (docs/AGENTS.md): the payloads it sends
 * for a file write and a shell command, before and after, and the exact answers it expects. The tests run
 * the same scenarios for every fixture.
 */
export interface AgentFixture {
  agent: HookAgent;
  /** The session id intent-lsp derives from the payload (named in the "Next:" advice of denials). */
  session: string;
  /** The model id recorded when the payload names one (else INTENT_LSP_MODEL is set by the test). */
  reportsModel?: string;
  write(ws: TempWorkspace, phase: "pre" | "post", edit: PlannedEdit): unknown;
  shell(ws: TempWorkspace, phase: "pre" | "post", command: string): unknown;
  /** A non-tool event (session start, prompt): answered without a decision. */
  otherEvent(ws: TempWorkspace): unknown;
  /** The exact reply for a denial whose text is `[intent-lsp: code] reason`. */
  deny(text: string): HookReply;
  /** The exact reply for an allowed call (or one the gate has no opinion on). */
  allow: HookReply;
  /** The exact reply after a tool call with nothing to report. */
  quietPost: HookReply;
  /** The exact reply after a tool call whose writes were reported to the agent with `text`. */
  reportPost(text: string): HookReply;
}

const json = (v: unknown) => `${JSON.stringify(v)}\n`;
const claudeShapedDeny = (text: string): HookReply => ({
  stdout: json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: text } }),
  stderr: `${text}\n`,
  status: 2,
});
const abs = (ws: TempWorkspace, p: string) => (p.startsWith("/") ? p : ws.path(p));

/** A Codex CLI hook payload for a tool call (its session, model and shape as Codex sends them). */
export function codexPayload(
  ws: TempWorkspace,
  phase: "pre" | "post",
  tool: string,
  input: Record<string, unknown>,
  id: string,
  opts: { turn?: string; response?: string } = {},
) {
  return {
    session_id: "019a-codex-session",
    turn_id: opts.turn ?? "turn-1",
    transcript_path: null,
    cwd: ws.root,
    hook_event_name: phase === "pre" ? "PreToolUse" : "PostToolUse",
    model: "gpt-5-codex",
    permission_mode: "default",
    tool_name: tool,
    tool_use_id: id,
    tool_input: input,
    ...(phase === "post" ? { tool_response: opts.response ?? "" } : {}),
  };
}

export const CODEX: AgentFixture = {
  agent: "codex",
  session: "codex-019a-codex-session",
  reportsModel: "openai/gpt-5-codex",
  write: (ws, phase, e) =>
    codexPayload(
      ws,
      phase,
      "apply_patch",
      { command: `*** Begin Patch\n*** Update File: ${e.path}\n@@\n-${e.from}\n+${e.to}\n*** End Patch\n` },
      "call-patch-1",
      { turn: "turn-1", response: `Success. Updated the following files:\nM ${e.path}` },
    ),
  shell: (ws, phase, command) => codexPayload(ws, phase, "Bash", { command }, "call-shell-1", { turn: "turn-2" }),
  otherEvent: (ws) => ({ session_id: "019a-codex-session", cwd: ws.root, hook_event_name: "UserPromptSubmit", model: "gpt-5-codex", prompt: "hi" }),
  deny: claudeShapedDeny,
  allow: { stdout: "{}\n", stderr: "", status: 0 },
  quietPost: { stdout: "{}\n", stderr: "", status: 0 },
  reportPost: (text) => ({ stdout: json({ decision: "block", reason: text }), stderr: "", status: 0 }),
};

export const GEMINI: AgentFixture = {
  agent: "gemini",
  session: "gemini-6c1f0a52-gem",
  write: (ws, phase, e) => ({
    session_id: "6c1f0a52-gem",
    transcript_path: "/home/user/.gemini/tmp/chats/session.json",
    cwd: ws.root,
    hook_event_name: phase === "pre" ? "BeforeTool" : "AfterTool",
    timestamp: "2026-08-21T10:00:00Z",
    tool_name: "replace",
    tool_input: { file_path: e.path, instruction: "apply the change", old_string: e.from, new_string: e.to },
    ...(phase === "post" ? { tool_response: { llmContent: `Successfully modified file: ${abs(ws, e.path)}`, returnDisplay: "ok" } } : {}),
  }),
  shell: (ws, phase, command) => ({
    session_id: "6c1f0a52-gem",
    transcript_path: "/home/user/.gemini/tmp/chats/session.json",
    cwd: ws.root,
    hook_event_name: phase === "pre" ? "BeforeTool" : "AfterTool",
    timestamp: "2026-08-21T10:00:01Z",
    tool_name: "run_shell_command",
    tool_input: { command, description: "run it", dir_path: "." },
    ...(phase === "post" ? { tool_response: { llmContent: "Exit Code: 0", returnDisplay: "" } } : {}),
  }),
  otherEvent: (ws) => ({
    session_id: "6c1f0a52-gem",
    transcript_path: "",
    cwd: ws.root,
    hook_event_name: "BeforeAgent",
    timestamp: "2026-08-21T10:00:00Z",
    prompt: "hi",
  }),
  deny: (text) => ({ stdout: json({ decision: "deny", reason: text }), stderr: `${text}\n`, status: 2 }),
  allow: { stdout: "{}\n", stderr: "", status: 0 },
  quietPost: { stdout: "{}\n", stderr: "", status: 0 },
  reportPost: (text) => ({ stdout: json({ hookSpecificOutput: { hookEventName: "AfterTool", additionalContext: text } }), stderr: "", status: 0 }),
};

export const COPILOT: AgentFixture = {
  agent: "copilot",
  session: "copilot-cli",
  write: (ws, phase, e) => ({
    timestamp: 1704614600000,
    cwd: ws.root,
    toolName: "edit",
    toolArgs: JSON.stringify({ path: abs(ws, e.path), old_str: e.from, new_str: e.to }),
    ...(phase === "post" ? { toolResult: { resultType: "success", textResultForLlm: "File edited." } } : {}),
  }),
  shell: (ws, phase, command) => ({
    timestamp: 1704614600500,
    cwd: ws.root,
    toolName: "bash",
    toolArgs: JSON.stringify({ command, description: "run it" }),
    ...(phase === "post" ? { toolResult: { resultType: "success", textResultForLlm: "" } } : {}),
  }),
  otherEvent: (ws) => ({ timestamp: 1704614600000, cwd: ws.root, prompt: "hi" }),
  deny: (text) => ({ stdout: json({ permissionDecision: "deny", permissionDecisionReason: text }), stderr: "", status: 0 }),
  allow: { stdout: "{}\n", stderr: "", status: 0 },
  quietPost: { stdout: "{}\n", stderr: "", status: 0 },
  reportPost: (text) => ({ stdout: json({ additionalContext: text }), stderr: `${text}\n`, status: 0 }),
};

export const WINDSURF: AgentFixture = {
  agent: "windsurf",
  session: "windsurf-traj-123",
  reportsModel: "anthropic/claude-sonnet-4-5",
  write: (ws, phase, e) => ({
    agent_action_name: phase === "pre" ? "pre_write_code" : "post_write_code",
    trajectory_id: "traj-123",
    execution_id: "exec-1",
    timestamp: "2026-08-21T10:00:00Z",
    model_name: "claude-sonnet-4-5",
    tool_info: { file_path: abs(ws, e.path), edits: [{ old_string: e.from, new_string: e.to }] },
  }),
  shell: (ws, phase, command) => ({
    agent_action_name: phase === "pre" ? "pre_run_command" : "post_run_command",
    trajectory_id: "traj-123",
    execution_id: "exec-2",
    timestamp: "2026-08-21T10:00:01Z",
    model_name: "claude-sonnet-4-5",
    tool_info: { command_line: command, cwd: ws.root },
  }),
  otherEvent: (ws) => ({
    agent_action_name: "pre_read_code",
    trajectory_id: "traj-123",
    execution_id: "exec-0",
    timestamp: "2026-08-21T10:00:00Z",
    tool_info: { file_path: ws.path("README.md") },
  }),
  deny: (text) => ({ stdout: "", stderr: `${text}\n`, status: 2 }),
  allow: { stdout: "", stderr: "", status: 0 },
  quietPost: { stdout: "", stderr: "", status: 0 },
  reportPost: (text) => ({ stdout: `${text}\n`, stderr: "", status: 0 }),
};

export const CLINE: AgentFixture = {
  agent: "cline",
  session: "cline-task-77",
  write: (ws, phase, e) => {
    const tool = { toolName: "replace_in_file", parameters: { path: e.path, diff: `------- SEARCH\n${e.from}\n=======\n${e.to}\n+++++++ REPLACE` } };
    return {
      clineVersion: "3.36.0",
      hookName: phase === "pre" ? "PreToolUse" : "PostToolUse",
      timestamp: "1764000000000",
      taskId: "task-77",
      workspaceRoots: [ws.root],
      userId: "user-1",
      ...(phase === "pre" ? { preToolUse: tool } : { postToolUse: { ...tool, result: "ok", success: true, executionTimeMs: 12 } }),
    };
  },
  shell: (ws, phase, command) => {
    const tool = { toolName: "execute_command", parameters: { command, requires_approval: "false" } };
    return {
      clineVersion: "3.36.0",
      hookName: phase === "pre" ? "PreToolUse" : "PostToolUse",
      timestamp: "1764000000001",
      taskId: "task-77",
      workspaceRoots: [ws.root],
      userId: "user-1",
      ...(phase === "pre" ? { preToolUse: tool } : { postToolUse: { ...tool, result: "", success: true, executionTimeMs: 40 } }),
    };
  },
  otherEvent: (ws) => ({
    clineVersion: "3.36.0",
    hookName: "TaskStart",
    timestamp: "1764000000000",
    taskId: "task-77",
    workspaceRoots: [ws.root],
    userId: "user-1",
    taskStart: { taskMetadata: {} },
  }),
  deny: (text) => ({ stdout: json({ cancel: true, errorMessage: text }), stderr: "", status: 0 }),
  allow: { stdout: json({ cancel: false }), stderr: "", status: 0 },
  quietPost: { stdout: json({ cancel: false }), stderr: "", status: 0 },
  reportPost: (text) => ({ stdout: json({ cancel: false, contextModification: text }), stderr: "", status: 0 }),
};

export const DROID: AgentFixture = {
  agent: "droid",
  session: "droid-d7e1-droid",
  write: (ws, phase, e) => ({
    session_id: "d7e1-droid",
    transcript_path: ws.path(".orchestration/droid-transcript.jsonl"),
    cwd: ws.root,
    permission_mode: "default",
    hook_event_name: phase === "pre" ? "PreToolUse" : "PostToolUse",
    tool_name: "Edit",
    tool_input: { file_path: abs(ws, e.path), old_str: e.from, new_str: e.to },
    ...(phase === "post" ? { tool_response: { success: true } } : {}),
  }),
  shell: (ws, phase, command) => ({
    session_id: "d7e1-droid",
    transcript_path: ws.path(".orchestration/droid-transcript.jsonl"),
    cwd: ws.root,
    permission_mode: "default",
    hook_event_name: phase === "pre" ? "PreToolUse" : "PostToolUse",
    tool_name: "Execute",
    tool_input: { command },
    ...(phase === "post" ? { tool_response: { success: true } } : {}),
  }),
  otherEvent: (ws) => ({ session_id: "d7e1-droid", cwd: ws.root, hook_event_name: "UserPromptSubmit", prompt: "hi" }),
  deny: claudeShapedDeny,
  allow: { stdout: "{}\n", stderr: "", status: 0 },
  quietPost: { stdout: "{}\n", stderr: "", status: 0 },
  reportPost: (text) => ({ stdout: json({ decision: "block", reason: text }), stderr: "", status: 0 }),
};

export const NEW_AGENTS: readonly AgentFixture[] = [CODEX, GEMINI, COPILOT, WINDSURF, CLINE, DROID];
