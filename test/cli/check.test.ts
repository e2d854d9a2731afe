import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fileHash } from "../../server/src/engine/hashing";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { REPO_ROOT } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli, runCliInProcess, runHookInProcess } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { claudeEdit, writeTranscript } from "../support/hookPayloads";
import { ledgerRecords } from "../support/ledgerFile";

/** The OASIS SARIF 2.1.0 schema (draft-07), verbatim; see test/fixtures/sarif/README.md. */
const sarifSchema = JSON.parse(readFileSync(`${REPO_ROOT}/test/fixtures/sarif/sarif-schema-2.1.0.json`, "utf8"));
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validateSarif = ajv.compile(sarifSchema);

beforeAll(ensureBuilt);

/** What a recorded finding adds after the verdict: the door (an agent's write, by its model) and the next step. */
const agentWrite = (model: string) =>
  `Recorded from an agent's write (anthropic/${model}); the agent gate would deny this write now. ` +
  "Make it under an in-progress intent that owns the file (re-record the lines, or amend that intent's scope), or revert it.";
const OUT_OF_SCOPE = `docs/notes.md is outside the scope of INT-001 (Build Weather API): src/api/**, test/api/**. Owned by INT-003 (IN_PROGRESS), INT-004 (PENDING). ${agentWrite("claude-sonnet-4-5-20250929")}`;
const NOT_IN_PROGRESS = `INT-005 (Billing export) is COMPLETE: it is complete, so its work is closed. Select another intent, or create one for this change. ${agentWrite("claude-sonnet-4-5-20250929")}`;
const UNTRACED = "src/api/forecast.ts changed here and no ledger record explains it (untraced): the change was made outside intent-lsp and the agent hooks.";

/** An agent edit through the hooks: PreToolUse (whatever it answers), the write, PostToolUse. */
async function agentEdit(ws: TempWorkspace, path: string, from: string, to: string) {
  await runHookInProcess("claude-code", claudeEdit(ws, "PreToolUse", path, from, to), { cwd: ws.root });
  ws.write(path, ws.read(path).replace(from, to));
  await runHookInProcess("claude-code", claudeEdit(ws, "PostToolUse", path, from, to), { cwd: ws.root });
}

/**
 * The planted changes, on top of the committed example workspace:
 * - src/api/weather.ts:3     agent, under INT-001, in scope           → nothing
 * - docs/notes.md:11         agent, under INT-001, out of its scope   → out-of-scope (error)
 * - src/billing/export.ts:2-3 agent, under INT-005 (COMPLETE)        → intent-not-in-progress (error)
 * - src/api/forecast.ts:11   a person, no record                      → untraced (information)
 * - dist/bundle.js, app.log  untracked, exempt by .intentignore       → nothing
 */
async function plant(ws: TempWorkspace) {
  writeTranscript(ws, "claude-sonnet-4-5-20250929");
  ws.select("INT-001");
  await agentEdit(ws, "src/api/weather.ts", "export interface Weather {", "export interface Weather { // v2");
  await agentEdit(ws, "docs/notes.md", "- Write the onboarding guide.", "- Write the onboarding guide this week.");
  ws.select("INT-005");
  await agentEdit(
    ws,
    "src/billing/export.ts",
    '  return rows.map((r) => `${r.id},${(r.cents / 100).toFixed(2)}`).join("\\n");',
    '  const lines = rows.map((r) => `${r.id},${(r.cents / 100).toFixed(2)}`);\n  return lines.join("\\n");',
  );
  ws.write("src/api/forecast.ts", `${ws.read("src/api/forecast.ts")}export const FORECAST_TTL_MS = 300_000;\n`);
  ws.write("dist/bundle.js", "console.log('built');\n");
  ws.write("app.log", "started\n");
  expect(ledgerRecords(ws)).toHaveLength(3);
}

