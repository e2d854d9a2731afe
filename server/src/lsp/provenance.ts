import { applyStep, attribute, RecordGraph, type Attributions, type RecordStep } from "../engine/attribution";
import { EditedLines, type EditedLinesSnapshot } from "../engine/editedLines";
import { fileHash, splitLines } from "../engine/hashing";
import type { TraceEntry } from "../engine/ledger/read";
import type { BufferEdits, SaveSnapshot } from "./bufferEdits";
import type { BaselineContent, DocumentBaseline } from "./documentBaseline";
import type { DocumentDisk } from "./documentDisk";
import type { DocumentFindings } from "./documentFindings";
import { entryKey, type DocumentLedger } from "./documentLedger";
import { TentativeReload } from "./tentativeReload";
import type { UntypedSpan } from "../engine/untypedLines";
import type { LineOwners } from "./lineOwners";
import type { TextBuffer } from "./textBuffer";

/** Why the baseline's owners must come from the ledger when it has more to say. */
type Awaiting =
  /**
   * not known yet: the ledger is still being read. `from`: the content whose owners the ledger will tell;
   * `steps`: our own saves since, to carry those owners over once known.
   */
  | { kind: "index"; from: readonly string[]; steps: RecordStep[] }
  /** the editor reloaded content no record pins yet (an agent's hook is about to record it) */
  | { kind: "record"; prior: Attributions | undefined; priorHash: string };

/** An open document's state before a tentative reload, to go back to when it was our own save. */
interface ReloadState {
  baseline: BaselineContent;
  attributions: Attributions | undefined;
  awaiting: Awaiting | undefined;
  edits: EditedLinesSnapshot;
  /** The lines the client said the person did not type (engine/untypedLines.ts). */
  untyped: readonly UntypedSpan[];
}

/** The parts of an open document its provenance reads and moves. */
export interface DocumentParts {
  readonly buffer: TextBuffer;
  readonly baseline: DocumentBaseline;
  readonly tracking: BufferEdits;
  readonly disk: DocumentDisk;
  readonly owners: LineOwners;
  readonly findings: DocumentFindings;
}

/**
 * Who wrote each line of an open document, carried forward (docs/ATTRIBUTION.md): the baseline's
 * owners move with every edit (`tracking.edits` maps current lines to baseline lines), and a save makes its
 * own record the owner of exactly the lines it changed. Whenever the buffer is the file on disk (unedited, no
 * save of ours still on its way to the ledger), its owners are the ledger's answer for that content
 * (`attribute`, the function `intent blame` uses): at open, at a reload, and whenever the ledger changes, so
 * that hover and blame agree whatever order the reload, the record, the save and the file events arrive in.
 * Never per keystroke.
 */
export class Provenance {
  private awaiting: Awaiting | undefined;
  /** Records of this file already accounted for, so that only news is looked at. */
  private readonly knownRecords = new KnownRecords();
  /** A reload that may have been this editor's own save (see `detectReload`), with the state to go back to. */
  private readonly tentative: TentativeReload<ReloadState>;
  /**
   * The id of the record of our save that made the baseline, until the ledger's index holds it: until then
   * the ledger cannot tell the baseline's owners (the record being in the file is not enough; the index must
   * have read it). The document reads it too: the content it names is recorded, on its way in.
   */
  ownRecordDue: string | undefined;
  /** The ledger changed while `ownRecordDue`: its answer is taken once the record has landed. */
  private ledgerChangedMeanwhile = false;

  constructor(
    private readonly parts: DocumentParts,
    private readonly ledger: DocumentLedger,
  ) {
    this.awaiting = { kind: "index", from: parts.baseline.lines, steps: [] };
    this.tentative = new TentativeReload(ledger);
  }

  /** Typing on: whatever a tentative reload was, the buffer now builds on it. */
  typing(): void {
    this.tentative.drop();
  }

