import type { HookAgent } from "./cliRunner";
import { vscodePayload } from "./hookPayloads";
import type { TempWorkspace } from "./workspace";

/** Every agent but Claude Code and Cursor (test/support/gatedAgents.ts): one fixture each, shared by their tests. */

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
  /** The exact reply for a question put to the user, for an agent that has one ("ask"). */
  ask?(reason: string): HookReply;
  /**
   * A call of the agent's tool that writes several files at once, where it has one (a patch, a removal of
   * files): `records` when its post payload says enough for the recorder to record every file.
   */
  multiWrite?: { write(ws: TempWorkspace, phase: "pre" | "post", paths: readonly string[]): unknown; records: boolean };
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
  multiWrite: {
    write: (ws, phase, paths) =>
      codexPayload(ws, phase, "apply_patch", { command: patchOf(paths) }, "call-patch-2", {
        response: `Success. Updated the following files:\n${paths.map((p) => `M ${p}`).join("\n")}`,
      }),
    records: true,
  },
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
  // VS Code's agent hooks run .github/hooks too: its editFiles names every file it edits
  multiWrite: {
    write: (ws, phase, paths) => ({
      ...vscodePayload(ws, "editFiles", { files: paths.map((p) => abs(ws, p)) }, phase === "pre" ? "PreToolUse" : "PostToolUse"),
      ...(phase === "post" ? { tool_response: "Edited 2 files" } : {}),
    }),
    records: true,
  },
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

const exit2 = (text: string): HookReply => ({ stdout: "", stderr: `${text}\n`, status: 2 });
const silent: HookReply = { stdout: "", stderr: "", status: 0 };
const emptyJson: HookReply = { stdout: "{}\n", stderr: "", status: 0 };
/** Codex's patch envelope updating each file (the line `a` becomes `b`). */
const patchOf = (paths: readonly string[]) => `*** Begin Patch\n${paths.map((p) => `*** Update File: ${p}\n@@\n-a\n+b\n`).join("")}*** End Patch\n`;

/** Qwen Code: Claude Code's shape with Qwen's tools; it asks the user where Claude Code would. */
export const QWEN: AgentFixture = {
  agent: "qwen",
  session: "qwen-5e0c8a3f-qwen",
  write: (ws, phase, e) => ({
    session_id: "5e0c8a3f-qwen",
    transcript_path: "/home/user/.qwen/projects/repo/chats/5e0c8a3f.jsonl",
    cwd: ws.root,
    hook_event_name: phase === "pre" ? "PreToolUse" : "PostToolUse",
    timestamp: "2026-11-29T10:00:00.000Z",
    permission_mode: "default",
    tool_name: "edit",
    tool_use_id: "toolu_1764410400000_ab12cd",
    tool_input: { file_path: abs(ws, e.path), old_string: e.from, new_string: e.to, replace_all: false },
    ...(phase === "post" ? { tool_response: { llmContent: `Successfully modified file: ${abs(ws, e.path)} (1 replacements).`, returnDisplay: "" } } : {}),
  }),
  shell: (ws, phase, command) => ({
    session_id: "5e0c8a3f-qwen",
    transcript_path: "/home/user/.qwen/projects/repo/chats/5e0c8a3f.jsonl",
    cwd: ws.root,
    hook_event_name: phase === "pre" ? "PreToolUse" : "PostToolUse",
    timestamp: "2026-11-29T10:00:01.000Z",
    permission_mode: "default",
    tool_name: "run_shell_command",
    tool_use_id: "toolu_1764410401000_ef34gh",
    tool_input: { command, description: "run it", is_background: false },
    ...(phase === "post" ? { tool_response: { llmContent: "Command: …\nExit Code: 0", returnDisplay: "" } } : {}),
  }),
  otherEvent: (ws) => ({
    session_id: "5e0c8a3f-qwen",
    transcript_path: "",
    cwd: ws.root,
    hook_event_name: "UserPromptSubmit",
    timestamp: "2026-11-29T10:00:00.000Z",
    prompt: "hi",
  }),
  deny: claudeShapedDeny,
  ask: (reason) => ({
    stdout: json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: reason } }),
    stderr: "",
    status: 0,
  }),
  allow: emptyJson,
  quietPost: emptyJson,
  reportPost: (text) => ({ stdout: json({ decision: "block", reason: text }), stderr: "", status: 0 }),
};

