import { spawnSync } from "node:child_process";
import { readdirSync, statSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { REPO_ROOT } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";

/** Helpers for the CLI tests: they run `node dist/cli.js` as a user, an agent or a CI job would. */

export const CLI_JS = join(REPO_ROOT, "dist/cli.js");

function newestSource(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    newest = Math.max(newest, s.isDirectory() ? newestSource(p) : s.mtimeMs);
  }
  return newest;
}

/** Builds dist/ when it is older than the sources (`npm test` builds first; this covers running one file). */
export async function ensureBuilt(): Promise<void> {
  const stale = () => {
    const built = Math.min(...["dist/cli.js", "dist/intent-cli.js", "dist/server.js"].map((f) => (existsSync(join(REPO_ROOT, f)) ? statSync(join(REPO_ROOT, f)).mtimeMs : 0)));
    return built < Math.max(newestSource(join(REPO_ROOT, "server/src")), newestSource(join(REPO_ROOT, "shared/src")));
  };
  if (!stale()) return;
  // test files run in parallel workers: one builds, the others wait for it
  const release = await lockfile.lock(join(REPO_ROOT, "package.json"), { realpath: false, stale: 60_000, retries: { retries: 600, minTimeout: 100, maxTimeout: 200 } });
  try {
    if (!stale()) return;
    const r = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: REPO_ROOT, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`build failed: ${r.stderr}`);
  } finally {
    await release();
  }
}

export interface CliResult {
  stdout: string;
  stderr: string;
  status: number;
}

export function runCli(args: string[], opts: { cwd: string; input?: string; env?: NodeJS.ProcessEnv }): CliResult {
  const env = { ...process.env, ...opts.env };
  delete env["INTENT_LSP_MODEL"]; // only a test that sets it should see it
  if (opts.env?.["INTENT_LSP_MODEL"]) env["INTENT_LSP_MODEL"] = opts.env["INTENT_LSP_MODEL"];
  const r = spawnSync(process.execPath, [CLI_JS, ...args], { cwd: opts.cwd, input: opts.input ?? "", encoding: "utf8", env });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status ?? -1 };
}

/** Runs a hook with a JSON payload, as the agent does. */
export function runHook(agent: "claude-code" | "cursor", payload: unknown, opts: { cwd: string; env?: NodeJS.ProcessEnv }): CliResult & { json: unknown } {
  const r = runCli(["hook", agent], { ...opts, input: typeof payload === "string" ? payload : JSON.stringify(payload) });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { ...r, json };
}

export function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

/**
 * A temp copy of examples/workspace with no ledger (tests plant exactly the records they need), committed as
 * the first commit of a fresh repository on branch main.
 */
export function gitWorkspace(): TempWorkspace {
  const ws = new TempWorkspace();
  ws.write(".orchestration/agent_trace.jsonl", "");
  git(ws.root, "init", "-q");
  git(ws.root, "add", "-A");
  git(ws.root, "commit", "-q", "-m", "initial");
  return ws;
}

export const LEDGER = ".orchestration/agent_trace.jsonl";

export function ledgerRecords(ws: TempWorkspace): Record<string, any>[] {
  const text = existsSync(ws.path(LEDGER)) ? readFileSync(ws.path(LEDGER), "utf8") : "";
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

// --- payloads in the exact shapes of shared/agent-hooks.md ------------------------------------------------

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

export function claudeEdit(ws: TempWorkspace, event: "PreToolUse" | "PostToolUse", path: string, oldString: string, newString: string, extra: Record<string, unknown> = {}) {
  return claudePayload(ws, event, {
    tool_name: "Edit",
    tool_input: { file_path: path.startsWith("/") ? path : ws.path(path), old_string: oldString, new_string: newString, replace_all: false, ...((extra["tool_input"] as object) ?? {}) },
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
    [
      JSON.stringify({ type: "user", message: { role: "user", content: "Add a unit to the weather type" } }),
      JSON.stringify({ type: "assistant", message: { model, role: "assistant", content: [{ type: "text", text: "Editing." }] } }),
    ].join("\n") + "\n",
  );
}

export function claudeAnswer(decision: "allow" | "deny" | "ask", reason: string) {
  return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, permissionDecisionReason: reason } };
}
