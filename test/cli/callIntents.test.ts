import { spawnSync } from "node:child_process";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { bytesHash } from "../../server/src/engine/hashing";
import { codexPayload } from "../support/agentFixtures";
import { ensureBuilt } from "../support/builtDist";
import { runCliInProcess, runHook, runHookInProcess } from "../support/cliRunner";
import { gitWorkspace } from "../support/gitRepository";
import { claudeEdit, claudePayload, writeTranscript } from "../support/hookPayloads";
import { claudeWritesInProcess } from "../support/agentWrites";
import { startInProcess } from "../support/inProcessServer";
import { LEDGER, ledgerRecords } from "../support/ledgerFile";
import type { LspClient } from "../support/lspClient";
import type { TempWorkspace } from "../support/workspace";

/**
 * One call, several intents (docs/LEDGER.md "One act, several files"): with no intent selected, each file an
 * agent's call changes counts under the only in-progress intent that owns it. In the example workspace
 * INT-001 (src/api/**) and INT-003 (docs/**) are both in progress, so one call touching a file of each is
 * allowed file by file under two intents; `intent check` and `intent blame` must judge each file under its
 * own intent, as the gate did.
 */

beforeAll(ensureBuilt);

const MODEL = "claude-sonnet-4-5-20250929";
const API = "src/api/weather.ts";
const DOCS = "docs/notes.md";

function bashPayload(ws: TempWorkspace, event: "PreToolUse" | "PostToolUse", command: string) {
  return claudePayload(ws, event, {
    tool_name: "Bash",
    tool_input: { command, description: "edit two files", timeout: 120000, run_in_background: false },
    tool_use_id: "toolu_bash_two_intents",
    ...(event === "PostToolUse" ? { tool_response: { stdout: "", stderr: "", interrupted: false, isImage: false } } : {}),
  });
}

/** What Claude Code does around a Bash call: the pre hook, the command in a shell, the post hook. */
function runBash(ws: TempWorkspace, command: string) {
  const pre = runHook("claude-code", bashPayload(ws, "PreToolUse", command), { cwd: ws.root });
  const sh = spawnSync("bash", ["-c", command], { cwd: ws.root, encoding: "utf8" });
  if (sh.status !== 0) throw new Error(`the test's command failed: ${sh.stderr}`);
  const post = runHook("claude-code", bashPayload(ws, "PostToolUse", command), { cwd: ws.root });
  return { pre, post };
}

async function checkFindings(ws: TempWorkspace): Promise<{ path: string; code: string; intentId?: string }[]> {
  const r = await runCliInProcess(["check", "--format", "json"], { cwd: ws.root });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout).findings.map((f: any) => ({ path: f.path, code: f.code, ...(f.intentId ? { intentId: f.intentId } : {}) }));
}

/** The intent `intent blame --json` names for each traced line of `path`'s given lines. */
async function blamedIntents(ws: TempWorkspace, path: string, lines: readonly number[]): Promise<(string | undefined)[]> {
  const r = await runCliInProcess(["blame", path, "--json"], { cwd: ws.root });
  expect(r.stderr).toBe("");
  const rows: any[] = JSON.parse(r.stdout).lines;
  return lines.map((n) => {
    const row = rows.find((l) => l.line === n);
    expect(row, `blame row ${n} of ${path}`).toMatchObject({ kind: "traced", contributor: "ai" });
    return row.intent;
  });
}

/** Claude Code's Edit of `path` through its hooks: `old` replaced by `next` between PreToolUse and PostToolUse. */
async function agentEdits(ws: TempWorkspace, path: string, old: string, next: string): Promise<void> {
  await runHookInProcess("claude-code", claudeEdit(ws, "PreToolUse", path, old, next), { cwd: ws.root });
  ws.write(path, ws.read(path).replace(old, next));
  await runHookInProcess("claude-code", claudeEdit(ws, "PostToolUse", path, old, next), { cwd: ws.root });
}

/** Claude Code's Write of `path` through its hooks. */
async function agentWrites(ws: TempWorkspace, path: string, content: string): Promise<void> {
  const input = { file_path: ws.path(path), content };
  const id = `toolu_w_${path}`;
  await runHookInProcess("claude-code", claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: input, tool_use_id: id }), { cwd: ws.root });
  ws.write(path, content);
  await runHookInProcess(
    "claude-code",
    claudePayload(ws, "PostToolUse", { tool_name: "Write", tool_input: input, tool_use_id: id, tool_response: { type: "create" } }),
    {
      cwd: ws.root,
    },
  );
}

const lastLine = (ws: TempWorkspace, path: string) => ws.read(path).split("\n").length - 1;

