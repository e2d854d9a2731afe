import { spawn } from "node:child_process";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runCliInProcess } from "../support/cliRunner";

/**
 * Claude Code agents, as intent-lsp sees them: for each write, `intent hook claude-code` is run with the
 * PreToolUse payload, the agent writes the file, then the hook is run with the PostToolUse payload (shapes of
 * docs/AGENTS.md). Each agent has its own session, selected intent and model; the model is read from
 * the agent's transcript or from INTENT_LSP_MODEL, as server/src/io/modelSources.ts resolves it.
 */

export interface AgentIdentity {
  name: string;
  /** Claude Code's session id (a uuid); intent-lsp names the session `claude-<id>`. */
  sessionId: string;
  /** The raw model name and where the hook finds it. */
  model: { source: "transcript" | "env"; name: string };
}

export type ToolUsed = "Edit" | "Write";

export class AgentDriver {
  private calls = 0;
  /** Each restarted agent's current session (`restart`); the others are in `agent.sessionId`. */
  private readonly restarted = new Map<string, string>();

  constructor(
    readonly root: string,
    /** Claude Code keeps transcripts outside the project. */
    private readonly transcriptDir: string,
  ) {}

  transcript(agent: AgentIdentity): string {
    return join(this.transcriptDir, `${agent.name}.jsonl`);
  }

  /** The agent's current session id. */
  session(agent: AgentIdentity): string {
    return this.restarted.get(agent.name) ?? agent.sessionId;
  }

  /**
   * The agent's session restarted, as Claude Code's `/clear` or a new `claude` in the same folder does: the
   * old session's SessionEnd hook runs when `ended`, the new session gets a new id, and the person selects
   * the same intent for it.
   */
  async restart(agent: AgentIdentity, intentId: string, ended: boolean): Promise<void> {
    const old = this.session(agent);
    if (ended) {
      await this.hook(agent, { session_id: old, transcript_path: this.transcript(agent), cwd: this.root, hook_event_name: "SessionEnd", reason: "clear" });
    }
    const next = `${agent.sessionId.slice(0, -12)}${String(++this.calls).padStart(12, "0")}`;
    this.restarted.set(agent.name, next);
    await this.setup(agent, intentId);
  }

