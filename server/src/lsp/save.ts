import type { TraceRecord } from "@shared/agentTrace";
import { RecordGraph, type RecordStep } from "../engine/attribution";
import { isProblem, verdictMessage, type Verdict } from "../engine/gate";
import { fileHash } from "../engine/hashing";
import { appendRecord } from "../engine/ledger/append";
import { parseLedgerLines } from "../engine/ledger/read";
import { prepareRecord } from "../engine/ledger/recordChange";
import { noteLesson } from "../engine/lessons";
import { shouldRecord } from "../engine/recordPolicy";
import type { TrackedDocument } from "./documents";
import type { WorkspaceContext } from "./workspaceContext";

/**
 * On save (DESIGN §4): one record for exactly the lines changed since the last record (the edit tracker's
 * line change, not a diff guessed afterwards), skipped when the ledger's newest record of the file already
 * pins this exact content (an agent hook recorded it), and a lesson when it landed out of scope. Prepared
 * synchronously when didSave arrives — before any await lets typing move on — so hover and CodeLens show it
 * while the append waits for its lock.
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

export function prepareSave(doc: TrackedDocument, toolVersion: string): PreparedSave {
  const text = doc.doc.getText();
  const { ctx, path } = doc;
  const verdict = doc.verdict();
  if (!ctx || path === undefined || !verdict || !shouldRecord(path, ctx.rules)) return { path: path ?? doc.uri, text };
  const settings = ctx.rules.settings;
  const record = prepareRecord({
    root: ctx.root,
    ledgerPath: settings.ledgerPath,
    path,
    content: text,
    before: doc.baseline,
    change: doc.lineChange(text),
    verdict,
    contributor: settings.contributor,
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

/**
 * Appends the workspace's save records in order. A record that cannot be written (a read-only
 * `.orchestration/`, a full disk) is kept and written before the next one, or when `flush` is called on a
 * timer: the editor's save itself has happened, and the ledger must not lose it or reorder it.
 */
export class SaveRecorder {
  private readonly pending: { file: string; record: TraceRecord }[] = [];
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly ctx: WorkspaceContext) {}

  get waiting(): number {
    return this.pending.length;
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
    this.pending.push({ file: this.ctx.ledger.file, record });
    await this.flush();
    const v = save.verdict;
    if (v && isProblem(v) && v.kind === "out-of-scope") {
      noteLesson(this.ctx.root, { path: save.path, intentId: v.intent.id, text: `saved outside the scope of ${v.intent.id}. ${verdictMessage(save.path, v)}` });
    }
    return true;
  }

  /** Writes what is waiting, oldest first; throws (keeping the rest) when the ledger cannot be written. */
  flush(): Promise<void> {
    const run = this.running.then(async () => {
      while (this.pending.length) {
        const { file, record } = this.pending[0]!;
        await appendRecord(file, record);
        this.pending.shift();
      }
    });
    this.running = run.catch(() => undefined);
    return run;
  }
}
