/**
 * Whether this process is the hook service (cli/hookService.ts), which answers many hook calls: then what a
 * call loads for a workspace (its ledger's index, its parsed catalogue) is kept for the next call, each
 * checked against the files it stands for as a fresh process checks its caches on disk. In a hook's own
 * process, which answers one call, nothing is kept.
 */
let serving = false;

export function serveManyHookCalls(): void {
  serving = true;
}

export function servesManyHookCalls(): boolean {
  return serving;
}
