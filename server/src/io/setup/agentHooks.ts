import { existsSync } from "node:fs";
import { join } from "node:path";
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import type { AgentPrefix } from "../agent/session";
import { pluginSource } from "./agentPlugins";

/**
 * Each agent's hook configuration as intent-lsp installs it (the README's setup sections; each agent's
 * protocol, with its source, in docs/AGENTS.md), and the one merge `intent init` applies: our entries are
 * added to the agent's existing file, every entry already there is kept, and an entry already calling
 * `intent hook <agent>` is never added twice (its matcher is brought up to this version's). `intent doctor`
 * reads the same specs back to find and run the configured commands.
 */

export type AgentName =
  | "claude-code"
  | "cursor"
  | "codex"
  | "gemini"
  | "copilot"
  | "windsurf"
  | "cline"
  | "droid"
  | "qwen"
  | "kiro"
  | "goose"
  | "auggie"
  | "opencode"
  | "amp";

export interface JsonHookSpec {
  agent: AgentName;
  kind: "json";
  file: string;
  /** Top-level keys the file needs (Cursor's and Copilot's `version`), set only when absent. */
  top?: Record<string, unknown>;
  /** Event name → the entry intent-lsp appends to that event's array (or the entries, as an array). */
  events: Record<string, unknown>;
  /** Files the agent needs beside the configuration (Goose's plugin manifest): written whole when absent, never changed. */
  companions?: Record<string, string>;
}

interface PluginHookSpec {
  agent: AgentName;
  kind: "plugin";
  /** A module the agent loads (OpenCode's and Amp's plugins), which runs the hook: intent-lsp's own file, whole. */
  file: string;
  text: string;
}

interface ScriptHookSpec {
  agent: AgentName;
  kind: "scripts";
  /** Executable files named after the events (Cline), each running the hook. */
  files: string[];
}

export type HookSpec = (JsonHookSpec | ScriptHookSpec | PluginHookSpec) & {
  /** Folders whose presence says the project uses this agent. */
  detect: string[];
  /** The session id prefix of the agent's hook (for cleaning up after a probe). */
  sessionPrefix: AgentPrefix;
  /** A payload that makes the hook read the workspace and answer, changing nothing: a read-only tool call. */
  probe(root: string): unknown;
};

export const hookCommand = (agent: AgentName) => `intent hook ${agent}`;

/** The session id a probe uses, so `intent doctor` can remove the session file the probe's heartbeat made. */
export const PROBE_SESSION = "intent-doctor";

/** A PreToolUse read of README.md in the payload shape Claude Code and Droid share: what doctor sends to see a hook answer. */
const claudeShapedProbe = (root: string) => ({
  session_id: PROBE_SESSION,
  transcript_path: "",
  cwd: root,
  permission_mode: "default",
  hook_event_name: "PreToolUse",
  tool_name: "Read",
  tool_input: { file_path: join(root, "README.md") },
});

const claudeShaped = (agent: AgentName, matcher: string, extra: Record<string, unknown> = {}) => ({
  matcher,
  hooks: [{ type: "command", command: hookCommand(agent), ...extra }],
});

/**
 * Every MCP tool named `PREFIX<server>…<tool>`: a tool runs a command or code it is given, or writes a file
 * it names, whatever its name says (`python {"code": …}`, `npm {"arguments": […]}`), so every agent whose
 * matcher is a regular expression over the tool's name routes all of them to the gate, which judges a write by
 * every path it names and a run as a shell command, records them after, and answers nothing to the others.
 */
const mcpTools = (prefix: string) => `${prefix}.*`;

/** Claude Code's matcher: its own writing tools and shells, and MCP tools (`mcp__<server>__<tool>`). */
const CLAUDE_MATCHER = `Write|Edit|MultiEdit|NotebookEdit|Bash|PowerShell|${mcpTools("mcp__")}`;

/** Codex's: apply_patch and the shell, and MCP tools, named as Claude Code names them. */
const CODEX_MATCHER = `apply_patch|Bash|${mcpTools("mcp__")}`;

