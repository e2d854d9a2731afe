/**
 * The one place intent-lsp starts git. Every call runs with options that make git run nothing a repository,
 * a user's configuration or the environment supplies: an agent can write `.git/config` as easily as any
 * file, and the agent hooks run git (`git status` around a shell command) before a person has approved
 * anything. Turned off on every call:
 *
 * - hooks (`core.hooksPath=/dev/null`): `git status` runs post-index-change, `update-ref` reference-transaction;
 * - fsmonitor (`core.fsmonitor=false`), a command git runs to learn which files changed;
 * - filter drivers: each `filter.<name>.{clean,smudge,process}` that any configuration git reads defines is
 *   set empty and `required` false (gitFilterDrivers.ts finds the names without a process); `git status`
 *   runs a clean filter on every file whose stat changed. A file under such a filter is then compared as
 *   stored on disk, so it may show as changed when only its filter would make it equal: more to review,
 *   never less;
 * - external diff and textconv (`--no-ext-diff`, `--no-textconv` on diff, log and show; GIT_EXTERNAL_DIFF
 *   removed), pagers (`--no-pager`, GIT_PAGER removed), signature checks (`log.showSignature=false`) and
 *   signing (`commit.gpgSign=false`), `core.alternateRefsCommand`, submodule recursion, automatic gc and
 *   maintenance, the `ext::` transport (runs any command), and a remote's own `uploadpack` / `receivepack`
 *   (git's own `git-upload-pack` / `git-receive-pack` are named instead).
 *
 * Calls that stay on this machine (all but fetch, push and ls-remote) also may not reach any transport
 * (`protocol.allow=never`: a partial clone's lazy fetch fails instead of going to the network), so no
 * credential helper, ssh command or askpass program runs, and git never prompts. `intent ledger fetch` and
 * `intent ledger push` are network actions a person asks for by name; they keep the transport the person
 * configured (credential helpers, `core.sshCommand`, GIT_SSH_COMMAND, askpass) so that their credentials
 * work as for `git fetch` and `git push`, and everything else above stays off.
 */
import type { ChildProcess, ExecFileException, SpawnOptions, SpawnSyncReturns } from "node:child_process";
import { filterNamesInKeys } from "../engine/gitConfigText";
import { filterDriverNames } from "./gitFilterDrivers";

/** Options that make git's output the same whatever the user's configuration says. */
export const STABLE_CONFIG = ["-c", "core.quotePath=false", "-c", "color.ui=false", "-c", "diff.noprefix=false"];

const RUN_NOTHING = [
  "--no-pager",
  ...["core.hooksPath=/dev/null", "core.fsmonitor=false", "core.alternateRefsCommand=", "log.showSignature=false", "commit.gpgSign=false"],
  ...["protocol.ext.allow=never", "submodule.recurse=false", "fetch.recurseSubmodules=false", "push.recurseSubmodules=no"],
  ...["gc.auto=0", "maintenance.auto=false"],
].flatMap((s) => (s.startsWith("--") ? [s] : ["-c", s]));

/** Calls that stay on this machine reach no transport at all. */
const LOCAL_ONLY = ["-c", "protocol.allow=never", "-c", "credential.helper=", "-c", "core.sshCommand=", "-c", "core.askPass="];

const NETWORK = new Set(["fetch", "push", "ls-remote"]);

/** Options inserted right after a subcommand's name. */
const SUBCOMMAND_OPTIONS: Record<string, readonly string[]> = {
  diff: ["--no-ext-diff", "--no-textconv"],
  log: ["--no-ext-diff", "--no-textconv"],
  show: ["--no-ext-diff", "--no-textconv"],
  fetch: ["--upload-pack=git-upload-pack"],
  "ls-remote": ["--upload-pack=git-upload-pack"],
  push: ["--receive-pack=git-receive-pack"],
};

/** Environment variables that name a program git would run. */
const PROGRAM_VARS = ["GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_EDITOR"];
const TRANSPORT_VARS = ["GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND"];

/** Values `--config-env` reads: a driver's name may hold `=`, which `-c` cannot express. */
const EMPTY_VAR = "INTENT_LSP_GIT_EMPTY";
const FALSE_VAR = "INTENT_LSP_GIT_FALSE";

export interface GitInvocation {
  argv: string[];
  env: NodeJS.ProcessEnv;
}

/** What to start for `git <args>` in `cwd`; `extraEnv` is added to this process's environment. */
export function gitInvocation(cwd: string, args: readonly string[], extraEnv: Record<string, string> = {}): GitInvocation {
  const at = subcommandIndex(args);
  // Stryker disable next-line StringLiteral: with no subcommand, any name that is no subcommand git has reads the same
  const sub = args[at] ?? "";
  const network = NETWORK.has(sub);
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, [EMPTY_VAR]: "", [FALSE_VAR]: "false" };
  for (const v of PROGRAM_VARS) delete env[v];
  if (!network) {
    for (const v of TRANSPORT_VARS) delete env[v];
    env["GIT_TERMINAL_PROMPT"] = "0";
    env["GIT_NO_LAZY_FETCH"] = "1";
  }
  const filters = filterNames(cwd, env).flatMap((name) => [
    ...["clean", "smudge", "process"].map((key) => `--config-env=filter.${name}.${key}=${EMPTY_VAR}`),
    `--config-env=filter.${name}.required=${FALSE_VAR}`,
  ]);
  const argv = [
    ...STABLE_CONFIG,
    ...RUN_NOTHING,
    ...(network ? [] : LOCAL_ONLY),
    ...filters,
    ...args.slice(0, at + 1),
    ...(SUBCOMMAND_OPTIONS[sub] ?? []),
    ...(sub === "diff" && !args.some((a) => a.startsWith("--ignore-submodules")) ? ["--ignore-submodules=dirty"] : []),
    ...args.slice(at + 1),
  ];
  return { argv, env };
}

