import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { LspClient } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import type { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { DEW_POINT } from "../support/codeBlocks";
import { runCli, runCliInProcess, runHookInProcess } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { codexPayload } from "../support/agentFixtures";
import { claudeWritesInProcess } from "../support/agentWrites";
import { claudePayload, writeTranscript } from "../support/hookPayloads";
import { ledgerRecords } from "../support/ledgerFile";

/**
 * A line's author follows its content across paths (docs/LEDGER.md "Renames, moves and copies"): a file an
 * agent wrote keeps its author when git, a shell command, an agent's move tool or the editor renames it;
 * who moved it is provenance, not authorship. `intent blame` and the hover say the same. The hooks, blame and
 * the server run in this process (what they decide is the subject); `intent check` runs as a process.
 */

beforeAll(ensureBuilt);

const SONNET = "anthropic/claude-sonnet-4-5-20250929";
const CODEX_MODEL = "openai/gpt-5-codex";
const OLD = "src/api/alerts.ts";
const NEW = "src/api/v2/alerts.ts";
const ALERTS = ["export interface Alert {", "  id: string;", "  severity: number;", "}", "export const NONE: Alert[] = [];"];
const TEXT = `${ALERTS.join("\n")}\n`;

/** Codex runs `command` in its shell, between its hooks (run in this process: the hook's process is not the subject). */
async function codexShell(ws: TempWorkspace, command: string): Promise<void> {
  await runHookInProcess("codex", codexPayload(ws, "pre", "Bash", { command }, `call-sh-${command.length}`), { cwd: ws.root });
  const sh = spawnSync("bash", ["-c", command], { cwd: ws.root, encoding: "utf8" });
  if (sh.status !== 0) throw new Error(`the test's command failed: ${sh.stderr}`);
  await runHookInProcess("codex", codexPayload(ws, "post", "Bash", { command }, `call-sh-${command.length}`), { cwd: ws.root });
}

type Row = { kind: string; model?: string; contributor?: string; from?: string; movedBy?: { contributor: string; model?: string } };

async function blameRows(ws: TempWorkspace, path: string): Promise<Row[]> {
  const r = await runCliInProcess(["blame", path, "--json"], { cwd: ws.root });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout).lines.map((l: any) => ({
    kind: l.kind,
    ...(l.model ? { model: l.model } : {}),
    ...(l.contributor ? { contributor: l.contributor } : {}),
    ...(l.from ? { from: l.from } : {}),
    ...(l.movedBy
      ? { movedBy: l.movedBy.model ? { contributor: l.movedBy.contributor, model: l.movedBy.model } : { contributor: l.movedBy.contributor } }
      : {}),
  }));
}

/** Waits until the server has read the ledger to its end: its blame of a file it does not hold open reads it first. */
async function ledgerRead(client: LspClient): Promise<void> {
  await client.executeCommand("intent.blame", { path: "README.md", quiet: true });
}

/** An editor on the workspace with `paths` open, once the ledger is read and the first one's findings published. */
async function openAfterLedger(ws: TempWorkspace, ...paths: string[]): Promise<LspClient> {
  const started = await startInProcess({ root: ws.root });
  for (const path of paths) await started.open(path);
  await ledgerRead(started);
  await started.waitForPublishOfCurrentVersion(paths[0]!);
  return started;
}

/** A person cuts `lines` at line `at` of `from`, pastes them at line `to` of `into`, and saves both in `order`. */
async function cutAndPaste(
  client: LspClient,
  from: string,
  at: number,
  into: string,
  to: number,
  lines: readonly string[],
  order: "the cut saved first" | "the paste saved first",
): Promise<void> {
  await client.deleteLines(from, at, lines.length);
  await client.insertLines(into, to, [...lines]);
  const saves = order === "the cut saved first" ? [from, into] : [into, from];
  for (const path of saves) await client.save(path);
  await client.waitForPublishOfCurrentVersion(into);
}

