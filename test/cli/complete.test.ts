import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { ledgerRecords } from "../support/ledgerFile";

/**
 * `intent complete ID` verifies the intent's acceptance criteria before the move (docs/INTENTS.md "Acceptance
 * criteria"): commands run from the workspace root, sentences are confirmed by the person, and the
 * verification is kept in the ledger's lifecycle record, read back by `intent status ID`.
 */

beforeAll(ensureBuilt);

const YAML = ".orchestration/active_intents.yaml";
const EXAMPLE_CRITERIA = '    acceptance_criteria: ["Unit tests in test/api pass"]\n';

/** INT-001 with the given acceptance_criteria block in place of the example's one-line list. */
function withCriteria(ws: TempWorkspace, block: string): string {
  const text = ws.read(YAML);
  expect(text).toContain(EXAMPLE_CRITERIA);
  // a function, so `$$` and `$!` in a command reach the file as written (a replacement string would expand them)
  const next = text.replace(EXAMPLE_CRITERIA, () => block);
  ws.write(YAML, next);
  git(ws.root, "commit", "-qam", "criteria");
  return next;
}

/** Durations and timestamps vary from run to run; the rest of the output is asserted whole. */
const steady = (s: string) =>
  s
    .replace(/\d+(\.\d+)? (ms|s)\)/g, "T)")
    .replace(/in \d+(\.\d+)? (ms|s)/g, "in T")
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "TIME");

/** Whether a process runs (a zombie waiting to be reaped has ended). */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

