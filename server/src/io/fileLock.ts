import type { LockOptions as LockfileOptions } from "proper-lockfile";

/**
 * The cross-process lock every writer of a shared file takes (the ledger, active_intents.yaml): a
 * `<file>.lock` directory, as proper-lockfile makes it, taken over when its holder stopped refreshing it.
 */
export interface LockOptions {
  /** A lock not refreshed for this long is taken over (a writer that was killed). */
  stale?: number;
  retries?: LockfileOptions["retries"];
}

export class LockError extends Error {
  override name = "LockError";
}

export async function acquireLock(file: string, opts: LockOptions = {}): Promise<() => Promise<void>> {
  // Loaded here, not at the top: it patches fs through graceful-fs when loaded, which a process that never
  // locks (an agent's pre-write hook, run on every tool call) should not pay for; a plain require lets the
  // bundler defer it.
  const lockfile = require("proper-lockfile") as typeof import("proper-lockfile");
  const retry = retryOptions(opts.retries);
  let release: () => Promise<void>;
  for (let attempt = 0; ; attempt++) {
    try {
      release = await lockfile.lock(file, {
        realpath: false,
        stale: opts.stale ?? 10_000,
        // Only a lock held by someone else is worth waiting for (below); a folder that cannot be written
        // (read-only, disk full, no permission) fails at once, so the person is told now, not minutes later.
        retries: 0,
        // Losing the lock after a long stall must not throw inside a timer (that would kill the server): the
        // writes it guards are single appends or atomic renames, so the worst case is a lost race, not a torn file.
        onCompromised: () => {},
      });
      break;
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code === "ELOCKED" && attempt < retry.retries) {
        await new Promise((r) => setTimeout(r, backoff(retry, attempt)));
        continue;
      }
      if (err.code === "ELOCKED") {
        throw new LockError(
          `could not lock ${file}: another process kept ${file}.lock for the whole wait; if no intent-lsp or agent hook is running, remove that directory and retry`,
        );
      }
      throw new LockError(`could not lock ${file}: ${err.message}`);
    }
  }
  return async () => {
    try {
      await release();
    } catch (e) {
      // ERELEASED: the lock was taken over after a stall; nothing left to release.
      if ((e as NodeJS.ErrnoException).code !== "ERELEASED") throw e;
    }
  };
}

interface RetryOptions {
  retries: number;
  factor: number;
  minTimeout: number;
  maxTimeout: number;
  randomize: boolean;
}

function retryOptions(r: LockOptions["retries"]): RetryOptions {
  const base: RetryOptions = { retries: 200, factor: 1.2, minTimeout: 2, maxTimeout: 50, randomize: true };
  if (typeof r === "number") return { ...base, retries: r };
  return { ...base, ...(r as Partial<RetryOptions> | undefined) };
}

/** The wait before attempt `attempt + 1`, as the `retry` package computes it (exponential, capped, jittered). */
function backoff(r: RetryOptions, attempt: number): number {
  const random = r.randomize ? Math.random() + 1 : 1;
  return Math.min(Math.round(random * Math.max(r.minTimeout, 1) * r.factor ** attempt), r.maxTimeout);
}
