import { afterEach, describe, expect, it } from "vitest";
import { startInProcess } from "../support/inProcessServer";
import type { LspClient } from "../support/lspClient";
import { prng } from "../support/protocolFuzz";
import { mixedWorkspace, WEATHER } from "../support/revertWorkspace";
import type { TempWorkspace } from "../support/workspace";

/**
 * Records whose stamps disagree with the order they were written in (agents' sandboxes and people's machines
 * keep their own clocks). The oracle is the same workspace with the stamps as written: once the server has
 * read the ledger, every line's hover and every diagnostic of the files the records name must be the same,
 * but for the times the hovers say.
 */

const LEDGER = ".orchestration/agent_trace.jsonl";
const FILES = [WEATHER, "src/api/alerts-v2.ts", "src/api/v2/units.ts"];

/** Every line's hover and the diagnostics of FILES, once the server has read the ledger. */
async function editorView(ws: TempWorkspace, clients: LspClient[]): Promise<string[]> {
  const client = await startInProcess({ root: ws.root });
  clients.push(client);
  await client.open(WEATHER);
  // until the ledger is read, hover says so
  await expect.poll(() => client.hoverText(WEATHER, 0), { timeout: 10_000 }).not.toMatch(/Indexing|^$/);
  const out: string[] = [];
  for (const path of FILES) {
    if (path !== WEATHER) await client.open(path);
    const diagnostics = await client.waitForPublishOfCurrentVersion(path);
    out.push(`${path}: ${JSON.stringify(diagnostics.map((d) => [d.range, d.code, d.message]))}`);
    const lines = ws.read(path).split("\n").length;
    // the times a hover says are the records' stamps, which differ
    for (let line = 0; line < lines; line++)
      out.push(
        `${path}:${line + 1} ${(await client.hoverText(path, line)).replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?Z?|\d+ (s|min|h|d|mo|y) ago|just now/g, "<time>")}`,
      );
  }
  await client.stop();
  return out;
}

describe("records whose clocks disagree with the order they were written in", () => {
  let ws: TempWorkspace | undefined;
  const clients: LspClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.stop().catch(() => undefined);
    ws?.dispose();
  });

  it("leave every hover and diagnostic as the stamps as written do", async () => {
    ws = await mixedWorkspace();
    const plain = await editorView(ws, clients);
    expect(plain.filter((l) => l.includes("claude-sonnet")).length).toBeGreaterThan(5);
    const rand = prng(20261201);
    const skewed = ws
      .read(LEDGER)
      .split("\n")
      .map((line) => {
        if (!line.trim()) return line;
        const r = JSON.parse(line) as { timestamp?: string };
        if (typeof r.timestamp === "string") r.timestamp = new Date(Date.parse(r.timestamp) + Math.floor((rand() * 2 - 1) * 7_200_000)).toISOString();
        return JSON.stringify(r);
      })
      .join("\n");
    ws.write(LEDGER, skewed);
    expect(await editorView(ws, clients)).toEqual(plain);
  });
});