/** Kiro CLI's default engine: `write` with camelCase input and `shell`, a session id, no call or model id. */
export const KIRO: AgentFixture = {
  agent: "kiro",
  session: "kiro-3b9d2f10-kiro",
  write: (ws, phase, e) => ({
    hook_event_name: phase === "pre" ? "preToolUse" : "postToolUse",
    cwd: ws.root,
    session_id: "3b9d2f10-kiro",
    tool_name: "write",
    tool_input: { command: "strReplace", path: abs(ws, e.path), oldStr: e.from, newStr: e.to },
    ...(phase === "post" ? { tool_response: { success: true, result: ["Replaced 1 occurrence"] } } : {}),
  }),
  shell: (ws, phase, command) => ({
    hook_event_name: phase === "pre" ? "preToolUse" : "postToolUse",
    cwd: ws.root,
    session_id: "3b9d2f10-kiro",
    tool_name: "shell",
    tool_input: { command },
    ...(phase === "post" ? { tool_response: { success: true, result: [""] } } : {}),
  }),
  otherEvent: (ws) => ({ hook_event_name: "userPromptSubmit", cwd: ws.root, session_id: "3b9d2f10-kiro", prompt: "hi" }),
  deny: exit2,
  allow: silent,
  quietPost: silent,
  reportPost: (text) => ({ stdout: `${text}\n`, stderr: "", status: 0 }),
};

/** Goose's plugin hooks: `event`, `working_dir`, the developer extension's tools; paths relative to the working folder. */
export const GOOSE: AgentFixture = {
  agent: "goose",
  session: "goose-20261129_7",
  write: (ws, phase, e) => ({
    event: phase === "pre" ? "PreToolUse" : "PostToolUse",
    session_id: "20261129_7",
    matcher_context: "developer__edit",
    tool_call_id: "call_goose_1",
    tool_name: "developer__edit",
    tool_input: { path: e.path, before: e.from, after: e.to },
    working_dir: ws.root,
  }),
  shell: (ws, phase, command) => ({
    event: phase === "pre" ? "PreToolUse" : "PostToolUse",
    session_id: "20261129_7",
    matcher_context: "developer__shell",
    tool_call_id: "call_goose_2",
    tool_name: "developer__shell",
    tool_input: { command },
    working_dir: ws.root,
  }),
  otherEvent: (ws) => ({ event: "UserPromptSubmit", session_id: "20261129_7", matcher_context: "", message: "hi", working_dir: ws.root }),
  deny: (text) => ({ stdout: json({ decision: "block", reason: text }), stderr: `${text}\n`, status: 2 }),
  allow: silent,
  quietPost: silent,
  reportPost: (text) => ({ stdout: "", stderr: `${text}\n`, status: 0 }),
};

const auggieCall = (ws: TempWorkspace, phase: "pre" | "post", tool_name: string, tool_input: Record<string, unknown>) => ({
  hook_event_name: phase === "pre" ? "PreToolUse" : "PostToolUse",
  conversation_id: "conv-aug-1",
  workspace_roots: [ws.root],
  tool_name,
  tool_input,
  tool_error: null,
  is_mcp_tool: false,
  ...(phase === "post" ? { tool_output: "ok", file_changes: [] } : {}),
});

