import { claudeAnswer, claudeEdit, claudePayload, cursorPayload } from "./hookPayloads";
import { NEW_AGENTS, type AgentFixture, type HookReply, type PlannedEdit } from "./agentFixtures";
import type { HookAgent } from "./cliRunner";
import type { TempWorkspace } from "./workspace";

/** What every agent's fixture gives a test of the gate alone: its payloads and its exact denial. */
export type GatedAgent = Pick<AgentFixture, "agent" | "write" | "shell" | "deny">;

const json = (v: unknown) => `${JSON.stringify(v)}\n`;

export const CLAUDE_CODE: GatedAgent = {
  agent: "claude-code",
  write: (ws, phase, e) => claudeEdit(ws, phase === "pre" ? "PreToolUse" : "PostToolUse", e.path, e.from, e.to),
  shell: (ws, phase, command) =>
    claudePayload(ws, phase === "pre" ? "PreToolUse" : "PostToolUse", {
      tool_name: "Bash",
      tool_input: { command, description: "run it" },
      tool_use_id: "toolu_bash_1",
      ...(phase === "post" ? { tool_response: { stdout: "", stderr: "", interrupted: false } } : {}),
    }),
  deny: (text) => ({ stdout: json(claudeAnswer("deny", text)), stderr: "", status: 0 }),
};

export const CURSOR: GatedAgent = {
  agent: "cursor",
  write: (ws, phase, e: PlannedEdit) =>
    phase === "pre"
      ? cursorPayload(ws, "preToolUse", { tool_name: "Write", tool_input: { file_path: ws.path(e.path), content: `${e.to}\n` } })
      : cursorPayload(ws, "afterFileEdit", { file_path: ws.path(e.path), edits: [{ old_string: e.from, new_string: e.to }] }),
  shell: (ws, phase, command) => cursorPayload(ws, phase === "pre" ? "beforeShellExecution" : "afterShellExecution", { command, cwd: ws.root }),
  deny: (text): HookReply => {
    const m = /^\[intent-lsp: ([\w-]+)\] ([\s\S]*)$/.exec(text);
    const userMessage = m ? `intent-lsp denied this call (${m[1]}): ${m[2]}` : text;
    return { stdout: json({ permission: "deny", userMessage, agentMessage: text, user_message: userMessage, agent_message: text }), stderr: "", status: 0 };
  },
};

/** Every agent `intent hook` speaks to. */
export const ALL_AGENTS: readonly GatedAgent[] = [CLAUDE_CODE, CURSOR, ...NEW_AGENTS];

export const agentNamed = (name: HookAgent): GatedAgent => ALL_AGENTS.find((a) => a.agent === name)!;

/**
 * The payload as an agent sends it when it runs in the workspace and names it relatively: every string that
 * is the workspace's path becomes `.` and every path inside it becomes relative to it.
 */
export function relativeTo(ws: TempWorkspace, payload: unknown): unknown {
  if (typeof payload === "string") {
    if (payload === ws.root) return ".";
    if (payload.startsWith(`${ws.root}/`)) return payload.slice(ws.root.length + 1);
    return payload;
  }
  if (Array.isArray(payload)) return payload.map((v) => relativeTo(ws, v));
  if (payload && typeof payload === "object") return Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, relativeTo(ws, v)]));
  return payload;
}

/** The text of the denial a hook gives when it failed with `message` (engine/agent/decision.ts). */
export const internalError = (message: string) =>
  `[intent-lsp: internal-error] intent-lsp's hook failed (${message}), so the call is denied to be safe. Ask the user to run \`intent status\` in the workspace to see what is wrong.`;
