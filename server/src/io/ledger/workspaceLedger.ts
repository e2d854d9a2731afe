import { join } from "node:path";
import { workspaceCacheDir } from "../cacheDir";
import { checkOwnRead } from "../ownFiles";
import type { TraceEntry, UnreadableLine } from "../../engine/ledger/read";
import { LedgerFollower, type ProgressCallback } from "./follow";
import { LedgerIndex } from "../../engine/ledger/index";
import { newestFirst, newestOf } from "../../engine/ledger/entryOrder";
import { CHECK_BYTES, loadIndex, saveIndex } from "./indexFile";
import { FileRecordLines } from "./fileRecordLines";
import { contentHash } from "../../engine/hashing";
import { contentLineCount } from "../../engine/attribution";
import { sourceEntries, type GitNamed } from "../../engine/lineage";

/**
 * Earlier paths a path's content comes from that no record names (git's renames and splits: io/gitSources.ts),
 * or how to ask for them: asked only once the path's own records leave lines unexplained.
 */
export type NamedSources = GitNamed | (() => GitNamed);

const NONE_NAMED: GitNamed = { renamed: [], split: [] };

/** Where the Agent Trace reference implementation writes (docs/LEDGER.md); read alongside our own ledger. */
export const REFERENCE_LEDGER = ".agent-trace/traces.jsonl";

/** The index is saved once this many bytes were indexed since it was last saved or loaded. */
export const SAVE_AFTER_BYTES = 256 * 1024;

export interface LedgerSource {
  /** Workspace-relative path of the ledger file. */
  path: string;
  index: LedgerIndex;
  follower: LedgerFollower;
}

interface SourceState extends LedgerSource {
  /** The ledger's first bytes and the last indexed ones, which tie a saved index to the ledger. */
  head: Buffer;
  tail: Buffer;
  /** Offset up to which the saved index (loaded or written) describes the ledger. */
  saved: number;
  loadTried: boolean;
}

export interface LedgerPoll {
  /** Workspace paths that gained entries (or everything was reloaded: `reset`). */
  paths: Set<string>;
  reset: boolean;
  changed: boolean;
  /** Ledger bytes read and indexed by this poll (a saved index's part is not read). */
  bytesRead: number;
  /** Bytes of the ledgers taken from saved indexes by this poll instead of being read. */
  bytesResumed: number;
}

export interface WorkspaceLedgerOptions {
  /** Load and save the index in the workspace's cache folder (default true). */
  cache?: boolean;
  /** Save after this many newly indexed bytes (default SAVE_AFTER_BYTES). */
  saveAfterBytes?: number;
  /**
   * Read of the saved index only what queries ask for (a hook asks about one file); default false: all of
   * it, checked, for processes that ask about many files.
   */
  partial?: boolean;
}

/**
 * Every ledger of a workspace, followed and indexed: ours (`ledgerPath`, written by intent-lsp and agent
 * hooks) and the reference implementation's. Queries merge both; each keeps its own line numbers so that
 * unreadable lines are reported in the right file. Each ledger's index is saved in the workspace's cache
 * folder and loaded by the next process (the editor's server, a hook, a CLI call), which then reads only
 * what was appended since.
 */
export class WorkspaceLedger {
  readonly sources: LedgerSource[];
  private readonly states: SourceState[];
  /** Files touched by lines ingested during the current poll. */
  private touched = new Set<string>();
  private wasReset = false;
  private running: Promise<unknown> = Promise.resolve();
  /** True once every ledger has been read to its end at least once: until then, "no record" proves nothing. */
  indexed = false;
  private readonly cache: boolean;
  private readonly saveAfterBytes: number;
  private readonly partial: boolean;
  /** `pathsPinning` answers, valid while the ledgers hold `pinningStamp` records. */
  private readonly pinning = new Map<string, readonly string[]>();
  private pinningStamp = -1;

