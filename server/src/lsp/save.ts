import type { TraceRecord } from "@shared/agentTrace";
import type { SaveProcessedParams } from "@shared/notifications";
import { RecordGraph, type RecordStep } from "../engine/attribution";
import { isProblem, verdictMessage, type Verdict } from "../engine/gate";
import { fileHash, splitLines } from "../engine/hashing";
import { appendWorkspaceRecord } from "../io/ledger/append";
import { drainPending, keepPending, pendingCount, PENDING_RECORDS, type PendingRecord } from "../io/ledger/pendingRecords";
import { parseLedgerLines } from "../engine/ledger/read";
import { prepareRecord } from "../io/ledger/recordChange";
import { noteLesson } from "../io/lessons";
import { shouldRecord } from "../engine/recordPolicy";
import type { SaveSnapshot } from "./bufferEdits";
import type { TrackedDocument } from "./documents";
import type { WorkspaceContext } from "./workspaceContext";
import { hashYielding, JOIN_SLICE_LINES, needsSlices, pause } from "./yielding";
import { changedSpans } from "../engine/lineChange";
import { findMovedBlocks, type BlockSource, type MovedLines } from "../engine/lineage";

/**
 * On save (docs/ARCHITECTURE.md "Save → ledger append"): one record for exactly the lines changed since the last record (the edit tracker's
 * line change, not a diff guessed afterwards), skipped when the ledger's newest record of the file already
 * pins this exact content (an agent hook recorded it), and a lesson when it landed out of scope. The saved
 * text and its line change are taken when didSave arrives (`TrackedDocument.beginSave`), before typing can
 * move on; the whole-file hashing pauses between slices so that other requests are answered meanwhile; the
 * record is then prepared at once, so hover and CodeLens show it while the append waits for its lock.
 */
export interface PreparedSave {
  path: string;
  text: string;
  /** The record to append; absent when none is due. */
  record?: TraceRecord;
  /** The record that explains the saved text (ours, or the one already in the ledger), for attribution. */
  step?: RecordStep;
  verdict?: Verdict;
}

export function prepareSave(doc: TrackedDocument, snapshot: SaveSnapshot, toolVersion: string, sources: readonly BlockSource[] = []): PreparedSave {
  const { text } = snapshot;
  const { ctx, path } = doc;
  const verdict = doc.verdict();
  if (!ctx || path === undefined || !verdict || !shouldRecord(path, ctx.rules)) return { path: path ?? doc.uri, text };
  const settings = ctx.rules.settings;
  const record = prepareRecord({
    root: ctx.root,
    ledgerPath: settings.ledgerPath,
    path,
    content: text,
    lines: snapshot.lines,
    before: snapshot.before,
    change: snapshot.change,
    ...movedInto(path, snapshot, sources),
    ...(snapshot.untyped.length ? { untyped: snapshot.untyped } : {}),
    verdict,
    contributor: settings.contributor,
    ...(settings.contributor.type === "ai" ? {} : { person: ctx.person() }),
    sessionId: ctx.session.id,
    toolVersion,
    alreadyRecorded: (p, h) => ctx.ledger.lastPostHash(p) === h,
  });
  if ("skip" in record) {
    const step = record.skip === "duplicate" ? RecordGraph.of(ctx.ledger.entriesFor(path)).newestPinning(fileHash(text)) : undefined;
    return { path, text, ...(step ? { step } : {}), verdict };
  }
  return { path, text, record, step: RecordGraph.of(parseLedgerLines(JSON.stringify(record), 0).entries).newest(), verdict };
}

/** Blocks of the save's new lines found in other open files' recorded content: cut or copied there (lineage.ts). */
function movedInto(path: string, snapshot: SaveSnapshot, sources: readonly BlockSource[]): { movedIn?: MovedLines[] } {
  if (!sources.length) return {};
  // its hash names no record: blocks found in the file itself are dropped, never recorded as moved in
  const own = { path, hash: "", lines: splitLines(snapshot.before) };
  const movedIn = findMovedBlocks(snapshot.lines, changedSpans(snapshot.change), sources, own);
  return movedIn.length ? { movedIn } : {};
}

/**
 * Appends the workspace's save records in order. A record that cannot be written (a read-only ledger, a
 * full disk) is kept on disk (`io/ledger/pendingRecords.ts`) and written before the next one, on a timer,
 * or when a server next starts in this workspace: the editor's save itself has happened, and the ledger must
 * not lose it or reorder it. Only when that file cannot be written either does a record wait in memory.
 */
export class SaveRecorder {
  /** Records not yet on disk anywhere, each with the ledger it was meant for (workspace-relative). */
  private readonly pending: PendingRecord[] = [];
  private running: Promise<unknown> = Promise.resolve();
  /** Why the last records could not be kept on disk (undefined: they were, or none had to be). */
  private keepError: string | undefined;

  constructor(private readonly ctx: WorkspaceContext) {}

