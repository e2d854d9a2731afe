import { join } from "node:path";
import { workspaceCacheDir } from "../cacheDir";
import { checkOwnRead } from "../ownFiles";
import { sizeOrZero } from "../optionalFile";
import type { TraceEntry, UnreadableLine } from "../../engine/ledger/read";
import type { FollowerOptions, ProgressCallback } from "./follow";
import { LedgerSource, type SettleStep } from "./ledgerSource";
import { newestFirst, newestOf } from "../../engine/ledger/entryOrder";
import { contentHash } from "../../engine/hashing";
import { contentLineCount } from "../../engine/attribution";
import { refreshSealedCopy, SEALED_COPY, SegmentReadError } from "./segments";
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
  /**
   * Save the indexes and make the pin index after the poll that read the ledger has answered, in a task of
   * their own (the editor's server): a first read of a large ledger then reports its end when its answers
   * are ready, not after writing the copy the next process reads. Default false: before the poll answers.
   */
  settleAfter?: boolean;
  /** Summarizes chunks of a large read in other threads (io/ledger/summaryWorkers.ts); default none. */
  summarizer?: FollowerOptions["summarizer"];
}

/**
 * Every ledger of a workspace, followed and indexed: ours (`ledgerPath`, written by intent-lsp and agent
 * hooks) and the reference implementation's. Queries merge both; each keeps its own line numbers so that
 * unreadable lines are reported in the right file. Each ledger's index is saved in the workspace's cache
 * folder and loaded by the next process (the editor's server, a hook, a CLI call), which then reads only
 * what was appended since. A ledger's sealed segments (io/ledger/segments.ts) are indexed from their decoded
 * copy in the cache folder, a source of their own, read before the live file.
 */
export class WorkspaceLedger {
  readonly sources: LedgerSource[];
  private readonly states: LedgerSource[];
  /** Files touched by lines ingested during the current poll. */
  private touched = new Set<string>();
  private wasReset = false;
  private running: Promise<unknown> = Promise.resolve();
  /** Bytes of saved indexes `loadSaved` loaded, which the next poll reports as resumed. */
  private preloaded = 0;
  /** True once every ledger has been read to its end at least once: until then, "no record" proves nothing. */
  indexed = false;
  /** Saves a ledger's index when enough was indexed since, and has its pin index made (LedgerSource.settleSteps). */
  private readonly settle: (s: LedgerSource) => SettleStep[];
  private readonly pinning = new PinningAnswers();
  /** Why sealed segments cannot be read: refused or damaged ones (reported with the unreadable lines). */
  private sealedProblems: { path: string; line: number; message: string }[] = [];
  /** Whether the decoded copy of the segments can be read (the cache folder is usable). */
  private sealedReadable = false;

  constructor(
    readonly root: string,
    readonly ledgerPath: string,
    private readonly opts: WorkspaceLedgerOptions = {},
  ) {
    const saveAfterBytes = opts.saveAfterBytes ?? SAVE_AFTER_BYTES;
    const pins = opts.partial ? "none" : opts.settleAfter ? "steps" : "first-question";
    this.settle = (s) => s.settleSteps(saveAfterBytes, pins);
    // the live ledger stays first: `lastPostHash` and the editor's file events look for it there
    const cacheDir = (create: boolean) => ((opts.cache ?? true) ? workspaceCacheDir(root, { create }) : undefined);
    const onPaths = (paths: Iterable<string>) => {
      for (const p of paths) this.touched.add(p);
    };
    this.states = [ledgerPath, REFERENCE_LEDGER, SEALED_COPY].map(
      (path) =>
        new LedgerSource(root, path, {
          cacheDir,
          partial: opts.partial ?? false,
          onPaths,
          onReset: () => (this.wasReset = true),
          ...(opts.summarizer ? { summarizer: opts.summarizer } : {}),
        }),
    );
    this.sources = this.states;
  }

  /** Reads what was appended to each ledger since the last poll (everything, or since the saved index, the first time). */
  poll(onProgress?: ProgressCallback): Promise<LedgerPoll> {
    // Watcher bursts and the timer may poll at once; one at a time keeps `touched` per poll.
    const next = this.running.then(() => this.pollOnce(onProgress));
    this.running = next.catch(() => undefined);
    return next;
  }