const bySonnet = (extra: Partial<Row> = {}): Row => ({ kind: "traced", model: SONNET, contributor: "ai", from: OLD, ...extra });

describe("a line's author follows its content across paths", () => {
  let ws: TempWorkspace;
  let client: LspClient | undefined;
  afterEach(async () => {
    await client?.stop();
    client = undefined;
    ws.dispose();
  });

  async function agentWroteAlerts(): Promise<void> {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    await claudeWritesInProcess(ws, OLD, TEXT);
  }

  it("git mv + commit by a person: blame and the hover on the new path name the agent that wrote the lines", async () => {
    await agentWroteAlerts();
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "alerts");
    mkdirSync(ws.path("src/api/v2"), { recursive: true });
    git(ws.root, "mv", OLD, NEW);
    git(ws.root, "commit", "-q", "-m", "move alerts");
    expect(await blameRows(ws, NEW)).toEqual(ALERTS.map(() => bySonnet()));

    client = await openAfterLedger(ws, NEW);
    for (let line = 0; line < ALERTS.length; line++) {
      const hover = await client.hoverText(NEW, line);
      expect(hover).toContain(`ai · ${SONNET}`);
      expect(hover).toContain("from `src/api/alerts.ts` (renamed, moved or copied here)");
    }
  });

  it("intent check over a branch whose file was renamed reports nothing untraced or unowned for the moved lines", async () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    git(ws.root, "checkout", "-q", "-b", "feature");
    await claudeWritesInProcess(ws, OLD, TEXT);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "alerts");
    mkdirSync(ws.path("src/api/v2"), { recursive: true });
    git(ws.root, "mv", OLD, NEW);
    git(ws.root, "commit", "-q", "-m", "move alerts");
    const r = runCli(["check", "--base", "main", "--format", "json"], { cwd: ws.root });
    const findings = JSON.parse(r.stdout).findings as { path: string; code: string }[];
    expect(findings.filter((f) => f.path === NEW)).toEqual([]);
    expect(r.status).toBe(0);
  });

  it("an agent's shell mv and git mv: the lines keep their author, the mover is provenance", async () => {
    await agentWroteAlerts();
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "alerts");
    await codexShell(ws, `mkdir -p src/api/v2 && mv ${OLD} ${NEW}`);
    const moved = ledgerRecords(ws).at(-1)!;
    expect(moved.files.map((f: any) => f.path).sort()).toEqual([OLD, NEW].sort());
    const movedBy = { contributor: "ai", model: CODEX_MODEL };
    expect(await blameRows(ws, NEW)).toEqual(ALERTS.map(() => bySonnet({ movedBy })));

    await codexShell(ws, `git add -A && git mv ${NEW} src/api/alerts-v2.ts`);
    expect(await blameRows(ws, "src/api/alerts-v2.ts")).toEqual(ALERTS.map(() => bySonnet({ movedBy })));
  });

  it("Codex `*** Move to:` with a changed line: moved lines keep their author, the changed line is Codex's", async () => {
    await agentWroteAlerts();
    const patch = `*** Begin Patch\n*** Update File: ${OLD}\n*** Move to: ${NEW}\n@@\n-  severity: number;\n+  severity: 1 | 2 | 3;\n*** End Patch\n`;
    await runHookInProcess("codex", codexPayload(ws, "pre", "apply_patch", { command: patch }, "call-move-1"), { cwd: ws.root });
    mkdirSync(ws.path("src/api/v2"), { recursive: true });
    ws.write(NEW, TEXT.replace("  severity: number;", "  severity: 1 | 2 | 3;"));
    rmSync(ws.path(OLD));
    await runHookInProcess("codex", codexPayload(ws, "post", "apply_patch", { command: patch }, "call-move-1"), { cwd: ws.root });
    const movedBy = { contributor: "ai", model: CODEX_MODEL };
    expect(await blameRows(ws, NEW)).toEqual([
      bySonnet({ movedBy }),
      bySonnet({ movedBy }),
      { kind: "traced", model: CODEX_MODEL, contributor: "ai" },
      bySonnet({ movedBy }),
      bySonnet({ movedBy }),
    ]);
  });

  it("an MCP move_file tool: the destination's lines keep the author who wrote them", async () => {
    await agentWroteAlerts();
    const move = (event: "PreToolUse" | "PostToolUse") =>
      claudePayload(ws, event, {
        tool_name: "mcp__filesystem__move_file",
        tool_input: { source: ws.path(OLD), destination: ws.path(NEW) },
        tool_use_id: "toolu_01MOVE",
        ...(event === "PostToolUse" ? { tool_response: [{ type: "text", text: "moved" }] } : {}),
      });
    // the mover is another model than the author: the transcript now names opus
    writeTranscript(ws, "claude-opus-4-1-20250805");
    await runHookInProcess("claude-code", move("PreToolUse"), { cwd: ws.root });
    mkdirSync(ws.path("src/api/v2"), { recursive: true });
    ws.write(NEW, TEXT);
    rmSync(ws.path(OLD));
    await runHookInProcess("claude-code", move("PostToolUse"), { cwd: ws.root });
    const movedBy = { contributor: "ai", model: "anthropic/claude-opus-4-1-20250805" };
    expect(await blameRows(ws, NEW)).toEqual(ALERTS.map(() => bySonnet({ movedBy })));
  });

  it("the editor's willRenameFiles/didRenameFiles: hover and blame on the new path name the author, the rename as provenance", async () => {
    await agentWroteAlerts();
    client = await openAfterLedger(ws, OLD);
    const ids = await client.renameFile(OLD, NEW);
    expect(ids).toHaveLength(1);
    const record = ledgerRecords(ws).find((r) => r.id === ids[0])!;
    expect(record.files.map((f: any) => f.path)).toEqual([NEW, OLD]);
    expect(record.files[0].conversations[0].ranges).toEqual([]);
    expect(record.metadata["dev.intent-lsp"]).toMatchObject({ moved_from: OLD, pre_hash: record.metadata["dev.intent-lsp"].post_hash });
    await client.waitForPublishOfCurrentVersion(NEW);
    for (let line = 0; line < ALERTS.length; line++) {
      const hover = await client.hoverText(NEW, line);
      expect(hover).toContain(`ai · ${SONNET}`);
      expect(hover).toContain("moved by human from `src/api/alerts.ts`");
    }
    expect(await blameRows(ws, NEW)).toEqual(ALERTS.map(() => bySonnet({ movedBy: { contributor: "human" } })));
  });

  it("a file renamed in the editor and edited at each of a dozen paths: the lines nobody changed keep their author at the last one", async () => {
    const lines = Array.from({ length: 14 }, (_, k) => `export const LIMIT_${k} = ${k * 7};`);
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    await claudeWritesInProcess(ws, "src/api/limits-0.ts", `${lines.join("\n")}\n`);
    client = await startInProcess({ root: ws.root });
    let path = "src/api/limits-0.ts";
    await client.open(path);
    await ledgerRead(client);
    for (let k = 1; k <= 12; k++) {
      const next = `src/api/limits-${k}.ts`;
      await client.renameFile(path, next);
      path = next;
      // each path's content differs from the one before: only the record of the path before pins it
      await client.setLine(path, k - 1, `export const LIMIT_${k - 1} = ${k * 1000};`);
      await client.save(path);
    }
    await client.waitForPublishOfCurrentVersion(path);
    const last = (await blameRows(ws, path)).at(-1)!;
    expect(last).toMatchObject({ kind: "traced", model: SONNET, from: "src/api/limits-0.ts" });
    expect(await client.hoverText(path, 13)).toContain(`ai · ${SONNET}`);
  });

  for (const order of ["the cut saved first", "the paste saved first"] as const) {
    it(`a person cuts an agent's function from one file and pastes it into another, both saved (${order}): the pasted lines keep the agent, the move is provenance`, async () => {
      ws = gitWorkspace();
      ws.select("INT-001");
      writeTranscript(ws, "claude-sonnet-4-5-20250929");
      const helper = DEW_POINT;
      const forecast = ws.read("src/api/forecast.ts");
      await claudeWritesInProcess(ws, "src/api/forecast.ts", `${forecast}\n${helper.join("\n")}\n`);
      const FORECAST = "src/api/forecast.ts";
      const WEATHER = "src/api/weather.ts";
      client = await openAfterLedger(ws, FORECAST, WEATHER);
      const at = client.text(FORECAST).split("\n").indexOf(helper[0]!);
      // cut, and paste above `export interface Weather`
      await cutAndPaste(client, FORECAST, at, WEATHER, 2, helper, order);
      for (let k = 0; k < helper.length; k++) {
        const hover = await client.hoverText(WEATHER, 2 + k);
        expect(hover, `line ${3 + k}`).toContain(`ai · ${SONNET}`);
        expect(hover, `line ${3 + k}`).toContain("moved by human from `src/api/forecast.ts`");
      }
      const rows = await blameRows(ws, WEATHER);
      expect(rows.slice(2, 2 + helper.length)).toEqual(
        helper.map(() => ({ kind: "traced", model: SONNET, contributor: "ai", from: FORECAST, movedBy: { contributor: "human" } })),
      );
      // the lines around the paste are as they were: nobody recorded them
      expect(rows.slice(0, 2)).toEqual([{ kind: "untraced" }, { kind: "untraced" }]);
    });
  }

  for (const order of ["the cut saved first", "the paste saved first"] as const) {
    it(`the file holds the block twice, written by two agents; a person cuts the second and pastes it into another file (${order}): the pasted lines keep the agent whose block was cut`, async () => {
      ws = gitWorkspace();
      ws.select("INT-001");
      const FORECAST = "src/api/forecast.ts";
      const WEATHER = "src/api/weather.ts";
      const OPUS = "anthropic/claude-opus-4-1-20250805";
      const helper = [
        "export function dewPoint(celsius: number, humidity: number): number {",
        "  const g = (17.27 * celsius) / (237.7 + celsius) + Math.log(humidity / 100);",
        "  return (237.7 * g) / (17.27 - g);",
        "}",
      ];
      const forecast = ws.read(FORECAST);
      writeTranscript(ws, "claude-sonnet-4-5-20250929");
      await claudeWritesInProcess(ws, FORECAST, `${forecast}\n${helper.join("\n")}\n`);
      // another model writes the same block again below it
      writeTranscript(ws, "claude-opus-4-1-20250805");
      await claudeWritesInProcess(ws, FORECAST, `${forecast}\n${helper.join("\n")}\n\n${helper.join("\n")}\n`);
      client = await openAfterLedger(ws, FORECAST, WEATHER);
      const at = client.text(FORECAST).split("\n").lastIndexOf(helper[0]!);
      // the second one, opus's
      await cutAndPaste(client, FORECAST, at, WEATHER, 2, helper, order);
      const rows = await blameRows(ws, WEATHER);
      expect(rows.slice(2, 2 + helper.length)).toEqual(
        helper.map(() => ({ kind: "traced", model: OPUS, contributor: "ai", from: FORECAST, movedBy: { contributor: "human" } })),
      );
      for (let k = 0; k < helper.length; k++) expect(await client.hoverText(WEATHER, 2 + k), `line ${3 + k}`).toContain(`ai · ${OPUS}`);
      // the block left in forecast.ts is still sonnet's
      const kept = ws.read(FORECAST).split("\n").indexOf(helper[0]!);
      const left = (await blameRows(ws, FORECAST)).slice(kept, kept + helper.length);
      expect(left.map((r) => r.model)).toEqual(helper.map(() => "anthropic/claude-sonnet-4-5-20250929"));
    });
  }
});