describe("intent check", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = gitWorkspace();
  });
  afterEach(() => ws.dispose());

  it("reports exactly the planted out-of-scope, not-in-progress and untraced lines (text), exit 1", async () => {
    await plant(ws);
    const head = git(ws.root, "rev-parse", "HEAD").trim();
    const r = runCli(["check"], { cwd: ws.root }); // the CI job's process: its stdout and exit code
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      [
        `docs/notes.md:11: error out-of-scope: ${OUT_OF_SCOPE}`,
        `src/api/forecast.ts:11: information untraced-change: ${UNTRACED}`,
        `src/billing/export.ts:2-3: error intent-not-in-progress: ${NOT_IN_PROGRESS}`,
        `2 errors, 1 note in 5 changed lines of 4 files (working tree vs merge-base of HEAD and main (${head.slice(0, 12)})).`,
        "",
      ].join("\n"),
    );
    expect(r.status).toBe(1);
  });

  it("json: the same findings with the records that explain them", async () => {
    await plant(ws);
    const [, notesRecord, billingRecord] = ledgerRecords(ws);
    const r = await runCliInProcess(["check", "--format", "json"], { cwd: ws.root });
    const report = JSON.parse(r.stdout);
    expect(report.findings).toEqual([
      {
        path: "docs/notes.md",
        startLine: 11,
        endLine: 11,
        code: "out-of-scope",
        severity: "error",
        message: OUT_OF_SCOPE,
        recordId: notesRecord!.id,
        intentId: "INT-001",
      },
      { path: "src/api/forecast.ts", startLine: 11, endLine: 11, code: "untraced-change", severity: "information", message: UNTRACED },
      {
        path: "src/billing/export.ts",
        startLine: 2,
        endLine: 3,
        code: "intent-not-in-progress",
        severity: "error",
        message: NOT_IN_PROGRESS,
        recordId: billingRecord!.id,
        intentId: "INT-005",
      },
    ]);
    expect(report.summary).toEqual({ error: 2, warning: 0, information: 1, hint: 0 });
    expect(r.status).toBe(1);
  });

  it("sarif: valid SARIF 2.1.0 with a rule per code and a region per finding", async () => {
    await plant(ws);
    const r = await runCliInProcess(["check", "--format", "sarif"], { cwd: ws.root });
    const sarif = JSON.parse(r.stdout);
    expect(validateSarif(sarif), JSON.stringify(validateSarif.errors, null, 1)).toBe(true);
    const run = sarif.runs[0];
    expect(run.tool.driver.name).toBe("intent-lsp");
    expect(run.tool.driver.rules.map((x: { id: string }) => x.id)).toEqual([
      "out-of-scope",
      "intent-not-in-progress",
      "no-active-intent",
      "untraced-change",
      "unowned-change",
      "intent-schema",
    ]);
    expect(
      run.results.map((x: any) => [
        x.ruleId,
        x.level,
        x.locations[0].physicalLocation.artifactLocation.uri,
        x.locations[0].physicalLocation.region.startLine,
        x.locations[0].physicalLocation.region.endLine,
        x.message.text,
      ]),
    ).toEqual([
      ["out-of-scope", "error", "docs/notes.md", 11, 11, OUT_OF_SCOPE],
      ["untraced-change", "note", "src/api/forecast.ts", 11, 11, UNTRACED],
      ["intent-not-in-progress", "error", "src/billing/export.ts", 2, 3, NOT_IN_PROGRESS],
    ]);
    expect(r.status).toBe(1);
  });

  it("github: one workflow command per finding, escaped", async () => {
    await plant(ws);
    ws.write(".orchestration/config.jsonc", '{ "severity": { "untraced-change": "warning" } }\n');
    const r = await runCliInProcess(["check", "--format", "github"], { cwd: ws.root });
    expect(r.stdout).toBe(
      [
        `::error file=docs/notes.md,line=11,endLine=11,title=intent-lsp out-of-scope::${OUT_OF_SCOPE}`,
        `::warning file=src/api/forecast.ts,line=11,endLine=11,title=intent-lsp untraced-change::${UNTRACED}`,
        `::error file=src/billing/export.ts,line=2,endLine=3,title=intent-lsp intent-not-in-progress::${NOT_IN_PROGRESS}`,
        "",
      ].join("\n"),
    );
    expect(r.status).toBe(1);
  });

  it("in CI: committed on a branch, checked against its merge-base with main (and --base main)", async () => {
    await plant(ws);
    git(ws.root, "checkout", "-q", "-b", "feature");
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "feature work");
    git(ws.root, "checkout", "-q", "main");
    ws.write("README.md", "# changed on main after the branch\n");
    git(ws.root, "commit", "-q", "-am", "main moves on");
    git(ws.root, "checkout", "-q", "feature");
    for (const args of [
      ["check", "--format", "json"],
      ["check", "--format", "json", "--base", "main"],
    ]) {
      const report = JSON.parse((await runCliInProcess(args, { cwd: ws.root })).stdout);
      const found = report.findings.map((f: any) => `${f.path}:${f.startLine}-${f.endLine} ${f.code}`);
      // --base main diffs against main's tip, which also changed README.md: that change is not on this branch
      expect(
        found.filter((f: string) => !f.startsWith("README.md")),
        args.join(" "),
      ).toEqual(["docs/notes.md:11-11 out-of-scope", "src/api/forecast.ts:11-11 untraced-change", "src/billing/export.ts:2-3 intent-not-in-progress"]);
    }
    expect(JSON.parse((await runCliInProcess(["check", "--format", "json"], { cwd: ws.root })).stdout).base).toMatch(/^merge-base of HEAD and main /);
  });

  it("--staged checks the index only, against HEAD (for a pre-commit hook)", async () => {
    await plant(ws);
    git(ws.root, "add", "docs/notes.md", ".orchestration/agent_trace.jsonl");
    const r = await runCliInProcess(["check", "--staged"], { cwd: ws.root });
    expect(r.stdout).toBe(
      [`docs/notes.md:11: error out-of-scope: ${OUT_OF_SCOPE}`, "1 error in 1 changed line of 1 file (staged changes vs HEAD).", ""].join("\n"),
    );
    expect(r.status).toBe(1);
  });

  it("a workspace in a folder of the repository: findings are workspace paths, annotations repository paths", async () => {
    const repo = new TempWorkspace({ fromExample: false });
    try {
      git(repo.root, "init", "-q");
      cpSync(ws.root, repo.path("app"), { recursive: true, filter: (src: string) => !src.includes("/.git") });
      repo.write("tools/build.sh", "echo build\n");
      git(repo.root, "add", "-A");
      git(repo.root, "commit", "-q", "-m", "monorepo");
      repo.write("app/src/api/forecast.ts", `${repo.read("app/src/api/forecast.ts")}export const RETRIES = 3;\n`);
      repo.write("tools/build.sh", "echo build twice\n"); // outside the workspace: not its business
      const text = (await runCliInProcess(["check"], { cwd: repo.path("app/src") })).stdout;
      expect(text.split("\n")[0]).toBe(
        "src/api/forecast.ts:11: information untraced-change: src/api/forecast.ts changed here and no ledger record explains it (untraced): the change was made outside intent-lsp and the agent hooks.",
      );
      expect((await runCliInProcess(["check", "--format", "github", "--root", "app"], { cwd: repo.root })).stdout).toBe(
        "::notice file=app/src/api/forecast.ts,line=11,endLine=11,title=intent-lsp untraced-change::src/api/forecast.ts changed here and no ledger record explains it (untraced): the change was made outside intent-lsp and the agent hooks.\n",
      );
    } finally {
      repo.dispose();
    }
  });

  it("a hand edit no record explains: an error where no in-progress intent owns the file, a notice where one does", async () => {
    ws.write("src/auth/middleware.ts", `${ws.read("src/auth/middleware.ts")}// tweaked by hand\n`); // INT-002 is BLOCKED
    ws.write("scripts/release.sh", "echo release\n"); // nobody's
    const unowned = await runCliInProcess(["check", "--format", "github"], { cwd: ws.root });
    const authLine = ws.read("src/auth/middleware.ts").split("\n").length - 1;
    expect(unowned.stdout).toBe(
      [
        `::error file=src/auth/middleware.ts,line=${authLine},endLine=${authLine},title=intent-lsp unowned-change::src/auth/middleware.ts changed here, no ledger record explains it, and no intent in progress owns the file. It is owned by INT-002 (BLOCKED), none in progress. Start or select an intent that owns it (or add the path to one's scope) and make the change under it.`,
        `::error file=scripts/release.sh,line=1,endLine=1,title=intent-lsp unowned-change::scripts/release.sh changed here, no ledger record explains it, and no intent in progress owns the file. No intent owns it. Start or select an intent that owns it (or add the path to one's scope) and make the change under it.`,
        "",
      ].join("\n"),
    );
    expect(unowned.status).toBe(1);

    git(ws.root, "checkout", "-q", "--", "src/auth/middleware.ts");
    ws.dispose();
    ws = gitWorkspace();
    ws.write("docs/notes.md", `${ws.read("docs/notes.md")}- a note added by hand\n`); // INT-003 is IN_PROGRESS
    const owned = await runCliInProcess(["check", "--format", "github"], { cwd: ws.root });
    const notesLine = ws.read("docs/notes.md").split("\n").length - 1;
    expect(owned.stdout).toBe(
      `::notice file=docs/notes.md,line=${notesLine},endLine=${notesLine},title=intent-lsp untraced-change::docs/notes.md changed here and no ledger record explains it (untraced): the change was made outside intent-lsp and the agent hooks.\n`,
    );
    expect(owned.status).toBe(0);
  });

  it("no changes: no findings, exit 0", async () => {
    const r = await runCliInProcess(["check"], { cwd: ws.root });
    expect(r.stdout).toMatch(/^No findings in 0 changed lines of 0 files \(working tree vs merge-base of HEAD and main \([0-9a-f]{12}\)\)\.\n$/);
    expect(r.status).toBe(0);
  });

  it("a broken intents file is an error at its line", async () => {
    ws.write(
      ".orchestration/active_intents.yaml",
      "active_intents:\n  - id: INT-001\n    name: Build Weather API\n    status: DONE\n    owned_scope: [src/api/**]\n",
    );
    const r = await runCliInProcess(["check", "--format", "json"], { cwd: ws.root });
    const [finding] = JSON.parse(r.stdout).findings;
    expect(finding).toMatchObject({ path: ".orchestration/active_intents.yaml", startLine: 4, code: "intent-schema", severity: "error" });
    expect(r.status).toBe(1);
  });

  it("errors are one line on stderr with a non-zero exit (the process's exit code)", () => {
    expect(runCli(["check", "--format", "xml"], { cwd: ws.root })).toMatchObject({
      status: 2,
      stdout: "",
      stderr: "intent check: --format xml is not one of text, json, sarif, github, markdown\n",
    });
    const badBase = runCli(["check", "--base", "no-such-branch"], { cwd: ws.root });
    expect(badBase.status).toBe(1);
    expect(badBase.stderr).toBe(
      `intent check: --base no-such-branch is not a commit in ${ws.root}; fetch it first (e.g. \`git fetch origin no-such-branch\`) or pass another ref\n`,
    );
    const plain = new TempWorkspace();
    try {
      const r = runCli(["check"], { cwd: plain.root });
      expect(r).toMatchObject({
        status: 1,
        stdout: "",
        stderr: `intent check: ${plain.root} is not inside a git repository; \`intent check\` compares git revisions\n`,
      });
    } finally {
      plain.dispose();
    }
  });
});

