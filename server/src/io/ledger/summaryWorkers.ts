/**
 * Reading a large ledger on every processor: the thread that indexes it queues each chunk of lines for worker
 * threads, which take the oldest waiting when they are ready and parse its records into a summary
 * (engine/ledger/chunkSummary.ts), and feeds the index the chunks in order, each with its summary, while the
 * workers parse the next ones (io/ledger/follow.ts). Parsing is most of a first read (a million records: ~8 of
 * its ~10 s in one thread); what stays in the indexing thread is the index's own bookkeeping.
 *
 * A chunk no worker took when its turn comes (the workers still loading, or busy) is taken back and read by
 * the indexing thread; a worker that cannot start or fails takes nothing more, and its chunks are read there
 * too. So the index is always the one a plain read makes (test/unit/ledger-chunkSummary.test.ts holds a fed
 * index to a plain one; test/cli/indexThreads.test.ts and test/protocol/ledgerThreads.test.ts the command and
 * the server in several threads to one).
 */
import type { Worker } from "node:worker_threads";
import { type ChunkSummary, summarizeChunk } from "../../engine/ledger/chunkSummary";
import { StringPool } from "../../engine/ledger/read";
import type { ChunkSummarizer, PendingSummary } from "./follow";
import { type Threads, threadsFor, workerScript, workerThreads } from "../workerThreads";

/** The argument that starts the workers' bundle as a summary worker (workers.ts); refused outside a worker thread. */
export const SUMMARY_WORKER = "__summarize-ledger";

/**
 * Without `INTENT_LSP_THREADS`, workers only for a read this large. A worker loads its bundle in ~35 ms, but
 * parses on a cold JIT while the reader hands it chunks and takes its summaries: a server's first read of
 * 10 MB (10,000 records) takes longer in three threads than in one (~0.3 s against ~0.19 s on two cores),
 * and one of 100 MB takes about half as long.
 */
const MIN_BYTES = 32 * 1024 * 1024;
/** With `INTENT_LSP_THREADS`, workers for a read of this much or more. */
const ASKED_MIN_BYTES = 1024 * 1024;

/** Chunks handed to a worker at a time. */
const HANDED = 2;

type ToWorker = { id: number; bytes: Uint8Array };
type FromWorker = { ready: true } | { id: number; summary: ChunkSummary } | { id: number; failed: string };

/**
 * The summarizer for reads of this process (`env`: its `INTENT_LSP_THREADS`), or undefined when it offers no
 * worker script. Each read of at least MIN_BYTES (ASKED_MIN_BYTES when the threads were asked for) gets its
 * workers, ended with it.
 */
export function summaryWorkers(
  env: NodeJS.ProcessEnv,
  script: string | undefined = workerScript(SUMMARY_WORKER),
): ((bytes: number) => ChunkSummarizer | undefined) | undefined {
  if (!script) return undefined;
  return (bytes) => {
    let threads: Threads;
    try {
      threads = threadsFor(env, bytes >= MIN_BYTES);
    } catch {
      return undefined; // a malformed INTENT_LSP_THREADS: read in one thread (the commands that count files say why)
    }
    // even when asked for, none for a read of less than a chunk or so: the server reads every append
    return threads.count >= 2 && bytes >= ASKED_MIN_BYTES ? new SummaryWorkers(script, threads.count) : undefined;
  };
}

/** A chunk waiting for a worker, or being summarized by one. */
interface Queued {
  bytes: Buffer;
  /** The number it was handed to a worker under, which the worker's answer carries. */
  id?: number;
  resolve: (s: ChunkSummary | undefined) => void;
  /** A worker took it. */
  taken: boolean;
  /** The reader took it back before any worker did. */
  withdrawn: boolean;
}

/**
 * Chunks queued in order and taken by `count` workers, each taking the oldest one waiting when it is ready
 * for one; a chunk no worker took yet can be taken back by the reader. A worker that failed takes nothing more.
 */
class SummaryWorkers implements ChunkSummarizer {
  readonly ahead: number;
  private readonly waiting: Queued[] = [];
  /** Per worker, the chunks handed to it, oldest first (it answers in order). */
  private readonly busy: Queued[][] = [];
  private readonly workers: (Worker | undefined)[] = [];
  /** Per worker, whether it has loaded and can take chunks. */
  private readonly ready: boolean[] = [];
  private lastId = 0;

  constructor(script: string, count: number) {
    // enough queued for every worker's hands, and one more
    this.ahead = HANDED * count + 1;
    for (let i = 0; i < count; i++) {
      this.busy.push([]);
      this.workers.push(this.start(script, i));
    }
  }

  summarize(bytes: Buffer): PendingSummary {
    let queued: Queued | undefined;
    const summary = new Promise<ChunkSummary | undefined>((resolve) => {
      queued = { bytes, resolve, taken: false, withdrawn: false };
    });
    const q = queued!;
    if (this.workers.some((w) => w !== undefined)) this.waiting.push(q);
    else q.resolve(undefined);
    for (let i = 0; i < this.workers.length; i++) this.feed(i);
    return {
      summary,
      withdraw: () => {
        if (q.taken) return false;
        q.withdrawn = true;
        q.resolve(undefined);
        return true;
      },
    };
  }

  close(): void {
    // the last worker's failure leaves the waiting chunks to the reader
    for (let i = 0; i < this.workers.length; i++) this.fail(i);
  }

  /**
   * Hands worker `i` the oldest chunks no worker took, up to HANDED at a time: one to work on and the next,
   * so that it never waits for the reader's thread (busy feeding the index) to hand it one.
   */
  private feed(i: number): void {
    const worker = this.workers[i];
    if (!worker || this.ready[i] !== true) return;
    while (this.busy[i]!.length < HANDED) {
      let q = this.waiting.shift();
      while (q?.withdrawn) q = this.waiting.shift();
      if (!q) return;
      q.taken = true;
      q.id = ++this.lastId;
      this.busy[i]!.push(q);
      try {
        worker.postMessage({ id: q.id, bytes: q.bytes } satisfies ToWorker);
      } catch {
        this.fail(i);
        return;
      }
    }
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
      if ("ready" in m) this.ready[i] = true;
      else if (this.busy[i]![0]?.id !== m.id)
        return this.fail(i); // it answers in order, or not at all
      else this.busy[i]!.shift()!.resolve("summary" in m ? m.summary : undefined);
      this.feed(i);
    });
    worker.on("error", () => this.fail(i));
    worker.on("exit", () => this.fail(i));
    return worker;
  }

  /** Worker `i` takes nothing more: its chunk is read by the reader, and so are the waiting ones once none is left. */
  private fail(i: number): void {
    const worker = this.workers[i];
    this.workers[i] = undefined;
    if (worker) void worker.terminate().catch(() => undefined);
    for (const q of this.busy[i]!.splice(0)) q.resolve(undefined);
    if (this.workers.every((w) => w === undefined)) for (const q of this.waiting.splice(0)) q.resolve(undefined);
  }
}

/** The worker's side (workers.ts runs it): summarizes each chunk it is sent, in its own pool of strings. */
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
  // loaded: the reader hands it chunks from now on (until then, it reads them itself)
  port.postMessage({ ready: true } satisfies FromWorker);
}
