import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { agentRecordLine } from "../support/recordLines";
import { largeLedgerFixture, workerSpyEnv, workerSpyLog } from "../support/largeLedger";
import { LspClient } from "../support/lspClient";

/**
 * The language server's first read of a large ledger has its chunks parsed in worker threads (the workers'
 * bundle beside the server's: main.ts, workers.ts, io/ledger/summaryWorkers.ts). The oracle is the same server
 * in one thread (`INTENT_LSP_THREADS=1`) on a copy of the workspace with nothing kept: once each has read the
 * ledger, every hover is the same. A preloaded spy (test/support/workerSpy.cjs) shows the threads were started
 * and none failed to load.
 */

beforeAll(ensureBuilt);

/** Files whose lines the hovers ask about: two with records of their own, and a copy no record names. */
const FILES = ["src/gen/f0.ts", "src/gen/f7.ts", "src/copy/f3.ts"];

const large = largeLedgerFixture();

/** Every line's hover of FILES from a server on a fresh copy of the workspace, in `threads` threads, and what the spy saw. */
async function hovers(threads: string): Promise<{ hovers: string[]; spied: string[] }> {
  const dir = large.fresh();
  const log = `${dir}.workers.log`;
  let indexed: () => void = () => {};
  const read = new Promise<void>((resolve) => (indexed = resolve));
  const client = await LspClient.start({
    root: dir,
    env: { ...process.env, INTENT_LSP_THREADS: threads, ...workerSpyEnv(log) },
    onProgress: (v) => {
      if ((v as { kind?: string }).kind === "end") indexed();
    },
  });
  try {
    await read;
    const out: string[] = [];
    for (const path of FILES) {
      await client.open(path);
      for (let line = 0; line < 40; line++) out.push(`${path}:${line + 1} ${await client.hoverText(path, line)}`);
    }
    // an agent's record appended now is read without a thread: the workers are for a large first read
    const path = "src/gen/appended.ts";
    const content = "export const appended = 1;\n";
    writeFileSync(join(dir, path), content);
    appendFileSync(
      join(dir, ".orchestration/agent_trace.jsonl"),
      `${agentRecordLine(path, content, { contributor: { type: "ai", modelId: "openai/gpt-5" } })}\n`,
    );
    await client.open(path);
    await expect.poll(() => client.hoverText(path, 0), { timeout: 10_000 }).toContain("openai/gpt-5");
    return { hovers: out, spied: workerSpyLog(log) };
  } finally {
    await client.stop();
  }
}

describe("the server's first read of a large ledger in worker threads", () => {
  it("answers every hover as the server in one thread does", async () => {
    const one = await hovers("1");
    const many = await hovers("3");
    expect(one.spied).toEqual([]);
    // three workers for the first read, none for the append read after it
    expect(many.spied.filter((s) => s === "started __summarize-ledger")).toHaveLength(3);
    expect(many.spied.filter((s) => s.startsWith("failed"))).toEqual([]);
    // each runs the workers' own bundle, the one the server offers (main.ts)
    expect(many.spied.filter((s) => s.startsWith("script "))).toEqual(Array(3).fill("script intent-workers.js"));
    // the hovers say who wrote the lines, for the copy too (through the content its records pinned)
    expect(one.hovers.filter((h) => h.startsWith("src/gen/f0.ts") && /gpt-5|human/.test(h)).length).toBeGreaterThan(10);
    const traced = (path: string) => one.hovers.filter((h) => h.startsWith(path) && /gpt-5|human/.test(h)).length;
    expect(traced("src/copy/f3.ts")).toBeGreaterThan(20);
    expect(many.hovers).toEqual(one.hovers);
  }, 120_000);
});
