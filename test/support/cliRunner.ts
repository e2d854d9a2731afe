import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./lspClient";

/** The CLI run as a user, an agent or a CI job runs it: `node dist/cli.js`, one process per command. */

export const CLI_JS = join(REPO_ROOT, "dist/cli.js");

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

/** The agents whose hook calls `intent hook <agent>` answers. */
export type HookAgent = "claude-code" | "cursor" | "codex" | "gemini" | "copilot" | "windsurf" | "cline" | "droid";

/** Runs a hook with a JSON payload, as the agent does. */
export function runHook(agent: HookAgent, payload: unknown, opts: { cwd: string; env?: NodeJS.ProcessEnv }): CliResult & { json: unknown } {
  const r = runCli(["hook", agent], { ...opts, input: typeof payload === "string" ? payload : JSON.stringify(payload) });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { ...r, json };
}
