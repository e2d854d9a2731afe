import { join } from "node:path";
import type { TraceEntry, UnreadableLine } from "./read";
import { LedgerFollower, type ProgressCallback } from "./follow";
import { LedgerIndex } from "./index";

/** Where the Agent Trace reference implementation writes (DESIGN §2.2); read alongside our own ledger. */
export const REFERENCE_LEDGER = ".agent-trace/traces.jsonl";

export interface LedgerSource {
  /** Workspace-relative path of the ledger file. */
  path: string;
  index: LedgerIndex;
  follower: LedgerFollower;
}

export interface LedgerPoll {
  /** Workspace paths that gained entries (or everything was reloaded: `reset`). */
  paths: Set<string>;
  reset: boolean;
  changed: boolean;
}

/**
 * Every ledger of a workspace, followed and indexed: ours (`ledgerPath`, written by intent-lsp and agent
 * hooks) and the reference implementation's. Queries merge both; each keeps its own line numbers so that
 * unreadable lines are reported in the right file.
 */
export class WorkspaceLedger {
  readonly sources: LedgerSource[];
  /** Files touched by lines ingested during the current poll. */
  private touched = new Set<string>();
  private wasReset = false;
  private running: Promise<unknown> = Promise.resolve();
  /** True once every ledger has been read to its end at least once: until then, "no record" proves nothing. */
  indexed = false;

  constructor(
    readonly root: string,
    readonly ledgerPath: string,
  ) {
    this.sources = [ledgerPath, REFERENCE_LEDGER].map((path) => {
      const index = new LedgerIndex();
      const sink = {
        ingest: (text: string, first: number) => index.ingest(text, first).paths.forEach((p) => this.touched.add(p)),
        reset: () => {
          index.reset();
          this.wasReset = true;
        },
      };
      return { path, index, follower: new LedgerFollower(join(root, path), sink) };
    });
  }

  get file(): string {
    return join(this.root, this.ledgerPath);
  }

  /** Reads what was appended to each ledger since the last poll (everything, the first time). */
  poll(onProgress?: ProgressCallback): Promise<LedgerPoll> {
    // Watcher bursts and the timer may poll at once; one at a time keeps `touched` per poll.
    const next = this.running.then(() => this.pollOnce(onProgress));
    this.running = next.catch(() => undefined);
    return next;
  }

  private async pollOnce(onProgress?: ProgressCallback): Promise<LedgerPoll> {
    this.touched = new Set();
    this.wasReset = false;
    let lines = 0;
    for (const source of this.sources) lines += (await source.follower.poll(onProgress)).lines;
    this.indexed = true;
    return { paths: this.touched, reset: this.wasReset, changed: this.wasReset || lines > 0 };
  }

  entriesFor(path: string): TraceEntry[] {
    const out: TraceEntry[] = [];
    for (const s of this.sources) out.push(...s.index.entriesFor(path));
    return out;
  }

  hasPostHash(path: string, hash: string): boolean {
    return this.sources.some((s) => s.index.hasPostHash(path, hash));
  }

  /** The newest whole-file hash recorded for `path` in our own ledger (the reference writer records none). */
  lastPostHash(path: string): string | null | undefined {
    return this.sources[0].index.lastPostHash(path);
  }

  unreadable(): { path: string; lines: readonly UnreadableLine[] }[] {
    return this.sources.map((s) => ({ path: s.path, lines: s.index.unreadable }));
  }

  get recordCount(): number {
    return this.sources.reduce((n, s) => n + s.index.recordCount, 0);
  }

  filesFor(intentId: string): string[] {
    return [...new Set(this.sources.flatMap((s) => s.index.filesFor(intentId)))];
  }

  editCount(intentId: string): number {
    return this.sources.reduce((n, s) => n + s.index.editCount(intentId), 0);
  }

  lastChange(intentId: string): TraceEntry | undefined {
    const all = this.sources.map((s) => s.index.lastChange(intentId)).filter((e): e is TraceEntry => !!e);
    return all.sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp))[0];
  }
}
