/**
 * `intent stats` and `intent report` count each working-tree file by attributing it from the ledger
 * (io/insight.ts `countedRuns`). With nothing kept from an earlier run that is most of their time on a large
 * ledger, and no file's count depends on another's: so the files are counted in worker threads, one per
 * processor. Each worker opens the workspace's ledger itself (from the index the main thread has just saved),
 * checks that it indexed exactly the bytes of exactly the files the main thread did, and counts the files it
 * is handed with the same `countedRuns`. A worker that cannot start, finds another ledger or fails hands its
 * files back uncounted, and the main thread counts them itself: the result is always the one-thread result
 * (test/cli/statsThreads.test.ts holds the two equal).
 */
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import type { Run } from "../engine/insight";
import { AdoptionTexts } from "./adoption";
import { WorkspaceLedger } from "./ledger/workspaceLedger";

/** The argument that starts the CLI bundle as a runs worker (cli/bin.ts); refused outside a worker thread. */
export const RUNS_WORKER = "__count-runs";

/** `INTENT_LSP_THREADS`: how many threads count files (1: the main thread alone). */
export const THREADS_VARIABLE = "INTENT_LSP_THREADS";
const MAX_THREADS = 64;
/** Without `INTENT_LSP_THREADS`, workers only for work worth their start (a bundle compiled, an index loaded). */
const MIN_FILES = 64;
const MIN_RECORDS = 20_000;
const DEFAULT_MAX_THREADS = 8;
/** Files handed to a worker at a time: small enough that the last ones do not wait on one busy worker. */
const CHUNK_FILES = 16;

/** A file to count: its text now and, when the adoption point's texts were read, its text then. */
export interface RunsJob {
  path: string;
  text: string;
  /** Its text at the adoption commit (null: no such file then); absent when it was not read. */
  atAdoption?: string | null;
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

type FromWorker =
  | { kind: "ready" }
  | { kind: "other-ledger"; position: string }
  | { kind: "runs"; runs: [string, Run[]][] }
  | { kind: "failed"; message: string };

let workerScript: string | undefined;

/** Loaded only by a run that starts workers, or is one: every hook call loads this module's callers. */
const workerThreads = () => require("node:worker_threads") as typeof import("node:worker_threads");

/** Names the script that starts as a runs worker (the CLI bundle, cli/bin.ts): without one, files are counted in this thread. */
export function offerRunsWorkers(script: string): void {
  workerScript = script;
}

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

/** How many threads are to count files, and whether a person asked for that many (`INTENT_LSP_THREADS`). */
export interface Threads {
  count: number;
  asked: boolean;
}

/**
 * How many threads count `files` files of a ledger of `records` records: `INTENT_LSP_THREADS` when set,
 * else one per processor (at most 8) when the work is large enough to pay for starting them, else 1.
 */
export function threadsFor(env: NodeJS.ProcessEnv, files: number, records: number): Threads {
  const given = env[THREADS_VARIABLE];
  if (given !== undefined && given !== "") {
    const n = /^\d+$/.test(given) ? Number(given) : Number.NaN;
    if (!(n >= 1 && n <= MAX_THREADS))
      throw new Error(`${THREADS_VARIABLE}=${JSON.stringify(given)}: use a whole number from 1 to ${MAX_THREADS} (1 counts in one thread)`);
    return { count: n, asked: true };
  }
  if (files < MIN_FILES || records < MIN_RECORDS) return { count: 1, asked: false };
  return { count: Math.min(availableParallelism(), DEFAULT_MAX_THREADS), asked: false };
}

/** What the workers counted, and why some files were handed back when any were. */
export interface WorkersCount {
  runs: Map<string, Run[]>;
  /** Why files were left to the caller (the first reason); undefined when the workers counted them all. */
  handedBack?: string;
}

/**
 * Counts `jobs` in up to `threads` workers (never rejects). A file missing from `runs` was not counted (no
 * worker script, a worker that failed or found another ledger): the caller counts it itself. `counted` is
 * told how many files are done so far.
 */
export async function countRunsInWorkers(
  setup: WorkerSetup,
  jobs: readonly RunsJob[],
  threads: number,
  counted: (done: number) => void = () => {},
  script: string | undefined = workerScript,
): Promise<WorkersCount> {
  const runs = new Map<string, Run[]>();
  const n = Math.min(threads, Math.ceil(jobs.length / CHUNK_FILES));
  if (n < 2) return { runs };
  if (!script) return { runs, handedBack: "this program cannot start worker threads (only the intent command can)" };
  let next = 0;
  const take = (): RunsJob[] | undefined => {
    if (next >= jobs.length) return undefined;
    const chunk = jobs.slice(next, next + CHUNK_FILES);
    next += chunk.length;
    return chunk;
  };
  const gave = (answer: [string, Run[]][]) => {
    for (const [path, r] of answer) runs.set(path, r);
    counted(runs.size);
  };
  const problems = await Promise.all(Array.from({ length: n }, () => runWorker(script, setup, take, gave)));
  const handedBack = runs.size < jobs.length ? (problems.find((p) => p !== undefined) ?? "a worker ended early") : undefined;
  return handedBack === undefined ? { runs } : { runs, handedBack };
}

/**
 * One worker, fed chunks by `take` until none is left. Settles (never rejects) when it is done, with
 * undefined, or when it failed, with why: its chunk then is not counted.
 */
function runWorker(
  script: string,
  setup: WorkerSetup,
  take: () => RunsJob[] | undefined,
  gave: (runs: [string, Run[]][]) => void,
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
    const feed = () => {
      const chunk = take();
      if (chunk) worker.postMessage(chunk);
      else finish();
    };
    worker.on("message", (m: FromWorker) => {
      if (m.kind === "ready") feed();
      else if (m.kind === "runs") {
        gave(m.runs);
        feed();
      } else if (m.kind === "other-ledger") finish("the ledger changed while the files were counted");
      else finish(`a worker thread failed: ${m.message}`);
    });
    worker.on("error", (e) => finish(`a worker thread failed: ${e.message}`));
    worker.on("exit", (code) => finish(`a worker thread ended (exit code ${code})`));
  });
}

/**
 * The worker's side (cli/bin.ts starts it): opens the ledger, answers "other-ledger" when it is not the main
 * thread's, else counts each chunk it is sent with `count` until it is ended.
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
    port.on("message", (chunk: RunsJob[]) => {
      try {
        const adoption = setup.adoption
          ? AdoptionTexts.fromTexts(chunk.flatMap((j) => (j.atAdoption === undefined ? [] : [[j.path, j.atAdoption] as [string, string | null]])))
          : undefined;
        post({ kind: "runs", runs: chunk.map((j) => [j.path, count(ledger, j.path, j.text, adoption)]) });
      } catch (e) {
        post({ kind: "failed", message: (e as Error)?.message ?? String(e) });
      }
    });
    post({ kind: "ready" });
  } catch (e) {
    post({ kind: "failed", message: (e as Error)?.message ?? String(e) });
  }
}
