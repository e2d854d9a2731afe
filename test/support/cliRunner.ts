import type { AgentName } from "../../server/src/io/setup/agentHooks";
import { spawnSync } from "node:child_process";
import { basename, join } from "node:path";
import type { Io } from "../../server/src/cli/args";
import { runChildProgram, type ProgramRunner } from "../../server/src/io/program";
import { REPO_ROOT } from "./lspClient";

/** The CLI run as a user, an agent or a CI job runs it: `node dist/cli.js`, one process per command. */

export const CLI_JS = join(REPO_ROOT, "dist/cli.js");

export interface CliResult {
  stdout: string;
  stderr: string;
  status: number;
}

export interface CliOptions {
  cwd: string;
  input?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * runCliInProcess only: the `intent` a command runs (doctor's hook probes, found on PATH) runs in this
   * process too, as runCliInProcess; any other program as a child process, so that whatever a command should
   * not have run still leaves its traces. For tests of what doctor does with a workspace, where the probe's
   * process is not the subject (test/cli/setup.test.ts spawns it).
   */
  intentInProcess?: boolean;
}

/** The environment a command sees: the test process's, with the test's own settings over it. */
function commandEnv(opts: CliOptions): NodeJS.ProcessEnv {
  const env = { ...process.env, ...opts.env };
  delete env["INTENT_LSP_MODEL"]; // only a test that sets it should see it
  if (opts.env?.["INTENT_LSP_MODEL"]) env["INTENT_LSP_MODEL"] = opts.env["INTENT_LSP_MODEL"];
  return env;
}

export function runCli(args: string[], opts: CliOptions): CliResult {
  const env = commandEnv(opts);
  const r = spawnSync(process.execPath, [CLI_JS, ...args], { cwd: opts.cwd, input: opts.input ?? "", encoding: "utf8", env });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status ?? -1 };
}

type Main = (argv: string[], io: Io) => Promise<number>;
let builtMain: Main | undefined;

/**
 * The same command in this process: the built CLI's `main` (dist/intent-cli-main.js, the code dist/cli.js
 * runs) with the folder, environment and standard input handed over through its Io, as the program does
 * from its process. For the tests whose subject is what a command does, not the process that runs it: a
 * spawn costs more than most commands. What only a process shows (exit on a crash, signals, timeouts, the
 * code cache, stdout left clean) stays with runCli. The file must be built (ensureBuilt) before the first call.
 */
export async function runCliInProcess(args: string[], opts: CliOptions): Promise<CliResult> {
  // the source itself under `npm run mutate` (test/support/sourceRequire.ts), so that a mutant in it is seen
  builtMain ??= (require(join(REPO_ROOT, process.env["INTENT_LSP_CLI_FROM_SOURCE"] ? "server/src/cli/main.ts" : "dist/intent-cli-main.js")) as { main: Main })
    .main;
  let stdout = "";
  let stderr = "";
  const lines = (opts.input ?? "").split("\n");
  if (lines.at(-1) === "") lines.pop();
  const io: Io = {
    out: (text) => void (stdout += text),
    write: async (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    cwd: opts.cwd,
    env: commandEnv(opts),
    readStdin: async () => opts.input ?? "",
    readLine: async () => lines.shift(),
    ...(opts.intentInProcess ? { runProgram: intentInProcess } : {}),
  };
  try {
    const status = await builtMain(args, io);
    return { stdout, stderr, status };
  } catch (err) {
    // what runAsProgram prints and exits with when a command fails outside its own error handling
    const hook = args[0] === "hook";
    stderr += `intent: ${(err as Error)?.message ?? String(err)}${hook ? " (blocking the call)" : ""}\n`;
    return { stdout, stderr, status: hook ? 2 : 1 };
  }
}

/** A program run by a command in process: `intent` (whichever file PATH names) as runCliInProcess, else a child. */
const intentInProcess: ProgramRunner = async (file, args, options) => {
  if (basename(file) !== "intent") return runChildProgram(file, args, options);
  const r = await runCliInProcess(args, { cwd: options.cwd, input: options.input, env: options.env, intentInProcess: true });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

/** The agents whose hook calls `intent hook <agent>` answers (the setup's own list). */
export type HookAgent = AgentName;

/** Runs a hook with a JSON payload, as the agent does. */
export function runHook(agent: HookAgent, payload: unknown, opts: { cwd: string; env?: NodeJS.ProcessEnv }): CliResult & { json: unknown } {
  return withJson(runCli(["hook", agent], { ...opts, input: typeof payload === "string" ? payload : JSON.stringify(payload) }));
}

/** runHook in this process (runCliInProcess): for the tests of what a hook decides, not of the hook's process. */
export async function runHookInProcess(
  agent: HookAgent,
  payload: unknown,
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<CliResult & { json: unknown }> {
  return withJson(await runCliInProcess(["hook", agent], { ...opts, input: typeof payload === "string" ? payload : JSON.stringify(payload) }));
}

/** What an agent reads from `runHookInProcess`: standard output, standard error and the exit code, and nothing else. */
export async function hookReplyInProcess(
  agent: HookAgent,
  payload: unknown,
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ stdout: string; stderr: string; status: number }> {
  const { stdout, stderr, status } = await runHookInProcess(agent, payload, opts);
  return { stdout, stderr, status };
}

function withJson(r: CliResult): CliResult & { json: unknown } {
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { ...r, json };
}
