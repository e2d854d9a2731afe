/**
 * Reading a large ledger on every processor: the thread that indexes it hands each chunk of lines to a worker
 * thread, which parses its records into a summary (engine/ledger/chunkSummary.ts), and feeds the index the
 * chunks in order, each with its summary, while the workers parse the next ones. Parsing is most of a first
 * read (a million records: ~8 of its ~12 s in one thread); what stays in the indexing thread is the index's
 * own bookkeeping.
 *
 * A worker that cannot start or fails answers nothing more: its chunks are read by the indexing thread itself,
 * so the index is always the one a plain read makes (test/unit/ledger-chunkSummary.test.ts holds a fed index
 * to a plain one; test/cli/indexThreads.test.ts the command in several threads to it in one).
 */
import type { Worker } from "node:worker_threads";
import { type ChunkSummary, summarizeChunk } from "../../engine/ledger/chunkSummary";
import { StringPool } from "../../engine/ledger/read";
import type { ChunkSummarizer } from "./follow";
import { threadsFor, workerScript, workerThreads } from "../workerThreads";

/** The argument that starts the CLI bundle as a summary worker (cli/bin.ts); refused outside a worker thread. */
export const SUMMARY_WORKER = "__summarize-ledger";

/**
 * Without `INTENT_LSP_THREADS`, workers only for a read this large: each loads the program (~0.1 s), which a
 * read of 32 MiB (~30,000 records, ~0.4 s in one thread) repays.
 */
const MIN_BYTES = 32 * 1024 * 1024;

type ToWorker = { id: number; bytes: Uint8Array };
type FromWorker = { id: number; summary: ChunkSummary } | { id: number; failed: string };

/**
 * The summarizer for reads of this process (`env`: its `INTENT_LSP_THREADS`), or undefined when it offers no
 * worker script. Each read of at least MIN_BYTES (any read when the threads were asked for) gets its workers,
 * ended with it.
 */
export function summaryWorkers(
  env: NodeJS.ProcessEnv,
  script: string | undefined = workerScript(),
): ((bytes: number) => ChunkSummarizer | undefined) | undefined {
  if (!script) return undefined;
  return (bytes) => {
    let count: number;
    try {
      count = threadsFor(env, bytes >= MIN_BYTES).count;
    } catch {
      return undefined; // a malformed INTENT_LSP_THREADS: read in one thread (the commands that count files say why)
    }
    return count >= 2 && bytes > 0 ? new SummaryWorkers(script, count) : undefined;
  };
}

/** Chunks handed out in turn to `count` workers; a worker that failed is handed nothing more. */
class SummaryWorkers implements ChunkSummarizer {
  readonly ahead: number;
  private readonly workers: (Worker | undefined)[] = [];
  /** Per worker, what each of its chunks in flight resolves with. */
  private readonly waiting: Map<number, (s: ChunkSummary | undefined) => void>[] = [];
  private next = 0;
  private lastId = 0;

  constructor(script: string, count: number) {
    // two chunks per worker in flight: each has the next one at hand when it finishes one
    this.ahead = 2 * count;
    for (let i = 0; i < count; i++) {
      this.waiting.push(new Map());
      this.workers.push(this.start(script, i));
    }
  }

  summarize(bytes: Buffer): Promise<ChunkSummary | undefined> {
    for (let tries = 0; tries < this.workers.length; tries++) {
      const i = this.next;
      this.next = (this.next + 1) % this.workers.length;
      const worker = this.workers[i];
      if (!worker) continue;
      const id = ++this.lastId;
      return new Promise((resolve) => {
        this.waiting[i]!.set(id, resolve);
        try {
          worker.postMessage({ id, bytes } satisfies ToWorker);
        } catch {
          this.fail(i);
        }
      });
    }
    return Promise.resolve(undefined);
  }

  close(): void {
    for (let i = 0; i < this.workers.length; i++) this.fail(i);
  }

  private start(script: string, i: number): Worker | undefined {
    let worker: Worker;
    try {
      // its standard streams are its own: nothing it might print reaches the command's output
      worker = new (workerThreads().Worker)(script, { argv: [SUMMARY_WORKER], stdout: true, stderr: true });
    } catch {
      return undefined;
    }
    worker.on("message", (m: FromWorker) => {
      const resolve = this.waiting[i]!.get(m.id);
      this.waiting[i]!.delete(m.id);
      resolve?.("summary" in m ? m.summary : undefined);
    });
    worker.on("error", () => this.fail(i));
    worker.on("exit", () => this.fail(i));
    return worker;
  }

  /** Worker `i` answers nothing more: its chunks in flight are read by the indexing thread. */
  private fail(i: number): void {
    const worker = this.workers[i];
    this.workers[i] = undefined;
    if (worker) void worker.terminate().catch(() => undefined);
    for (const resolve of this.waiting[i]!.values()) resolve(undefined);
    this.waiting[i]!.clear();
  }
}

/** The worker's side (cli/bin.ts starts it): summarizes each chunk it is sent, in its own pool of strings. */
export function serveSummaryWorker(): void {
  const { parentPort } = workerThreads();
  if (!parentPort) {
    process.stderr.write(`intent: ${SUMMARY_WORKER} is started by intent itself, in a worker thread, not from a shell\n`);
    process.exitCode = 2;
    return;
  }
  const port = parentPort;
  const pool = new StringPool();
  port.on("message", ({ id, bytes }: ToWorker) => {
    try {
      const summary = summarizeChunk(bytes, pool);
      port.postMessage({ id, summary } satisfies FromWorker, [
        summary.lines.buffer as ArrayBuffer,
        summary.times.buffer as ArrayBuffer,
        summary.entries.buffer as ArrayBuffer,
      ]);
    } catch (e) {
      port.postMessage({ id, failed: (e as Error)?.message ?? String(e) } satisfies FromWorker);
    }
  });
}
