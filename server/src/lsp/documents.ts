import { fileURLToPath } from "node:url";
import { SESSION_URN_PREFIX } from "@shared/agentTrace";
import type { Diagnostic, Position, TextDocumentContentChangeEvent } from "vscode-languageserver";
import { applyStep, attribute, contentLineCount, RecordGraph, type Attributions, type LineAttribution, type RecordStep } from "../engine/attribution";
import type { LineOwner } from "../engine/blame";
import { EditedLines, type EditedLinesSnapshot } from "../engine/editedLines";
import type { Finding } from "../engine/check";
import type { Verdict } from "../engine/gate";
import { fileHash, splitLines } from "../engine/hashing";
import type { TraceEntry } from "../engine/ledger/read";
import { borrowed, type BlockSource } from "../engine/lineage";
import type { LineChange } from "../engine/lineChange";
import { readDiskState, readDiskStateAsync, type DiskState } from "../io/diskState";
import type { TextBuffer } from "./textBuffer";
import type { WorkspaceContext } from "./workspaceContext";

/**
 * An open document: its text, the lines edited since its baseline, who wrote each baseline line, and a
 * cached verdict (it depends on the path and the rules only, so it is computed once per rules generation).
 *
 * Provenance is carried forward edit by edit (README "Who wrote this line"): the baseline's owners move
 * with every edit (`edits` maps current lines to baseline lines), and a save makes its own record the owner
 * of exactly the lines it changed. Whenever the buffer is the file on disk (unedited, no save of ours still
 * on its way to the ledger), its owners are the ledger's answer for that content (`attribute`, the function
 * `intent blame` uses): at open, at a reload, and whenever the ledger changes, so that hover and blame agree
 * whatever order the reload, the record, the save and the file events arrive in. Never per keystroke.
 */
export interface AttributedBlock {
  start: number;
  end: number;
  attribution: LineAttribution;
}

export type { LineOwner };

/**
 * A save being handled: the text the editor saved, taken when its didSave arrived (`beginSave`), so that the
 * save's whole-file work can pause for other requests and keystrokes without the text moving under it.
 */
export interface SaveSnapshot {
  readonly text: string;
  readonly lines: string[];
  /** The content the save changes: the baseline, or the text of an earlier save still being handled. */
  readonly before: string;
  /** How the saved lines came from `before`'s (the edit tracker's, not a diff). */
  readonly change: LineChange;
  /** The edits from `before` to the saved text, to carry owners over a save that changed nothing. */
  readonly tracked: EditedLinesSnapshot;
  /** The edits made since the snapshot, fed as they arrive; undefined once a reload replaced the baseline. */
  since: EditedLines | undefined;
}

/** Why the baseline's owners must come from the ledger when it has more to say. */
type Awaiting =
  /**
   * not known yet: the ledger is still being read. `from`: the content whose owners the ledger will tell;
   * `steps`: our own saves since, to carry those owners over once known.
   */
  | { kind: "index"; from: readonly string[]; steps: RecordStep[] }
  /** the editor reloaded content no record pins yet (an agent's hook is about to record it) */
  | { kind: "record"; prior: Attributions | undefined; priorHash: string };

