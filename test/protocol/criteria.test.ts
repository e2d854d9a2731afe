import { appendFileSync } from "node:fs";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { fileHash } from "../../server/src/engine/hashing";
import { diffTexts } from "../../server/src/engine/lineChange";
import { DiagnosticSeverity } from "vscode-languageserver-protocol";
import type { LspClient } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, type TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { LEDGER, ledgerRecords } from "../support/ledgerFile";
import { agentRecordLine } from "../support/recordLines";

/**
 * Acceptance criteria and drift in the editor (docs/INTENTS.md "Acceptance criteria"): the drift diagnostic on an
 * intent in active_intents.yaml and its code action; the "Verify" CodeLens, which runs the criteria with
 * `$/progress`, then a failed criterion's diagnostic on its line; "Complete" refused by the same verification.
 */

beforeAll(ensureBuilt);

const YAML = ".orchestration/active_intents.yaml";
const FILE = "src/api/weather.ts";
const EXAMPLE_CRITERIA = '    acceptance_criteria: ["Unit tests in test/api pass"]\n';

describe("drift in active_intents.yaml", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  let started: string;
  beforeEach(() => {
    ws = gitWorkspace();
    git(ws.root, "config", "user.name", "Ada Lovelace");
    runCli(["block", "INT-001"], { cwd: ws.root });
    started = git(ws.root, "rev-parse", "HEAD").trim();
    expect(runCli(["start", "INT-001"], { cwd: ws.root }).status).toBe(0);
    git(ws.root, "commit", "-qam", "restarted");
  });
  stopAfterEach(() => ({ client, ws }));

  it("an intent whose scope changed with no record since it started gets a diagnostic on its line, and a code action lists the lines", async () => {
    const lines = ws.read(FILE).split("\n").length - 1;
    ws.write(FILE, `${ws.read(FILE)}export const drifted = 1;\nexport const again = 2;\n`);
    client = await startInProcess({ root: ws.root });
    await client.open(YAML, "yaml");
    const diags = await client.waitForDiagnostics(YAML, (d) => d.some((x) => x.code === "intent-drift"));
    const drift = diags.filter((d) => d.code === "intent-drift");
    expect(drift.map((d) => ({ range: d.range, severity: d.severity, source: d.source, message: d.message }))).toEqual([
      {
        range: { start: { line: 2, character: 0 }, end: { line: 2, character: 15 } },
        severity: DiagnosticSeverity.Information,
        source: "intent-lsp",
        message: `2 lines in src/api/**, test/api/** changed since INT-001 started (commit ${started.slice(0, 12)}), all of them not under INT-001.`,
      },
    ]);
    const actions = await client.codeActions(YAML, drift[0]!.range, drift);
    const list = actions.find((a) => a.title === "List the lines that drifted from INT-001");
    expect(list?.command).toEqual({
      title: "List the lines that drifted from INT-001",
      command: "intent.listDrift",
      arguments: [{ id: "INT-001", uri: client.uri(YAML) }],
    });
    const result = (await client.executeCommand("intent.listDrift", ...list!.command!.arguments!)) as { runs: { text: string }[] };
    expect(result.runs.map((r) => r.text)).toEqual([`${FILE}:${lines + 1}-${lines + 2} with no record`]);
  });

  it("is measured from the start a compaction sealed: the live file no longer holds the move, the sealed history does", async () => {
    ws.write(FILE, `${ws.read(FILE)}export const drifted = 1;\nexport const again = 2;\n`);
    expect(runCli(["ledger", "compact", "--before", "2999-01-01"], { cwd: ws.root }).status).toBe(0);
    expect(ws.read(LEDGER)).toBe("");
    client = await startInProcess({ root: ws.root });
    await client.open(YAML, "yaml");
    const diags = await client.waitForDiagnostics(YAML, (d) => d.some((x) => x.code === "intent-drift"));
    expect(diags.filter((d) => d.code === "intent-drift").map((d) => d.message)).toEqual([
      `2 lines in src/api/**, test/api/** changed since INT-001 started (commit ${started.slice(0, 12)}), all of them not under INT-001.`,
    ]);
  });

  it("is measured once the ledger is read: a line recorded under the intent at the ledger's end never counts as drift", async () => {
    const before = ws.read(FILE);
    const after = `${before}export const recorded = 1;\n`;
    ws.write(FILE, `${after}export const drifted = 2;\n`);
    // thousands of records of other files first, so that the first read is still going when the intents file
    // is first published; the record of the line under INT-001 is the ledger's last
    const filler = agentRecordLine("src/other/filler.ts", "export {};\n");
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++) lines.push(filler.replaceAll("src/other/filler.ts", `src/other/f${i % 500}.ts`));
    lines.push(JSON.stringify(buildRecord({ ...RECORDED, path: FILE, content: after, change: diffTexts(before, after), preHash: fileHash(before) })));
    appendFileSync(ws.path(LEDGER), `${lines.join("\n")}\n`);
    const progress: unknown[] = [];
    client = await startInProcess({ root: ws.root, onProgress: (v) => progress.push(v) });
    await client.open(YAML, "yaml");
    const diags = await client.waitForDiagnostics(YAML, (d) => d.some((x) => x.code === "intent-drift"));
    expect(progress).toContainEqual({ kind: "end" });
    const message = `2 lines in src/api/**, test/api/** changed since INT-001 started (commit ${started.slice(0, 12)}), 1 of them not under INT-001.`;
    expect(diags.filter((d) => d.code === "intent-drift").map((d) => d.message)).toEqual([message]);
    // every publish of the intents file: none ever counted the recorded line as not under its intent
    const drifts = client.publications.filter((p) => p.uri === client.uri(YAML)).flatMap((p) => p.diagnostics.filter((d) => d.code === "intent-drift"));
    expect(new Set(drifts.map((d) => d.message))).toEqual(new Set([message]));
  });
});

