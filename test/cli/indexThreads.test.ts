import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { beforeAll, describe, expect, it } from "vitest";
import { summarizeChunk } from "../../server/src/engine/ledger/chunkSummary";
import { StringPool } from "../../server/src/engine/ledger/read";
import { summaryWorkers } from "../../server/src/io/ledger/summaryWorkers";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { largeLedgerFixture, workerSpyEnv, workerSpyLog } from "../support/largeLedger";
import { REPO_ROOT } from "../support/lspClient";

/**
 * A command reading a large ledger for the first time has its chunks parsed in worker threads
 * (io/ledger/summaryWorkers.ts). The oracle is the same command in one thread (`INTENT_LSP_THREADS=1`) on a
 * copy of the same workspace with nothing kept: every answer must be the same, from the ledger as read and
 * from the index that read saved. A preloaded spy (test/support/workerSpy.cjs) shows the threads did the work.
 */

beforeAll(ensureBuilt);

const large = largeLedgerFixture();

/** Runs `args` in `dir` with `threads` (undefined: the variable unset), the spy's log beside the copy. */
function run(dir: string, args: string[], threads: string | undefined) {
  const log = `${dir}.workers.log`;
  const r = runCli(args, { cwd: dir, env: { CI: "1", ...workerSpyEnv(log), INTENT_LSP_THREADS: threads ?? "" } });
  const spied = workerSpyLog(log);
  rmSync(log, { force: true });
  // each copy is its own folder, which some answers name
  const here = (text: string) => text.split(dir).join("<workspace>");
  // `intent map` writes what it found of each intent (its files, edits and last change) into the workspace
  const map = join(dir, ".orchestration/intent_map.md");
  const written = args[0] === "map" ? `\n${readFileSync(map, "utf8")}` : "";
  return { status: r.status, stdout: here(r.stdout) + written, stderr: here(r.stderr), spied };
}

/** What the commands answer of the whole ledger: every file's blame, the intents, the numbers. */
const ASKED = [
  ["blame", "src/gen/f0.ts"],
  ["blame", "src/copy/f3.ts"],
  ["blame", "src/gen/f7.ts"],
  ["blame", "src/gen/f29.ts"],
  ["status", "INT-001"],
  ["context", "INT-002"],
  ["map"],
  ["stats", "--json"],
];

describe("a first read of a large ledger in worker threads", () => {
  it("answers exactly as one thread does, and so does the index it saved", () => {
    const one = large.fresh();
    const many = large.fresh();
    for (const args of ASKED) {
      const plain = run(one, args, "1");
      expect({ status: plain.status, spied: plain.spied }, args.join(" ")).toEqual({ status: 0, spied: [] });
      // the first command of the copy reads the ledger in three threads; the later ones load the index it saved
      const threaded = run(many, args, "3");
      expect({ status: threaded.status, stdout: threaded.stdout, stderr: threaded.stderr }, args.join(" ")).toEqual({
        status: 0,
        stdout: plain.stdout,
        stderr: plain.stderr,
      });
      // no worker failed to load its script
      expect(
        threaded.spied.filter((s) => s.startsWith("failed")),
        args.join(" "),
      ).toEqual([]);
      // each worker runs the workers' own bundle, the one the command line offers (cli/bin.ts)
      const started = threaded.spied.filter((s) => s.startsWith("started ")).length;
      expect(
        threaded.spied.filter((s) => s.startsWith("script ")),
        args.join(" "),
      ).toEqual(Array(started).fill("script intent-workers.js"));
      // three workers were started for the first read (on a ledger this small, the reader may read every chunk
      // itself before they are ready: the summaries they make are held to the reader's own below)
      if (args === ASKED[0]) expect(threaded.spied.filter((s) => s === "started __summarize-ledger")).toHaveLength(3);
      else
        expect(
          threaded.spied.filter((s) => s === "started __summarize-ledger"),
          args.join(" "),
        ).toEqual([]);
    }
    // the workspace has what makes the comparison mean something: traced lines of both kinds, and intents
    const stats = JSON.parse(run(one, ["stats", "--json"], "1").stdout) as { lines: Record<string, number> };
    expect(stats.lines["ai"]).toBeGreaterThan(0);
    expect(stats.lines["human"]).toBeGreaterThan(0);
    // the copy's lines that records wrote are found through the content they pinned
    const copied = run(one, ["blame", "src/copy/f3.ts"], "1").stdout.split("\n");
    // every line of f3 that records wrote: they are as many in the copy, whose lines only the chain of
    // records explains (their times out of ledger order)
    const traced = (lines: string[]) => lines.filter((l) => /^\s*\d+ {2}(INT-00\d|no intent) /.test(l)).length;
    expect(traced(copied)).toBeGreaterThan(20);
    expect(traced(copied)).toBe(traced(run(one, ["blame", "src/gen/f3.ts"], "1").stdout.split("\n")));
  }, 180_000);

  it("starts no worker for a ledger read in a moment, unless threads were asked for", () => {
    const dir = large.fresh();
    const r = run(dir, ["blame", "src/gen/f0.ts"], undefined);
    expect(r.status).toBe(0);
    expect(r.spied).toEqual([]);
  }, 60_000);
});