describe("intent check: hand edits nobody recorded", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = gitWorkspace();
  });
  afterEach(() => ws.dispose());

  const UNOWNED_UTIL =
    "src/util/strings.ts changed here, no ledger record explains it, and no intent in progress owns the file. No intent owns it. Start or select an intent that owns it (or add the path to one's scope) and make the change under it.";
  const UNOWNED_BILLING =
    "src/billing/export.ts changed here, no ledger record explains it, and no intent in progress owns the file. It is owned by INT-005 (COMPLETE), none in progress. Start or select an intent that owns it (or add the path to one's scope) and make the change under it.";

  it("an unowned hand edit is an ::error with its line, exit 1", async () => {
    ws.write("src/util/strings.ts", "export const trim = (s: string) => s.trim();\n");
    const r = await runCliInProcess(["check", "--format", "github"], { cwd: ws.root });
    expect(r.stdout).toBe(`::error file=src/util/strings.ts,line=1,endLine=1,title=intent-lsp unowned-change::${UNOWNED_UTIL}\n`);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
  });

  it("a hand edit in a file only a COMPLETE intent owns is unowned too", async () => {
    ws.write("src/billing/export.ts", ws.read("src/billing/export.ts").replace("export function", "// hand edit\nexport function"));
    const report = JSON.parse((await runCliInProcess(["check", "--format", "json"], { cwd: ws.root })).stdout);
    expect(report.findings).toEqual([
      { path: "src/billing/export.ts", startLine: 1, endLine: 1, code: "unowned-change", severity: "error", message: UNOWNED_BILLING },
    ]);
  });

  it("an owned unrecorded hand edit is a ::notice, exit 0", async () => {
    ws.write("src/api/forecast.ts", `${ws.read("src/api/forecast.ts")}export const FORECAST_TTL_MS = 300_000;\n`);
    const r = await runCliInProcess(["check", "--format", "github"], { cwd: ws.root });
    expect(r.stdout).toBe(`::notice file=src/api/forecast.ts,line=11,endLine=11,title=intent-lsp untraced-change::${UNTRACED}\n`);
    expect(r.status).toBe(0);
  });

  it("a file git is told not to look at is judged as the working tree has it; one a sparse checkout leaves out is no change", async () => {
    git(ws.root, "update-index", "--assume-unchanged", "src/billing/export.ts");
    ws.write("src/billing/export.ts", ws.read("src/billing/export.ts").replace("export function", "// hand edit\nexport function"));
    // as a sparse checkout leaves a file outside its cone: flagged, and not in the working tree
    git(ws.root, "update-index", "--skip-worktree", "src/auth/middleware.ts");
    rmSync(ws.path("src/auth/middleware.ts"));
    const report = JSON.parse((await runCliInProcess(["check", "--format", "json"], { cwd: ws.root })).stdout);
    expect(report.findings).toEqual([
      { path: "src/billing/export.ts", startLine: 1, endLine: 1, code: "unowned-change", severity: "error", message: UNOWNED_BILLING },
    ]);
  });

  const UNOWNED_BILLING_TAIL =
    "no ledger record explains it, and no intent in progress owns the file. It is owned by INT-005 (COMPLETE), none in progress. Start or select an intent that owns it (or add the path to one's scope) and make the change under it.";

  it("lines removed (none added) in a COMPLETE intent's file: an error at the line where they were, in every format", async () => {
    ws.write("src/billing/export.ts", ws.read("src/billing/export.ts").replace(/^ {2}return .*\n/m, "")); // as `sed -i 2d` does
    const message = `src/billing/export.ts: 1 line removed after line 1, ${UNOWNED_BILLING_TAIL}`;
    const text = await runCliInProcess(["check"], { cwd: ws.root });
    expect(text.stdout.split("\n")[0]).toBe(`src/billing/export.ts:2: error unowned-change: ${message}`);
    expect(text.stdout).toMatch(/^1 error in 1 changed line of 1 file /m);
    expect(text.status).toBe(1);
    const json = JSON.parse((await runCliInProcess(["check", "--format", "json"], { cwd: ws.root })).stdout);
    expect(json.findings).toEqual([{ path: "src/billing/export.ts", startLine: 2, endLine: 2, code: "unowned-change", severity: "error", message }]);
    const sarif = JSON.parse((await runCliInProcess(["check", "--format", "sarif"], { cwd: ws.root })).stdout);
    expect(validateSarif(sarif)).toBe(true);
    expect(sarif.runs[0].results.map((x: any) => [x.ruleId, x.level, x.message.text, x.locations[0].physicalLocation.region])).toEqual([
      ["unowned-change", "error", message, { startLine: 2, endLine: 2 }],
    ]);
    const github = await runCliInProcess(["check", "--format", "github"], { cwd: ws.root });
    expect(github.stdout).toBe(`::error file=src/billing/export.ts,line=2,endLine=2,title=intent-lsp unowned-change::${message}\n`);
    expect(github.status).toBe(1);
  });

  it("a deleted file and a binary overwrite in a COMPLETE intent's folder: errors at line 1, exit 1", async () => {
    ws.write("src/billing/rates.ts", "export const RATE = 1;\n");
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-qm", "rates");
    rmSync(ws.path("src/billing/export.ts"));
    writeFileSync(ws.path("src/billing/rates.ts"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    const r = await runCliInProcess(["check", "--format", "json"], { cwd: ws.root });
    expect(JSON.parse(r.stdout).findings).toEqual([
      {
        path: "src/billing/export.ts",
        startLine: 1,
        endLine: 1,
        code: "unowned-change",
        severity: "error",
        message: `src/billing/export.ts: the file was deleted, ${UNOWNED_BILLING_TAIL}`,
      },
      {
        path: "src/billing/rates.ts",
        startLine: 1,
        endLine: 1,
        code: "unowned-change",
        severity: "error",
        message: `src/billing/rates.ts: the file was replaced by binary (non-text) content, ${UNOWNED_BILLING_TAIL}`,
      },
    ]);
    expect(r.status).toBe(1);
    expect((await runCliInProcess(["check"], { cwd: ws.root })).stdout).toMatch(/^2 errors in 2 changed lines of 2 files /m);
  });

  it("lines an agent's hook recorded removing out of its intent's scope: out-of-scope with the record, as an added line would be", async () => {
    const path = "src/billing/export.ts";
    const before = ws.read(path);
    const after = before.replace(/^ {2}return .*\n/m, "");
    ws.write(path, after);
    // the record a hook writes for that removal: no ranges (no line is the writer's), the content after it pinned
    const record = buildRecord({
      path,
      content: after,
      ranges: [],
      contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" },
      sessionId: "claude-abc",
      toolVersion: "0.1.0",
      mutationClass: "INTENT_EVOLUTION",
      preHash: fileHash(before),
      scope: "OUT_OF_SCOPE",
      intentId: "INT-001",
    });
    ws.write(".orchestration/agent_trace.jsonl", `${JSON.stringify(record)}\n`);
    const r = await runCliInProcess(["check", "--format", "json"], { cwd: ws.root });
    expect(JSON.parse(r.stdout).findings).toEqual([
      {
        path,
        startLine: 2,
        endLine: 2,
        code: "out-of-scope",
        severity: "error",
        message: `${path}: 1 line removed after line 1. ${path} is outside the scope of INT-001 (Build Weather API): src/api/**, test/api/**. Owned by INT-005 (COMPLETE). ${agentWrite("claude-sonnet-4-5")}`,
        recordId: record.id,
        intentId: "INT-001",
      },
    ]);
    expect(r.status).toBe(1);
  });

  it("ignored paths are nobody's business; the severity is configurable (sarif follows it)", async () => {
    ws.write("dist/bundle.js", "console.log('built');\n");
    ws.write("src/util/strings.ts", "export const trim = (s: string) => s.trim();\n");
    ws.write(".orchestration/config.jsonc", '{ "severity": { "unowned-change": "warning" } }\n');
    const sarif = JSON.parse((await runCliInProcess(["check", "--format", "sarif"], { cwd: ws.root })).stdout);
    expect(sarif.runs[0].results.map((x: any) => [x.ruleId, x.level, x.locations[0].physicalLocation.artifactLocation.uri])).toEqual([
      ["unowned-change", "warning", "src/util/strings.ts"],
    ]);
    ws.write(".orchestration/config.jsonc", '{ "severity": { "unowned-change": "off" } }\n');
    const r = await runCliInProcess(["check"], { cwd: ws.root });
    expect(r.stdout).toMatch(/^No findings in 1 changed line of 1 file/);
    expect(r.status).toBe(0);
  });
});