  /**
   * The buffer now holds exactly what another writer put on disk: it was reloaded, whatever it held before
   * (an editor reloads one hunk per change, so the first hunks look like typing until the last one lands).
   * Content a record of another writer pins is a reload for certain. Otherwise it may be this editor's own
   * save that reached the disk before we processed the change that produced it (format-on-save does this):
   * it is a reload tentatively, until the didSave of that very content says it was our own save after all
   * (see `beforeSave`), or typing on, or another writer's record for the file, says it was a reload.
   */
  detectReload(): boolean {
    const { buffer, baseline, disk: onDisk, owners, tracking } = this.parts;
    const disk = onDisk.text;
    if (!onDisk.external || disk === undefined) return false;
    if (buffer.length !== disk.length || buffer.getText() !== disk) return false;
    const before = {
      baseline: baseline.snapshot(),
      attributions: owners.known,
      awaiting: this.awaiting,
      edits: tracking.edits.snapshot(),
      untyped: tracking.untyped.all,
    };
    if (!this.reloaded(disk)) this.tentative.hold(before);
    return true;
  }

  /**
   * Called when didSave arrives, before the save is recorded: a tentative reload of exactly the saved
   * content, still explained by no record, was this editor's own save. Its edits are edits again.
   */
  beforeSave(): void {
    const t = this.tentative.take();
    const { buffer, baseline, owners, tracking } = this.parts;
    if (!t || this.ledger.isNewestRecorded(baseline.hash) || fileHash(buffer.getText()) !== baseline.hash) return;
    baseline.restore(t.baseline);
    owners.set(t.attributions);
    this.awaiting = t.awaiting;
    tracking.edits.restore(t.edits);
    tracking.untyped.restore(t.untyped);
  }

  /**
   * The reloaded content becomes the baseline. Its owners: the record that wrote it, applied to ours when
   * it (or a chain of records) starts from our baseline; the ledger's answer when it does not; and, when no
   * record pins it yet, our owners carried over the lines that did not change, the others unknown until
   * the writer's record arrives. True when a record is known to pin the content.
   */
  private reloaded(text: string): boolean {
    const hash = fileHash(text);
    const prior = this.parts.owners.known;
    const priorHash = this.parts.baseline.hash;
    const lines = splitLines(text);
    let next: Attributions | undefined;
    let awaiting: Awaiting | undefined;
    if (this.awaiting?.kind === "index" || !this.ledger.inWorkspace) {
      awaiting = { kind: "index", from: lines, steps: [] };
    } else {
      // the buffer is the file on disk: its owners are what `intent blame` says of it
      next = this.ledger.ownersOf(lines);
      if (!this.ledger.isNewestRecorded(hash)) awaiting = { kind: "record", prior, priorHash };
    }
    this.parts.tracking.dropPendingSaves(); // the reload is newer than any save still being handled
    this.setBaseline(text, lines, next);
    this.awaiting = awaiting;
    this.parts.disk.taken();
    return awaiting === undefined;
  }