describe("the summary workers", () => {
  // the script both programs offer their worker threads (cli/bin.ts, main.ts)
  const bundle = join(REPO_ROOT, "dist/intent-workers.js");
  const ledgerChunks = () => {
    const bytes = readFileSync(join(large.root, ".orchestration/agent_trace.jsonl"));
    const chunks: Buffer[] = [];
    for (let start = 0; start < bytes.length; ) {
      const end = Math.min(bytes.length, bytes.indexOf(0x0a, start + 256 * 1024) + 1 || bytes.length);
      chunks.push(bytes.subarray(start, end));
      start = end;
    }
    return chunks;
  };

  it("make exactly the summaries the reader makes itself, every chunk in its worker thread", async () => {
    const chunks = ledgerChunks();
    expect(chunks.length).toBeGreaterThan(10);
    const summarizer = summaryWorkers({ INTENT_LSP_THREADS: "3" }, bundle)!(1 << 20)!;
    try {
      // nothing is taken back: every chunk waits for a worker
      const made = await Promise.all(chunks.map((c) => summarizer.summarize(c).summary));
      expect(made.every((m) => m !== undefined)).toBe(true);
      expect(made).toEqual(chunks.map((c) => summarizeChunk(c, new StringPool())));
    } finally {
      summarizer.close();
    }
  }, 60_000);

  it("leave every chunk to the reader when they cannot start, and none once closed", async () => {
    const chunks = ledgerChunks().slice(0, 3);
    const broken = summaryWorkers({ INTENT_LSP_THREADS: "2" }, join(REPO_ROOT, "dist/no-such-bundle.js"))!(1 << 20)!;
    expect(await Promise.all(chunks.map((c) => broken.summarize(c).summary))).toEqual([undefined, undefined, undefined]);
    // and a chunk queued once every worker failed
    expect(await broken.summarize(chunks[0]!).summary).toBeUndefined();
    broken.close();
    const closed = summaryWorkers({ INTENT_LSP_THREADS: "2" }, bundle)!(1 << 20)!;
    const pending = chunks.map((c) => closed.summarize(c));
    closed.close();
    expect(await Promise.all(pending.map((p) => p.summary))).toEqual([undefined, undefined, undefined]);
  }, 60_000);

  it("give a chunk taken back before a worker took it to nobody", async () => {
    const chunks = ledgerChunks();
    const summarizer = summaryWorkers({ INTENT_LSP_THREADS: "2" }, bundle)!(1 << 20)!;
    try {
      const pending = chunks.map((c) => summarizer.summarize(c));
      // the workers are still starting: the last chunk waits, and is taken back
      const last = pending[pending.length - 1]!;
      expect(last.withdraw()).toBe(true);
      expect(await last.summary).toBeUndefined();
      const rest = await Promise.all(pending.slice(0, -1).map((p) => p.summary));
      expect(rest.every((m) => m !== undefined)).toBe(true);
      // a chunk a worker took is not taken back
      expect(pending[0]!.withdraw()).toBe(false);
    } finally {
      summarizer.close();
    }
  }, 60_000);

  it("are none for a read of less than a chunk even when asked for, and none for a small read unasked", () => {
    // the server reads every append to the ledger: a few records start no threads
    expect(summaryWorkers({ INTENT_LSP_THREADS: "3" }, bundle)!(64 * 1024)).toBeUndefined();
    expect(summaryWorkers({}, bundle)!(4 * 1024 * 1024)).toBeUndefined();
    // and none where the program offers no worker script
    expect(summaryWorkers({ INTENT_LSP_THREADS: "3" }, undefined)).toBeUndefined();
  });

  it("answer a chunk that cannot be read as failed, and the next one with its summary", async () => {
    const worker = new Worker(bundle, { argv: ["__summarize-ledger"], stdout: true, stderr: true });
    try {
      const next = () =>
        new Promise<Record<string, unknown>>((resolve, reject) => {
          worker.once("message", resolve);
          worker.once("error", reject);
        });
      expect(await next()).toEqual({ ready: true });
      const answer = (m: unknown) => {
        const answered = next();
        worker.postMessage(m);
        return answered;
      };
      expect(await answer({ id: 1, bytes: "not bytes" })).toMatchObject({ id: 1, failed: expect.any(String) });
      const line = readFileSync(join(large.root, ".orchestration/agent_trace.jsonl"), "utf8").split("\n")[1]!;
      const done = await answer({ id: 2, bytes: new TextEncoder().encode(`${line}\n`) });
      expect(done).toMatchObject({ id: 2, summary: { strings: expect.arrayContaining([expect.stringMatching(/^src\/gen\/f\d+\.ts$/)]) } });
    } finally {
      await worker.terminate();
    }
  }, 60_000);

  it("is refused when started from a shell, and the workers' script without work to do says what it is", () => {
    const r = spawnSync(process.execPath, [bundle, "__summarize-ledger"], { cwd: large.root, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("is started by intent itself, in a worker thread, not from a shell");
    const bare = spawnSync(process.execPath, [bundle], { cwd: large.root, encoding: "utf8" });
    expect(bare.status).toBe(2);
    expect(bare.stderr).toContain("this script serves intent's worker threads (__count-runs, __summarize-ledger); run `intent` or `intent-lsp` instead");
    // the command line serves no worker itself
    const cli = runCli(["__summarize-ledger"], { cwd: large.root });
    expect(cli.status).not.toBe(0);
    expect(cli.stderr).not.toContain("worker");
  });
});
