/**
 * The worker threads intent-lsp starts for work that splits (io/runsWorkers.ts: the files `intent stats`
 * counts; io/ledger/summaryWorkers.ts: a large ledger's first read): the script they run (the workers' own
 * bundle beside the program's, which the program's entry point offers for the workers it uses: cli/bin.ts,
 * main.ts) and how many. A program that offers none (the hook service, a test's in-process CLI or server)
 * does all its work in its own thread.
 */
import { availableParallelism } from "node:os";

/** `INTENT_LSP_THREADS`: how many worker threads a piece of work may use (1: none, the work stays in its own thread). */
export const THREADS_VARIABLE = "INTENT_LSP_THREADS";
const MAX_THREADS = 64;
/** Without `INTENT_LSP_THREADS`: one per processor, at most this many. */
const DEFAULT_MAX_THREADS = 8;

/** The workers' bundle (server/src/workers.ts), beside the program's bundle in dist/. */
export const WORKERS_BUNDLE = "intent-workers.js";

let offered: { bundle: string; serves: readonly string[] } | undefined;

/**
 * Names the script worker threads of this program run (the workers' bundle) and the workers it serves: each
 * is started with its argument (`RUNS_WORKER`, `SUMMARY_WORKER`), which that bundle's entry point dispatches on.
 */
export function offerWorkers(bundle: string, serves: readonly string[]): void {
  offered = { bundle, serves };
}

/** The script that serves workers started with `argument`; undefined when this program offers none. */
export function workerScript(argument: string): string | undefined {
  return offered?.serves.includes(argument) ? offered.bundle : undefined;
}

/** Loaded only by a run that starts workers, or is one: every hook call loads the modules that use it. */
export const workerThreads = () => require("node:worker_threads") as typeof import("node:worker_threads");

/** How many threads a piece of work is to use, and whether a person asked for that many (`INTENT_LSP_THREADS`). */
export interface Threads {
  count: number;
  asked: boolean;
}

/**
 * `INTENT_LSP_THREADS` when set (a whole number from 1 to 64, else an error saying so; set empty, as unset);
 * else, for work `large` enough to pay for starting workers, one per processor (at most 8); else 1.
 */
export function threadsFor(env: NodeJS.ProcessEnv, large: boolean, processors: number = availableParallelism()): Threads {
  const given = env[THREADS_VARIABLE];
  if (given !== undefined && given !== "") {
    const n = /^\d+$/.test(given) ? Number(given) : Number.NaN;
    if (!(n >= 1 && n <= MAX_THREADS))
      throw new Error(`${THREADS_VARIABLE}=${JSON.stringify(given)}: use a whole number from 1 to ${MAX_THREADS} (1 counts in one thread)`);
    return { count: n, asked: true };
  }
  return { count: large ? Math.min(processors, DEFAULT_MAX_THREADS) : 1, asked: false };
}