  /**
   * The ledger has more to say (read for the first time, or new records for this file): owners not known
   * yet are taken from it. Owners already carried forward are kept, since the ledger says the same about
   * them, unless `rederive` (the ledger was replaced underneath us, or another writer's record now explains
   * the content we just saved), or a record it held before it was replaced comes back (`KnownRecords`).
   */
  ledgerChanged(entries: readonly TraceEntry[], rederive = false): void {
    const { baseline, owners, tracking } = this.parts;
    // another writer's new record for exactly our baseline content: the ledger knows more than we carried
    let news = false;
    let others = false;
    if (rederive) this.knownRecords.readAnew(entries);
    for (const e of entries) {
      if (e.recordId === this.ownRecordDue) this.ownRecordDue = undefined;
      const seen = this.knownRecords.take(e);
      if (seen === "back") news = true;
      if (seen !== "new" || this.ledger.isOurs(e)) continue;
      others = true;
      if (e.postHash === baseline.hash) news = true;
    }
    if (this.ownRecordDue || tracking.saving) this.ledgerChangedMeanwhile = true;
    if (this.ledger.inWorkspace && !tracking.saving && !this.ownRecordDue && this.parts.disk.holdsBaseline()) {
      // the buffer is the file on disk: its owners are exactly what `intent blame` says of that file
      owners.set(attribute(entries, baseline.lines, baseline.hash));
      tracking.edits.reset(baseline.lines);
      const recorded = this.ledger.isNewestRecorded(baseline.hash) || others;
      if (this.ledger.isNewestRecorded(baseline.hash))
        this.tentative.drop(); // a record pins the content: it was a reload
      else this.tentative.ledgerBrought(entries);
      if (recorded || this.awaiting?.kind === "index") this.awaiting = undefined;
      return;
    }
    const w: Awaiting | undefined = (rederive || news) && this.awaiting?.kind !== "record" ? { kind: "index", from: baseline.lines, steps: [] } : this.awaiting;
    if (!w) return;
    if (w.kind === "index") {
      let state: { owners: Attributions; hashes: (string | undefined)[] } | undefined = { owners: attribute(entries, w.from), hashes: [] };
      const graph = w.steps.some((step) => step.entries[0]?.movedIn) ? RecordGraph.of([...entries, ...w.steps.flatMap((step) => step.entries)]) : undefined;
      for (const step of w.steps) state = state && (graph ? graph.apply(state, step) : applyStep(state, step));
      owners.set(state?.owners ?? attribute(entries, baseline.lines, baseline.hash));
      this.awaiting = undefined;
      return;
    }
    if (!this.ledger.isNewestRecorded(baseline.hash)) return;
    owners.set(carryThroughRecords(entries, w.prior, w.priorHash, baseline.hash) ?? attribute(entries, baseline.lines, baseline.hash));
    this.awaiting = undefined;
    this.tentative.drop(); // another writer's record for this content: it was a reload
  }

  /**
   * The saved text becomes the new baseline, and the edits made since it was taken stay edits. `step`: the
   * record that now explains it (ours, or the one an agent's hook wrote for this very content), whose line
   * map carries our owners over; undefined when no record is due (nothing changed) or known. Saves are made
   * the baseline in the order they were taken; one a reload overtook changes nothing here.
   */
  saved(save: SaveSnapshot, step: RecordStep | undefined, ownRecord?: string): void {
    const { baseline, findings, tracking } = this.parts;
    if (!tracking.settle(save)) return;
    this.ownRecordDue = ownRecord;
    const { text, lines, since } = save;
    const hash = fileHash(text);
    const w = this.awaiting;
    if (w?.kind === "index") {
      // owners not known yet: remember the step, to carry them over once the ledger is read
      if (step && step.preHash === baseline.hash) w.steps.push(step);
      else if (hash !== baseline.hash) this.awaiting = { kind: "index", from: lines, steps: [] };
      this.setBaseline(text, lines, undefined, hash, since);
      if (this.ledger.inWorkspace) findings.begin(baseline.hash);
      return;
    }
    const next = this.ownersAfterSave(save, step, hash);
    this.setBaseline(text, lines, next, hash, since);
    this.awaiting = next === undefined ? { kind: "index", from: lines, steps: [] } : undefined;
    // the saved lines' findings follow once the save is settled; until then none are published for this content
    if (this.ledger.inWorkspace) findings.begin(baseline.hash);
    // news the ledger brought while the save was being handled is taken now (it is not brought again)
    if (!ownRecord && this.ledgerChangedMeanwhile && !tracking.saving && this.ledger.inWorkspace) {
      this.ledgerChangedMeanwhile = false;
      this.ledgerChanged(this.ledger.entries());
    }
  }

  /** The owners of a save's lines (content `hash`) once it is the baseline; undefined when not known. */
  private ownersAfterSave(save: SaveSnapshot, step: RecordStep | undefined, hash: string): Attributions | undefined {
    const { baseline, owners } = this.parts;
    const attributions = owners.known;
    const lines = save.lines;
    let next: Attributions | undefined;
    const movedIn = step?.entries[0]?.movedIn;
    if (attributions === undefined) next = undefined;
    else if (step && step.preHash === baseline.hash && movedIn?.length && this.ledger.inWorkspace) next = this.ledger.ownersWithPasted(step, movedIn, lines);
    else if (step && step.preHash === baseline.hash) next = applyStep({ owners: attributions, hashes: [] }, step)?.owners;
    else if (hash === baseline.hash) {
      const tracked = new EditedLines(baseline.lines);
      tracked.restore(save.tracked);
      next = carryOrigins(attributions, tracked.origins());
    }
    // a record we cannot apply to what we know (another writer's, from other content): ask the ledger
    if (next === undefined && attributions !== undefined && this.ledger.inWorkspace) next = this.ledger.ownersOf(lines);
    return next;
  }