  /** Writes the agent's transcript and selects its intent for its session, as a user would in a terminal. */
  async setup(agent: AgentIdentity, intentId: string): Promise<void> {
    const lines = [
      { type: "user", message: { role: "user", content: "Please change the code." } },
      {
        type: "assistant",
        message: {
          role: "assistant",
          ...(agent.model.source === "transcript" ? { model: agent.model.name } : {}),
          content: [{ type: "text", text: "On it." }],
        },
      },
    ];
    writeFileSync(this.transcript(agent), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const r = await intent(["select", intentId, "--session", `claude-${this.session(agent)}`], { cwd: this.root, env: this.env(agent) });
    if (r.status !== 0) throw new Error(`intent select ${intentId} for ${agent.name} failed (${r.status}): ${r.stderr}`);
  }

  /**
   * One write of `after` over `before` to `path`, as an Edit when a unique old_string exists and `preferEdit`,
   * else as a Write. `afterWrite` runs between the file write and the PostToolUse hook (an editor reloading
   * before the record exists).
   */
  async write(
    agent: AgentIdentity,
    path: string,
    before: string,
    after: string,
    opts: { preferEdit: boolean; created?: boolean; afterWrite?: () => Promise<void> },
  ): Promise<ToolUsed> {
    const edit = opts.preferEdit && !opts.created ? editFor(before, after) : undefined;
    const filePath = join(this.root, path);
    const toolInput = edit
      ? { file_path: filePath, old_string: edit.oldString, new_string: edit.newString, replace_all: false }
      : { file_path: filePath, content: after };
    const tool: ToolUsed = edit ? "Edit" : "Write";
    const toolUseId = `toolu_oracle_${++this.calls}`;
    const base = {
      session_id: this.session(agent),
      transcript_path: this.transcript(agent),
      cwd: this.root,
      permission_mode: "acceptEdits",
      tool_name: tool,
      tool_input: toolInput,
      tool_use_id: toolUseId,
    };

    const pre = await this.hook(agent, { ...base, hook_event_name: "PreToolUse" });
    const decision = (pre as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } }).hookSpecificOutput;
    if (decision?.permissionDecision !== "allow") throw new Error(`oracle: the hook did not allow ${agent.name}'s ${tool} of ${path}: ${JSON.stringify(pre)}`);
    mkdirSync(dirname(filePath), { recursive: true });
    writeFileSync(filePath, after);
    await opts.afterWrite?.();
    const response = edit
      ? { filePath, oldString: edit.oldString, newString: edit.newString, replaceAll: false, userModified: false }
      : { type: opts.created ? "create" : "update", filePath, content: after };
    const post = await this.hook(agent, { ...base, hook_event_name: "PostToolUse", tool_response: response });
    if (Object.keys(post as object).length) throw new Error(`oracle: PostToolUse for ${agent.name}'s ${tool} of ${path} answered ${JSON.stringify(post)}`);
    return tool;
  }

  /**
   * A Bash command (`mv`, `git mv`) run between PreToolUse and PostToolUse. The gate puts a command that
   * moves files to the person ("ask"): the oracle's person allows it.
   */
  async shell(agent: AgentIdentity, command: string, afterRun?: () => Promise<void>): Promise<void> {
    const toolUseId = `toolu_oracle_${++this.calls}`;
    const base = {
      session_id: this.session(agent),
      transcript_path: this.transcript(agent),
      cwd: this.root,
      permission_mode: "default",
      tool_name: "Bash",
      tool_input: { command, description: "Move a file" },
      tool_use_id: toolUseId,
    };
    const pre = (await this.hook(agent, { ...base, hook_event_name: "PreToolUse" })) as { hookSpecificOutput?: { permissionDecision?: string } };
    const decision = pre.hookSpecificOutput?.permissionDecision;
    if (decision === "deny") throw new Error(`oracle: the hook denied ${agent.name}'s command ${command}: ${JSON.stringify(pre)}`);
    const r = await run("bash", ["-c", command], { cwd: this.root, env: process.env });
    if (r.status !== 0) throw new Error(`oracle: ${agent.name}'s command ${command} failed (${r.status}): ${r.stderr}`);
    await afterRun?.();
    const post = (await this.hook(agent, { ...base, hook_event_name: "PostToolUse", tool_response: { stdout: "", stderr: "", interrupted: false } })) as {
      decision?: string;
    };
    // a systemMessage tells the person what was recorded; only a block is a complaint
    if (post.decision === "block") throw new Error(`oracle: PostToolUse for ${agent.name}'s command ${command} answered ${JSON.stringify(post)}`);
  }

  /** Selects the intent for a Codex session (Codex names its model in every payload). */
  async setupCodex(agent: AgentIdentity, intentId: string): Promise<void> {
    const r = await intent(["select", intentId, "--session", `codex-${this.session(agent)}`], { cwd: this.root, env: this.env(agent) });
    if (r.status !== 0) throw new Error(`intent select ${intentId} for ${agent.name} failed (${r.status}): ${r.stderr}`);
  }

  /**
   * Codex's apply_patch moving `from` to `to` (`*** Move to:`), with a changed line (Codex reads no `*** Update
   * File:` without a hunk): `after` is the moved file's content, `changed` the line replaced.
   */
  async codexMove(
    agent: AgentIdentity,
    from: string,
    to: string,
    after: string,
    changed: { old: string; new: string },
    afterMove?: () => Promise<void>,
  ): Promise<void> {
    const hunk = `@@\n-${changed.old}\n+${changed.new}\n`;
    const patch = `*** Begin Patch\n*** Update File: ${from}\n*** Move to: ${to}\n${hunk}*** End Patch\n`;
    const id = `call_oracle_${++this.calls}`;
    const payload = (phase: "PreToolUse" | "PostToolUse") => ({
      session_id: this.session(agent),
      turn_id: `turn-${this.calls}`,
      transcript_path: null,
      cwd: this.root,
      hook_event_name: phase,
      model: agent.model.name,
      permission_mode: "default",
      tool_name: "apply_patch",
      tool_use_id: id,
      tool_input: { command: patch },
      ...(phase === "PostToolUse" ? { tool_response: "" } : {}),
    });
    const pre = (await this.hook(agent, payload("PreToolUse"), "codex")) as { hookSpecificOutput?: { permissionDecision?: string }; decision?: string };
    if (pre.hookSpecificOutput?.permissionDecision === "deny" || pre.decision === "block")
      throw new Error(`oracle: the hook denied codex's move of ${from}: ${JSON.stringify(pre)}`);
    mkdirSync(dirname(join(this.root, to)), { recursive: true });
    writeFileSync(join(this.root, to), after);
    rmSync(join(this.root, from));
    await afterMove?.();
    const post = (await this.hook(agent, payload("PostToolUse"), "codex")) as { decision?: string };
    if (post.decision === "block") throw new Error(`oracle: PostToolUse for codex's move of ${from} answered ${JSON.stringify(post)}`);
  }

  /** An MCP filesystem server's move_file, between PreToolUse and PostToolUse. */
  async moveFile(agent: AgentIdentity, from: string, to: string, afterMove?: () => Promise<void>): Promise<void> {
    const toolUseId = `toolu_oracle_${++this.calls}`;
    const base = {
      session_id: this.session(agent),
      transcript_path: this.transcript(agent),
      cwd: this.root,
      permission_mode: "acceptEdits",
      tool_name: "mcp__filesystem__move_file",
      tool_input: { source: join(this.root, from), destination: join(this.root, to) },
      tool_use_id: toolUseId,
    };
    const pre = (await this.hook(agent, { ...base, hook_event_name: "PreToolUse" })) as { hookSpecificOutput?: { permissionDecision?: string } };
    if (pre.hookSpecificOutput?.permissionDecision !== "allow")
      throw new Error(`oracle: the hook did not allow ${agent.name}'s move of ${from}: ${JSON.stringify(pre)}`);
    mkdirSync(dirname(join(this.root, to)), { recursive: true });
    renameSync(join(this.root, from), join(this.root, to));
    await afterMove?.();
    const post = await this.hook(agent, { ...base, hook_event_name: "PostToolUse", tool_response: [{ type: "text", text: `Moved ${from} to ${to}` }] });
    if (Object.keys(post as object).length) throw new Error(`oracle: PostToolUse for ${agent.name}'s move of ${from} answered ${JSON.stringify(post)}`);
  }

  private env(agent: AgentIdentity): NodeJS.ProcessEnv {
    const env = { ...process.env };
    delete env["INTENT_LSP_MODEL"];
    if (agent.model.source === "env") env["INTENT_LSP_MODEL"] = agent.model.name;
    return env;
  }

  private async hook(agent: AgentIdentity, payload: object, client = "claude-code"): Promise<unknown> {
    const r = await intent(["hook", client], { cwd: this.root, env: this.env(agent), input: JSON.stringify(payload) });
    if (r.status !== 0) throw new Error(`oracle: intent hook ${client} exited ${r.status}: ${r.stderr}`);
    if (!r.stdout.trim()) return {};
    try {
      return JSON.parse(r.stdout);
    } catch {
      throw new Error(`oracle: intent hook ${client} printed no JSON: ${r.stdout} ${r.stderr}`);
    }
  }
}