/**
 * Gemini CLI's: its write tools and shell, and MCP tools, which it has named both `mcp_<server>_<tool>` and
 * `mcp__<server>__<tool>` (the hook reads the server and tool from `mcp_context` either way).
 */
const GEMINI_MATCHER = `write_file|replace|run_shell_command|${mcpTools("mcp_")}`;

/** Auggie's write tools and its shell. */
const AUGGIE_MATCHER = "^(str-replace-editor|save-file|remove-files|apply_patch|launch-process)$";

/** What the OpenCode and Amp plugins send for a read: the probe doctor gives `intent hook opencode|amp`. */
const pluginProbe = (root: string) => ({
  hook_event_name: "PreToolUse",
  session_id: PROBE_SESSION,
  tool_use_id: "intent-doctor",
  cwd: root,
  tool_name: "read",
  tool_input: { filePath: join(root, "README.md") },
});

export const HOOK_SPECS: readonly HookSpec[] = [
  {
    agent: "claude-code",
    kind: "json",
    file: ".claude/settings.json",
    detect: [".claude", "CLAUDE.md"],
    sessionPrefix: "claude",
    events: {
      PreToolUse: claudeShaped("claude-code", CLAUDE_MATCHER, { timeout: 30 }),
      PostToolUse: claudeShaped("claude-code", CLAUDE_MATCHER, { timeout: 30 }),
      // Claude Code sends a failed tool's end here, not to PostToolUse
      PostToolUseFailure: claudeShaped("claude-code", CLAUDE_MATCHER, { timeout: 30 }),
      SessionStart: { hooks: [{ type: "command", command: hookCommand("claude-code") }] },
      SessionEnd: { hooks: [{ type: "command", command: hookCommand("claude-code") }] },
    },
    probe: (root) => ({ ...claudeShapedProbe(root), tool_use_id: "intent-doctor" }),
  },
  {
    agent: "cursor",
    kind: "json",
    file: ".cursor/hooks.json",
    detect: [".cursor", ".cursorrules"],
    sessionPrefix: "cursor",
    top: { version: 1 },
    events: {
      preToolUse: { command: hookCommand("cursor"), matcher: "Write|Edit|StrReplace|Delete", failClosed: true },
      afterFileEdit: { command: hookCommand("cursor") },
      // MCP tools have events of their own: every call is judged (the gate answers nothing to one that names no file)
      beforeMCPExecution: { command: hookCommand("cursor"), failClosed: true },
      afterMCPExecution: { command: hookCommand("cursor") },
      beforeShellExecution: { command: hookCommand("cursor"), failClosed: true },
      afterShellExecution: { command: hookCommand("cursor") },
      sessionEnd: { command: hookCommand("cursor") },
    },
    probe: (root) => ({
      hook_event_name: "preToolUse",
      conversation_id: PROBE_SESSION,
      generation_id: "intent-doctor",
      workspace_roots: [root],
      tool_name: "Read",
      tool_input: { file_path: join(root, "README.md") },
    }),
  },
  {
    agent: "codex",
    kind: "json",
    file: ".codex/hooks.json",
    detect: [".codex", "AGENTS.md"],
    sessionPrefix: "codex",
    events: {
      PreToolUse: claudeShaped("codex", CODEX_MATCHER),
      PostToolUse: claudeShaped("codex", CODEX_MATCHER),
    },
    probe: (root) => ({
      session_id: PROBE_SESSION,
      turn_id: "t",
      transcript_path: null,
      cwd: root,
      hook_event_name: "PreToolUse",
      model: "",
      permission_mode: "default",
      tool_name: "Read",
      tool_use_id: "intent-doctor",
      tool_input: { file_path: join(root, "README.md") },
    }),
  },
  {
    agent: "gemini",
    kind: "json",
    file: ".gemini/settings.json",
    detect: [".gemini", "GEMINI.md"],
    sessionPrefix: "gemini",
    events: {
      BeforeTool: {
        matcher: GEMINI_MATCHER,
        hooks: [{ name: "intent-lsp", type: "command", command: hookCommand("gemini"), timeout: 30000 }],
      },
      AfterTool: {
        matcher: GEMINI_MATCHER,
        hooks: [{ name: "intent-lsp", type: "command", command: hookCommand("gemini"), timeout: 30000 }],
      },
    },
    probe: (root) => ({
      session_id: PROBE_SESSION,
      transcript_path: "",
      cwd: root,
      hook_event_name: "BeforeTool",
      timestamp: new Date().toISOString(),
      tool_name: "read_file",
      tool_input: { file_path: "README.md" },
    }),
  },
  {
    agent: "copilot",
    kind: "json",
    file: ".github/hooks/intent-lsp.json",
    detect: [".github/hooks", ".github/copilot-instructions.md"],
    sessionPrefix: "copilot",
    top: { version: 1 },
    events: {
      preToolUse: { type: "command", bash: hookCommand("copilot"), powershell: hookCommand("copilot"), timeoutSec: 30 },
      postToolUse: { type: "command", bash: hookCommand("copilot"), powershell: hookCommand("copilot"), timeoutSec: 30 },
    },
    probe: (root) => ({
      timestamp: Date.now(),
      cwd: root,
      sessionId: PROBE_SESSION,
      toolName: "view",
      toolArgs: JSON.stringify({ path: join(root, "README.md") }),
    }),
  },
  {
    agent: "windsurf",
    kind: "json",
    file: ".windsurf/hooks.json",
    detect: [".windsurf", ".windsurfrules"],
    sessionPrefix: "windsurf",
    events: {
      pre_write_code: { command: hookCommand("windsurf"), show_output: true },
      post_write_code: { command: hookCommand("windsurf") },
      pre_run_command: { command: hookCommand("windsurf"), show_output: true },
      post_run_command: { command: hookCommand("windsurf") },
      pre_mcp_tool_use: { command: hookCommand("windsurf"), show_output: true },
      post_mcp_tool_use: { command: hookCommand("windsurf") },
    },
    probe: (root) => ({
      agent_action_name: "pre_read_code",
      trajectory_id: PROBE_SESSION,
      execution_id: "intent-doctor",
      timestamp: new Date().toISOString(),
      tool_info: { file_path: join(root, "README.md"), cwd: root },
    }),
  },
  {
    agent: "cline",
    kind: "scripts",
    files: [".clinerules/hooks/PreToolUse", ".clinerules/hooks/PostToolUse"],
    detect: [".clinerules"],
    sessionPrefix: "cline",
    probe: (root) => ({
      clineVersion: "",
      hookName: "PreToolUse",
      timestamp: String(Date.now()),
      taskId: PROBE_SESSION,
      workspaceRoots: [root],
      userId: "",
      preToolUse: { toolName: "read_file", parameters: { path: "README.md" } },
    }),
  },
  {
    agent: "droid",
    kind: "json",
    file: ".factory/hooks.json",
    detect: [".factory"],
    sessionPrefix: "droid",
    events: {
      PreToolUse: claudeShaped("droid", "Create|Edit|Execute"),
      PostToolUse: claudeShaped("droid", "Create|Edit|Execute"),
    },
    probe: claudeShapedProbe,
  },
  {
    agent: "qwen",
    kind: "json",
    file: ".qwen/settings.json",
    detect: [".qwen", "QWEN.md"],
    sessionPrefix: "qwen",
    events: {
      PreToolUse: claudeShaped("qwen", `^(write_file|edit|run_shell_command|${mcpTools("mcp__")})$`, { timeout: 30000 }),
      PostToolUse: claudeShaped("qwen", `^(write_file|edit|run_shell_command|${mcpTools("mcp__")})$`, { timeout: 30000 }),
    },
    probe: (root) => ({ ...claudeShapedProbe(root), timestamp: new Date().toISOString(), tool_name: "read_file", tool_use_id: "intent-doctor" }),
  },
  {
    agent: "kiro",
    kind: "json",
    file: ".kiro/agents/intent-lsp.json",
    // the agent Kiro runs unless told otherwise, for this workspace
    companions: { ".kiro/settings/cli.json": `${JSON.stringify({ "chat.defaultAgent": "intent-lsp" }, null, 2)}\n` },
    detect: [".kiro"],
    sessionPrefix: "kiro",
    top: {
      name: "intent-lsp",
      description: "Kiro's tools, the project's MCP servers and steering files, with intent-lsp's hooks: writes gated by the active intent and recorded",
      tools: ["*"],
      includeMcpJson: true,
      resources: ["file://AGENTS.md", "file://README.md", "file://.kiro/steering/**/*.md"],
    },
    // a matcher names one tool (or its alias in the other engine: `fs_write` matches `write`, `execute_bash` `shell`)
    events: {
      preToolUse: [
        { matcher: "fs_write", command: hookCommand("kiro"), timeout_ms: 30000 },
        { matcher: "execute_bash", command: hookCommand("kiro"), timeout_ms: 30000 },
      ],
      postToolUse: [
        { matcher: "fs_write", command: hookCommand("kiro"), timeout_ms: 30000 },
        { matcher: "execute_bash", command: hookCommand("kiro"), timeout_ms: 30000 },
      ],
    },
    probe: (root) => ({
      hook_event_name: "preToolUse",
      cwd: root,
      session_id: PROBE_SESSION,
      tool_name: "fs_read",
      tool_input: { operations: [{ mode: "Line", path: join(root, "README.md") }] },
    }),
  },
  {
    agent: "goose",
    kind: "json",
    file: ".agents/plugins/intent-lsp/hooks/hooks.json",
    companions: {
      ".agents/plugins/intent-lsp/plugin.json": `${JSON.stringify({ name: "intent-lsp", version: "1.0.0", description: "Gates and records the agent's writes by the active intent (intent-lsp)" }, null, 2)}\n`,
    },
    detect: [".goosehints", ".goose"],
    sessionPrefix: "goose",
    events: {
      PreToolUse: {
        matcher: "^developer__(write|edit|shell)$",
        hooks: [{ type: "command", command: hookCommand("goose"), timeout: 30, on_failure: "block" }],
      },
      PostToolUse: { matcher: "^developer__(write|edit|shell)$", hooks: [{ type: "command", command: hookCommand("goose"), timeout: 30 }] },
    },
    probe: (root) => ({
      event: "PreToolUse",
      session_id: PROBE_SESSION,
      matcher_context: "developer__read",
      tool_call_id: "intent-doctor",
      tool_name: "developer__read",
      tool_input: { path: "README.md" },
      working_dir: root,
    }),
  },
  {
    agent: "auggie",
    kind: "json",
    file: ".augment/settings.json",
    detect: [".augment", ".augment-guidelines"],
    sessionPrefix: "auggie",
    events: {
      PreToolUse: claudeShaped("auggie", AUGGIE_MATCHER, { timeout: 30000 }),
      PostToolUse: claudeShaped("auggie", AUGGIE_MATCHER, { timeout: 30000 }),
    },
    probe: (root) => ({
      hook_event_name: "PreToolUse",
      conversation_id: PROBE_SESSION,
      workspace_roots: [root],
      tool_name: "view",
      tool_input: { path: "README.md", type: "file" },
    }),
  },
  {
    agent: "opencode",
    kind: "plugin",
    file: ".opencode/plugins/intent-lsp.js",
    text: pluginSource("opencode"),
    detect: [".opencode", "opencode.json", "opencode.jsonc"],
    sessionPrefix: "opencode",
    probe: pluginProbe,
  },
  {
    agent: "amp",
    kind: "plugin",
    file: ".amp/plugins/intent-lsp.ts",
    text: pluginSource("amp"),
    detect: [".amp"],
    sessionPrefix: "amp",
    probe: pluginProbe,
  },
];