describe("one call changing files of two intents, with none selected", () => {
  let ws: TempWorkspace;
  afterEach(() => ws.dispose());

  it("a shell command: one record per intent, each file judged and blamed under its own intent", async () => {
    ws = gitWorkspace();
    writeTranscript(ws, MODEL);
    const command = `sed -i 's/export interface Weather {/export interface Weather { \\/\\/ v2/' ${API} && echo '- Ship the API.' >> ${DOCS}`;
    const { post } = runBash(ws, command);
    expect(post.status).toBe(0);
    expect(post.json).toEqual({}); // every file was allowed: nothing to tell the agent

    const records = ledgerRecords(ws);
    expect(records.map((r) => [r.metadata["dev.intent-lsp"].intent_id, r.files.map((f: any) => f.path)])).toEqual([
      ["INT-003", [DOCS]],
      ["INT-001", [API]],
    ]);
    for (const r of records) {
      expect(r.metadata["dev.intent-lsp"]).toMatchObject({ scope: "PASS", tool_call: { tool: "Bash", command } });
      expect(r.files[0].conversations[0].related).toEqual([{ type: "intent", url: `urn:intent:${r.metadata["dev.intent-lsp"].intent_id}` }]);
    }
    // both lines of one append, chained: the second record's prev is the first record's line
    const lines = ws
      .read(LEDGER)
      .split("\n")
      .filter((l) => l.trim());
    expect(records[1]!.metadata["dev.intent-lsp"].prev).toBe(bytesHash(Buffer.from(lines[0]!, "utf8")));

    expect(await checkFindings(ws)).toEqual([]);
    expect(await blamedIntents(ws, API, [3])).toEqual(["INT-001"]);
    expect(await blamedIntents(ws, DOCS, [lastLine(ws, DOCS)])).toEqual(["INT-003"]);
  });

  it("a cut that gives a pasted block back to a file of another intent: the pasted file in a record of its own intent", async () => {
    ws = gitWorkspace();
    writeTranscript(ws, MODEL);
    const forecast = "src/api/forecast.ts";
    const pasted = "docs/dew.md";
    const helper = [
      "export function dewPoint(celsius: number, humidity: number): number {",
      "  const g = (17.27 * celsius) / (237.7 + celsius) + Math.log(humidity / 100);",
      "  return (237.7 * g) / (17.27 - g);",
      "}",
    ].join("\n");
    const end = ws.read(forecast).trimEnd().split("\n").at(-1)!;
    await agentEdits(ws, forecast, end, `${end}\n\n${helper}`);
    await agentWrites(ws, pasted, `# Dew point\n\n${helper}\n`);
    await agentEdits(ws, forecast, `\n\n${helper}`, "");

    const records = ledgerRecords(ws);
    expect(records.map((r) => [r.metadata["dev.intent-lsp"].intent_id, r.files.map((f: any) => f.path)])).toEqual([
      ["INT-001", [forecast]],
      ["INT-003", [pasted]],
      // the cut, then the file it gives the pasted block back to, each under the intent it was judged under
      ["INT-001", [forecast]],
      ["INT-003", [pasted]],
    ]);
    const back = records[3]!.metadata["dev.intent-lsp"];
    expect(back.pre_hash).toBe(back.post_hash);
    expect(back.moved_lines).toEqual([{ from: forecast, pre_hash: records[0]!.metadata["dev.intent-lsp"].post_hash, carried: [[expect.any(Number), 2, 5]] }]);
  });

  it("the editor renames a file from one intent's folder into another's: the move under the new path's intent, the removal under the old one's", async () => {
    ws = gitWorkspace();
    writeTranscript(ws, MODEL);
    const from = "src/api/alerts.ts";
    const to = "docs/alerts.ts";
    await claudeWritesInProcess(ws, from, "export interface Alert {\n  id: string;\n}\n");
    let client: LspClient | undefined;
    try {
      client = await startInProcess({ root: ws.root });
      await client.open(from);
      await client.executeCommand("intent.blame", { path: "README.md", quiet: true }); // the ledger read to its end
      const ids = await client.renameFile(from, to);
      const records = ledgerRecords(ws);
      expect(records.slice(1).map((r) => r.id)).toEqual(ids);
      expect(records.map((r) => [r.metadata["dev.intent-lsp"].intent_id, r.files.map((f: any) => f.path)])).toEqual([
        ["INT-001", [from]],
        ["INT-003", [to]],
        ["INT-001", [from]],
      ]);
      expect(records[1]!.metadata["dev.intent-lsp"]).toMatchObject({ moved_from: from, pre_hash: records[0]!.metadata["dev.intent-lsp"].post_hash });
      expect(records[2]!.metadata["dev.intent-lsp"]).toMatchObject({ pre_hash: records[0]!.metadata["dev.intent-lsp"].post_hash, post_hash: null });
    } finally {
      await client?.stop();
    }
  });

  it("a Codex apply_patch: each file's record under its own intent", async () => {
    ws = gitWorkspace();
    const patch = [
      "*** Begin Patch",
      `*** Update File: ${API}`,
      "@@",
      "-export interface Weather {",
      "+export interface Weather { // v2",
      `*** Update File: ${DOCS}`,
      "@@",
      "-- Write the onboarding guide.",
      "+- Write the onboarding guide this week.",
      "*** End Patch",
      "",
    ].join("\n");
    await runHookInProcess("codex", codexPayload(ws, "pre", "apply_patch", { command: patch }, "call_two_intents"), { cwd: ws.root });
    ws.write(API, ws.read(API).replace("export interface Weather {", "export interface Weather { // v2"));
    ws.write(DOCS, ws.read(DOCS).replace("- Write the onboarding guide.", "- Write the onboarding guide this week."));
    await runHookInProcess("codex", codexPayload(ws, "post", "apply_patch", { command: patch }, "call_two_intents"), { cwd: ws.root });

    expect(ledgerRecords(ws).map((r) => [r.metadata["dev.intent-lsp"].intent_id, r.files.map((f: any) => f.path)])).toEqual([
      ["INT-001", [API]],
      ["INT-003", [DOCS]],
    ]);
    expect(await checkFindings(ws)).toEqual([]);
    expect(await blamedIntents(ws, API, [3])).toEqual(["INT-001"]);
    const notesLine = ws.read(DOCS).split("\n").indexOf("- Write the onboarding guide this week.") + 1;
    expect(await blamedIntents(ws, DOCS, [notesLine])).toEqual(["INT-003"]);
  });
});
