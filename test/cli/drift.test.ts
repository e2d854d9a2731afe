import { appendFileSync } from "node:fs";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { diffTexts } from "../../server/src/engine/lineChange";
import { fileHash } from "../../server/src/engine/hashing";
import type { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { LEDGER } from "../support/ledgerFile";

/**
 * Drift (docs/INTENTS.md "Acceptance criteria"): `intent status ID` says how many lines in an intent's scope changed
 * since the commit it started at, and how many of them were not written under it; for a COMPLETE intent,
 * the lines changed after its completion commit.
 */

beforeAll(ensureBuilt);

const FILE = "src/api/weather.ts";

/** Writes `after` over FILE and, when `intent` is given, a record of exactly that change under it. */
function writeRecorded(ws: TempWorkspace, after: string, intent?: string): void {
  const before = ws.read(FILE);
  ws.write(FILE, after);
  if (!intent) return;
  const record = buildRecord({
    path: FILE,
    content: after,
    change: diffTexts(before, after),
    mutationClass: "INTENT_EVOLUTION",
    preHash: fileHash(before),
    scope: "PASS",
    contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" },
    sessionId: "s",
    toolVersion: "0",
    intentId: intent,
  });
  appendFileSync(ws.path(LEDGER), `${JSON.stringify(record)}\n`);
}

const steady = (s: string) => s.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "TIME");

describe("intent status ID reports drift", () => {
  let ws: TempWorkspace;
  let started: string;
  beforeEach(() => {
    ws = gitWorkspace();
    git(ws.root, "config", "user.name", "Ada Lovelace");
    runCli(["block", "INT-001"], { cwd: ws.root });
    started = git(ws.root, "rev-parse", "HEAD").trim();
    expect(runCli(["start", "INT-001"], { cwd: ws.root }).status).toBe(0); // recorded at the commit it starts at
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-qm", "INT-001 restarted");
  });
  afterEach(() => ws.dispose());

  it("says nothing while every line changed since the start is under the intent", () => {
    writeRecorded(ws, `${ws.read(FILE)}export const a = 1;\n`, "INT-001");
    const out = runCli(["status", "INT-001"], { cwd: ws.root }).stdout;
    expect(out).toContain(
      `\nDrift: none: no line in its scope changed under another intent or with no record since it started (commit ${started.slice(0, 12)})\n`,
    );
  });

  it("counts the lines changed since the start, and those not under the intent, with where they are", () => {
    const lines = ws.read(FILE).split("\n").length - 1;
    writeRecorded(ws, `${ws.read(FILE)}export const a = 1;\nexport const b = 2;\n`, "INT-001");
    writeRecorded(ws, `${ws.read(FILE)}export const c = 3;\n`, "INT-003"); // recorded, but under another intent
    writeRecorded(ws, `${ws.read(FILE)}export const d = 4;\n`); // no record at all
    const out = steady(runCli(["status", "INT-001"], { cwd: ws.root }).stdout);
    expect(out).toContain(
      [
        `Drift: 4 lines in src/api/**, test/api/** changed since INT-001 started (commit ${started.slice(0, 12)}), 2 of them not under INT-001.`,
        `  ${FILE}:${lines + 3} under INT-003`,
        `  ${FILE}:${lines + 4} with no record`,
        "  (`intent blame FILE:LINES` shows who wrote them)",
        "",
      ].join("\n"),
    );
    const json = JSON.parse(runCli(["status", "INT-001", "--json"], { cwd: ws.root }).stdout);
    expect(json.drift).toMatchObject({ since: "started", revision: started, changed: 4, not_under: 2 });
  });

  it("a COMPLETE intent whose files changed after its completion says so", () => {
    writeRecorded(ws, `${ws.read(FILE)}export const a = 1;\n`, "INT-001");
    git(ws.root, "commit", "-qam", "work");
    expect(runCli(["complete", "INT-001", "--yes"], { cwd: ws.root }).status).toBe(0);
    const completed = git(ws.root, "rev-parse", "HEAD").trim();
    expect(runCli(["status", "INT-001"], { cwd: ws.root }).stdout).toContain(
      `\nDrift: none: no line in its scope changed after its completion (commit ${completed.slice(0, 12)})\n`,
    );
    const lines = ws.read(FILE).split("\n").length - 1;
    writeRecorded(ws, `${ws.read(FILE)}export const late = true;\n`);
    expect(runCli(["status", "INT-001"], { cwd: ws.root }).stdout).toContain(
      `\nDrift: Changed after completion: 1 line in src/api/**, test/api/** changed since INT-001 was completed (commit ${completed.slice(0, 12)}), not under INT-001.\n  ${FILE}:${lines + 1} with no record\n`,
    );
  });
});
