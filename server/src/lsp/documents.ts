import { fileURLToPath } from "node:url";
import type { TextDocumentContentChangeEvent } from "vscode-languageserver";
import type { RecordStep } from "../engine/attribution";
import type { LineOwner } from "../engine/blame";
import type { EditedLines } from "../engine/editedLines";
import type { Verdict } from "../engine/gate";
import type { TraceEntry } from "../engine/ledger/read";
import type { BlockSource } from "../engine/lineage";
import { removedSpans, toSpans, type Span } from "../engine/lineChange";
import type { UntypedReason } from "../engine/untypedLines";
import type { DiskState } from "../io/diskState";
import { BufferEdits, type SaveSnapshot } from "./bufferEdits";
import { DocumentAdoption } from "./documentAdoption";
import { DocumentBaseline } from "./documentBaseline";
import { DocumentDisk } from "./documentDisk";
import { DocumentFindings } from "./documentFindings";
import { DocumentLedger } from "./documentLedger";
import { LineOwners, type AttributedBlock } from "./lineOwners";
import { Provenance } from "./provenance";
import type { TextBuffer } from "./textBuffer";
import type { WorkspaceContext } from "./workspaceContext";

export type { LineOwner };

/**
 * An open document: its text and the lines edited since its baseline (`BufferEdits`), the baseline
 * (`DocumentBaseline`), who wrote each line (`LineOwners`, carried forward by `Provenance`), its file on disk
 * (`DocumentDisk`), its findings that are not per keystroke (`DocumentFindings`), and a cached verdict (it
 * depends on the path and the rules only, so it is computed once per rules generation).
 */
export class TrackedDocument {
  private readonly base: DocumentBaseline;
  private readonly tracking: BufferEdits;
  private readonly disk: DocumentDisk;
  private readonly owners = new LineOwners();
  private readonly ledger: DocumentLedger;
  private readonly provenance: Provenance;
  private readonly adoption: DocumentAdoption;
  private verdictCache: { generation: number; verdict: Verdict } | undefined;
  readonly findings = new DocumentFindings();

  /** The file on disk, or undefined for an untitled or non-file document. */
  readonly fsPath: string | undefined;

  /**
   * `savedText`: the file as last saved and recorded, when the buffer opens already different from it (a
   * restored session, a dirty buffer renamed): the differences are edits from the start.
   */
  constructor(
    readonly doc: TextBuffer,
    readonly path: string | undefined,
    readonly ctx: WorkspaceContext | undefined,
    savedText?: string,
    /** The file on disk as the open looked at it, when it did. */
    disk?: DiskState,
  ) {
    this.fsPath = uriToPath(doc.uri);
    const startsEdited = savedText !== undefined && savedText !== doc.getText();
    // the buffer's own lines when it is the baseline: a million-line file is not split a second time
    this.base = startsEdited ? new DocumentBaseline(savedText) : new DocumentBaseline(doc.getText(), doc.copyLines());
    this.tracking = new BufferEdits(doc, this.base.lines, startsEdited);
    this.disk = new DocumentDisk(this.fsPath, doc, this.base, disk);
    const parts = { buffer: doc, baseline: this.base, tracking: this.tracking, disk: this.disk, owners: this.owners, findings: this.findings };
    this.ledger = new DocumentLedger(ctx, path, this.base);
    this.provenance = new Provenance(parts, this.ledger);
    this.adoption = new DocumentAdoption(ctx, path);
  }

  /** The text at open, last save or reload, which the edits and the owners refer to. */
  get baseline(): string {
    return this.base.text;
  }

  /** The baseline's lines (`splitLines`), split once when it was set. */
  get baselineLines(): readonly string[] {
    return this.base.lines;
  }

  /** Hash of the file as the editor last loaded, saved or reloaded it. */
  get diskHash(): string {
    return this.base.hash;
  }

  get uri(): string {
    return this.doc.uri;
  }

  /** The text on disk, as last looked at (undefined: missing or unreadable). */
  get diskText(): string | undefined {
    return this.disk.text;
  }

  /** The lines edited since the baseline. */
  get edits(): EditedLines {
    return this.tracking.edits;
  }

  /**
   * Applies one notification's changes in order, feeding each into the edit tracker. True when the changes
   * made the buffer equal to content someone else wrote to disk: the editor reloaded the file.
   */
  applyChanges(changes: readonly TextDocumentContentChangeEvent[], version: number): boolean {
    this.disk.look(); // before the change: whether the buffer already held what is on disk tells our own save from another writer's
    this.provenance.typing();
    this.tracking.apply(changes, version);
    return this.provenance.detectReload();
  }

  /** The change to `version`, which follows, is not the person's typing (engine/untypedLines.ts). */
  announceUntyped(version: number, why: UntypedReason): void {
    this.tracking.announceUntyped(version, why);
  }

  /** Re-reads the file's stat (and its text if that changed); cheap enough for every change notification. */
  lookAtDisk(): void {
    this.disk.look();
  }

  /** `lookAtDisk` without blocking (a file written underneath, a save). */
  lookAtDiskAsync(): Promise<void> {
    return this.disk.lookAsync();
  }

