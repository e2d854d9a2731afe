import { spawnSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bombRecords } from "../support/ledgerBombs";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { CLI_JS, runHook } from "../support/cliRunner";
import { claudeEdit, writeTranscript } from "../support/hookPayloads";
import { ledgerRecords, LEDGER } from "../support/ledgerFile";

/**
 * Records that claim more lines than any file has (docs/LEDGER.md "Reading"): each one is a few hundred bytes
 * and must cost in proportion to that, not to the claim. They are reported as unreadable lines and the rest
 * of the ledger still attributes.
 */
describe("a ledger record that claims huge line counts", () => {
  let ws: TempWorkspace;
  beforeAll(ensureBuilt, 120_000);
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.write(LEDGER, "");
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    const [from, to] = ["export interface Weather {", "export interface Weather { // v2"];
    runHook("claude-code", claudeEdit(ws, "PreToolUse", "src/api/weather.ts", from, to), { cwd: ws.root });
    ws.write("src/api/weather.ts", ws.read("src/api/weather.ts").replace(from, to));
    runHook("claude-code", claudeEdit(ws, "PostToolUse", "src/api/weather.ts", from, to), { cwd: ws.root });
  });
  afterEach(() => ws.dispose());

  it("intent blame exits normally, attributes the other records' lines and names every bad record", () => {
    const [good] = ledgerRecords(ws);
    const bombs = bombRecords("src/api/weather.ts");
    for (const b of bombs) appendFileSync(ws.path(LEDGER), `${b.line}\n`);
    // an unrecorded edit below: no record pins the content, so blame replays the newest records' maps
    ws.write("src/api/weather.ts", ws.read("src/api/weather.ts").replace("city: string;", "city: string; // unrecorded"));
    // a bound on the child, not an assertion on time: without bounds this runs for tens of seconds and dies
    const r = spawnSync(process.execPath, [CLI_JS, "blame", "src/api/weather.ts:2-4", "--json"], { cwd: ws.root, encoding: "utf8", timeout: 30_000 });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    const rows = JSON.parse(r.stdout).lines as { line: number; kind: string; traceId?: string; intent?: string; exact?: boolean }[];
    expect(rows.map((row) => [row.line, row.kind, row.traceId, row.intent])).toEqual([
      [2, "untraced", undefined, undefined],
      [3, "traced", good!.id, "INT-001"],
      [4, "untraced", undefined, undefined],
    ]);
    const warnings = r.stderr.trim().split("\n");
    expect(warnings).toHaveLength(bombs.length);
    bombs.forEach((b, i) => {
      expect(warnings[i]).toMatch(
        new RegExp(
          `^intent blame: warning: ${LEDGER.replace(/\./g, "\\.")}:${i + 2}: record "${b.id}" claims .* more than a record may claim \\(5,000,000 lines, or the record's own line_count\\)`,
        ),
      );
    });

    // intent verify names them too
    const verify = spawnSync(process.execPath, [CLI_JS, "verify"], { cwd: ws.root, encoding: "utf8", timeout: 60_000 });
    for (const b of bombs) expect(verify.stdout + verify.stderr).toContain(`record "${b.id}" claims`);
  }, 120_000);
});