/** An agent's edit under INT-001, as a hook records it. */
const RECORDED = {
  mutationClass: "INTENT_EVOLUTION",
  scope: "PASS",
  contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" },
  sessionId: "s",
  toolVersion: "0",
  intentId: "INT-001",
} as const;

describe("the Verify CodeLens and Complete in the editor", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  const progress: unknown[] = [];
  beforeEach(async () => {
    ws = gitWorkspace();
    const text = ws.read(YAML);
    expect(text).toContain(EXAMPLE_CRITERIA);
    ws.write(
      YAML,
      text.replace(
        EXAMPLE_CRITERIA,
        [
          "    acceptance_criteria:",
          "      - run: 'echo compiled'",
          "        name: Build",
          "      - run: 'echo broken >&2; exit 3'",
          "        name: API tests",
          "",
        ].join("\n"),
      ),
    );
    git(ws.root, "commit", "-qam", "criteria");
    progress.length = 0;
    client = await startInProcess({ root: ws.root, onProgress: (v) => progress.push(v) });
    await client.open(YAML, "yaml");
    await client.waitForPublishOfCurrentVersion(YAML);
  });
  stopAfterEach(() => ({ client, ws }));

  const lensTitles = async () =>
    (
      (await client.request("textDocument/codeLens", { textDocument: { uri: client.uri(YAML) } })) as {
        range: { start: { line: number } };
        command: { title: string; command: string };
      }[]
    )
      .filter((l) => l.command.command === "intent.verifyCriteria")
      .map((l) => `${l.range.start.line}: ${l.command.title}`);

  it("offers to verify, runs the criteria with progress when clicked, then shows the result and a diagnostic on the failed criterion", async () => {
    expect(await lensTitles()).toEqual(["2: Verify 2 criteria"]);
    expect(ws.read(YAML)).toContain("exit 3");
    const result = await client.executeCommand("intent.verifyCriteria", { id: "INT-001", uri: client.uri(YAML) });
    expect(result).toEqual({ id: "INT-001", total: 2, cancelled: false, failed: [{ criterion: "API tests", why: "exit 3", line: 10 }] });
    expect(progress).toEqual([
      { kind: "begin", title: "Verifying INT-001", cancellable: true, message: "2 criteria", percentage: 0 },
      { kind: "report", message: "1/2: Build", percentage: 0 },
      { kind: "report", message: "2/2: API tests", percentage: 50 },
      { kind: "end" },
    ]);
    expect(await lensTitles()).toEqual(["2: ✗ 1 of 2 failed"]);
    const diags = await client.waitForDiagnostics(YAML, (d) => d.some((x) => x.code === "criterion-failed"));
    expect(diags.filter((d) => d.code === "criterion-failed").map((d) => ({ range: d.range, severity: d.severity, message: d.message }))).toEqual([
      {
        range: { start: { line: 10, character: 0 }, end: { line: 10, character: 38 } },
        severity: DiagnosticSeverity.Error,
        message: 'Criterion "API tests" failed (exit 3) when INT-001 was last verified.\nbroken',
      },
    ]);
  });

  it("Complete goes through the same verification: a failing criterion refuses it and changes nothing", async () => {
    const before = ws.read(YAML);
    await expect(client.executeCommand("intent.transition", { id: "INT-001", to: "COMPLETE", uri: client.uri(YAML) })).rejects.toThrow(
      'INT-001 stays IN_PROGRESS: criterion "API tests" failed (exit 3); nothing was changed.',
    );
    expect(ws.read(YAML)).toBe(before);
    expect(ledgerRecords(ws)).toEqual([]);
  });
});
