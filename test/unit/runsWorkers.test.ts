import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Run } from "../../server/src/engine/insight";
import { WorkspaceLedger } from "../../server/src/io/ledger/workspaceLedger";
import { doInWorkers, ledgerPosition, threadsFor, type WorkerJob } from "../../server/src/io/runsWorkers";
import { threadsFor as threadsOf } from "../../server/src/io/workerThreads";
import { agentRecordLine } from "../support/recordLines";

/**
 * The pool that counts `intent stats`'s files in worker threads (io/runsWorkers.ts), driven with small
 * worker scripts that speak its protocol and fail in each way a worker can: whatever happens, it settles,
 * and it hands back exactly the files no worker counted. (test/cli/statsThreads.test.ts holds the real
 * workers' numbers to the one-thread numbers.)
 */

const dir = mkdtempSync(join(tmpdir(), "runs-workers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A worker script: `onChunk` is the body of a function of (chunk, post, threadId). */
function script(name: string, onChunk: string, start = 'post({ kind: "ready" });'): string {
  const file = join(dir, `${name}.js`);
  writeFileSync(
    file,
    `const { parentPort, threadId, workerData } = require("node:worker_threads");
if (process.argv[2] !== "__count-runs") throw new Error("started without the worker's argument");
const post = (m) => parentPort.postMessage(m);
parentPort.on("message", (chunk) => { ${onChunk} });
${start}
`,
  );
  return file;
}

/** Answers each file to count with one run whose intent names the thread that counted it, each written path with one row. */
const COUNT = `post({
  kind: "done",
  runs: chunk.filter((j) => j.text !== undefined).map((j) => [j.path, [{ start: 1, end: j.text.length, author: "ai", intent: String(threadId) }]]),
  written: chunk.filter((j) => j.written).map((j) => [j.path, [{ ms: j.path.length, author: "human", lines: 1, outOfScope: false }]]),
});`;

const jobs = (n: number): WorkerJob[] => Array.from({ length: n }, (_, i) => ({ path: `f${i}.ts`, text: "x".repeat(i + 1) }));
const SETUP = { root: dir, ledgerPath: "ledger.jsonl", position: "[]", adoption: false };

describe("doInWorkers", () => {
  it("does every job once, across as many workers as asked, and tells the progress", async () => {
    const told: number[] = [];
    // no worker answers before every worker holds a chunk: the fastest cannot take all the work
    const holding = new Int32Array(new SharedArrayBuffer(4));
    const fair = script(
      "count-fair",
      `if (!globalThis.held) { globalThis.held = true; Atomics.add(workerData.holding, 0, 1); Atomics.notify(workerData.holding, 0); }
      for (let n; (n = Atomics.load(workerData.holding, 0)) < 3; ) Atomics.wait(workerData.holding, 0, n, 10_000);
      ${COUNT}`,
    );
    // paths only read for the history (gone from the working tree), and five files both counted and read
    const written: WorkerJob[] = Array.from({ length: 20 }, (_, i) => ({ path: `gone/w${i}.ts`, written: true }));
    const both = jobs(100).map((j, i) => (i < 5 ? { ...j, written: true as const } : j));
    const done = await doInWorkers({ ...SETUP, holding } as typeof SETUP, [...both, ...written], 3, (n) => told.push(n), fair);
    const { runs, written: rows } = done;
    expect(done.handedBack).toBeUndefined();
    expect(done.finished).toBe(120);
    // (in the order the workers answered: the caller takes them in its own)
    const row = (path: string) => [path, [{ ms: path.length, author: "human", lines: 1, outOfScope: false }]];
    expect(new Map([...rows])).toEqual(new Map([...both.slice(0, 5), ...written].map((w) => row(w.path) as [string, unknown])));
    expect([...runs.keys()].sort()).toEqual(
      jobs(100)
        .map((j) => j.path)
        .sort(),
    );
    for (const [path, r] of runs) expect(r).toEqual([{ start: 1, end: Number(path.slice(1, -3)) + 1, author: "ai", intent: expect.any(String) }]);
    expect(new Set([...runs.values()].map((r: Run[]) => r[0]!.intent)).size).toBe(3);
    expect(told.at(-1)).toBe(120);
  });

  it("starts no worker for one chunk's work, and none without a worker script", async () => {
    expect(await doInWorkers(SETUP, jobs(10), 4, () => {}, script("count-small", COUNT))).toEqual({ runs: new Map(), written: new Map(), finished: 0 });
    const none = await doInWorkers(SETUP, jobs(100), 4, () => {}, undefined);
    expect(none.runs.size).toBe(0);
    expect(none.handedBack).toBe("this program cannot start worker threads (only the intent command can)");
  });

  it("hands back the chunk of a worker that fails, counting the rest in the others", async () => {
    const failing = script("fail-f20", `if (chunk.some((j) => j.path === "f20.ts")) post({ kind: "failed", message: "f20 is cursed" }); else { ${COUNT} }`);
    const { runs, handedBack } = await doInWorkers(SETUP, jobs(100), 2, () => {}, failing);
    expect(handedBack).toBe("a worker thread failed: f20 is cursed");
    // the chunk with f20 (16 files: f16 to f31) is left to the caller; the other worker counted on
    const missing = jobs(100)
      .map((j) => j.path)
      .filter((p) => !runs.has(p));
    expect(missing).toEqual(Array.from({ length: 16 }, (_, i) => `f${16 + i}.ts`));
  });

  it("settles when a worker throws, exits mid-chunk, cannot load, or finds another ledger", async () => {
    const cases: [string, string, string][] = [
      [script("throws", `throw new Error("boom in the worker")`), "", "a worker thread failed: boom in the worker"],
      [script("exits", "process.exit(7)"), "", "a worker thread ended (exit code 7)"],
      [join(dir, "no-such-script.js"), "", "a worker thread failed: "],
      [script("other", COUNT, 'post({ kind: "other-ledger", position: "[1]" });'), "", "the ledger changed while the files were counted"],
    ];
    for (const [file, , why] of cases) {
      const { runs, handedBack } = await doInWorkers(SETUP, jobs(40), 2, () => {}, file);
      expect(runs.size, file).toBe(0);
      expect(handedBack, file).toContain(why);
    }
  });
});

describe("threadsFor", () => {
  it("takes INTENT_LSP_THREADS as given, and refuses what is not a number of threads", () => {
    expect(threadsFor({ INTENT_LSP_THREADS: "3" }, 1, 1)).toEqual({ count: 3, asked: true });
    expect(threadsFor({ INTENT_LSP_THREADS: "1" }, 10_000, 10_000_000)).toEqual({ count: 1, asked: true });
    for (const bad of ["0", "65", "two", "2.5", "-1", " 2"])
      expect(() => threadsFor({ INTENT_LSP_THREADS: bad }, 1, 1)).toThrow(`INTENT_LSP_THREADS=${JSON.stringify(bad)}: use a whole number from 1 to 64`);
  });

  it("starts no more workers than half the free memory holds (each opens the ledger's index)", () => {
    // 1M records: about 200 MB a worker
    expect(threadsFor({}, 10_000, 1_000_000, 100e9).count).toBeGreaterThanOrEqual(1);
    expect(threadsFor({}, 10_000, 1_000_000, 100e9).count).toBe(threadsFor({}, 10_000, 1_000_000, 1e12).count);
    expect(threadsFor({}, 10_000, 1_000_000, 400e6)).toEqual({ count: 1, asked: false });
    expect(threadsFor({}, 10_000, 1_000_000, 100e6)).toEqual({ count: 1, asked: false });
    // asked for by a person: as many as asked
    expect(threadsFor({ INTENT_LSP_THREADS: "4" }, 10_000, 1_000_000, 100e6)).toEqual({ count: 4, asked: true });
  });

  it("reads INTENT_LSP_THREADS from 1 to 64, and an empty one as unset; by default at most 8, one per processor", () => {
    expect(threadsOf({ INTENT_LSP_THREADS: "64" }, true, 2)).toEqual({ count: 64, asked: true });
    expect(threadsOf({ INTENT_LSP_THREADS: "" }, true, 4)).toEqual({ count: 4, asked: false });
    expect(threadsOf({ INTENT_LSP_THREADS: "" }, false, 4)).toEqual({ count: 1, asked: false });
    expect(threadsOf({}, true, 64)).toEqual({ count: 8, asked: false });
    expect(threadsOf({}, true, 3)).toEqual({ count: 3, asked: false });
  });

  it("uses one thread for small work, and the processors for large work", () => {
    expect(threadsFor({}, 10, 1_000_000)).toEqual({ count: 1, asked: false });
    expect(threadsFor({}, 10_000, 1_000)).toEqual({ count: 1, asked: false });
    const large = threadsFor({}, 10_000, 1_000_000);
    expect(large.asked).toBe(false);
    expect(large.count).toBeGreaterThanOrEqual(1);
    expect(large.count).toBeLessThanOrEqual(8);
  });
});

describe("ledgerPosition", () => {
  it("tells a ledger replaced by a copy of itself from the one that was indexed: same bytes, another file", async () => {
    const root = mkdtempSync(join(dir, "ws-"));
    mkdirSync(join(root, ".orchestration"));
    const ledger = join(root, ".orchestration/agent_trace.jsonl");
    writeFileSync(ledger, `${agentRecordLine("src/a.ts", "a\n")}\n${agentRecordLine("src/b.ts", "b\n")}\n`);
    const position = async () => {
      const l = new WorkspaceLedger(root, ".orchestration/agent_trace.jsonl", { cache: false });
      await l.poll();
      return ledgerPosition(l);
    };
    const before = await position();
    expect(await position()).toBe(before);
    copyFileSync(ledger, `${ledger}.copy`);
    renameSync(`${ledger}.copy`, ledger);
    const after = await position();
    expect(after).not.toBe(before);
    // only the file's identity differs: the same path, bytes and lines
    const strip = (p: string) => (JSON.parse(p) as unknown[][]).map((s) => s.slice(0, 3));
    expect(strip(after)).toEqual(strip(before));
  });
});