  /**
   * The record of the save that made the baseline was appended (`written`), or was not needed after all:
   * from the moment the ledger's `entries` hold it, the ledger tells the baseline's owners again (a record
   * appended but not read back yet leaves them ours: the read that brings it hands them over). A record the
   * ledger could not take keeps them ours.
   */
  ownRecordLanded(entries: readonly TraceEntry[], written: boolean): void {
    const due = this.ownRecordDue;
    if (written && due !== undefined && !entries.some((e) => e.recordId === due)) return;
    this.ownRecordDue = undefined;
    if (!this.ledgerChangedMeanwhile) return;
    // a read that brought the record may have come while it was due: it is not brought again
    this.ledgerChangedMeanwhile = false;
    this.ledgerChanged(entries);
  }

  /** `since`: the edits made after `text` was taken (a save's), which stay edits; none when omitted. */
  private setBaseline(text: string, lines: string[], attributions: Attributions | undefined, hash = fileHash(text), since?: EditedLines): void {
    this.parts.baseline.replace(text, lines, hash);
    this.parts.owners.set(attributions);
    this.parts.tracking.rebase(lines, since);
  }
}

/**
 * The records of a file a document has accounted for, each by its id (a record without one, by its ledger
 * line). A ledger rewritten underneath us is read mid-rewrite: `git rebase` writes it anew for each commit it
 * replays (main's records, then the branch's up to that commit), each file may take the inode of the one
 * before, so the next one reads as appended, and the open file on disk may hold an older commit's content
 * then. A record the ledger held before it was read anew, and that the new read did not hold, is news when
 * it comes back, whoever wrote it: the owners were taken without it.
 */
class KnownRecords {
  private readonly known = new Set<string>();
  private readonly beforeReread = new Set<string>();

  /** The ledger was read anew and holds `entries`: the known records it left out wait to come back. */
  readAnew(entries: readonly TraceEntry[]): void {
    const read = new Set(entries.map(entryKey));
    for (const key of this.known) {
      if (read.has(key)) continue;
      this.known.delete(key);
      this.beforeReread.add(key);
    }
  }

  /** Accounts for `e`: known already, new, or back after the ledger was read anew without it. */
  take(e: TraceEntry): "known" | "new" | "back" {
    const key = entryKey(e);
    if (this.known.has(key)) return "known";
    this.known.add(key);
    return this.beforeReread.delete(key) ? "back" : "new";
  }
}

/**
 * Owners of content `hash`, carried from `prior` (the owners of content `priorHash`) through the records that
 * lead from one to the other; undefined when no such chain of records with line maps exists.
 */
function carryThroughRecords(entries: readonly TraceEntry[], prior: Attributions | undefined, priorHash: string, hash: string): Attributions | undefined {
  if (!prior) return undefined;
  const graph = RecordGraph.of(entries);
  const end = graph.newestPinning(hash);
  if (!end) return undefined;
  const chain = graph.chainTo(end, priorHash);
  if (chain[0]!.preHash !== priorHash) return undefined;
  let state: { owners: Attributions; hashes: (string | undefined)[] } | undefined = { owners: prior, hashes: [] };
  for (const step of chain) {
    state = graph.apply(state, step);
    if (!state) return undefined;
  }
  return state.owners;
}

/** Owners of the current lines through the edit tracker's origins (undefined where edited). */
function carryOrigins(prior: Attributions, origins: readonly (number | undefined)[]): Attributions {
  return origins.map((o) => (o === undefined ? undefined : prior[o]));
}