/**
 * old_string/new_string for an Edit turning `before` into `after`: the differing lines, widened by whole
 * lines of context until old_string occurs once in `before` (Claude Code refuses an ambiguous old_string)
 * and neither string is empty. Undefined when only the whole file would do.
 */
export function editFor(before: string, after: string): { oldString: string; newString: string } | undefined {
  const a = rawLines(before);
  const b = rawLines(after);
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let q = 0;
  while (q < a.length - p && q < b.length - p && a[a.length - 1 - q] === b[b.length - 1 - q]) q++;
  if (p === a.length && p === b.length) return undefined;
  for (let widen = 0; p > 0 || q > 0; widen++) {
    const oldString = a.slice(p, a.length - q).join("");
    const newString = b.slice(p, b.length - q).join("");
    const at = before.indexOf(oldString);
    if (oldString && newString && at === before.lastIndexOf(oldString) && before.slice(0, at) + newString + before.slice(at + oldString.length) === after) {
      return { oldString, newString };
    }
    if ((widen % 2 === 0 && p > 0) || q === 0) p--;
    else q--;
  }
  return undefined;
}

function rawLines(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$/g) ?? [];
}

/**
 * `intent ARGS` in this process (test/support/cliRunner.ts): the oracle's subject is what the hooks record and
 * blame answers, not their processes (test/cli covers those); a process per call was most of its time.
 */
function intent(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<{ status: number; stdout: string; stderr: string }> {
  return runCliInProcess(args, opts);
}

export function run(
  file: string,
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string },
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: opts.cwd, env: opts.env ?? process.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ status: code ?? -1, stdout, stderr }));
    // a command that does not read its input may exit before it is written
    child.stdin.on("error", () => undefined);
    child.stdin.end(opts.input ?? "");
  });
}