  /** See `Provenance.beforeSave`. */
  beforeSave(): void {
    this.provenance.beforeSave();
  }

  /** See `Provenance.ledgerChanged`. */
  ledgerChanged(entries: readonly TraceEntry[], rederive = false): void {
    this.provenance.ledgerChanged(entries, rederive);
  }

  /** See `DocumentLedger.entries`. */
  ledgerEntries(): readonly TraceEntry[] {
    return this.ledger.entries();
  }

  /** See `DocumentLedger.blockSources`: with the baseline lines the buffer no longer holds (an unsaved cut). */
  blockSources(): BlockSource[] {
    return this.ledger.blockSources(unsavedCut(this.tracking.edits, this.base.lines.length));
  }

  /** The record that explains a baseline line (0-based); undefined: none does, or not known yet (see `attributed`). */
  baselineRecord(index: number): TraceEntry | undefined {
    return this.owners.baselineRecord(index);
  }

  /** The content the ledger last recorded for this file, this editor's own save on its way in included. */
  lastRecordedHash(): string | null | undefined {
    if (this.provenance.ownRecordDue !== undefined) return this.base.hash;
    return this.ctx && this.path !== undefined ? this.ctx.ledger.lastPostHash(this.path) : undefined;
  }

  /** Whether the baseline's owners are known (false while the ledger is still being read). */
  get attributed(): boolean {
    return this.owners.known !== undefined;
  }

  /** Makes edited regions exact (unchanged lines between edits given back); see `EditedLines.refine`. */
  refine(): void {
    if (this.tracking.refine()) this.owners.editsMoved();
  }

  /**
   * Takes the text being saved (when didSave arrives, before anything can move it) and how its lines came
   * from the content before it, as the save records it. Until `saved` makes it the baseline, edits keep
   * being tracked against the baseline as before, and also against the saved text (`since`).
   */
  beginSave(): SaveSnapshot {
    if (!this.tracking.saving) this.refine();
    return this.tracking.beginSave(this.base);
  }

  /**
   * See `Provenance.saved`. The lines the save removed from the baseline (a cut) stay known with it while it
   * is the prior one: a paste elsewhere takes a block the file held twice from the one cut.
   */
  saved(save: SaveSnapshot, step: RecordStep | undefined, ownRecord?: string): void {
    const before = this.base.hash;
    const cut = save.before === this.base.text ? removedSpans(save.change) : undefined;
    this.provenance.saved(save, step, ownRecord);
    if (cut) this.base.priorCut(before, cut);
  }

  /** See `Provenance.ownRecordLanded`. */
  ownRecordLanded(entries: readonly TraceEntry[], written: boolean): void {
    this.provenance.ownRecordLanded(entries, written);
  }

  /**
   * Who wrote a current line: a ledger entry, an unsaved edit here, nobody on record (kept from before the
   * adoption point, or untraced), or not known yet.
   */
  owner(line: number): LineOwner {
    this.refine();
    const origin = this.tracking.edits.origin(line);
    const owner = this.owners.owner(origin);
    if (owner.kind !== "untraced" || origin === undefined) return owner;
    const adopted = this.adoption.lineAt(this.base.text, this.base.hash, origin);
    return adopted === "asking" ? { kind: "indexing" } : adopted ? { kind: "beforeAdoption", adopted } : owner;
  }

  /** Whether some line no record explains (git's renames and splits may: io/gitSources.ts `settled`). */
  get recordsLeaveLines(): boolean {
    return this.owners.anyUnexplained(this.base.lines.length);
  }

  /** Whether the lines kept from before the adoption point are known (there is one, and git told them). */
  get adoptionKnown(): boolean {
    return this.adoption.known;
  }

  /** Runs of current lines written by the same record, for CodeLens and inlay hints (kept per version). */
  attributedBlocks(): AttributedBlock[] {
    this.refine();
    return this.owners.blocks(this.doc.version, this.tracking.edits);
  }

  lineText(line: number): string {
    return this.doc.lineText(line);
  }

  /** Lines changed since the baseline and not saved yet (the CodeLens file summary counts them apart). */
  editedLineCount(): number {
    this.refine();
    return this.tracking.edits.editedCount();
  }

  verdict(): Verdict | undefined {
    if (!this.ctx || this.path === undefined) return undefined;
    if (this.verdictCache?.generation !== this.ctx.generation) {
      this.verdictCache = { generation: this.ctx.generation, verdict: this.ctx.judge(this.path) };
    }
    return this.verdictCache.verdict;
  }
}

export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** The baseline lines the buffer no longer holds (a cut not saved yet); undefined when it holds them all. */
function unsavedCut(edits: EditedLines, baselineCount: number): Span[] | undefined {
  if (edits.lineCount - edits.editedCount() >= baselineCount) return undefined;
  const kept = new Array<boolean>(baselineCount).fill(false);
  for (const o of edits.origins()) if (o !== undefined) kept[o] = true;
  return toSpans(kept.flatMap((k, i) => (k ? [] : [i])));
}