  /** Records the ledger could not take yet: kept on disk, and in memory only (lost if the server ends). */
  kept(): { onDisk: number; inMemory: number; why?: string } {
    return { onDisk: pendingCount(this.ctx.root), inMemory: this.pending.length, ...(this.keepError ? { why: this.keepError } : {}) };
  }

  /**
   * Appends `save.record` unless the ledger's newest record of the file pins the same content by now (an
   * agent hook that recorded this very write a moment ago): then false. `poll` reads the ledger first.
   */
  async write(save: PreparedSave, poll: () => Promise<void>): Promise<boolean> {
    const record = save.record!;
    await poll();
    const postHash = record.metadata?.["dev.intent-lsp"]?.post_hash;
    if (postHash && this.ctx.ledger.lastPostHash(save.path) === postHash) return false;
    this.pending.push({ ledgerPath: this.ctx.ledger.ledgerPath, record });
    await this.flush();
    const v = save.verdict;
    if (v && isProblem(v) && v.kind === "out-of-scope") {
      noteLesson(this.ctx.root, { path: save.path, intentId: v.intent.id, text: `saved outside the scope of ${v.intent.id}. ${verdictMessage(save.path, v)}` });
    }
    return true;
  }

  /**
   * Writes what is waiting, oldest first (the kept file, then this server's own); how many it wrote. Throws
   * when the ledger cannot be written, after keeping the rest on disk where it can.
   */
  flush(): Promise<number> {
    const run = this.running.then(async () => {
      const root = this.ctx.root;
      try {
        let written = await drainPending(root);
        while (this.pending.length) {
          const { ledgerPath, record } = this.pending[0]!;
          await appendWorkspaceRecord(root, ledgerPath, record);
          this.pending.shift();
          written++;
        }
        return written;
      } catch (err) {
        this.keep();
        throw err;
      }
    });
    this.running = run.catch(() => undefined);
    return run;
  }

  /** Moves the records waiting in memory to the kept file, in order; they stay in memory if it cannot be written. */
  private keep(): void {
    if (!this.pending.length) return;
    try {
      keepPending(this.ctx.root, this.pending);
      this.pending.length = 0;
      this.keepError = undefined;
    } catch (err) {
      this.keepError = (err as Error).message;
    }
  }
}

/** What the user is told about a record kept after a failed write: where it waits, and whether it survives quitting. */
export function keptMessage(kept: { onDisk: number; inMemory: number; why?: string }): string {
  if (kept.inMemory === 0)
    return `the record is kept in ${PENDING_RECORDS} and written to the ledger as soon as it can be written (at the latest when intent-lsp next starts here).`;
  return `the record could not be kept on disk either (${PENDING_RECORDS}: ${kept.why ?? "not writable"}; is all of .orchestration/ read-only?): it is held in memory only and is lost if the editor quits before the ledger can be written. Make .orchestration/ writable to keep it.`;
}

/** What handling a save needs from the rest of the server. */
export interface SaveHost {
  /** Reads the workspace's ledger (and re-attributes what it brings). */
  poll(ctx: WorkspaceContext): Promise<void>;
  /** The document's diagnostics are due again. */
  schedule(uri: string): void;
  /** After the save: whole-file findings, the session's unsaved files, lenses; resolves once the saved lines' findings are in place. */
  settled(doc: TrackedDocument): Promise<void>;
  /** The save has been handled (`intent/saveProcessed`). */
  processed(params: SaveProcessedParams): void;
  /** Other open files' recorded contents a block pasted into `doc` may come from. */
  blockSources?(doc: TrackedDocument): BlockSource[];
  /** Tell the user (and the log). */
  error(message: string): void;
  log(message: string): void;
}

/**
 * didSave: record (from the text taken when didSave arrived, so typing cannot move it), carry the document's
 * owners over the record, append it in order, read the ledger back, and say it is done.
 */
