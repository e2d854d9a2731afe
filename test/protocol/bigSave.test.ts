import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { fileHash } from "../../server/src/engine/hashing";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";

const LEDGER = ".orchestration/agent_trace.jsonl";
const BIG = "src/api/big.ts";
const LINES = 1_000_000;

/**
 * Saving a very large file keeps the server answering (README "The editor is sacred"): the save's
 * whole-file work yields, so a request sent right after the didSave is answered before the save is
 * processed. The record still describes exactly the saved text, and an edit that arrives while the save
 * is being handled is not part of it: it stays an unsaved edit.
 */
describe("saving a 1,000,000-line file", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  afterEach(async () => {
    await client.stop();
    ws.dispose();
  });

  it("answers other requests while the save is handled; the record is exactly the saved text's; an edit during the save stays unsaved", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.write(LEDGER, "");
    ws.select("INT-001");
    const body: string[] = [];
    for (let i = 0; i < LINES; i++) body.push(`export const v${i} = ${i};`);
    ws.write(BIG, `${body.join("\n")}\n`);
    client = await LspClient.start({ root: ws.root });
    await client.open("src/api/weather.ts", "typescript");
    await client.open(BIG, "typescript");
    await client.hoverText("src/api/weather.ts", 2); // both documents are open and handled

    await client.setLine(BIG, 500_000, "export const changed = 1;");
    const saved = client.text(BIG);
    writeFileSync(ws.path(BIG), saved);
    const seen = client.savesProcessed.length;
    const bigUri = client.uri(BIG);
    void client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: bigUri } });
    // sent right behind the didSave: a hover on another file, and a keystroke in the saved one
    const processedYet = () => client.savesProcessed.slice(seen).some((s) => s.uri === bigUri);
    const hover = client.hoverText("src/api/weather.ts", 2).then(processedYet);
    // the saved line asked about while the save is being handled: not recorded yet
    const during = client.hoverText(BIG, 500_000).then((text) => ({ text, processed: processedYet() }));
    void client.setLine(BIG, 10, "export const during = 2;");
    expect(await hover).toBe(false); // answered before the save was processed
    expect(await during).toEqual({ text: expect.stringContaining("Edited, not saved yet."), processed: false });

    const done = await client.waitFor(() => client.savesProcessed.slice(seen).find((s) => s.uri === bigUri), "the save of the big file to be processed", 60_000);
    expect(done.recordId).not.toBeNull();
    const records = readFileSync(ws.path(LEDGER), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
    expect(records).toHaveLength(1);
    const file = records[0].files[0];
    expect(file.path).toBe(BIG);
    expect(file.conversations[0].ranges.map((r: { start_line: number; end_line: number }) => [r.start_line, r.end_line])).toEqual([[500_001, 500_001]]);
    expect(records[0].metadata["dev.intent-lsp"].post_hash).toBe(fileHash(saved));

    // the edit made during the save is still unsaved; the saved line is the record's
    expect(await client.hoverText(BIG, 10)).toContain("Edited, not saved yet.");
    expect(await client.hoverText(BIG, 500_000)).toContain(done.recordId!);
    expect(await client.hoverText(BIG, 11)).not.toContain("Edited, not saved yet.");
  }, 180_000);
});
