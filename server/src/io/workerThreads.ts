/**
 * The worker threads intent-lsp starts for work that splits (io/runsWorkers.ts: the files `intent stats`
 * counts): the script they run (the program's own bundle, which offers itself and knows each worker's
 * argument: cli/bin.ts) and how many. A program that offers none (the language server, the hook service, a
 * test's in-process CLI) does all its work in its own thread.
 */
import { availableParallelism } from "node:os";

/** `INTENT_LSP_THREADS`: how many worker threads a piece of work may use (1: none, the work stays in its own thread). */
export const THREADS_VARIABLE = "INTENT_LSP_THREADS";
const MAX_THREADS = 64;
/** Without `INTENT_LSP_THREADS`: one per processor, at most this many. */
const DEFAULT_MAX_THREADS = 8;

let script: string | undefined;

/** Names the script a worker thread of this program runs (its own bundle, which knows each worker's argument). */
export function offerWorkers(bundle: string): void {
  script = bundle;
}

/** The script workers run; undefined when this program offers none. */
export function workerScript(): string | undefined {
  return script;
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
