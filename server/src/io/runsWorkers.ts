/**
 * `intent stats` and `intent report` count each working-tree file by attributing it from the ledger
 * (io/insight.ts `countedRuns`), and a history reads what every record wrote. With nothing kept from an
 * earlier run that is most of their time on a large ledger, and no file's part depends on another's: so the
 * work is done in worker threads, one per processor. Each worker opens the workspace's ledger itself (from the
 * index the main thread has just saved), checks that it indexed exactly the bytes of exactly the files the
 * main thread did, and does each file it is handed with the same functions. A worker that cannot start,
 * finds another ledger or fails hands its files back undone, and the main thread does them itself: the
 * result is always the one-thread result (test/cli/statsThreads.test.ts holds the two equal).
 */
import { freemem } from "node:os";
import type { Worker } from "node:worker_threads";
import { type Run, type Written, writtenRows } from "../engine/insight";
import { AdoptionTexts } from "./adoption";
import { SAVE_AFTER_BYTES, WorkspaceLedger } from "./ledger/workspaceLedger";
import { type Threads, threadsFor as threadsOf, workerScript, workerThreads } from "./workerThreads";

/** The argument that starts the workers' bundle as a runs worker (workers.ts); refused outside a worker thread. */
export const RUNS_WORKER = "__count-runs";

/** Without `INTENT_LSP_THREADS`, workers only for work worth their start (a bundle compiled, an index loaded). */
const MIN_FILES = 64;
const MIN_RECORDS = 20_000;
/** Files handed to a worker at a time: small enough that the last ones do not wait on one busy worker. */
const CHUNK_FILES = 16;

/**
 * One path's work: its runs when `text` is given (a file to count: its text now and, when the adoption
 * point's texts were read, its text then), its history rows when `written` is set, or both, done by one worker
 * (which then reads the path's records once).
 */
export interface WorkerJob {
  path: string;
  text?: string;
  /** Its text at the adoption commit (null: no such file then); absent when it was not read. */
  atAdoption?: string | null;
  written?: true;
}

/** What a worker is started with. */
interface WorkerSetup {
  root: string;
  ledgerPath: string;
  /** `ledgerPosition` of the main thread's ledger: a worker whose ledger differs counts nothing. */
  position: string;
  /** Whether the adoption point's texts were read (jobs then carry `atAdoption`). */
  adoption: boolean;
}

/** What a worker did of a chunk: the runs of its files to count, the rows of its written paths. */
interface ChunkDone {
  runs: [string, Run[]][];
  written: [string, Written[]][];
}

type FromWorker = { kind: "ready" } | { kind: "other-ledger"; position: string } | ({ kind: "done" } & ChunkDone) | { kind: "failed"; message: string };

/**
 * What every ledger's index covers: each file's identity and the bytes and lines read from it. Two
 * processes with the same position indexed the same bytes (a ledger is only appended to; a file rewritten
 * or replaced changes its identity or is read again from its start).
 */
export function ledgerPosition(ledger: WorkspaceLedger): string {
  return JSON.stringify(
    ledger.sources.map((s) => {
      const id = s.follower.fileIdentity;
      return [s.path, s.follower.offset, s.follower.nextLine, id ? [id.dev, id.ino] : null];
    }),
  );
}

/**
 * Whether the index of every ledger is saved about as far as it was read (`SAVE_AFTER_BYTES`): what a worker
 * opens. Without it (a cache folder that cannot be written) each worker would read the whole ledger again.
 */
export function indexSaved(ledger: WorkspaceLedger): boolean {
  return ledger.sources.every((s) => s.unsavedBytes < SAVE_AFTER_BYTES);
}

/**
 * What a worker holds for each record of the ledger it opens: its index and the entries it keeps parsed
 * (measured: 1M records, about 180 MB more per worker).
 */
const WORKER_BYTES_PER_RECORD = 200;
/** The share of the memory free now that the workers may take. */
const WORKERS_MEMORY_SHARE = 0.5;

/**
 * How many threads count `files` files of a ledger of `records` records: `INTENT_LSP_THREADS` when set, else
 * one per processor when the work is large enough to pay for starting them (io/workerThreads.ts), and no
 * more than half the free memory holds (`free`, bytes): each worker opens the ledger's index itself.
 */
export function threadsFor(env: NodeJS.ProcessEnv, files: number, records: number, free: number = freemem()): Threads {
  const threads = threadsOf(env, files >= MIN_FILES && records >= MIN_RECORDS);
  if (threads.asked) return threads;
  const fit = Math.floor((free * WORKERS_MEMORY_SHARE) / (records * WORKER_BYTES_PER_RECORD));
  return { count: Math.max(1, Math.min(threads.count, fit)), asked: false };
}

/** What the workers did, and why some jobs were handed back when any were. */
export interface WorkersDone {
  /** The runs of each file counted. */
  runs: Map<string, Run[]>;
  /** The history's rows of each written path done. */
  written: Map<string, Written[]>;
  /** How many jobs were done. */
  finished: number;
  /** Why jobs were left to the caller (the first reason); undefined when the workers did them all. */
  handedBack?: string;
}