export function hookSpec(agent: string): HookSpec | undefined {
  return HOOK_SPECS.find((s) => s.agent === agent);
}

/** Agents whose folders (or instruction files) are in the workspace. */
export function detectAgents(root: string): AgentName[] {
  return HOOK_SPECS.filter((s) => s.detect.some((d) => existsSync(join(root, d)))).map((s) => s.agent);
}

/** The file a script-based agent runs: a shebang and our command (Cline runs hooks as executables). */
export function hookScript(agent: AgentName): string {
  return `#!/usr/bin/env bash\n# intent-lsp: gate and record this agent's tool calls (see the intent-lsp README)\nexec ${hookCommand(agent)}\n`;
}

export type MergeResult =
  /** `added`: the events given our entry; `matched`: those whose entry of ours had its matcher brought up to date. */
  | { ok: true; text: string; added: string[]; matched: string[] }
  /** The existing file cannot be read as JSON: left as it is. */
  | { ok: false; problem: string };

/**
 * `existing` (undefined: no file yet) with intent-lsp's entries added where missing, and the matcher of an
 * entry of ours that this version's differs from set to this version's: a matcher written by an earlier
 * version may not route every tool the gate now judges, and a tool not routed is never gated. Comments,
 * formatting and every other key and entry are kept; only the arrays appended to and those matchers change.
 */
