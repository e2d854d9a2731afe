// Edits inside the editor that the person did not type (docs/AGENTS.md "Edits inside the editor"): a client
// announces such a change (`intent/changeOrigin`) just before its didChange, and the save records those lines
// with an `unknown` contributor and the reason, never as the person's; hover and `intent blame` say so, and
// `intent stats` counts them as unknown. A client that announces nothing (every other editor) changes nothing.
import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import type { CodeLens } from "vscode-languageserver-protocol";
import { CHANGE_ORIGIN } from "@shared/notifications";
import { UNTYPED_REASONS } from "../../server/src/engine/untypedLines";
import type { LspClient } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { runCli } from "../support/cliRunner";
import { TempWorkspace } from "../support/workspace";

const API = "src/api/weather.ts";
const LEDGER = ".orchestration/agent_trace.jsonl";
const TYPED = "  const now = forecast.hours[0]; // typed";
const COMPLETION = ["  // cache the forecast for a minute", "  const cached = cache.get(city);", "  if (cached) return cached;"];

function records(ws: TempWorkspace): Record<string, any>[] {
  return ws
    .read(LEDGER)
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

function repo(): TempWorkspace {
  const ws = new TempWorkspace({ withLedger: false });
  for (const args of [
    ["init", "-q"],
    ["config", "user.name", "Ada Lovelace"],
  ])
    spawnSync("git", args, { cwd: ws.root });
  ws.select("INT-001");
  return ws;
}

/** A record's first file's ranges as [start, end, who]: the range's own contributor, else the conversation's (`fallback`). */
function rangesOf(record: Record<string, any>, fallback = "human"): [number, number, string][] {
  return record.files[0].conversations[0].ranges.map((r: any) => [r.start_line, r.end_line, r.contributor?.type ?? fallback]);
}

/** The announcement a client sends just before the change that makes `version`. */
function announce(client: LspClient, path: string, version: number, reason: string): Promise<void> {
  return client.connection.sendNotification(CHANGE_ORIGIN, { uri: client.uri(path), version, reason });
}

describe("edits the person did not type", () => {
  let ws: TempWorkspace | undefined;
  let client: LspClient | undefined;
  afterEach(async () => {
    await client?.stop();
    ws?.dispose();
    client = undefined;
    ws = undefined;
  });

  it("are recorded as unknown with the reason, beside the typed line the same save records as the person's", async () => {
    ws = repo();
    client = await startInProcess({ root: ws.root });
    await client.open(API, "typescript");
    await client.setLine(API, 11, TYPED); // typed: no announcement
    await announce(client, API, client.version(API) + 1, "inserted-at-once");
    await client.insertLines(API, 14, COMPLETION); // lines 14-16 (0-based)
    await announce(client, API, client.version(API) + 1, "not-focused");
    await client.setLine(API, 2, "// changed by an extension in the background");
    expect(await client.save(API)).not.toBeNull();

    const [record] = records(ws);
    const conversation = record!.files[0].conversations[0];
    expect(conversation.contributor).toEqual({ type: "human" });
    expect(rangesOf(record!, "conversation's")).toEqual([
      [3, 3, "unknown"],
      [12, 12, "conversation's"],
      [15, 17, "unknown"],
    ]);
    expect(record!.metadata["dev.intent-lsp"].untyped).toEqual([
      [3, 3, UNTYPED_REASONS["not-focused"]],
      [15, 17, UNTYPED_REASONS["inserted-at-once"]],
    ]);
    // the person is still the record's, for the lines they typed
    expect(record!.metadata["dev.intent-lsp"].person).toEqual({ name: "Ada Lovelace" });

    expect(await client.hoverText(API, 11, 1)).toContain("human · Ada Lovelace · just now");
    const completionHover = await client.hoverText(API, 15, 1);
    expect(completionHover).toContain(`unknown · ${UNTYPED_REASONS["inserted-at-once"]} · just now`);
    expect(completionHover).not.toContain("Ada Lovelace");
    expect(await client.hoverText(API, 2, 1)).toContain(`unknown · ${UNTYPED_REASONS["not-focused"]}`);

    const blame = JSON.parse(runCli(["blame", `${API}:12-16`, "--json"], { cwd: ws.root }).stdout);
    expect(blame.lines.map((l: any) => [l.line, l.kind, l.contributor ?? null, l.person ?? null, l.why ?? null])).toEqual([
      [12, "traced", "human", "Ada Lovelace", null],
      [13, "untraced", null, null, null],
      [14, "untraced", null, null, null],
      [15, "traced", "unknown", null, UNTYPED_REASONS["inserted-at-once"]],
      [16, "traced", "unknown", null, UNTYPED_REASONS["inserted-at-once"]],
    ]);
    const stats = JSON.parse(runCli(["stats", "--json"], { cwd: ws.root }).stdout);
    expect(stats.byFile.find((f: { path: string }) => f.path === API).lines).toMatchObject({ human: 1, unknown: 4 });
    // the CodeLens says the same: a lens per writer, not one for the record, and the file's counts
    const lenses = await client.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri: client.uri(API) } });
    expect(lenses.map((l) => [l.range.start.line, l.command!.title.replace(/ · last .*$/, "")])).toEqual([
      [0, "5/21 lines traced · AI 0 (0%) · human 1 · unknown 4 · untraced 16 · 1 record · INT-001"],
      [2, "INT-001 · unknown · just now"],
      [11, "INT-001 · Ada Lovelace · just now"],
      [14, "INT-001 · unknown · just now"],
    ]);
  });

  it("a line the person then edits stays unknown; a line they type inside the block is theirs", async () => {
    ws = repo();
    client = await startInProcess({ root: ws.root });
    await client.open(API, "typescript");
    await announce(client, API, client.version(API) + 1, "inserted-at-once");
    await client.insertLines(API, 14, COMPLETION);
    await client.setLine(API, 15, "  const cached = cache.get(city.toLowerCase());"); // edits an inserted line
    await client.insertLines(API, 16, ["  // typed between the inserted lines"]);
    await client.save(API);
    expect(rangesOf(records(ws)[0]!)).toEqual([
      [15, 16, "unknown"],
      [17, 17, "human"],
      [18, 18, "unknown"],
    ]);
    // one record, three writers side by side: a lens for each, never the record's first writer for all
    const lenses = await client.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri: client.uri(API) } });
    expect(lenses.slice(1).map((l) => [l.range.start.line, l.command!.title])).toEqual([
      [14, "INT-001 · unknown · just now"],
      [16, "INT-001 · Ada Lovelace · just now"],
      [17, "INT-001 · unknown · just now"],
    ]);
  });

  it("an announcement holds for the change it names only; a malformed one is ignored and the server keeps serving", async () => {
    ws = repo();
    client = await startInProcess({ root: ws.root });
    await client.open(API, "typescript");
    // names the change after next: the next change comes first, and the announcement is gone with it
    await announce(client, API, client.version(API) + 2, "inserted-at-once");
    await client.setLine(API, 11, TYPED);
    // a reason that is not one of ours, and no uri at all: ignored
    await announce(client, API, client.version(API) + 1, "a model wrote this");
    await client.connection.sendNotification(CHANGE_ORIGIN, { version: 3, reason: "not-focused" });
    await client.setLine(API, 12, "  // typed too");
    await client.save(API);
    const [record] = records(ws);
    expect(rangesOf(record!)).toEqual([[12, 13, "human"]]);
    expect(record!.metadata["dev.intent-lsp"].untyped).toBeUndefined();
    expect(await client.hoverText(API, 12, 1)).toContain("human · Ada Lovelace");
  });

  it("a save takes the marks with it: the next save's lines start as the person's", async () => {
    ws = repo();
    client = await startInProcess({ root: ws.root });
    await client.open(API, "typescript");
    await announce(client, API, client.version(API) + 1, "inserted-at-once");
    await client.insertLines(API, 14, COMPLETION);
    await client.save(API);
    await client.setLine(API, 2, "// typed after the save");
    await client.save(API);
    const second = records(ws)[1]!;
    expect(rangesOf(second)).toEqual([[3, 3, "human"]]);
    // the first save's lines keep their unknown owner
    expect(await client.hoverText(API, 14, 1)).toContain("unknown · ");
  });
});