/**
 * Does `jobs` in up to `threads` workers (never rejects). A job missing from the answer was not done (no
 * worker script, a worker that failed or found another ledger): the caller does it itself. `progress` is told
 * how many jobs are done so far.
 */
export async function doInWorkers(
  setup: WorkerSetup,
  jobs: readonly WorkerJob[],
  threads: number,
  progress: (done: number) => void = () => {},
  script: string | undefined = workerScript(RUNS_WORKER),
): Promise<WorkersDone> {
  const done: WorkersDone = { runs: new Map(), written: new Map(), finished: 0 };
  const n = Math.min(threads, Math.ceil(jobs.length / CHUNK_FILES));
  if (n < 2) return done;
  if (!script) return { ...done, handedBack: "this program cannot start worker threads (only the intent command can)" };
  let next = 0;
  const take = (): WorkerJob[] | undefined => {
    if (next >= jobs.length) return undefined;
    const chunk = jobs.slice(next, next + CHUNK_FILES);
    next += chunk.length;
    return chunk;
  };
  const gave = (chunk: readonly WorkerJob[], answer: ChunkDone) => {
    for (const [path, r] of answer.runs) done.runs.set(path, r);
    for (const [path, w] of answer.written) done.written.set(path, w);
    done.finished += chunk.length;
    progress(done.finished);
  };
  const problems = await Promise.all(Array.from({ length: n }, () => runWorker(script, setup, take, gave)));
  if (done.finished < jobs.length) done.handedBack = problems.find((p) => p !== undefined) ?? "a worker ended early";
  return done;
}

/**
 * One worker, fed chunks by `take` until none is left. Settles (never rejects) when it is done, with
 * undefined, or when it failed, with why: its chunk then is not counted.
 */
function runWorker(
  script: string,
  setup: WorkerSetup,
  take: () => WorkerJob[] | undefined,
  gave: (chunk: readonly WorkerJob[], done: ChunkDone) => void,
): Promise<string | undefined> {
  return new Promise((settle) => {
    let worker: Worker;
    try {
      // its standard streams are its own: nothing it might print reaches the command's output
      worker = new (workerThreads().Worker)(script, { argv: [RUNS_WORKER], workerData: setup, stdout: true, stderr: true });
    } catch (e) {
      settle(`a worker thread could not start: ${(e as Error).message}`);
      return;
    }
    let finished = false;
    const finish = (problem?: string) => {
      if (finished) return;
      finished = true;
      void worker.terminate().catch(() => undefined);
      settle(problem);
    };
    // the chunk it is doing: a failure leaves it undone
    let chunk: WorkerJob[] | undefined;
    const feed = () => {
      chunk = take();
      if (chunk) worker.postMessage(chunk);
      else finish();
    };
    worker.on("message", (m: FromWorker) => {
      if (m.kind === "ready") feed();
      else if (m.kind === "done") {
        if (chunk) gave(chunk, m);
        feed();
      } else if (m.kind === "other-ledger") finish("the ledger changed while the files were counted");
      else finish(`a worker thread failed: ${m.message}`);
    });
    worker.on("error", (e) => finish(`a worker thread failed: ${e.message}`));
    worker.on("exit", (code) => finish(`a worker thread ended (exit code ${code})`));
  });
}

/**
 * The worker's side (workers.ts runs it): opens the ledger, answers "other-ledger" when it is not the main
 * thread's, else does each chunk it is sent (runs with `count`, history rows with `writtenRows`) until it is ended.
 */
export async function serveRunsWorker(count: (ledger: WorkspaceLedger, path: string, text: string, adoption?: AdoptionTexts) => Run[]): Promise<void> {
  const { parentPort, workerData } = workerThreads();
  if (!parentPort) {
    process.stderr.write(`intent: ${RUNS_WORKER} is started by intent itself, in a worker thread, not from a shell\n`);
    process.exitCode = 2;
    return;
  }
  const port = parentPort;
  const setup = workerData as WorkerSetup;
  const post = (m: FromWorker) => port.postMessage(m);
  try {
    const ledger = new WorkspaceLedger(setup.root, setup.ledgerPath);
    await ledger.poll();
    const position = ledgerPosition(ledger);
    if (position !== setup.position) {
      post({ kind: "other-ledger", position });
      return;
    }
    port.on("message", (chunk: WorkerJob[]) => {
      try {
        const adoption = setup.adoption
          ? AdoptionTexts.fromTexts(chunk.flatMap((j) => (j.atAdoption === undefined ? [] : [[j.path, j.atAdoption] as [string, string | null]])))
          : undefined;
        const done: ChunkDone = { runs: [], written: [] };
        for (const j of chunk) {
          // the rows first: the records they parse are those the count reads again (kept parsed by the ledger)
          if (j.written) done.written.push([j.path, writtenRows(ledger.entriesFor(j.path))]);
          if (j.text !== undefined) done.runs.push([j.path, count(ledger, j.path, j.text, adoption)]);
        }
        post({ kind: "done", ...done });
      } catch (e) {
        post({ kind: "failed", message: (e as Error)?.message ?? String(e) });
      }
    });
    post({ kind: "ready" });
  } catch (e) {
    post({ kind: "failed", message: (e as Error)?.message ?? String(e) });
  }
}