export class SaveHandler {
  private readonly recorders = new Map<WorkspaceContext, SaveRecorder>();
  private readonly flushing = new Set<WorkspaceContext>();
  /** Saves are handled one after another, in the order they arrived: one record each, in order. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly host: SaveHost,
    private readonly toolVersion: string,
  ) {}

  saved(doc: TrackedDocument): void {
    const { uri } = doc;
    const version = doc.doc.version;
    // the saved text, taken now: what is typed from here on is not part of this save
    doc.beforeSave();
    const snapshot = doc.beginSave();
    const done = this.queue.then(() => this.record(doc, snapshot));
    this.queue = done.then(
      (recordId) => this.host.processed({ uri, version, recordId }),
      (err: unknown) => {
        this.host.log(`intent-lsp: handling the save of ${doc.path ?? uri} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        this.host.processed({ uri, version, recordId: null });
      },
    );
  }

  /** Records a save and carries the document's owners over it; the record's id, or null. */
  private async record(doc: TrackedDocument, snapshot: SaveSnapshot): Promise<string | null> {
    let save: PreparedSave | undefined;
    // a large file: messages that arrived with the didSave first; then the saved text joined, and the
    // whole-file hashes the record needs, in slices with pauses between them: other requests and keystrokes
    // are handled meanwhile (the snapshot does not move), and the hashes are remembered for what follows. A
    // smaller one is prepared before the next message is handled, so that what is asked right after the
    // didSave sees the save.
    if (needsSlices(snapshot.length + snapshot.before.length)) {
      await pause();
      await snapshot.prepare(JOIN_SLICE_LINES, pause);
    }
    await hashYielding(snapshot.text);
    await hashYielding(snapshot.before);
    try {
      save = prepareSave(doc, snapshot, this.toolVersion, this.host.blockSources?.(doc) ?? []);
    } catch (err) {
      this.host.error(`intent-lsp could not record the save of ${doc.path}: ${(err as Error).message}`);
    }
    // the saved text is the new baseline; edits made since it was taken stay edits
    doc.saved(snapshot, save?.step, save?.record?.id);
    this.host.schedule(doc.uri);
    const { ctx } = doc;
    if (!ctx || doc.path === undefined) return null;
    let recordId: string | null = null;
    if (save?.record) {
      try {
        const written = await this.recorderOf(ctx).write(save, () => this.host.poll(ctx));
        doc.ownRecordLanded(doc.ledgerEntries(), written);
        if (written) recordId = save.record.id;
        else doc.ledgerChanged(doc.ledgerEntries(), true); // an agent's hook recorded this very content: its record explains it
      } catch (err) {
        this.host.error(
          `intent-lsp could not write the record of ${save.path} to the ledger ${ctx.ledger.ledgerPath} (${(err as Error).message}). Your file was saved; ${keptMessage(this.recorderOf(ctx).kept())}`,
        );
      }
    }
    await this.host.poll(ctx);
    await this.host.settled(doc);
    return recordId;
  }

  /**
   * Save records the ledger could not take earlier (read-only, disk full) are written once it can: this
   * server's own, and those kept on disk by any server before (at start, a server writes what an earlier
   * one left). Called on the ledger's poll timer.
   */
  flush(ctxs: readonly WorkspaceContext[]): void {
    for (const ctx of ctxs) {
      const recorder = this.recorders.get(ctx);
      if (!recorder?.kept().inMemory && !pendingCount(ctx.root)) continue;
      if (this.flushing.has(ctx)) continue;
      this.flushing.add(ctx);
      this.recorderOf(ctx)
        .flush()
        .then(
          (written) => {
            if (!written) return; // a save's own write got there first
            this.host.log(`intent-lsp: wrote ${written} save record(s) to ${ctx.ledger.ledgerPath} that could not be written earlier`);
            void this.host.poll(ctx);
          },
          () => undefined, // still not writable; the user was told when the save happened
        )
        .finally(() => this.flushing.delete(ctx));
    }
  }

  /** At shutdown: what is still waiting for a ledger, said once (undefined: nothing). */
  shutdownMessage(ctxs: readonly WorkspaceContext[]): string | undefined {
    const parts: string[] = [];
    for (const ctx of ctxs) {
      const kept = this.recorders.get(ctx)?.kept() ?? { onDisk: pendingCount(ctx.root), inMemory: 0 };
      if (kept.onDisk)
        parts.push(
          `${kept.onDisk} save record(s) for ${ctx.ledger.ledgerPath} in ${ctx.root} wait in ${PENDING_RECORDS}; they are written when intent-lsp next starts there and the ledger can be written`,
        );
      if (kept.inMemory)
        parts.push(
          `${kept.inMemory} save record(s) for ${ctx.ledger.ledgerPath} in ${ctx.root} could not be kept on disk (${kept.why ?? "not writable"}) and are lost now`,
        );
    }
    return parts.length ? `intent-lsp is shutting down with save records the ledger could not take: ${parts.join("; ")}.` : undefined;
  }

  /**
   * A record that is no save (the editor's file rename: `fileRenames.ts`), appended in order with the saves;
   * resolves once it is written and read back (false: it could not be written, and the user was told).
   */
  recordOther(ctx: WorkspaceContext, save: PreparedSave): Promise<boolean> {
    const done = this.queue.then(async () => {
      try {
        return await this.recorderOf(ctx).write(save, () => this.host.poll(ctx));
      } catch (err) {
        this.host.error(
          `intent-lsp could not write the record of ${save.path} to the ledger ${ctx.ledger.ledgerPath} (${(err as Error).message}); ${keptMessage(this.recorderOf(ctx).kept())}`,
        );
        return false;
      }
    });
    this.queue = done.catch(() => undefined);
    return done.then(async (written) => {
      await this.host.poll(ctx);
      return written;
    });
  }

  private recorderOf(ctx: WorkspaceContext): SaveRecorder {
    let r = this.recorders.get(ctx);
    if (!r) {
      r = new SaveRecorder(ctx);
      this.recorders.set(ctx, r);
    }
    return r;
  }
}
