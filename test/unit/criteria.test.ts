import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCriterion } from "../../server/src/io/criteria/runCriterion";
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