export function mergeHookConfig(spec: JsonHookSpec, existing: string | undefined, file = spec.file): MergeResult {
  if (existing === undefined || existing.trim() === "") {
    const value = { ...(spec.top ?? {}), hooks: Object.fromEntries(Object.entries(spec.events).map(([e, entry]) => [e, entriesOf(entry)])) };
    return { ok: true, text: `${JSON.stringify(value, null, 2)}\n`, added: Object.keys(spec.events), matched: [] };
  }
  const errors: ParseError[] = [];
  const tree = parseTree(existing, errors, { allowTrailingComma: true });
  if (errors.length || !tree || tree.type !== "object") {
    const at = errors[0] ? ` at ${lineCol(existing, errors[0].offset)}: ${printParseErrorCode(errors[0].error)}` : ": the top level is not an object";
    return { ok: false, problem: `${file} is not valid JSON${at}` };
  }
  const value = JSON.parse(JSON.stringify(jsonValue(tree))) as Record<string, unknown>;
  const hooks = value["hooks"];
  if (hooks !== undefined && (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)))
    return { ok: false, problem: `${file}: "hooks" is not an object` };
  const unit = /^\t/m.test(existing) ? "\t" : " ".repeat(indentOf(existing));
  let text = existing;
  const added: string[] = [];
  const matched: string[] = [];
  const parsed = () => parseTree(text, [], { allowTrailingComma: true })!;
  for (const [key, v] of Object.entries(spec.top ?? {})) {
    if (!(key in value)) text = insertProperty(text, parsed(), key, v, unit);
  }
  for (const [event, entry] of Object.entries(spec.events)) {
    const list = (hooks as Record<string, unknown> | undefined)?.[event];
    if (list !== undefined && !Array.isArray(list)) return { ok: false, problem: `${file}: "hooks.${event}" is not a list` };
    if (Array.isArray(list) && list.some((e) => callsHook(JSON.stringify(e), spec.agent))) {
      const before = text;
      text = withMatcher(text, parsed(), event, list, entry, spec.agent);
      if (text !== before) matched.push(event);
      continue;
    }
    const root = parsed();
    const hooksNode = findNodeAtLocation(root, ["hooks"]);
    if (!hooksNode) text = insertProperty(text, root, "hooks", { [event]: entriesOf(entry) }, unit);
    else if (!Array.isArray(list)) text = insertProperty(text, hooksNode, event, entriesOf(entry), unit);
    else for (const one of entriesOf(entry)) text = appendToArray(text, findNodeAtLocation(parsed(), ["hooks", event])!, one, unit);
    added.push(event);
  }
  return { ok: true, text, added, matched };
}

