import { mkdirSync, rmSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { LEDGER, ledgerRecords } from "../support/ledgerFile";
import { LspClient } from "../support/lspClient";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

/**
 * A save whose record cannot be written (the ledger's place taken by a directory here; a read-only
 * `.orchestration/` or a full disk fail the same way): the file is saved all the same, the user is told,
 * and the record is written, in order, as soon as the ledger can take it.
 */
describe("a save the ledger cannot take yet", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  beforeAll(ensureBuilt);
  stopAfterEach(() => ({ client, ws }));

  it("is saved, reported, and recorded once the ledger can be written again", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.select("INT-001");
    mkdirSync(ws.path(LEDGER)); // appending to it fails with EISDIR
    client = await LspClient.start({ root: ws.root, settings: { contributor: { type: "human" } } });
    const path = "src/api/weather.ts";
    await client.open(path, "typescript");
    await client.setLine(path, 11, "  const now = forecast.hours[0]; // first hour");
    expect(await client.save(path)).toBeNull();
    expect(ws.read(path)).toContain("// first hour");
    expect(
      client.logs.some((m) => m.includes(`could not write the record of ${path}`) && m.includes("Your file was saved")),
      client.logs.join("\n"),
    ).toBe(true);

    await client.setLine(path, 12, "  // a second save while the first record waits");
    expect(await client.save(path)).toBeNull();

    rmSync(ws.path(LEDGER), { recursive: true });
    const records = await client.waitFor(() => (ledgerRecords(ws).length === 2 ? ledgerRecords(ws) : undefined), "both records to be written");
    // in order, each claiming its own line, chained
    expect(records.map((r) => r.files[0].conversations[0].ranges.map((x: any) => [x.start_line, x.end_line]))).toEqual([[[12, 12]], [[13, 13]]]);
    expect(records[1]!.metadata["dev.intent-lsp"].pre_hash).toBe(records[0]!.metadata["dev.intent-lsp"].post_hash);
  });
});
