import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { hookReplyInProcess, runCli } from "../support/cliRunner";
import { claudeEdit } from "../support/hookPayloads";
import { TempWorkspace } from "../support/workspace";

/** `intent blame --json` says per line how sure its owner is (docs/LEDGER.md "How sure: confidence"). */

beforeAll(ensureBuilt);

const API = "src/api/weather.ts";

describe("blame's confidence", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.write(".orchestration/agent_trace.jsonl", "");
    ws.select("INT-001");
  });
  afterEach(() => ws.dispose());

  async function agentEdit(from: string, to: string): Promise<void> {
    await hookReplyInProcess("claude-code", claudeEdit(ws, "PreToolUse", API, from, to), { cwd: ws.root });
    ws.write(API, ws.read(API).replace(from, to));
    await hookReplyInProcess("claude-code", claudeEdit(ws, "PostToolUse", API, from, to), { cwd: ws.root });
  }
  const confidenceOf = (line: number) =>
    (JSON.parse(runCli(["blame", `${API}:${line}`, "--json"], { cwd: ws.root }).stdout).lines as { confidence?: string }[])[0]!.confidence;

  it("a record's lines in the content it pins are exact; after a later record of the file, replayed through its map", async () => {
    const lines = ws.read(API).split("\n");
    const first = lines.findIndex((l) => l.includes("export interface Weather {")) + 1;
    await agentEdit("export interface Weather {", "export interface Weather { // v2");
    expect(confidenceOf(first)).toBe("exact");
    expect(confidenceOf(1)).toBe("untraced");
    const summary = lines.findIndex((l) => l.includes("summary: string;")) + 1;
    await agentEdit("summary: string;", "summary: string; // v3");
    expect(confidenceOf(summary)).toBe("exact");
    expect(confidenceOf(first)).toBe("replayed");
  });
});