/**
 * `text` with the `matcher` of each entry of ours in `hooks[event]` (`list`, as read from `root`) set to the
 * spec's `entry`'s. An event whose entries are one per tool (Kiro) is left as it is: which of them is which
 * cannot be told from a changed matcher.
 */
function withMatcher(text: string, root: Node, event: string, list: readonly unknown[], entry: unknown, agent: AgentName): string {
  if (Array.isArray(entry)) return text;
  const wanted = (entry as { matcher?: unknown }).matcher;
  if (typeof wanted !== "string") return text;
  // replaced from the last entry to the first: the offsets of those before stay true
  for (let i = list.length - 1; i >= 0; i--) {
    const e = list[i];
    if (!callsHook(JSON.stringify(e), agent) || !e || typeof e !== "object" || typeof (e as { matcher?: unknown }).matcher !== "string") continue;
    if ((e as { matcher: string }).matcher === wanted) continue;
    const node = findNodeAtLocation(root, ["hooks", event, i, "matcher"])!;
    text = `${text.slice(0, node.offset)}${JSON.stringify(wanted)}${text.slice(node.offset + node.length)}`;
  }
  return text;
}

/** An event's entries: one, or several where the agent's matcher takes one tool name per entry (Kiro). */
const entriesOf = (entry: unknown): unknown[] => (Array.isArray(entry) ? entry : [entry]);