  constructor(
    readonly root: string,
    readonly ledgerPath: string,
    opts: WorkspaceLedgerOptions = {},
  ) {
    this.cache = opts.cache ?? true;
    this.saveAfterBytes = opts.saveAfterBytes ?? SAVE_AFTER_BYTES;
    this.partial = opts.partial ?? false;
    this.states = [ledgerPath, REFERENCE_LEDGER].map((path) => {
      const file = join(root, path);
      let follower: LedgerFollower | undefined;
      const index = new LedgerIndex(new FileRecordLines(file, () => follower?.fileIdentity));
      const state: SourceState = {
        path,
        index,
        follower: undefined as unknown as LedgerFollower,
        head: Buffer.alloc(0),
        tail: Buffer.alloc(0),
        saved: 0,
        loadTried: false,
      };
      follower = new LedgerFollower(file, {
        ingestBytes: (chunk: Buffer, offset: number, first: number) => {
          if (offset < CHECK_BYTES) state.head = Buffer.concat([state.head, chunk.subarray(0, CHECK_BYTES - offset)]);
          state.tail = lastBytes(state.tail, chunk);
          for (const p of index.ingestBytes(chunk, offset, first).paths) this.touched.add(p);
        },
        reset: () => {
          index.reset();
          state.head = Buffer.alloc(0);
          state.tail = Buffer.alloc(0);
          state.saved = 0;
          this.wasReset = true;
        },
      });
      state.follower = follower;
      return state;
    });
    this.sources = this.states;
  }

  get file(): string {
    return join(this.root, this.ledgerPath);
  }

