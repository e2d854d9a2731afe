/**
 * The ledger a hook reads: in a hook's own process, a WorkspaceLedger made for the call, which resumes the
 * workspace's saved index and reads only what was appended since; in the hook service (cli/hookService.ts),
 * one kept per workspace between calls, which follows the file as the editor's does (appends read as they
 * come, a replaced or truncated file read again), so a call reads only what was appended since the last one.
 * A kept ledger's index is saved for other processes when the service is quiet (`saveKeptLedgers`), never
 * during a call: a durable save of a large index would be most of that call's time.
 */
import { LRUCache } from "lru-cache";
import { servesManyHookCalls } from "../hookProcess";
import { WorkspaceLedger } from "./workspaceLedger";

/**
 * The service's ledgers by workspace: the least recently used goes first (eight at most), its index saved
 * on the way out.
 */
const kept = new LRUCache<string, WorkspaceLedger>({
  max: 8,
  dispose: (ledger, _key, reason) => {
    if (reason === "evict") saveIndex(ledger);
  },
});

export function hookLedger(root: string, ledgerPath: string): WorkspaceLedger {
  if (!servesManyHookCalls()) return new WorkspaceLedger(root, ledgerPath, { partial: true });
  const key = `${root}\0${ledgerPath}`;
  let ledger = kept.get(key);
  if (!ledger) {
    ledger = new WorkspaceLedger(root, ledgerPath, { partial: true, saveAfterBytes: Number.POSITIVE_INFINITY });
    kept.set(key, ledger);
  }
  return ledger;
}

function saveIndex(ledger: WorkspaceLedger): void {
  try {
    ledger.flush();
  } catch {
    /* a workspace gone or read-only: the next process reads more of the ledger, nothing else */
  }
}

/**
 * Saves the index of every kept ledger that describes more than its saved copy, after reading what was
 * appended since its last poll (the call's own record among it), so that the next process resumes from
 * the ledger's end.
 */
export async function saveKeptLedgers(): Promise<void> {
  for (const ledger of kept.values()) {
    await ledger.poll().catch(() => undefined);
    saveIndex(ledger);
  }
}
