import { mkdirSync, rmSync, truncateSync, writeFileSync, renameSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { LspClient } from "../support/lspClient";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

const LEDGER = ".orchestration/agent_trace.jsonl";
const API = "src/api/weather.ts";
let faults = 0;
afterAll(() => console.log(`ledger faults injected: ${faults}`));

/**
 * The ledger deleted, truncated, replaced (by another file, by a folder) while the server runs: it follows
 * each change (attribution goes and comes back with the records), reports what it cannot read, and keeps
 * serving. The server never writes the ledger but to append.
 */
describe("the ledger changing underneath a running server", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  stopAfterEach(() => ({ client, ws }));

  const kinds = async () => ((await client.executeCommand("intent.blame", { uri: client.uri(API) })) as { lines: { kind: string }[] }).lines.map((l) => l.kind);
  const traced = async () => (await kinds()).filter((k) => k === "traced").length;

  it("deleted, replaced, truncated mid-record, turned into a folder, restored", async () => {
    ws = new TempWorkspace(); // the example ledger attributes weather.ts
    const original = ws.read(LEDGER);
    client = await LspClient.start({ root: ws.root });
    await client.open(API, "typescript");
    await expect.poll(traced, { timeout: 10_000 }).toBeGreaterThan(0);
    const attributed = await traced();
    const initial = await kinds();

    rmSync(ws.path(LEDGER)); // deleted
    faults++;
    await expect.poll(traced, { timeout: 10_000 }).toBe(0);

    writeFileSync(ws.path(`${LEDGER}.new`), original);
    renameSync(ws.path(`${LEDGER}.new`), ws.path(LEDGER)); // replaced by another file (a git checkout does this)
    faults++;
    await expect.poll(traced, { timeout: 10_000 }).toBe(attributed);

    truncateSync(ws.path(LEDGER), Math.floor(original.indexOf("\n") / 2)); // truncated inside the first record
    faults++;
    await expect.poll(traced, { timeout: 10_000 }).toBe(0);
    writeFileSync(ws.path(LEDGER), `${ws.read(LEDGER)}\n`); // the torn line completed by a newline: unreadable, reported
    faults++;
    const [d] = await client.waitForDiagnostics(LEDGER, (x) => x.length === 1);
    expect([d!.code, d!.range.start.line]).toEqual(["ledger-unreadable", 0]);

    rmSync(ws.path(LEDGER));
    mkdirSync(ws.path(LEDGER)); // a folder where the ledger should be
    faults++;
    await client.setLine(API, 0, "// still serving");
    expect(await client.waitForPublishOfCurrentVersion(API)).toEqual([]); // INT-001 owns it: published for this edit, and nothing wrong
    expect(client.process.exitCode).toBeNull();

    rmSync(ws.path(LEDGER), { recursive: true });
    writeFileSync(ws.path(LEDGER), original); // restored
    faults++;
    await client.waitForDiagnostics(LEDGER, (x) => x.length === 0);
    await expect.poll(kinds, { timeout: 10_000 }).toEqual(["edited", ...initial.slice(1)]); // line 0 is an unsaved edit now
    expect(ws.read(LEDGER)).toBe(original); // read, never written
  });
});