  /** Reads what was appended to each ledger since the last poll (everything, or since the saved index, the first time). */
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
    let bytesRead = 0;
    let bytesResumed = 0;
    for (const s of this.states) {
      if (!s.loadTried) {
        s.loadTried = true;
        bytesResumed += await this.loadSaved(s);
      }
      checkOwnRead(this.root, s.path); // a ledger linked out of the workspace is never read into answers
      const r = await s.follower.poll(onProgress);
      lines += r.lines;
      bytesRead += r.bytesRead;
      if (s.follower.offset - s.saved >= this.saveAfterBytes) this.save(s);
    }
    // the pass that indexes records by the content they pin runs here, not in the first hover that asks
    if (!this.partial) for (const s of this.states) s.index.preparePins();
    this.indexed = true;
    const changed = this.wasReset || lines > 0 || bytesResumed > 0;
    return { paths: this.touched, reset: this.wasReset, changed, bytesRead, bytesResumed };
  }

  /** Starts from the saved index when it still describes the ledger; the bytes it covers. */
  private async loadSaved(s: SourceState): Promise<number> {
    const dir = this.cache ? workspaceCacheDir(this.root, { create: false }) : undefined;
    if (!dir) return 0;
    const loaded = await loadIndex(dir, s.path, join(this.root, s.path), { partial: this.partial });
    if ("problem" in loaded) return 0;
    s.index.restore(loaded.state);
    s.follower.resume(loaded.at.indexed, loaded.at.nextLine, loaded.identity, loaded.at.tail);
    s.head = loaded.at.head;
    s.tail = loaded.at.tail;
    s.saved = loaded.at.indexed;
    return loaded.at.indexed;
  }

  private save(s: SourceState): void {
    const dir = this.cache ? workspaceCacheDir(this.root, { create: true }) : undefined;
    if (!dir) return;
    const at = { ledger: s.path, indexed: s.follower.offset, nextLine: s.follower.nextLine, head: s.head, tail: s.tail };
    if (saveIndex(this.root, () => s.index.state(), at)) s.saved = at.indexed;
  }

  /** Saves each index that describes more of its ledger than its saved copy (a server going away). */
  flush(): void {
    for (const s of this.states) if (s.follower.offset > s.saved) this.save(s);
  }

  /**
   * Earlier paths git names for a path, when a caller names none (the editor: io/gitSources.ts
   * GitSourcesCache, which answers at once from what git already said).
   */
  gitNames: (path: string) => GitNamed = () => NONE_NAMED;

  entriesFor(path: string): TraceEntry[] {
    // concat, not push(...): a file with a hundred thousand records would overflow the call stack
    return this.sources.reduce<TraceEntry[]>((out, s) => out.concat(s.index.entriesFor(path)), []);
  }

  /** A file's entries newest first, in growing batches (see LedgerIndex.entryBatches), across the ledgers. */
  *entryBatches(path: string): Generator<readonly TraceEntry[]> {
    const holding = this.sources.filter((s) => s.index.hasFile(path));
    if (holding.length === 1) {
      yield* holding[0]!.index.entryBatches(path);
      return;
    }
    // in both ledgers (rare): one batch, ordered as attribution orders them
    if (holding.length > 1) yield newestFirst(this.entriesFor(path));
  }

  /**
   * `entryBatches`, then the entries of the earlier paths the content comes from (renames, moves, copies:
   * engine/lineage.ts), once the path's own records have all been read. `lines`: the content at hand.
   */
  *attributionBatches(
    path: string,
    lines: readonly string[] | undefined,
    namedSources: NamedSources = () => this.gitNames(path),
  ): Generator<readonly TraceEntry[]> {
    const own: TraceEntry[] = [];
    for (const batch of this.entryBatches(path)) {
      for (const e of batch) own.push(e);
      yield batch;
    }
    const sources = this.sourceEntries(path, own, lines, namedSources);
    if (sources.length) yield newestFirst(sources);
  }

  /** A path's own entries and those of the earlier paths its content comes from (engine/lineage.ts). */
  attributionEntries(path: string, lines: readonly string[] | undefined, namedSources: NamedSources = () => this.gitNames(path)): TraceEntry[] {
    const own = this.entriesFor(path);
    const sources = this.sourceEntries(path, own, lines, namedSources);
    return sources.length ? own.concat(sources) : own;
  }

  private sourceEntries(path: string, own: readonly TraceEntry[], lines: readonly string[] | undefined, namedSources: NamedSources): TraceEntry[] {
    const current = lines && contentLineCount(lines) > 0 ? contentHash(lines) : undefined;
    const named = typeof namedSources === "function" ? namedSources() : namedSources;
    const records = { entriesFor: (p: string) => this.entriesFor(p), pathsPinning: (h: string) => this.pathsPinning(h) };
    return sourceEntries(path, own, current, records, named.renamed, named.split);
  }

  /** Paths with a record pinning this content, across the ledgers (remembered until the ledgers change). */
  pathsPinning(hash: string): readonly string[] {
    const stamp = this.recordCount;
    if (this.pinningStamp !== stamp) {
      this.pinning.clear();
      this.pinningStamp = stamp;
    }
    let paths = this.pinning.get(hash);
    if (!paths) {
      paths = [...new Set(this.sources.flatMap((s) => s.index.pathsPinning(hash)))];
      if (this.pinning.size > 1000) this.pinning.clear();
      this.pinning.set(hash, paths);
    }
    return paths;
  }

  /** Every path any ledger holds a record of. */
  files(): string[] {
    return [...new Set(this.sources.flatMap((s) => s.index.files()))];
  }

  /** Whether any ledger holds a record of `path`. */
  hasFile(path: string): boolean {
    return this.sources.some((s) => s.index.hasFile(path));
  }

  hasPostHash(path: string, hash: string): boolean {
    return this.sources.some((s) => s.index.hasPostHash(path, hash));
  }

  /** The newest whole-file hash recorded for `path` in our own ledger (the reference writer records none). */
  lastPostHash(path: string): string | null | undefined {
    return this.sources[0]!.index.lastPostHash(path);
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
    return newestOf(all);
  }
}

/** The last CHECK_BYTES of `before` followed by `chunk`. */
function lastBytes(before: Buffer, chunk: Buffer): Buffer {
  if (chunk.length >= CHECK_BYTES) return Buffer.from(chunk.subarray(chunk.length - CHECK_BYTES));
  const joined = Buffer.concat([before, chunk]);
  return joined.length > CHECK_BYTES ? joined.subarray(joined.length - CHECK_BYTES) : joined;
}