describe("intent complete verifies the acceptance criteria", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = gitWorkspace();
    git(ws.root, "config", "user.name", "Ada Lovelace");
    git(ws.root, "config", "user.email", "ada@example.com");
  });
  afterEach(() => ws.dispose());

  it("a failing criterion refuses COMPLETE, names it with the tail of its output, and changes nothing", () => {
    const before = withCriteria(
      ws,
      [
        "    acceptance_criteria:",
        "      - run: echo compiled",
        "        name: Build",
        "      - run: 'echo first line; echo \"2 tests failed\" >&2; exit 3'",
        "        name: API tests",
        "      - Docs updated",
        "",
      ].join("\n"),
    );
    const r = runCli(["complete", "INT-001", "--yes"], { cwd: ws.root });
    expect(r.status).toBe(1);
    expect(steady(r.stdout)).toBe(
      [
        "Verifying INT-001 (Build Weather API): 2 commands to run, 1 sentence to confirm",
        "  [1/2] Build (echo compiled) …",
        "  ✓ Build (exit 0, T)",
        `  [2/2] API tests (echo first line; echo "2 tests failed" >&2; exit 3) …`,
        "  ✗ API tests (exit 3)",
        "",
      ].join("\n"),
    );
    expect(r.stderr).toBe(
      [
        'Output of "API tests" (last lines):',
        "  | first line",
        "  | 2 tests failed",
        'intent complete: INT-001 stays IN_PROGRESS: criterion "API tests" failed (exit 3); nothing was changed. Fix it and run `intent complete INT-001` again.',
        "",
      ].join("\n"),
    );
    expect(ws.read(YAML)).toBe(before);
    expect(ledgerRecords(ws)).toEqual([]);
  });

  it("all criteria passing with --yes completes, keeps the file's comments and layout, and keeps the verification in the ledger", () => {
    const before = withCriteria(
      ws,
      [
        "    acceptance_criteria:   # the definition of done",
        "      - run: test -f package.json   # from the workspace root",
        "        name: At the root",
        "      - Unit tests in test/api pass",
        "",
      ].join("\n"),
    );
    ws.write("package.json", "{}\n");
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-qm", "package");
    const head = git(ws.root, "rev-parse", "HEAD").trim();
    const r = runCli(["complete", "INT-001", "--yes"], { cwd: ws.path("src/api") });
    expect({ ...r, stdout: steady(r.stdout) }).toEqual({
      status: 0,
      stderr: "",
      stdout: [
        "Verifying INT-001 (Build Weather API): 1 command to run, 1 sentence to confirm",
        "  [1/1] At the root (test -f package.json) …",
        "  ✓ At the root (exit 0, T)",
        "  ✓ Unit tests in test/api pass (confirmed by --yes)",
        "INT-001: IN_PROGRESS → COMPLETE",
        "",
      ].join("\n"),
    });
    const after = ws.read(YAML);
    expect(after.replace(/updated_at: \S+/, "updated_at: X")).toBe(
      before
        .replace('status: IN_PROGRESS\n    owned_scope: ["src/api/**"', 'status: COMPLETE\n    owned_scope: ["src/api/**"')
        .replace(/updated_at: \S+/, "updated_at: X"),
    );
    expect(after).toContain("    acceptance_criteria:   # the definition of done\n      - run: test -f package.json   # from the workspace root\n");

    const records = ledgerRecords(ws);
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record).toMatchObject({ files: [], vcs: { type: "git", revision: head } });
    const ours = record!.metadata["dev.intent-lsp"];
    expect(ours).toMatchObject({
      intent_id: "INT-001",
      person: { name: "Ada Lovelace" },
      lifecycle: {
        from: "IN_PROGRESS",
        to: "COMPLETE",
        verification: {
          result: "passed",
          confirmed_by: { name: "Ada Lovelace" },
          criteria: [
            { kind: "run", name: "At the root", run: "test -f package.json", exit_code: 0, timed_out: false, passed: true },
            { kind: "confirm", text: "Unit tests in test/api pass", confirmed: true, how: "--yes" },
          ],
        },
      },
    });
    expect(typeof ours.lifecycle.verification.criteria[0].duration_ms).toBe("number");
    expect(runCli(["verify"], { cwd: ws.root }).status).toBe(0);

    const status = runCli(["status", "INT-001"], { cwd: ws.root });
    expect(status.status).toBe(0);
    expect(steady(status.stdout)).toBe(
      [
        "INT-001 — Build Weather API",
        "Status: COMPLETE",
        "Scope: src/api/**, test/api/**",
        "Acceptance criteria:",
        "  - At the root (run: test -f package.json; timeout 10 min)",
        "  - Unit tests in test/api pass (a person confirms)",
        "Started: no lifecycle record in the ledger",
        `Completed: TIME at commit ${head.slice(0, 12)} by Ada Lovelace`,
        "  Verification: passed by Ada Lovelace",
        "    ✓ At the root — exit 0 in T (run: test -f package.json)",
        "    ✓ Unit tests in test/api pass — confirmed by --yes",
        `Drift: none: no line in its scope changed after its completion (commit ${head.slice(0, 12)})`,
        "",
      ].join("\n"),
    );
  });

  it("puts each sentence to the person: an answer other than yes refuses; y completes", () => {
    const before = withCriteria(ws, ["    acceptance_criteria:", "      - Docs updated", ""].join("\n"));
    const no = runCli(["complete", "INT-001"], { cwd: ws.root, input: "n\n" });
    expect(no).toEqual({
      status: 1,
      stdout: "Verifying INT-001 (Build Weather API): 0 commands to run, 1 sentence to confirm\n",
      stderr:
        '  Confirm: Docs updated [y/N] intent complete: INT-001 stays IN_PROGRESS: "Docs updated" was not confirmed; nothing was changed. (`--yes` confirms the sentences for scripts.)\n',
    });
    expect(ws.read(YAML)).toBe(before);
    const none = runCli(["complete", "INT-001"], { cwd: ws.root, input: "" });
    expect(none.status).toBe(1);
    expect(ws.read(YAML)).toBe(before);
    const yes = runCli(["complete", "INT-001"], { cwd: ws.root, input: "y\n" });
    expect(yes).toMatchObject({
      status: 0,
      stdout:
        "Verifying INT-001 (Build Weather API): 0 commands to run, 1 sentence to confirm\n  ✓ Docs updated (confirmed)\nINT-001: IN_PROGRESS → COMPLETE\n",
    });
    expect(ledgerRecords(ws)[0]!.metadata["dev.intent-lsp"].lifecycle.verification.criteria).toEqual([
      { kind: "confirm", text: "Docs updated", confirmed: true, how: "prompt" },
    ]);
  });

  it("a criterion that hangs is killed at its timeout, with everything it started, and reported", async () => {
    const before = withCriteria(
      ws,
      [
        "    acceptance_criteria:",
        "      - run: 'sleep 300 & echo $! > bg.pid; echo $$ > sh.pid; echo waiting; wait'",
        "        name: Hangs",
        "        timeout: 1",
        "",
      ].join("\n"),
    );
    const r = runCli(["complete", "INT-001", "--yes"], { cwd: ws.root });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("  ✗ Hangs (killed at its 1 s timeout)\n");
    expect(r.stderr).toBe(
      'Output of "Hangs" (last lines):\n  | waiting\nintent complete: INT-001 stays IN_PROGRESS: criterion "Hangs" failed (killed at its 1 s timeout); nothing was changed. Fix it and run `intent complete INT-001` again.\n',
    );
    // a killed process is gone once its parent (or init) reaps it: wait for that fact, bounded far below `sleep 300`
    for (const file of ["bg.pid", "sh.pid"]) {
      const pid = Number(readFileSync(ws.path(file), "utf8"));
      await expect.poll(() => running(pid), { timeout: 20_000, interval: 50 }).toBe(false);
    }
    expect(ws.read(YAML)).toBe(before);
    expect(ledgerRecords(ws)).toEqual([]);
  });

  it("a criterion whose command dies of a signal has no exit code and does not pass: the intent stays IN_PROGRESS", () => {
    const before = withCriteria(
      ws,
      [
        "    acceptance_criteria:",
        "      - run: echo compiled",
        "        name: Build",
        "      - run: 'echo started; kill -TERM $$'",
        "        name: Killed",
        "      - Docs updated",
        "",
      ].join("\n"),
    );
    const r = runCli(["complete", "INT-001", "--yes"], { cwd: ws.root, env: { SHELL: "/bin/sh" } });
    expect({ ...r, stdout: steady(r.stdout) }).toEqual({
      status: 1,
      stdout: [
        "Verifying INT-001 (Build Weather API): 2 commands to run, 1 sentence to confirm",
        "  [1/2] Build (echo compiled) …",
        "  ✓ Build (exit 0, T)",
        "  [2/2] Killed (echo started; kill -TERM $$) …",
        "  ✗ Killed (killed by SIGTERM)",
        "",
      ].join("\n"),
      stderr: [
        'Output of "Killed" (last lines):',
        "  | started",
        'intent complete: INT-001 stays IN_PROGRESS: criterion "Killed" failed (killed by SIGTERM); nothing was changed. Fix it and run `intent complete INT-001` again.',
        "",
      ].join("\n"),
    });
    expect(ws.read(YAML)).toBe(before);
    expect(ledgerRecords(ws)).toEqual([]);
    expect(runCli(["status", "INT-001"], { cwd: ws.root }).stdout).toContain("\nStatus: IN_PROGRESS\n");
  });

  it("--skip-verify completes without running anything, says so, and the ledger and status say it was skipped", () => {
    withCriteria(ws, ["    acceptance_criteria:", "      - run: touch ran.txt", ""].join("\n"));
    const r = runCli(["complete", "INT-001", "--skip-verify"], { cwd: ws.root });
    expect(r).toEqual({
      status: 0,
      stderr: "",
      stdout:
        "Verification of INT-001's acceptance criteria skipped (--skip-verify); the ledger records that it was skipped.\nINT-001: IN_PROGRESS → COMPLETE\n",
    });
    expect(existsSync(ws.path("ran.txt"))).toBe(false);
    expect(ledgerRecords(ws)[0]!.metadata["dev.intent-lsp"].lifecycle).toEqual({
      from: "IN_PROGRESS",
      to: "COMPLETE",
      verification: { result: "skipped", criteria: [], confirmed_by: { name: "Ada Lovelace", email_hash: expect.stringMatching(/^sha256:/) } },
    });
    expect(runCli(["status", "INT-001"], { cwd: ws.root }).stdout).toContain("\n  Verification: skipped (--skip-verify) by Ada Lovelace\n");
  });

  it("criteria with errors are not run and refuse COMPLETE", () => {
    withCriteria(ws, ["    acceptance_criteria:", "      - run: touch ran.txt", "      - run: ''", ""].join("\n"));
    const r = runCli(["complete", "INT-001", "--yes"], { cwd: ws.root });
    expect(r).toEqual({
      status: 1,
      stdout: "",
      stderr:
        "intent complete: INT-001's acceptance_criteria have errors (`intent status` shows where), so they cannot be verified; fix them first. Nothing was run or changed.\n",
    });
    expect(existsSync(ws.path("ran.txt"))).toBe(false);
  });

  it("start records the commit the intent started at, shown by intent status ID", () => {
    const head = git(ws.root, "rev-parse", "HEAD").trim();
    expect(runCli(["start", "INT-004"], { cwd: ws.root }).stdout).toBe("INT-004: PENDING → IN_PROGRESS\n");
    expect(ledgerRecords(ws).map((r) => [r.vcs.revision, r.metadata["dev.intent-lsp"].lifecycle])).toEqual([[head, { from: "PENDING", to: "IN_PROGRESS" }]]);
    expect(steady(runCli(["status", "INT-004"], { cwd: ws.root }).stdout)).toContain(`\nStarted: TIME at commit ${head.slice(0, 12)} by Ada Lovelace\n`);
  });

  it("intent status ID reads the moves a compaction sealed: the start is still known, read once though a branch keeps its line live", () => {
    const head = git(ws.root, "rev-parse", "HEAD").trim();
    expect(runCli(["start", "INT-004"], { cwd: ws.root }).status).toBe(0);
    const before = runCli(["status", "INT-004", "--json"], { cwd: ws.root }).stdout;
    const moveLine = readFileSync(ws.path(".orchestration/agent_trace.jsonl"), "utf8");
    const compacted = runCli(["ledger", "compact", "--before", "2999-01-01"], { cwd: ws.root });
    expect(compacted.status).toBe(0);
    expect(readFileSync(ws.path(".orchestration/agent_trace.jsonl"), "utf8")).toBe("");
    expect(steady(runCli(["status", "INT-004"], { cwd: ws.root }).stdout)).toContain(`\nStarted: TIME at commit ${head.slice(0, 12)} by Ada Lovelace\n`);
    expect(runCli(["status", "INT-004", "--json"], { cwd: ws.root }).stdout).toBe(before);
    // the same line live again (merged from a branch that did not compact): one move, not two
    writeFileSync(ws.path(".orchestration/agent_trace.jsonl"), moveLine);
    expect(runCli(["status", "INT-004", "--json"], { cwd: ws.root }).stdout).toBe(before);
  });
});
