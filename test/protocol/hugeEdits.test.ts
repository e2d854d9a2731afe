import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { fileHash } from "../../server/src/engine/hashing";
import { MAX_BLOCK_LENSES } from "../../server/src/lsp/codeLens";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";

const LEDGER = ".orchestration/agent_trace.jsonl";
const API = "src/api/weather.ts";
const PASTED = 200_000;

/**
 * An edit that brings hundreds of thousands of lines at once (a paste of a generated file, an editor's reload
 * of a file rewritten on disk) is taken as any edit: the buffer holds it, the diagnostics cover it, and the save
 * records exactly the saved text.
 */
describe("an edit of hundreds of thousands of lines", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  afterEach(async () => {
    await client.stop();
    ws.dispose();
  });

  it("a paste of 200,000 lines into an open file is held, judged and recorded as pasted", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.write(LEDGER, "");
    ws.select("INT-001");
    client = await LspClient.start({ root: ws.root });
    await client.open(API, "typescript");
    const before = client.text(API).split("\n").length;
    const pasted = Array.from({ length: PASTED }, (_, i) => `export const p${i} = ${i};\n`).join("");
    await client.edit(API, { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, pasted);
    // the server holds the pasted text: a hover on the last pasted line describes an unsaved edit
    expect(await client.hoverText(API, PASTED)).toContain("Edited, not saved yet.");
    expect(client.text(API).split("\n")).toHaveLength(before + PASTED);
    const recordId = await client.save(API);
    expect(recordId).not.toBeNull();
    const records = readFileSync(ws.path(LEDGER), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(1);
    expect(records[0].metadata["dev.intent-lsp"].post_hash).toBe(fileHash(client.text(API)));
    expect(records[0].files[0].conversations[0].ranges.map((r: { start_line: number; end_line: number }) => [r.start_line, r.end_line])).toEqual([
      [2, PASTED + 1],
    ]);
  });

  it("a reload that rewrites every other line of a 200,000-line file: each rewritten line is an edit, each kept one is not", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.write(LEDGER, "");
    ws.select("INT-001");
    const BIG = "src/api/generated.ts";
    const lines = Array.from({ length: PASTED }, (_, i) => `export const g${i} = ${i};`);
    ws.write(BIG, `${lines.join("\n")}\n`);
    client = await LspClient.start({ root: ws.root });
    await client.open(BIG, "typescript");
    const rewritten = lines.map((l, i) => (i % 2 ? l.replace(" = ", " = -") : l));
    // the editor's reload: one change replacing the whole text
    await client.edit(BIG, { start: { line: 0, character: 0 }, end: { line: PASTED, character: 0 } }, `${rewritten.join("\n")}\n`);
    expect(await client.hoverText(BIG, 1)).toContain("Edited, not saved yet.");
    expect(await client.hoverText(BIG, 2)).not.toContain("Edited, not saved yet.");
    expect(await client.hoverText(BIG, PASTED - 1)).toContain("Edited, not saved yet.");
    await client.save(BIG);
    const records = readFileSync(ws.path(LEDGER), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(1);
    expect(records[0].metadata["dev.intent-lsp"].post_hash).toBe(fileHash(client.text(BIG)));
    const ranges = records[0].files[0].conversations[0].ranges.map((r: { start_line: number; end_line: number }) => [r.start_line, r.end_line]);
    expect(ranges).toHaveLength(PASTED / 2);
    expect(ranges.slice(0, 2)).toEqual([
      [2, 2],
      [4, 4],
    ]);
    // once the ledger holds the record, each rewritten line is its own block: lenses stop after the first 1,000
    await expect.poll(async () => client.hoverText(BIG, 1), { timeout: 30_000 }).toContain("INT-001");
    const lenses = (await client.connection.sendRequest("textDocument/codeLens", { textDocument: { uri: client.uri(BIG) } })) as {
      range: { start: { line: number } };
      command: { title: string };
    }[];
    expect(lenses).toHaveLength(1 + MAX_BLOCK_LENSES);
    expect(lenses[0]!.command.title).toContain(`· lenses on the first 1,000 of ${(PASTED / 2).toLocaleString("en")} blocks`);
    expect(lenses.slice(1, 3).map((l) => l.range.start.line)).toEqual([1, 3]);
    expect(lenses.at(-1)!.range.start.line).toBe(2 * MAX_BLOCK_LENSES - 1);
  });

  it("every other line of a 300,000-line file outside the selected intent's scope rewritten: each rewritten line has its out-of-scope diagnostic", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.write(LEDGER, "");
    ws.select("INT-001");
    const NOTES = "docs/generated.md";
    const count = 300_000;
    const lines = Array.from({ length: count }, (_, i) => `note ${i}`);
    ws.write(NOTES, `${lines.join("\n")}\n`);
    client = await LspClient.start({ root: ws.root });
    await client.open(NOTES, "markdown");
    const rewritten = lines.map((l, i) => (i % 2 ? `${l}!` : l));
    await client.edit(NOTES, { start: { line: 0, character: 0 }, end: { line: count, character: 0 } }, `${rewritten.join("\n")}\n`);
    const diagnostics = await client.waitForDiagnostics(NOTES, (d) => d.length > 0, 60_000);
    const outOfScope = diagnostics.filter((d) => d.code === "out-of-scope");
    expect(outOfScope).toHaveLength(count / 2);
    expect(outOfScope.slice(0, 2).map((d) => d.range.start.line)).toEqual([1, 3]);
  });
});
