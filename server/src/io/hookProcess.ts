import type { LRUCache } from "lru-cache";

/**
 * Whether this process is the hook service (cli/hookService.ts), which answers many hook calls: then what a
 * call loads for a workspace (its ledger's index, its parsed catalogue, its gate rules) is kept for the next call, each
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

/**
 * What the service keeps per workspace between calls, each value under the inputs it was made from (the text of
 * the files it was read from): `get` gives the kept value only for the same inputs (`same`), else makes it
 * again and keeps that. Eight workspaces at most, the least recently used going first. In a hook's own
 * process nothing is kept, and lru-cache is never loaded.
 */
export class KeptPerWorkspace<I, V> {
  private kept: LRUCache<string, { inputs: I; value: V }> | undefined;

  constructor(private readonly same: (a: I, b: I) => boolean) {}

  get(root: string, inputs: I, make: () => V): V {
    const mem = this.kept?.get(root);
    if (mem && this.same(mem.inputs, inputs)) return mem.value;
    const value = make();
    if (serving) {
      // required here: a hook's own process, on every tool call, does not load it
      this.kept ??= new (require("lru-cache") as typeof import("lru-cache")).LRUCache({ max: 8 });
      this.kept.set(root, { inputs, value });
    }
    return value;
  }
}