/** Whether a command (or any text holding one) runs intent-lsp's hook for `agent`, by whatever path. */
export function callsHook(text: string, agent: AgentName): boolean {
  return new RegExp(`\\bhook\\s+${agent}(?![\\w-])`).test(text);
}

/** Every hook command configured in an agent's file that runs `… hook <agent>` (for `intent doctor`). */
export function configuredCommands(text: string, agent: AgentName): string[] {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true });
  if (!tree) return [];
  const out = new Set<string>();
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if ((k === "command" || k === "bash") && typeof x === "string" && callsHook(x, agent)) out.add(x);
        else walk(x);
      }
    }
  };
  walk((jsonValue(tree) as Record<string, unknown>)["hooks"]);
  return [...out];
}

/*
 * Insertions by hand rather than jsonc-parser's modify(): modify reformats the neighbouring entries it
 * touches, and the user's file must keep every byte it had. Each insertion goes after the last member, at
 * that member's indentation.
 */

function appendToArray(text: string, array: Node, value: unknown, unit: string): string {
  return insertMember(text, array, pretty(value, "", unit), unit);
}

function insertProperty(text: string, object: Node, key: string, value: unknown, unit: string): string {
  return insertMember(text, object, `${JSON.stringify(key)}: `, unit, value);
}

/** Inserts `head` (+ `value` pretty-printed) as the last member of the object or array `node`. */
function insertMember(text: string, node: Node, head: string, unit: string, value?: unknown): string {
  const children = node.children ?? [];
  const last = children[children.length - 1];
  const indent = last && startsLine(text, last.offset) ? lineIndent(text, last.offset) : lineIndent(text, node.offset) + unit;
  const member = value === undefined ? head.replace(/\n/g, `\n${indent}`) : head + pretty(value, indent, unit);
  if (last) {
    const at = last.offset + last.length;
    return `${text.slice(0, at)},\n${indent}${member}${text.slice(at)}`;
  }
  const at = node.offset + 1; // just inside the brace or bracket
  return `${text.slice(0, at)}\n${indent}${member}\n${lineIndent(text, node.offset)}${text.slice(at).replace(/^\s*/, "")}`;
}

function pretty(value: unknown, indent: string, unit: string): string {
  return JSON.stringify(value, null, unit).replace(/\n/g, `\n${indent}`);
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

function startsLine(text: string, offset: number): boolean {
  return /^\s*$/.test(text.slice(lineStart(text, offset), offset));
}

function lineIndent(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset)))![0];
}

function jsonValue(node: NonNullable<ReturnType<typeof parseTree>>): unknown {
  switch (node.type) {
    case "object":
      return Object.fromEntries(
        (node.children ?? []).filter((p) => p.children?.length === 2).map((p) => [p.children![0]!.value as string, jsonValue(p.children![1]!)]),
      );
    case "array":
      return (node.children ?? []).map(jsonValue);
    default:
      return node.value;
  }
}

function indentOf(text: string): number {
  const m = /^( +)\S/m.exec(text);
  return m ? m[1]!.length : 2;
}

function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
}
