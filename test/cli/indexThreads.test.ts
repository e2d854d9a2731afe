import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileHash } from "../../server/src/engine/hashing";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { diffTexts } from "../../server/src/engine/lineChange";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { corpus } from "../support/ledgerCorpus";
import { REPO_ROOT } from "../support/lspClient";
import { prng } from "../support/protocolFuzz";
import type { TempWorkspace } from "../support/workspace";

/**
 * A command reading a large ledger for the first time has its chunks parsed in worker threads
 * (io/ledger/summaryWorkers.ts). The oracle is the same command in one thread (`INTENT_LSP_THREADS=1`) on a
 * copy of the same workspace with nothing kept: every answer must be the same, from the ledger as read and
 * from the index that read saved. A preloaded spy (test/support/workerSpy.cjs) shows the threads did the work.
 */

beforeAll(ensureBuilt);

const SPY = join(REPO_ROOT, "test/support/workerSpy.cjs");
const FILES = 30;
/** About 3.5 MB of records: several of the reader's 1 MiB chunks. */
const RECORDS = 3500;

function largeLedgerWorkspace(): TempWorkspace {
  const ws = gitWorkspace();
  const rand = prng(20261130);
  const shapes = corpus().filter((l) => l.trim() !== "");
  const texts = Array.from({ length: FILES }, (_, i) => Array.from({ length: 40 }, (_, l) => `export const f${i}l${l} = ${l};`));
  const lines: string[] = [];
  const base = Date.UTC(2026, 5, 1);
  const record = (r: number, f: number, time: number) => {
    const before = `${texts[f]!.join("\n")}\n`;
    const at = Math.floor(rand() * 40);
    texts[f]![at] = `export const f${f}l${at} = ${r}; // record ${r}`;
    const after = `${texts[f]!.join("\n")}\n`;
    lines.push(
      JSON.stringify(
        buildRecord({
          path: `src/gen/f${f}.ts`,
          content: after,
          change: diffTexts(before, after),
          contributor: r % 3 === 0 ? { type: "human" } : { type: "ai", modelId: "openai/gpt-5" },
          sessionId: `s-${r % 7}`,
          toolVersion: "0.1.0",
          mutationClass: "INTENT_EVOLUTION",
          preHash: fileHash(before),
          scope: "PASS",
          intentId: ["INT-001", "INT-002", null][r % 3]!,
          now: new Date(time),
          id: `00000000-0000-4000-8000-${String(r).padStart(12, "0")}`,
        }),
      ),
    );
  };
  for (let r = 0; r < RECORDS; r++) {
    // every dialect's lines and broken ones among our records, so that the workers leave some to the reader
    if (r % 50 === 0) lines.push(shapes[r % shapes.length]!);
    // times out of ledger order (as records merged from another branch are), with ties among them: the index
    // orders a file's records by time, and the later line wins a tie; all later than every other dialect's
    // line, so that the newest of an intent is one of these
    record(r, Math.floor(rand() * FILES), base + ((r * 7919) % 1000) * 60_000);
  }
  // the newest work on f3, which a copy holds
  record(RECORDS, 3, base + 1000 * 60_000);
  for (let f = 0; f < FILES; f++) ws.write(`src/gen/f${f}.ts`, `${texts[f]!.join("\n")}\n`);
  ws.write(".orchestration/agent_trace.jsonl", `${lines.join("\n")}\n`);
  git(ws.root, "add", "-A");
  git(ws.root, "commit", "-q", "-m", "a year of work");
  // a copy no record names, not committed yet: its lines are found through the records that pinned its
  // content (their post hash)
  ws.write("src/copy/f3.ts", `${texts[3]!.join("\n")}\n`);
  return ws;
}

let ws: TempWorkspace;
const copies: string[] = [];

/** A fresh copy of the workspace: nothing kept from an earlier run. */
function copy(): string {
  const dir = mkdtempSync(join(tmpdir(), "intent-index-threads-"));
  copies.push(dir);
  cpSync(ws.root, dir, { recursive: true });
  rmSync(join(dir, ".orchestration/.cache"), { recursive: true, force: true });
  return dir;
}

/** Runs `args` in `dir` with `threads` (undefined: the variable unset), the spy's log beside the copy. */
function run(dir: string, args: string[], threads: string | undefined) {
  const log = `${dir}.workers.log`;
  const env: NodeJS.ProcessEnv = { CI: "1", NODE_OPTIONS: `--require ${SPY}`, INTENT_LSP_TEST_WORKER_LOG: log };
  if (threads !== undefined) env["INTENT_LSP_THREADS"] = threads;
  else env["INTENT_LSP_THREADS"] = "";
  const r = runCli(args, { cwd: dir, env });
  const spied = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
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

beforeAll(() => {
  ws = largeLedgerWorkspace();
}, 120_000);
afterAll(() => {
  for (const d of copies) rmSync(d, { recursive: true, force: true });
  ws?.dispose();
});

describe("a first read of a large ledger in worker threads", () => {
  it("answers exactly as one thread does, and so does the index it saved", () => {
    const one = copy();
    const many = copy();
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
      if (args === ASKED[0]) {
        // three workers parsed the chunks: one summary per chunk of the 3.5 MB
        expect(threaded.spied.filter((s) => s === "started __summarize-ledger")).toHaveLength(3);
        expect(threaded.spied.filter((s) => s === "summary").length).toBeGreaterThanOrEqual(3);
      } else
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
    expect(copied.filter((l) => /^\s*\d+ {2}(INT-00\d|no intent) /.test(l)).length).toBeGreaterThan(0);
  }, 180_000);

  it("starts no worker for a ledger read in a moment, unless threads were asked for", () => {
    const dir = copy();
    const r = run(dir, ["blame", "src/gen/f0.ts"], undefined);
    expect(r.status).toBe(0);
    expect(r.spied).toEqual([]);
  }, 60_000);
});

describe("the summary worker", () => {
  const bundle = join(REPO_ROOT, "dist/intent-cli.js");

  it("answers a chunk it cannot read as failed, and the next one with its summary", async () => {
    const worker = new Worker(bundle, { argv: ["__summarize-ledger"], stdout: true, stderr: true });
    try {
      const answer = (m: unknown) =>
        new Promise<Record<string, unknown>>((resolve, reject) => {
          worker.once("message", resolve);
          worker.once("error", reject);
          worker.postMessage(m);
        });
      expect(await answer({ id: 1, bytes: "not bytes" })).toMatchObject({ id: 1, failed: expect.any(String) });
      const line = readFileSync(join(ws.root, ".orchestration/agent_trace.jsonl"), "utf8").split("\n")[1]!;
      const done = await answer({ id: 2, bytes: new TextEncoder().encode(`${line}\n`) });
      expect(done).toMatchObject({ id: 2, summary: { strings: expect.arrayContaining([expect.stringMatching(/^src\/gen\/f\d+\.ts$/)]) } });
    } finally {
      await worker.terminate();
    }
  }, 60_000);

  it("is refused when started from a shell", () => {
    const r = runCli(["__summarize-ledger"], { cwd: ws.root });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("is started by intent itself, in a worker thread, not from a shell");
  });
});