  /**
   * Loads each ledger's saved index, the first thing the first poll does, started before it: a language
   * server starts it as it answers `initialize`, so that the load overlaps the client's round trips
   * (settings, progress) instead of following them. In turn with polls; the next poll reads only what was
   * appended since, and reports the loaded bytes as resumed. Never throws: the poll meets any problem again.
   */
  loadSaved(): Promise<void> {
    const next = this.running.then(async () => {
      this.refreshSealed();
      for (const s of this.readStates()) this.preloaded += await s.loadSavedOnce();
    });
    this.running = next.catch(() => undefined);
    return this.running as Promise<void>;
  }

  /** The bytes of every ledger a poll reads (the decoded copy of the sealed segments made first, as a poll does). */
  ledgerBytes(): number {
    this.refreshSealed();
    return this.readStates().reduce((n, s) => n + sizeOrZero(join(this.root, s.path)), 0);
  }

  /** The ledgers a poll reads: the decoded copy only when the sealed store could be read. */
  private readStates(): LedgerSource[] {
    return this.states.filter((s) => s.path !== SEALED_COPY || this.sealedReadable);
  }

  private async pollOnce(onProgress?: ProgressCallback): Promise<LedgerPoll> {
    this.refreshSealed();
    this.touched = new Set();
    this.wasReset = false;
    let lines = 0;
    let bytesRead = 0;
    let bytesResumed = this.preloaded;
    this.preloaded = 0;
    const states = this.readStates();
    const sizes = states.map((s) => sizeOrZero(join(this.root, s.path)));
    const progressOf = onProgress && overAll(sizes, onProgress);
    for (const [i, s] of states.entries()) {
      bytesResumed += await s.loadSavedOnce();
      checkOwnRead(this.root, s.path); // a ledger linked out of the workspace is never read into answers
      const r = await s.follower.poll(progressOf?.(i));
      lines += r.lines;
      bytesRead += r.bytesRead;
      if (!this.opts.settleAfter) for (const step of this.settle(s)) while (step());
    }
    if (this.opts.settleAfter) this.running = afterAnswer(this.running, states.flatMap(this.settle));
    this.indexed = true;
    const changed = this.wasReset || lines > 0 || bytesResumed > 0;
    return { paths: this.touched, reset: this.wasReset, changed, bytesRead, bytesResumed };
  }

  /** Rebuilds the decoded copy of the sealed segments when they changed (a compaction, a pull, a merge). */
  private refreshSealed(): void {
    const state = sealedState(this.root, this.ledgerPath);
    // a damaged store keeps the copy as it was: the segments it was built from are still the best answer there is
    if (state.readable !== undefined) this.sealedReadable = state.readable;
    this.sealedProblems = state.problems;
  }

  /** Saves each index that describes more of its ledger than its saved copy (a server going away). */
  flush(): void {
    for (const s of this.states) if (s.unsavedBytes > 0) s.save();
  }

  /**
   * Earlier paths git names for a path, when a caller names none (the editor: io/gitSources.ts
   * GitSourcesCache, which answers at once from what git already said).
   */
  gitNames: (path: string) => GitNamed = () => NONE_NAMED;

  entriesFor(path: string): TraceEntry[] {
    // concat, not push(...): a file with a hundred thousand records would overflow the call stack
    const all = this.sources.reduce<TraceEntry[]>((out, s) => out.concat(s.index.entriesFor(path)), []);
    return this.sources.filter((s) => s.index.hasFile(path)).length > 1 ? withoutResealed(all) : all;
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
    const sources = lineageEntries(this, path, own, lines, namedSources);
    if (sources.length) yield newestFirst(sources);
  }

  /** A path's own entries and those of the earlier paths its content comes from (engine/lineage.ts). */
  attributionEntries(
    path: string,
    lines: readonly string[] | undefined,
    namedSources: NamedSources = () => this.gitNames(path),
    knownHash?: string,
  ): TraceEntry[] {
    const own = this.entriesFor(path);
    const sources = lineageEntries(this, path, own, lines, namedSources, knownHash);
    return sources.length ? own.concat(sources) : own;
  }