/** Auggie: `workspace_roots` and `conversation_id`, paths relative to the workspace root, numbered replacements. */
export const AUGGIE: AgentFixture = {
  agent: "auggie",
  session: "auggie-conv-aug-1",
  write: (ws, phase, e) =>
    auggieCall(ws, phase, "str-replace-editor", {
      command: "str_replace",
      path: e.path,
      instruction_reminder: "ALWAYS BREAK DOWN EDITS INTO SMALLER CHUNKS OF AT MOST 150 LINES EACH.",
      old_str_1: e.from,
      new_str_1: e.to,
      old_str_start_line_number_1: 1,
      old_str_end_line_number_1: 1,
    }),
  shell: (ws, phase, command) => auggieCall(ws, phase, "launch-process", { command, wait: true, max_wait_seconds: 60, cwd: "." }),
  otherEvent: (ws) => ({ hook_event_name: "SessionStart", conversation_id: "conv-aug-1", workspace_roots: [ws.root] }),
  multiWrite: { write: (ws, phase, paths) => auggieCall(ws, phase, "apply_patch", { input: patchOf(paths) }), records: true },
  deny: claudeShapedDeny,
  allow: emptyJson,
  quietPost: emptyJson,
  reportPost: (text) => ({ stdout: json({ decision: "block", reason: text }), stderr: "", status: 0 }),
};

/** What intent-lsp's OpenCode and Amp plugins send (io/setup/agentPlugins.ts), with each agent's tools. */
const pluginCall = (
  ws: TempWorkspace,
  phase: "pre" | "post",
  call: { session: string; id: string; tool: string; input: Record<string, unknown>; model?: string },
) => ({
  hook_event_name: phase === "pre" ? "PreToolUse" : "PostToolUse",
  session_id: call.session,
  tool_use_id: call.id,
  cwd: ws.root,
  tool_name: call.tool,
  tool_input: call.input,
  ...(call.model ? { model: call.model } : {}),
  ...(phase === "post" ? { tool_response: "Edit applied successfully." } : {}),
});

export const OPENCODE: AgentFixture = {
  agent: "opencode",
  session: "opencode-ses_01JX8Q",
  reportsModel: "anthropic/claude-sonnet-4-5",
  write: (ws, phase, e) =>
    pluginCall(ws, phase, {
      session: "ses_01JX8Q",
      id: "call_oc_1",
      tool: "edit",
      input: { filePath: abs(ws, e.path), oldString: e.from, newString: e.to },
      model: "anthropic/claude-sonnet-4-5",
    }),
  shell: (ws, phase, command) =>
    pluginCall(ws, phase, {
      session: "ses_01JX8Q",
      id: "call_oc_2",
      tool: "bash",
      input: { command, description: "run it" },
      model: "anthropic/claude-sonnet-4-5",
    }),
  otherEvent: (ws) => ({ hook_event_name: "SessionStart", session_id: "ses_01JX8Q", cwd: ws.root }),
  multiWrite: {
    write: (ws, phase, paths) =>
      pluginCall(ws, phase, {
        session: "ses_01JX8Q",
        id: "call_oc_3",
        tool: "apply_patch",
        input: { patchText: patchOf(paths) },
        model: "anthropic/claude-sonnet-4-5",
      }),
    records: true,
  },
  deny: exit2,
  allow: silent,
  quietPost: silent,
  reportPost: (text) => ({ stdout: `${text}\n`, stderr: "", status: 0 }),
};

export const AMP: AgentFixture = {
  agent: "amp",
  session: "amp-T-7c1e9b2a",
  write: (ws, phase, e) =>
    pluginCall(ws, phase, { session: "T-7c1e9b2a", id: "toolu_amp_1", tool: "edit_file", input: { path: abs(ws, e.path), old_str: e.from, new_str: e.to } }),
  shell: (ws, phase, command) => pluginCall(ws, phase, { session: "T-7c1e9b2a", id: "toolu_amp_2", tool: "Bash", input: { cmd: command } }),
  otherEvent: (ws) => ({ hook_event_name: "SessionStart", session_id: "T-7c1e9b2a", cwd: ws.root }),
  deny: exit2,
  allow: silent,
  quietPost: silent,
  reportPost: (text) => ({ stdout: `${text}\n`, stderr: "", status: 0 }),
};

export const NEW_AGENTS: readonly AgentFixture[] = [CODEX, GEMINI, COPILOT, WINDSURF, CLINE, DROID, QWEN, KIRO, GOOSE, AUGGIE, OPENCODE, AMP];
