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
    expect(await client.save("src/api/weather.ts")).toBeNull(); // the editor's save happens regardless
    expect(readFileSync(ws.path("src/api/weather.ts"), "utf8")).toContain("export interface WeatherReport {");
    expect(client.logs.join("\n")).toMatch(/could not write the record of src\/api\/weather\.ts.*Your file was saved/);
    expect(records()).toEqual([]);

    restore();
    restore = () => {};
    // the next chance to write: another save
    await client.open("src/api/forecast.ts", "typescript");
    await client.setLine("src/api/forecast.ts", 0, "// forecast");
    expect(await client.save("src/api/forecast.ts")).not.toBeNull();
    // in order: the waiting record first
    expect(records().map((r) => r.files[0]!.path)).toEqual(["src/api/weather.ts", "src/api/forecast.ts"]);
    const weather = records().find((r) => r.files[0]!.path === "src/api/weather.ts")!;
    expect(weather.files[0]!.conversations[0]!.ranges.map((r) => [r.start_line, r.end_line])).toEqual([[3, 3]]);
  }, 60_000);
});
