/**
 * Runs one acceptance criterion's command, only ever because a person asked (`intent complete`, the
 * editor's "Verify" or "Complete"): never when a workspace opens, in `intent doctor` or in a hook.
 * The command runs in the user's shell (`$SHELL -c`, else /bin/sh) from the workspace root, in a process
 * group of its own, so a timeout or a cancellation kills everything it started, not only the shell.
 */
import { spawn } from "node:child_process";
import { outputTail, type RunCriterion, type RunOutcome } from "../../engine/intents/verification";

/** Output kept while a command runs: enough for a tail, bounded whatever the command prints. */
const KEEP_BYTES = 64 * 1024;
/** Time a killed group gets between SIGTERM and SIGKILL. */
const GRACE_MS = 2000;

export interface RunOptions {
  signal?: AbortSignal;
  /** Each chunk of output as it comes, for a terminal that shows it live. */
  onOutput?: (chunk: string) => void;
  env?: NodeJS.ProcessEnv;
}

export function userShell(env: NodeJS.ProcessEnv): string {
  const shell = env["SHELL"];
  return shell?.startsWith("/") ? shell : "/bin/sh";
}

export function runCriterion(root: string, c: RunCriterion, opts: RunOptions = {}): Promise<RunOutcome> {
  const env = opts.env ?? process.env;
  const started = performance.now();
  return new Promise((resolve) => {
    let kept = "";
    let timedOut = false;
    let cancelled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const child = spawn(userShell(env), ["-c", c.run], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const keep = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      opts.onOutput?.(text);
      kept = (kept + text).slice(-KEEP_BYTES);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        // Stryker disable next-line ConditionalExpression: without a pid (the shell never started) process.kill(NaN) throws and the catch below takes it, as it takes a group already gone
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // the group is gone already
      }
    };
    const stop = () => {
      // Stryker disable next-line StringLiteral: equivalent: process.kill sends SIGTERM for an empty signal name
      killGroup("SIGTERM");
      killTimer ??= setTimeout(() => killGroup("SIGKILL"), GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, c.timeoutSeconds * 1000);
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    // an AbortSignal fires "abort" at most once, and `finish` removes the listener
    opts.signal?.addEventListener("abort", onAbort);
    if (opts.signal?.aborted) onAbort();
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, error?: Error) => {
      clearTimeout(timer);
      // Stryker disable next-line StringLiteral: an outcome no test can observe in process: the run has resolved, and a listener left on the signal would only signal a group already killed ("the runner" tests in test/unit/criteria.test.ts cover cancellation)
      opts.signal?.removeEventListener("abort", onAbort);
      clearTimeout(killTimer);
      if (error) kept += `\n${error.message}`;
      const killed = timedOut || cancelled;
      resolve({
        exitCode: killed ? null : exitCode,
        signal: killed ? null : signal,
        timedOut,
        cancelled,
        durationMs: performance.now() - started,
        tail: outputTail(kept),
      });
    };
    // the shell has ended: anything it left running in its group ends with it, and a background process
    // holding its output open does not keep the run waiting ('exit' comes before 'close')
    child.on("exit", () => killGroup("SIGKILL"));
    child.on("error", (err) => finish(null, null, err));
    child.on("close", (code, signal) => finish(code, signal));
  });
}