export class TrackedDocument {
  readonly edits: EditedLines;
  private verdictCache: { generation: number; verdict: Verdict } | undefined;
  /** The text at open, last save or reload, which `edits` and `attributions` refer to. */
  private baselineText: string;
  private baselineLines: string[];
  /** The baseline before the last one (its lines and hash), while a block cut from it may be pasted elsewhere. */
  private priorBaseline: { lines: string[]; hash: string } | undefined;
  /** Hash of the baseline: the file as the editor last loaded, saved or reloaded it. */
  private baselineHash: string;
  /** Owner of each baseline line; undefined while not known (the ledger is still being read). */
  private attributions: Attributions | undefined;
  private awaiting: Awaiting | undefined;
  /** Records of this file already accounted for, so that only news from other writers is looked at. */
  private readonly knownRecords = new Set<string>();
  /** The file on disk as last looked at, and whether its content came from someone else. */
  private disk: DiskState | undefined;
  private diskIsExternal = false;
  /**
   * A reload that may have been this editor's own save: the save wrote the file before we processed the
   * change that produced it, which looks exactly like a reload. Its didSave, arriving next, tells; until
   * then the state before it is kept to go back to.
   */
  private tentative:
    | { text: string; lines: string[]; hash: string; attributions: Attributions | undefined; awaiting: Awaiting | undefined; edits: EditedLinesSnapshot }
    | undefined;
  private blocksCache: { version: number; attributions: unknown; blocks: AttributedBlock[] } | undefined;
  /** The baseline is a save of ours whose record is not in the ledger yet: the ledger cannot tell its owners. */
  private ownRecordDue = false;
  /** The ledger changed while `ownRecordDue`: its answer is taken once the record has landed. */
  private ledgerChangedMeanwhile = false;
  /** Saves taken (`beginSave`) and not yet made the baseline (`saved`), oldest first. */
  private pendingSaves: SaveSnapshot[] = [];
  /** Whole-file findings (stale-file), recomputed on events, not keystrokes. */
  fileFindings: Diagnostic[] = [];
  /**
   * What `intent check` reports for the saved content (`hash`, the baseline), in baseline line numbers:
   * recomputed when the baseline, the ledger or the rules change, never per keystroke. `due`: the hash of a
   * baseline whose findings are being computed.
   */
  savedFindings: { hash: string; findings: Finding[] } | undefined;
  savedFindingsDue: string | undefined;

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
  ) {
    this.fsPath = uriToPath(doc.uri);
    this.baselineText = savedText ?? doc.getText();
    this.baselineLines = splitLines(this.baselineText);
    this.baselineHash = fileHash(this.baselineText);
    this.edits = new EditedLines(this.baselineLines);
    if (savedText !== undefined && savedText !== doc.getText())
      this.edits.replace(0, this.baselineLines.length - 1, doc.lineCount, (line) => this.lineText(line));
    if (this.fsPath) {
      this.disk = readDiskState(this.fsPath, undefined);
      this.diskIsExternal = this.disk.text !== undefined && this.disk.text !== this.baselineText && this.disk.text !== doc.getText();
    }
    this.awaiting = { kind: "index", from: this.baselineLines, steps: [] };
  }

  get baseline(): string {
    return this.baselineText;
  }

  /** Hash of the file as the editor last loaded, saved or reloaded it. */
  get diskHash(): string {
    return this.baselineHash;
  }

  get uri(): string {
    return this.doc.uri;
  }

  /** The text on disk, as last looked at (undefined: missing or unreadable). */
  get diskText(): string | undefined {
    return this.disk?.text;
  }

  /**
   * Applies one notification's changes in order, feeding each into the edit tracker. True when the changes
   * made the buffer equal to content someone else wrote to disk: the editor reloaded the file.
   */
  applyChanges(changes: readonly TextDocumentContentChangeEvent[], version: number): boolean {
    this.lookAtDisk(); // before the change: whether the buffer already held what is on disk tells our own save from another writer's
    this.tentative = undefined; // typing on: whatever the reload was, the buffer now builds on it
    for (const change of changes) {
      if ("range" in change) this.applyRangeChange(change.range.start, change.range.end, change.text, version);
      else this.applyFullChange(change.text, version);
    }
    return this.detectReload();
  }

  private applyRangeChange(start: Position, end: Position, text: string, version: number): void {
    // Clamped as clients expect (Neovim sends ranges past the end when deleting the last lines), and a
    // reversed range applied start-to-end, as `TextDocument` does: the tracker must see the edit the text got.
    const from = this.doc.clamp(start);
    const to = this.doc.clamp(end);
    const { first, oldLines, newLines } = this.doc.replace(from, to, text);
    this.doc.version = version;
    // a change starting at column 0 pushes the old line's text down: of two equal lines the old one is the later
    const atLineStart = (before(from, to) ? from : to).character === 0;
    this.replaceLines(first, oldLines, newLines, atLineStart);
  }

  private applyFullChange(text: string, version: number): void {
    // Full-text sync: all we know is the new text; lines equal at both ends are untouched
    const oldLines: string[] = [];
    for (let l = 0; l < this.doc.lineCount; l++) oldLines.push(this.doc.lineText(l));
    this.doc.setText(text);
    this.doc.version = version;
    const newLines: string[] = [];
    for (let l = 0; l < this.doc.lineCount; l++) newLines.push(this.doc.lineText(l));
    this.replaceLines(0, oldLines, newLines);
  }

  /**
   * Lines from `first` that were `oldLines` are now `newLines`. Lines whose text the change left as it was
   * (the line an insertion at column 0 pushes down, the lines around a multi-line replacement) keep what
   * they were; only the rest is an edit. Compares the two lists, never reads the document back.
   */
  private replaceLines(first: number, oldLines: readonly string[], newLines: readonly string[], tailFirst = false): void {
    const max = Math.min(oldLines.length, newLines.length);
    const sameAtHead = (k: number) => newLines[k] === oldLines[k];
    const sameAtTail = (k: number) => newLines[newLines.length - 1 - k] === oldLines[oldLines.length - 1 - k];
    let head = 0;
    let tail = 0;
    // Which end is matched first decides which of two identical lines is the new one (see applyRangeChange).
    if (tailFirst) {
      while (tail < max && sameAtTail(tail)) tail++;
      while (head < max - tail && sameAtHead(head)) head++;
    } else {
      while (head < max && sameAtHead(head)) head++;
      while (tail < max - head && sameAtTail(tail)) tail++;
    }
    const lineAt = (line: number) => this.lineText(line);
    this.edits.replace(first + head, first + oldLines.length - 1 - tail, newLines.length - head - tail, lineAt);
    // a save being handled becomes the baseline later: what is typed meanwhile is an edit after it
    for (const save of this.pendingSaves) save.since!.replace(first + head, first + oldLines.length - 1 - tail, newLines.length - head - tail, lineAt);
  }

  /** Re-reads the file's stat (and its text if that changed); cheap enough for every change notification. */
  lookAtDisk(): void {
    if (!this.fsPath) return;
    this.tookDiskState(readDiskState(this.fsPath, this.disk));
  }

  /**
   * `lookAtDisk` without blocking (a file written underneath, a save): the read of a large file does not
   * hold up other requests. A look taken meanwhile (a keystroke's) is as new, and stands.
   */
  async lookAtDiskAsync(): Promise<void> {
    if (!this.fsPath) return;
    const from = this.disk;
    const next = await readDiskStateAsync(this.fsPath, from);
    if (this.disk === from) this.tookDiskState(next);
  }

  private tookDiskState(next: DiskState): void {
    if (next === this.disk) return;
    this.disk = next;
    // Content the buffer already holds is this editor's own save; anything else came from another writer.
    this.diskIsExternal = next.text !== undefined && next.text !== this.baselineText && next.text !== this.doc.getText();
  }

  /**
   * The buffer now holds exactly what another writer put on disk: it was reloaded, whatever it held before
   * (an editor reloads one hunk per change, so the first hunks look like typing until the last one lands).
   * Content a record of another writer pins is a reload for certain. Otherwise it may be this editor's own
   * save that reached the disk before we processed the change that produced it (format-on-save does this):
   * it is a reload tentatively, until the didSave of that very content says it was our own save after all
   * (see `beforeSave`), or typing on, or another writer's record for the file, says it was a reload.
   */
  private detectReload(): boolean {
    const disk = this.disk?.text;
    if (!this.diskIsExternal || disk === undefined) return false;
    if (this.doc.length !== disk.length || this.doc.getText() !== disk) return false;
    const before = {
      text: this.baselineText,
      lines: this.baselineLines,
      hash: this.baselineHash,
      attributions: this.attributions,
      awaiting: this.awaiting,
      edits: this.edits.snapshot(),
    };
    if (!this.reloaded(disk)) this.tentative = before;
    return true;
  }

  /**
   * Called when didSave arrives, before the save is recorded: a tentative reload of exactly the saved
   * content, still explained by no record, was this editor's own save. Its edits are edits again.
   */
  beforeSave(): void {
    const t = this.tentative;
    this.tentative = undefined;
    if (!t || this.isNewestRecorded(this.baselineHash) || fileHash(this.doc.getText()) !== this.baselineHash) return;
    this.baselineText = t.text;
    this.baselineLines = t.lines;
    this.baselineHash = t.hash;
    this.attributions = t.attributions;
    this.awaiting = t.awaiting;
    this.edits.restore(t.edits);
    this.blocksCache = undefined;
  }

  /**
   * The reloaded content becomes the baseline. Its owners: the record that wrote it, applied to ours when
   * it (or a chain of records) starts from our baseline; the ledger's answer when it does not; and, when no
   * record pins it yet, our owners carried over the lines that did not change, the others unknown until
   * the writer's record arrives. True when a record is known to pin the content.
   */
  private reloaded(text: string): boolean {
    const hash = fileHash(text);
    const prior = this.attributions;
    const priorHash = this.baselineHash;
    const lines = splitLines(text);
    let next: Attributions | undefined;
    let awaiting: Awaiting | undefined;
    if (this.awaiting?.kind === "index" || !this.ctx || this.path === undefined) {
      awaiting = { kind: "index", from: lines, steps: [] };
    } else {
      // the buffer is the file on disk: its owners are what `intent blame` says of it
      next = attribute(this.ctx.ledger.attributionEntries(this.path, lines), lines);
      if (!this.isNewestRecorded(hash)) awaiting = { kind: "record", prior, priorHash };
    }
    this.dropPendingSaves(); // the reload is newer than any save still being handled
    this.setBaseline(text, lines, next);
    this.awaiting = awaiting;
    this.diskIsExternal = false;
    return awaiting === undefined;
  }

  /**
   * The ledger has more to say (read for the first time, or new records for this file): owners not known
   * yet are taken from it. Owners already carried forward are kept, since the ledger says the same about
   * them, unless `rederive` (the ledger was replaced underneath us, or another writer's record now explains
   * the content we just saved).
   */
  ledgerChanged(entries: readonly TraceEntry[], rederive = false): void {
    // another writer's new record for exactly our baseline content: the ledger knows more than we carried
    let news = false;
    let others = false;
    for (const e of entries) {
      const key = e.recordId || `line ${e.line}`;
      if (this.knownRecords.has(key)) continue;
      this.knownRecords.add(key);
      if (this.isOurs(e)) continue;
      others = true;
      if (e.postHash === this.baselineHash) news = true;
    }
    if (this.ownRecordDue || this.pendingSaves.length) this.ledgerChangedMeanwhile = true;
    if (this.onDisk()) {
      // the buffer is the file on disk: its owners are exactly what `intent blame` says of that file
      this.attributions = attribute(entries, this.baselineLines);
      this.edits.reset(this.baselineLines);
      this.blocksCache = undefined;
      const recorded = this.isNewestRecorded(this.baselineHash) || others;
      if (recorded) this.tentative = undefined; // another writer's record for this file: the content was a reload
      if (recorded || this.awaiting?.kind === "index") this.awaiting = undefined;
      return;
    }
    const w: Awaiting | undefined =
      (rederive || news) && this.awaiting?.kind !== "record" ? { kind: "index", from: this.baselineLines, steps: [] } : this.awaiting;
    if (!w) return;
    if (w.kind === "index") {
      let state: { owners: Attributions; hashes: (string | undefined)[] } | undefined = { owners: attribute(entries, w.from), hashes: [] };
      const graph = w.steps.some((step) => step.entries[0]?.movedIn) ? RecordGraph.of([...entries, ...w.steps.flatMap((step) => step.entries)]) : undefined;
      for (const step of w.steps) state = state && (graph ? graph.apply(state, step) : applyStep(state, step));
      this.attributions = state?.owners ?? attribute(entries, this.baselineLines);
      this.awaiting = undefined;
      return;
    }
    if (!this.isNewestRecorded(this.baselineHash)) return;
    this.attributions = carryThroughRecords(entries, w.prior, w.priorHash, this.baselineHash) ?? attribute(entries, this.baselineLines);
    this.awaiting = undefined;
    this.tentative = undefined; // another writer's record for this content: it was a reload
  }

  /**
   * Whether the buffer is the file on disk, unchanged since its baseline, with no save being handled: then
   * nothing in it is this editor's to carry forward, and the ledger alone says who wrote each line.
   */
  private onDisk(): boolean {
    if (!this.ctx || this.path === undefined || this.pendingSaves.length || this.ownRecordDue) return false;
    this.lookAtDisk();
    const disk = this.disk?.text;
    return disk !== undefined && disk === this.baselineText && this.doc.length === disk.length && this.doc.getText() === disk;
  }

  /**
   * Whether the ledger's newest record of this file pins this content: the write that just happened was
   * recorded. An older record with the same content (the file went back to an earlier state) proves nothing
   * about who wrote it now.
   */
  private isNewestRecorded(hash: string): boolean {
    return !!this.ctx && this.path !== undefined && this.ctx.ledger.lastPostHash(this.path) === hash;
  }

  /** Written by this server (its saves are already carried forward). */
  private isOurs(entry: TraceEntry): boolean {
    return !!this.ctx && entry.url === SESSION_URN_PREFIX + encodeURIComponent(this.ctx.session.id);
  }

  /**
   * The ledger's entries that explain this document's baseline: its own and those of the paths its content
   * came from (a rename, a move, a copy: engine/lineage.ts). Empty outside a workspace.
   */
  ledgerEntries(): readonly TraceEntry[] {
    return this.ctx && this.path !== undefined ? this.ctx.ledger.attributionEntries(this.path, this.baselineLines) : [];
  }

  /**
   * Recorded contents of this document a block pasted into another file may come from (engine/lineage.ts
   * `findMovedBlocks`): its baseline, and the baseline before its last save (a cut saved before the paste).
   */
  blockSources(): BlockSource[] {
    const out: BlockSource[] = [];
    if (!this.ctx || this.path === undefined) return out;
    for (const b of [{ lines: this.baselineLines, hash: this.baselineHash }, this.priorBaseline]) {
      if (b && this.ctx.ledger.hasPostHash(this.path, b.hash)) out.push({ path: this.path, hash: b.hash, lines: b.lines });
    }
    return out;
  }

  /** The record that explains a baseline line (0-based); undefined: none does, or not known yet (see `attributed`). */
  baselineRecord(index: number): TraceEntry | undefined {
    return this.attributions?.[index]?.entry;
  }

  /** Whether the baseline's owners are known (false while the ledger is still being read). */
  get attributed(): boolean {
    return this.attributions !== undefined;
  }

  /** Makes edited regions exact (unchanged lines between edits given back); see `EditedLines.refine`. */
  refine(): void {
    if (this.edits.refine((line) => this.lineText(line))) this.blocksCache = undefined;
  }

  /**
   * Takes the text being saved (when didSave arrives, before anything can move it) and how its lines came
   * from the content before it, as the save records it. Until `saved` makes it the baseline, edits keep
   * being tracked against the baseline as before, and also against the saved text (`since`).
   */
  beginSave(): SaveSnapshot {
    const prior = this.pendingSaves[this.pendingSaves.length - 1];
    const tracker = prior?.since ?? this.edits;
    const lineAt = (line: number) => this.lineText(line);
    if (tracker === this.edits) this.refine();
    else tracker.refine(lineAt);
    const lines = this.doc.lineList();
    const change = tracker.lineChange(contentLineCount(prior ? prior.lines : this.baselineLines), contentLineCount(lines), lineAt);
    const save: SaveSnapshot = {
      text: this.doc.getText(),
      lines,
      before: prior ? prior.text : this.baselineText,
      change,
      tracked: tracker.snapshot(),
      since: new EditedLines(lines),
    };
    this.pendingSaves.push(save);
    return save;
  }

  /** The baseline was replaced (a reload): saves still being handled no longer lead to it. */
  private dropPendingSaves(): void {
    for (const save of this.pendingSaves) save.since = undefined;
    this.pendingSaves = [];
  }

  /**
   * The saved text becomes the new baseline, and the edits made since it was taken stay edits. `step`: the
   * record that now explains it (ours, or the one an agent's hook wrote for this very content), whose line
   * map carries our owners over; undefined when no record is due (nothing changed) or known. Saves are made
   * the baseline in the order they were taken; one a reload overtook changes nothing here.
   */
  saved(save: SaveSnapshot, step: RecordStep | undefined, ownRecord = false): void {
    const at = this.pendingSaves.indexOf(save);
    if (at === -1 || !save.since) return;
    this.pendingSaves.splice(0, at + 1);
    this.ownRecordDue = ownRecord;
    const { text, lines, since } = save;
    const hash = fileHash(text);
    const w = this.awaiting;
    if (w?.kind === "index") {
      // owners not known yet: remember the step, to carry them over once the ledger is read
      if (step && step.preHash === this.baselineHash) w.steps.push(step);
      else if (hash !== this.baselineHash) this.awaiting = { kind: "index", from: lines, steps: [] };
      this.setBaseline(text, lines, undefined, hash, since);
      if (this.ctx && this.path !== undefined) this.savedFindingsDue = this.baselineHash;
      return;
    }
    let next: Attributions | undefined;
    const movedIn = step?.entries[0]?.movedIn;
    if (this.attributions === undefined) next = undefined;
    else if (step && step.preHash === this.baselineHash && movedIn?.length && this.ctx && this.path !== undefined) {
      // lines pasted from other files keep their owners there: the ledger's records of those files say who
      const ledger = this.ctx.ledger;
      next = attribute(
        [...ledger.attributionEntries(this.path, this.baselineLines), ...step.entries, ...movedIn.flatMap((m) => ledger.entriesFor(m.from).map(borrowed))],
        lines,
      );
    } else if (step && step.preHash === this.baselineHash) next = applyStep({ owners: this.attributions, hashes: [] }, step)?.owners;
    else if (hash === this.baselineHash) {
      const tracked = new EditedLines(this.baselineLines);
      tracked.restore(save.tracked);
      next = carryOrigins(this.attributions, tracked.origins());
    }
    if (next === undefined && this.attributions !== undefined && this.ctx && this.path !== undefined) {
      // a record we cannot apply to what we know (another writer's, from other content): ask the ledger
      next = attribute(this.ctx.ledger.attributionEntries(this.path, lines), lines);
    }
    this.setBaseline(text, lines, next, hash, since);
    this.awaiting = next === undefined ? { kind: "index", from: lines, steps: [] } : undefined;
    // the saved lines' findings follow once the save is settled; until then none are published for this content
    if (this.ctx && this.path !== undefined) this.savedFindingsDue = this.baselineHash;
    // news the ledger brought while the save was being handled is taken now (it is not brought again)
    if (!ownRecord && this.ledgerChangedMeanwhile && !this.pendingSaves.length && this.ctx && this.path !== undefined) {
      this.ledgerChangedMeanwhile = false;
      this.ledgerChanged(this.ledgerEntries());
    }
  }

  /**
   * The record of the save that made the baseline is in the ledger (or was not needed after all): from here
   * the ledger tells the baseline's owners again. A record the ledger could not take keeps them ours.
   */
  ownRecordLanded(entries: readonly TraceEntry[]): void {
    this.ownRecordDue = false;
    if (!this.ledgerChangedMeanwhile) return;
    // a read that brought the record may have come while it was due: it is not brought again
    this.ledgerChangedMeanwhile = false;
    this.ledgerChanged(entries);
  }

  /** `since`: the edits made after `text` was taken (a save's), which stay edits; none when omitted. */
  private setBaseline(text: string, lines: string[], attributions: Attributions | undefined, hash = fileHash(text), since?: EditedLines): void {
    if (hash !== this.baselineHash) this.priorBaseline = { lines: this.baselineLines, hash: this.baselineHash };
    this.baselineText = text;
    this.baselineLines = lines;
    this.baselineHash = hash;
    this.attributions = attributions;
    if (since) this.edits.restore(since.snapshot());
    else this.edits.reset(lines);
    this.blocksCache = undefined;
  }

  /** Who wrote a current line: a ledger entry, an unsaved edit here, nobody on record, or not known yet. */
  owner(line: number): LineOwner {
    this.refine();
    const origin = this.edits.origin(line);
    if (origin === undefined) return { kind: "edited" };
    if (!this.attributions) return { kind: "indexing" };
    const attribution = this.attributions[origin];
    return attribution ? { kind: "traced", attribution } : { kind: "untraced" };
  }

  /**
   * Runs of current lines written by the same record, for CodeLens and inlay hints. Clients ask again after
   * every change, so the answer is kept per document version and attribution.
   */
  attributedBlocks(): AttributedBlock[] {
    this.refine();
    if (this.blocksCache?.version !== this.doc.version || this.blocksCache.attributions !== this.attributions) {
      this.blocksCache = { version: this.doc.version, attributions: this.attributions, blocks: this.computeBlocks() };
    }
    return this.blocksCache.blocks;
  }

  private computeBlocks(): AttributedBlock[] {
    const out: AttributedBlock[] = [];
    const attributions = this.attributions;
    if (!attributions?.length) return out;
    this.edits.origins().forEach((origin, line) => {
      const attribution = origin === undefined ? undefined : attributions[origin];
      if (!attribution) return;
      const last = out[out.length - 1];
      if (last && last.end === line - 1 && last.attribution.entry.recordId === attribution.entry.recordId) last.end = line;
      else out.push({ start: line, end: line, attribution });
    });
    return out;
  }

  lineText(line: number): string {
    return this.doc.lineText(line);
  }

  /** Lines changed since the baseline and not saved yet (the CodeLens file summary counts them apart). */
  editedLineCount(): number {
    this.refine();
    return this.edits.editedCount();
  }

  verdict(): Verdict | undefined {
    if (!this.ctx || this.path === undefined) return undefined;
    if (this.verdictCache?.generation !== this.ctx.generation) {
      this.verdictCache = { generation: this.ctx.generation, verdict: this.ctx.judge(this.path) };
    }
    return this.verdictCache.verdict;
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

function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
