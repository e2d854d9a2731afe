import { execFileSync } from "node:child_process";
import { chmodSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";

const LEDGER = ".orchestration/agent_trace.jsonl";

/**
 * `.orchestration/` read-only at save time (issue 12, Faults): the editor's save still happens, the user is
 * told the record could not be written, and it is written when possible. This is the save flow's behaviour
 * (server/src/lsp/save.ts); the test states it from outside.
 */
describe("a save while .orchestration/ cannot be written", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  let restore = () => {};
  afterEach(async () => {
    restore();
    await client.stop();
    ws.dispose();
  });

  /** Read-only for this process too: root ignores permission bits, so it gets the immutable attribute. */
  function makeReadOnly(dir: string) {
    if (process.getuid?.() === 0) {
      execFileSync("chattr", ["+i", dir]);
      restore = () => execFileSync("chattr", ["-i", dir]);
    } else {
      chmodSync(dir, 0o555);
      restore = () => chmodSync(dir, 0o755);
    }
  }

  function records(): { files: { path: string; conversations: { ranges: { start_line: number; end_line: number }[] }[] }[] }[] {
    return readFileSync(ws.path(LEDGER), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  }

  it("the user is told, and the record is written once it can be", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.write(LEDGER, "");
    ws.select("INT-001");
    client = await LspClient.start({ root: ws.root });
    await client.open("src/api/weather.ts", "typescript");
    await client.setLine("src/api/weather.ts", 2, "export interface WeatherReport {");
    makeReadOnly(ws.path(".orchestration"));
    ws.write("src/api/weather.ts", client.text("src/api/weather.ts")); // the editor's save happens regardless
    await client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: client.uri("src/api/weather.ts") } });
    await expect.poll(() => client.logs.join("\n"), { timeout: 30_000 }).toMatch(/could not record the save of src\/api\/weather\.ts/);
    expect(records()).toEqual([]);

    restore();
    restore = () => {};
    // the next chance to write: another save
    await client.open("src/api/forecast.ts", "typescript");
    await client.setLine("src/api/forecast.ts", 0, "// forecast");
    ws.write("src/api/forecast.ts", client.text("src/api/forecast.ts"));
    await client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: client.uri("src/api/forecast.ts") } });
    await expect.poll(() => records().map((r) => r.files[0]!.path).sort(), { timeout: 15_000 }).toEqual(["src/api/forecast.ts", "src/api/weather.ts"]);
    const weather = records().find((r) => r.files[0]!.path === "src/api/weather.ts")!;
    expect(weather.files[0]!.conversations[0]!.ranges.map((r) => [r.start_line, r.end_line])).toEqual([[3, 3]]);
  }, 60_000);
});