/**
 * Every filter driver git could run here: those the configuration files name, and, where the files alone
 * cannot tell (an include only git resolves), those git itself lists. `git config --list` runs no program.
 * When even that fails, git is not started: the call fails as git would, and nothing runs.
 */
function filterNames(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const drivers = filterDriverNames(cwd, env);
  if (drivers.unsure === undefined) return drivers.names;
  const { spawnSync } = require("node:child_process") as typeof import("node:child_process");
  const listed = spawnSync("git", [...RUN_NOTHING, ...LOCAL_ONLY, "config", "--list", "--name-only", "-z"], { cwd, env, encoding: "utf8", timeout: 10_000 });
  if (listed.status !== 0 || listed.error)
    throw new GitRefused(
      `git's configuration here could not be read (${drivers.unsure}), so the filter drivers git would run are not known: git is not started`,
    );
  return [...new Set([...drivers.names, ...filterNamesInKeys(listed.stdout.split("\0"))])];
}

/** A call git is not started for: what it could run cannot be turned off. */
export class GitRefused extends Error {}

/**
 * Where the subcommand's name is: after any `-c name=value` the caller puts first. Any other option there
 * (`-C dir`, `--git-dir x`) could hide the subcommand behind its value, and with it the switches that keep
 * git from running programs: refused.
 */
function subcommandIndex(args: readonly string[]): number {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) {
    if (args[i] !== "-c") throw new Error(`git ${args.join(" ")}: only -c settings may come before the subcommand (the git runner adds its own options)`);
    i += 2;
  }
  return i;
}

export interface GitSyncOptions {
  input?: string | Buffer;
  timeoutMs?: number;
  maxBuffer?: number;
  env?: Record<string, string>;
}

/** Runs git to its end, blocking; output as text. */
export function gitSync(cwd: string, args: readonly string[], opts: GitSyncOptions & { encoding: "utf8" }): SpawnSyncReturns<string>;
/** Runs git to its end, blocking; output as bytes. */
export function gitSync(cwd: string, args: readonly string[], opts?: GitSyncOptions): SpawnSyncReturns<Buffer>;
export function gitSync(cwd: string, args: readonly string[], opts: GitSyncOptions & { encoding?: "utf8" } = {}): SpawnSyncReturns<string | Buffer> {
  // required here: loading this module must not cost a hook that starts no process anything
  const { spawnSync } = require("node:child_process") as typeof import("node:child_process");
  let call: GitInvocation;
  try {
    call = gitInvocation(cwd, args, opts.env);
  } catch (e) {
    if (!(e instanceof GitRefused)) throw e;
    const none = opts.encoding ? "" : Buffer.alloc(0);
    return { pid: 0, output: [null, none, none], stdout: none, stderr: none, status: null, signal: null, error: e };
  }
  return spawnSync("git", call.argv, {
    cwd,
    env: call.env,
    ...(opts.encoding ? { encoding: opts.encoding } : {}),
    // Stryker disable next-line ConditionalExpression: spawnSync takes an input or a timeout given as undefined as none given
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    // Stryker disable next-line ConditionalExpression: as above
    ...(opts.timeoutMs !== undefined ? { timeout: opts.timeoutMs } : {}),
    maxBuffer: opts.maxBuffer ?? 512 * 1024 * 1024,
  });
}

/** Starts git in the background (its output read as it comes). */
export function gitSpawn(cwd: string, args: readonly string[], opts: { stdio: SpawnOptions["stdio"] }): ChildProcess {
  const { spawn } = require("node:child_process") as typeof import("node:child_process");
  let call: GitInvocation;
  try {
    call = gitInvocation(cwd, args);
  } catch (e) {
    if (!(e instanceof GitRefused)) throw e;
    return refusedChild(e);
  }
  return spawn("git", call.argv, { cwd, env: call.env, stdio: opts.stdio });
}

/** Runs git in the background and hands its whole output to `done`. */
export function gitExecFile(
  cwd: string,
  args: readonly string[],
  opts: { timeoutMs: number; maxBuffer: number; env?: Record<string, string> },
  done: (err: ExecFileException | null, stdout: string, stderr: string) => void,
): void {
  const { execFile } = require("node:child_process") as typeof import("node:child_process");
  let call: GitInvocation;
  try {
    call = gitInvocation(cwd, args, opts.env);
  } catch (e) {
    if (!(e instanceof GitRefused)) throw e;
    process.nextTick(() => done(e as ExecFileException, "", ""));
    return;
  }
  execFile("git", call.argv, { cwd, env: call.env, encoding: "utf8", maxBuffer: opts.maxBuffer, timeout: opts.timeoutMs }, done);
}

/**
 * What `gitSpawn` hands back for a call git is not started for: a process that has failed to start, as a
 * missing git would (its `error`, then `close`), with empty streams.
 */
function refusedChild(e: GitRefused): ChildProcess {
  const { EventEmitter } = require("node:events") as typeof import("node:events");
  const { PassThrough } = require("node:stream") as typeof import("node:stream");
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const child = Object.assign(new EventEmitter(), { stdin: new PassThrough(), stdout, stderr, kill: () => false }) as unknown as ChildProcess;
  process.nextTick(() => {
    child.emit("error", e);
    stdout.end();
    stderr.end();
    child.emit("close", null, null);
  });
  return child;
}