  /** Paths with a record pinning this content, across the ledgers (remembered until the ledgers change). */
  pathsPinning(hash: string): readonly string[] {
    return this.pinning.get(this.recordCount, hash, () => [...new Set(this.sources.flatMap((s) => s.index.pathsPinning(hash)))]);
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

  /** The newest whole-file hash recorded for `path` in our own ledger, live or sealed (the reference writer records none). */
  lastPostHash(path: string): string | null | undefined {
    const live = this.sources[0]!.index.lastPostHash(path);
    return live !== undefined ? live : this.sources[2]!.index.lastPostHash(path);
  }

  unreadable(): { path: string; lines: readonly UnreadableLine[] }[] {
    const all = this.sources.map((s) => ({ path: s.path, lines: s.index.unreadable }));
    for (const p of this.sealedProblems) all.push({ path: p.path, lines: [{ line: p.line, message: p.message }] });
    return all;
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

/**
 * Entries without the copies of a record that both a segment and the live file hold: a compaction that
 * stopped between writing its segment and cutting the live file, or a merge that brought sealed lines back.
 */
function withoutResealed(entries: readonly TraceEntry[]): TraceEntry[] {
  const seen = new Set<string>();
  return entries.filter((e) => {
    if (!e.recordId) return true;
    const key = `${e.recordId}\u0000${e.path}\u0000${e.startLine}\u0000${e.endLine}\u0000${e.contentHash ?? ""}\u0000${e.timestamp}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The decoded copy of the sealed segments, brought up to date: whether it can be read (undefined when the
 * store could not be read at all), and the segments left out or unreadable, as findings on their lines.
 */
function sealedState(root: string, ledgerPath: string): { readable?: boolean; problems: { path: string; line: number; message: string }[] } {
  try {
    const copy = refreshSealedCopy(root, ledgerPath);
    const problems = (copy?.refused ?? []).map((r) => ({
      path: r.file,
      line: r.line,
      message: `a sealed segment is refused, its lines left out: ${r.message}`,
    }));
    return { readable: copy !== undefined, problems };
  } catch (e) {
    const message = (e as Error).message;
    const at = e instanceof SegmentReadError ? { path: e.file, line: e.line } : { path: ledgerPath, line: 1 };
    return { problems: [{ ...at, message: `the ledger's sealed segments cannot be read: ${message}` }] };
  }
}

/**
 * Progress over several files read one after the other, from each file's own (`read` of its `total` left to read
 * this time): each file's bytes after those of the files before it, of all their `sizes`.
 */
function overAll(sizes: readonly number[], onProgress: ProgressCallback): (file: number) => ProgressCallback {
  const all = sizes.reduce((a, b) => a + b, 0);
  return (file) => {
    const before = sizes.slice(0, file).reduce((a, b) => a + b, 0);
    return (read, total) => onProgress(Math.min(all, before + (sizes[file]! - total) + read), all);
  };
}

/**
 * Runs each step, as often as it asks, in turns of the event loop of their own, after the caller of the poll
 * `running` ends with has taken its answer, before the next poll reads: a million records' save and pin
 * index are fractions of a second the editor answers between. A failure leaves the index to be saved by a
 * later poll.
 */
function afterAnswer(running: Promise<unknown>, steps: SettleStep[]): Promise<unknown> {
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const repeat = async (step: SettleStep) => {
    do await nextTurn();
    while (step());
  };
  return steps.reduce((after, step) => after.then(() => repeat(step)).catch(() => undefined), running);
}

/** `pathsPinning` answers, kept while the ledgers hold the same number of records (at most 1,000 at a time). */
class PinningAnswers {
  private readonly answers = new Map<string, readonly string[]>();
  private stamp = -1;

  get(stamp: number, hash: string, find: () => readonly string[]): readonly string[] {
    if (this.stamp !== stamp) {
      this.answers.clear();
      this.stamp = stamp;
    }
    let paths = this.answers.get(hash);
    if (!paths) {
      paths = find();
      if (this.answers.size > 1000) this.answers.clear();
      this.answers.set(hash, paths);
    }
    return paths;
  }
}

/**
 * The entries of the earlier paths `path`'s content comes from (engine/lineage.ts `sourceEntries`).
 * `knownHash`: the `contentHash` of `lines`, when the caller has it (asked only for a path with no record).
 */
function lineageEntries(
  ledger: Pick<WorkspaceLedger, "entriesFor" | "pathsPinning">,
  path: string,
  own: readonly TraceEntry[],
  lines: readonly string[] | undefined,
  namedSources: NamedSources,
  knownHash?: string,
): TraceEntry[] {
  const current = () => (lines && contentLineCount(lines) > 0 ? (knownHash ?? contentHash(lines)) : undefined);
  const named = typeof namedSources === "function" ? namedSources() : namedSources;
  const records = { entriesFor: (p: string) => ledger.entriesFor(p), pathsPinning: (h: string) => ledger.pathsPinning(h) };
  return sourceEntries(path, own, current, records, named.renamed, named.split, named.versions);
}
