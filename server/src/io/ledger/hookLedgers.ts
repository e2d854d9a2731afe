/**
 * The ledger a hook reads: in a hook's own process, a WorkspaceLedger made for the call, which resumes the
 * workspace's saved index and reads only what was appended since; in the hook service (cli/hookService.ts),
 * one kept per workspace between calls, which follows the file as the editor's does (appends read as they
 * come, a replaced or truncated file read again), so a call reads only what was appended since the last one.
 * A kept ledger's index is saved for other processes when the service is quiet (`saveKeptLedgers`), never
 * during a call: a durable save of a large index would be most of that call's time.
 */
import { servesManyHookCalls } from "../hookProcess";
import { WorkspaceLedger } from "./workspaceLedger";

/** Workspaces whose ledgers the service keeps at most; the least recently used goes first. */
const MAX_KEPT = 8;
const kept = new Map<string, WorkspaceLedger>();

export function hookLedger(root: string, ledgerPath: string): WorkspaceLedger {
  if (!servesManyHookCalls()) return new WorkspaceLedger(root, ledgerPath, { partial: true });
  const key = `${root}\0${ledgerPath}`;
  let ledger = kept.get(key);
  if (ledger) kept.delete(key);
  else ledger = new WorkspaceLedger(root, ledgerPath, { partial: true, saveAfterBytes: Number.POSITIVE_INFINITY });
  kept.set(key, ledger);
  if (kept.size > MAX_KEPT) {
    const [oldest, gone] = kept.entries().next().value as [string, WorkspaceLedger];
    kept.delete(oldest);
    try {
      gone.flush();
    } catch {
      /* as in saveKeptLedgers */
    }
  }
  return ledger;
}

/**
 * Saves the index of every kept ledger that describes more than its saved copy, after reading what was
 * appended since its last poll (the call's own record among it), so that the next process resumes from
 * the ledger's end.
 */
export async function saveKeptLedgers(): Promise<void> {
  for (const ledger of kept.values()) {
    try {
      await ledger.poll();
      ledger.flush();
    } catch {
      /* a workspace gone or read-only: the next process reads more of the ledger, nothing else */
    }
  }
}
