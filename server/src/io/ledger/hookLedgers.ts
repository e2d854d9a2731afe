/**
 * The ledger a hook reads: in a hook's own process, a WorkspaceLedger made for the call, which resumes the
 * workspace's saved index and reads only what was appended since; in the hook service (cli/hookService.ts),
 * one kept per workspace between calls, which follows the file as the editor's does (appends read as they
 * come, a replaced or truncated file read again), so a call reads only what was appended since the last one.
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
  else ledger = new WorkspaceLedger(root, ledgerPath, { partial: true });
  kept.set(key, ledger);
  if (kept.size > MAX_KEPT) {
    const [oldest, gone] = kept.entries().next().value as [string, WorkspaceLedger];
    gone.flush();
    kept.delete(oldest);
  }
  return ledger;
}
