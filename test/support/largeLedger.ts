import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { fileHash } from "../../server/src/engine/hashing";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { diffTexts } from "../../server/src/engine/lineChange";
import { git, gitWorkspace } from "./gitRepository";
import { corpus } from "./ledgerCorpus";
import { REPO_ROOT } from "./lspClient";
import { prng } from "./protocolFuzz";
import type { TempWorkspace } from "./workspace";

/**
 * A committed repository with a ledger of several of the reader's 1 MiB chunks: our records (line maps, three
 * intents, people and a model, times out of ledger order with ties) among every dialect's lines and broken
 * ones, and an uncommitted copy of a traced file that no record names. What the tests of reading a ledger in
 * worker threads compare answers on (test/cli/indexThreads.test.ts, test/protocol/ledgerThreads.test.ts).
 */
const FILES = 30;
/** About 3.5 MB of records: several of the reader's 1 MiB chunks. */
const RECORDS = 3500;

export function largeLedgerWorkspace(): TempWorkspace {
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

/**
 * The large-ledger workspace, made once for the test file that calls this (at its top level) and removed with
 * the copies it handed out; `fresh` copies it with nothing kept from an earlier run (no saved index).
 */
export function largeLedgerFixture(): { readonly root: string; fresh(): string } {
  let ws: TempWorkspace | undefined;
  const copies: string[] = [];
  beforeAll(() => {
    ws = largeLedgerWorkspace();
  }, 120_000);
  afterAll(() => {
    for (const d of copies) rmSync(d, { recursive: true, force: true });
    ws?.dispose();
  });
  return {
    get root() {
      return ws!.root;
    },
    fresh() {
      const dir = mkdtempSync(join(tmpdir(), "intent-large-ledger-"));
      copies.push(dir);
      cpSync(ws!.root, dir, { recursive: true });
      rmSync(join(dir, ".orchestration/.cache"), { recursive: true, force: true });
      return dir;
    },
  };
}

/** The preloaded spy on worker threads (workerSpy.cjs): the environment that has it log a run's to `log`. */
export function workerSpyEnv(log: string): NodeJS.ProcessEnv {
  return { NODE_OPTIONS: `--require ${join(REPO_ROOT, "test/support/workerSpy.cjs")}`, INTENT_LSP_TEST_WORKER_LOG: log };
}

/** What the spy logged to `log`, one entry a line ("started <argument>", "script <file name>", "summary", "failed <why>"). */
export function workerSpyLog(log: string): string[] {
  return existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
}
