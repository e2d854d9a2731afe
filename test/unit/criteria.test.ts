import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { runCriterion, userShell } from "../../server/src/io/criteria/runCriterion";
import { failureClause, passed, runCheck, type RunCriterion } from "../../server/src/engine/intents/verification";

/**
 * How a criterion's command ended, judged (docs/INTENTS.md "Acceptance criteria"): only an exit code of 0 passes.
 * A command that dies of a signal has no exit code, and no exit code is never a pass. In process, so
 * mutation testing reaches both the runner and the judgement.
 */

const root = mkdtempSync(join(tmpdir(), "intent-lsp-criteria-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const env = { PATH: process.env["PATH"], SHELL: "/bin/sh" };
const criterion = (run: string, timeoutSeconds = 60): RunCriterion => ({ kind: "run", run, timeoutSeconds }) as RunCriterion;

async function judged(run: string, opts: { timeoutSeconds?: number; signal?: AbortSignal } = {}) {
  const c = criterion(run, opts.timeoutSeconds);
  const o = await runCriterion(root, c, { env, ...(opts.signal ? { signal: opts.signal } : {}) });
  const { duration_ms, ...check } = runCheck(c, o) as Record<string, unknown>;
  expect(duration_ms).toEqual(expect.any(Number));
  return { passed: passed(o), why: failureClause(c, o), tail: o.tail, check };
}

describe("a criterion's command, run and judged", () => {
  it("exit 0 passes, with its output's tail kept", async () => {
    expect(await judged("echo one; echo two >&2")).toEqual({
      passed: true,
      why: "exit 0",
      tail: "one\ntwo",
      check: { kind: "run", name: "run: echo one; echo two >&2", run: "echo one; echo two >&2", exit_code: 0, timed_out: false, passed: true },
    });
  });

  it("another exit code fails, named", async () => {
    expect(await judged("exit 3")).toMatchObject({ passed: false, why: "exit 3", check: { exit_code: 3, timed_out: false, passed: false } });
  });

  it.each(["TERM", "KILL", "INT"])("a command killed by SIG%s has no exit code and fails, naming the signal", async (signal) => {
    expect(await judged(`echo started; kill -${signal} $$`)).toEqual({
      passed: false,
      why: `killed by SIG${signal}`,
      tail: "started",
      check: {
        kind: "run",
        name: `run: echo started; kill -${signal} $$`,
        run: `echo started; kill -${signal} $$`,
        exit_code: null,
        timed_out: false,
        passed: false,
      },
    });
  });

  it("a command that outlives its timeout is killed and fails as timed out", async () => {
    expect(await judged("echo waiting; sleep 30", { timeoutSeconds: 1 })).toMatchObject({
      passed: false,
      why: "killed at its 1 s timeout",
      tail: "waiting",
      check: { exit_code: null, timed_out: true, passed: false },
    });
  });

  it("a cancelled run fails as cancelled, even when the command would have passed", async () => {
    const abort = new AbortController();
    abort.abort();
    expect(await judged("sleep 30; exit 0", { signal: abort.signal })).toMatchObject({
      passed: false,
      why: "cancelled",
      check: { exit_code: null, timed_out: false, passed: false },
    });
  });

  it("a shell that cannot start fails with no exit code, never a pass", async () => {
    const c = criterion("exit 0");
    const o = await runCriterion(join(root, "no-such-folder"), c, { env });
    expect({ passed: passed(o), why: failureClause(c, o), exitCode: o.exitCode }).toEqual({ passed: false, why: "its shell could not start", exitCode: null });
    expect(o.tail).toContain("ENOENT");
  });
});

/** Whether a process runs (a zombie waiting to be reaped has ended). */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

/** The pid a command wrote to `file` in the run's folder; each test names its own file. */
const pidIn = (file: string) => Number(readFileSync(join(root, file), "utf8"));

describe("the runner", () => {
  it("runs in the workspace root, in the environment it is given, with its input closed", async () => {
    const o = await runCriterion(root, criterion('pwd; echo "$CRITERION_MARK"; cat; echo read'), { env: { ...env, CRITERION_MARK: "given" } });
    expect({ exitCode: o.exitCode, tail: o.tail }).toEqual({ exitCode: 0, tail: `${realpathSync(root)}\ngiven\nread` });
  });

  it("without an environment given, in this process's", async () => {
    vi.stubEnv("CRITERION_MARK", "inherited");
    try {
      expect((await runCriterion(root, criterion('echo "$CRITERION_MARK"'))).tail).toBe("inherited");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it.each([
    [{ SHELL: "/bin/bash" }, "/bin/bash"],
    [{ SHELL: "bash" }, "/bin/sh"],
    [{ SHELL: "" }, "/bin/sh"],
    [{}, "/bin/sh"],
  ])("the shell for %o is %s", (shellEnv, shell) => {
    expect(userShell(shellEnv)).toBe(shell);
  });

  it("passes each chunk of output on as it comes, and keeps only the last 64 KiB", async () => {
    const chunks: string[] = [];
    const o = await runCriterion(root, criterion("head -c 70000 /dev/zero | tr '\\0' x; echo; echo end"), { env, onOutput: (c) => chunks.push(c) });
    expect(chunks.join("")).toBe(`${"x".repeat(70000)}\nend\n`);
    expect(o.tail).toBe(`${"x".repeat(64 * 1024 - 5)}\nend`);
  });

  it("a command that ends within its timeout is not killed", async () => {
    expect(await judged("sleep 0.2; echo done", { timeoutSeconds: 1 })).toMatchObject({ passed: true, tail: "done" });
  });

  it("measures how long the command ran", async () => {
    const before = performance.now();
    const o = await runCriterion(root, criterion("sleep 0.2"), { env });
    const after = performance.now();
    expect(o.durationMs).toBeGreaterThanOrEqual(200);
    expect(o.durationMs).toBeLessThanOrEqual(after - before);
  });

  it("a process the command leaves behind is killed when the shell ends, whether it holds the output or ignores SIGTERM", async () => {
    const run = [
      "sleep 300 & echo $! > held.pid",
      "sleep 300 >/dev/null 2>&1 & echo $! > quiet.pid",
      "(trap '' TERM; exec sleep 300) >/dev/null 2>&1 & echo $! > stubborn.pid",
      "echo started",
    ].join("; ");
    const o = await runCriterion(root, criterion(run), { env });
    expect({ exitCode: o.exitCode, tail: o.tail }).toEqual({ exitCode: 0, tail: "started" });
    for (const file of ["held.pid", "quiet.pid", "stubborn.pid"]) await expect.poll(() => running(pidIn(file)), { timeout: 10_000, interval: 50 }).toBe(false);
  });

  it("at its timeout the command gets SIGTERM first, and exiting 0 then is still no exit code and no pass", async () => {
    const o = await runCriterion(root, criterion("trap 'echo cleaning up; exit 0' TERM; echo waiting; sleep 60 & wait", 1), { env });
    expect({ ...o, durationMs: 0 }).toEqual({ exitCode: null, signal: null, timedOut: true, cancelled: false, durationMs: 0, tail: "waiting\ncleaning up" });
    expect(passed(o)).toBe(false);
  });

  it("a command that ignores SIGTERM is killed, with everything it started, after a grace period", async () => {
    const c = criterion("trap '' TERM; sleep 60 & echo $! > ignoring.pid; echo waiting; wait", 1);
    const o = await runCriterion(root, c, { env });
    expect({ passed: passed(o), why: failureClause(c, o), exitCode: o.exitCode, signal: o.signal, tail: o.tail }).toEqual({
      passed: false,
      why: "killed at its 1 s timeout",
      exitCode: null,
      signal: null,
      tail: "waiting",
    });
    await expect.poll(() => running(pidIn("ignoring.pid")), { timeout: 10_000, interval: 50 }).toBe(false);
  }, 20_000);

  it("cancelled while it runs: killed, no exit code, cancelled, even when it exits 0 on SIGTERM", async () => {
    const abort = new AbortController();
    const c = criterion("trap 'exit 0' TERM; echo started; sleep 60 & wait");
    const o = await runCriterion(root, c, { env, signal: abort.signal, onOutput: (chunk) => chunk.includes("started") && abort.abort() });
    expect({ ...o, durationMs: 0 }).toEqual({ exitCode: null, signal: null, timedOut: false, cancelled: true, durationMs: 0, tail: "started" });
    expect(failureClause(c, o)).toBe("cancelled");
  });
});
