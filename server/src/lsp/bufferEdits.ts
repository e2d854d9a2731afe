import type { Position, TextDocumentContentChangeEvent } from "vscode-languageserver";
import { contentLineCount } from "../engine/attribution";
import { EditedLines, type EditedLinesSnapshot } from "../engine/editedLines";
import type { LineChange } from "../engine/lineChange";
import type { SavedText, TextBuffer } from "./textBuffer";
import { UntypedLines, type UntypedReason, type UntypedSpan } from "../engine/untypedLines";

/**
 * A save being handled: the text the editor saved, taken when its didSave arrived (`beginSave`), so that the
 * save's whole-file work can pause for other requests and keystrokes without the text moving under it.
 */
export interface SaveSnapshot {
  /** The saved text, joined from `lines` when first asked for (see `prepare`). */
  readonly text: string;
  /** The saved text's length, known without joining it. */
  readonly length: number;
  /** Joins the saved text in slices, pausing between them (a large document's join is a stall of its own). */
  prepare(sliceLines: number, pause: () => Promise<void>): Promise<void>;
  readonly lines: string[];
  /** The content the save changes: the baseline, or the text of an earlier save still being handled. */
  readonly before: string;
  /** How the saved lines came from `before`'s (the edit tracker's, not a diff). */
  readonly change: LineChange;
  /** The edits from `before` to the saved text, to carry owners over a save that changed nothing. */
  readonly tracked: EditedLinesSnapshot;
  /** The edits made since the snapshot, fed as they arrive; undefined once a reload replaced the baseline. */
  since: EditedLines | undefined;
  /** Lines of the saved text the person did not type (engine/untypedLines.ts), as the client reported them. */
  readonly untyped: readonly UntypedSpan[];
}

/**
 * An open document's buffer and the lines edited in it since its baseline: every change is applied to the
 * text and fed into the edit tracker (`edits`), and into each save still being handled (its `since`).
 */
export class BufferEdits {
  readonly edits: EditedLines;
  /** Lines changed since the last save that the client says the person did not type. */
  readonly untyped = new UntypedLines();
  /** The client's word that the change to `version` is not the person's typing (`intent/changeOrigin`). */
  private announced: { version: number; why: UntypedReason } | undefined;
  /** Saves taken (`beginSave`) and not yet made the baseline (`settle`), oldest first. */
  private pendingSaves: SaveSnapshot[] = [];

  /** `startsEdited`: the buffer opens already different from its baseline; the differences are edits from the start. */
  constructor(
    readonly doc: TextBuffer,
    baselineLines: string[],
    startsEdited: boolean,
  ) {
    this.edits = new EditedLines(baselineLines);
    if (startsEdited) this.edits.replace(0, baselineLines.length - 1, doc.lineCount, (line) => this.lineText(line));
  }

  /** Whether a save is being handled (taken, not yet made the baseline). */
  get saving(): boolean {
    return this.pendingSaves.length > 0;
  }

  lineText(line: number): string {
    return this.doc.lineText(line);
  }

  /** The change that makes the buffer `version` is not the person's typing (the client says so before sending it). */
  announceUntyped(version: number, why: UntypedReason): void {
    this.announced = { version, why };
  }

  /** Applies one notification's changes in order, feeding each into the edit tracker. */
  apply(changes: readonly TextDocumentContentChangeEvent[], version: number): void {
    // an announcement holds for the change it names only: one that never came is forgotten with the next
    const untyped = this.announced?.version === version ? this.announced.why : undefined;
    this.announced = undefined;
    for (const change of changes) {
      if ("range" in change) this.applyRangeChange(change.range.start, change.range.end, change.text, version, untyped);
      else this.applyFullChange(change.text, version, untyped);
    }
  }

  private applyRangeChange(start: Position, end: Position, text: string, version: number, untyped: UntypedReason | undefined): void {
    // Clamped as clients expect (Neovim sends ranges past the end when deleting the last lines), and a
    // reversed range applied start-to-end, as `TextDocument` does: the tracker must see the edit the text got.
    const from = this.doc.clamp(start);
    const to = this.doc.clamp(end);
    const { first, oldLines, newLines } = this.doc.replace(from, to, text);
    this.doc.version = version;
    // a change starting at column 0 pushes the old line's text down: of two equal lines the old one is the later
    const atLineStart = (before(from, to) ? from : to).character === 0;
    this.replaceLines(first, oldLines, newLines, atLineStart, untyped);
  }

  private applyFullChange(text: string, version: number, untyped: UntypedReason | undefined): void {
    // Full-text sync: all we know is the new text; lines equal at both ends are untouched
    const oldLines: string[] = [];
    for (let l = 0; l < this.doc.lineCount; l++) oldLines.push(this.doc.lineText(l));
    this.doc.setText(text);
    this.doc.version = version;
    const newLines: string[] = [];
    for (let l = 0; l < this.doc.lineCount; l++) newLines.push(this.doc.lineText(l));
    this.replaceLines(0, oldLines, newLines, false, untyped);
  }

  /**
   * Lines from `first` that were `oldLines` are now `newLines`. Lines whose text the change left as it was
   * (the line an insertion at column 0 pushes down, the lines around a multi-line replacement) keep what
   * they were; only the rest is an edit. Compares the two lists, never reads the document back.
   */
  private replaceLines(first: number, oldLines: readonly string[], newLines: readonly string[], tailFirst: boolean, untyped?: UntypedReason): void {
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
    this.untyped.replace(first + head, first + oldLines.length - 1 - tail, newLines.length - head - tail, untyped);
    // a save being handled becomes the baseline later: what is typed meanwhile is an edit after it
    for (const save of this.pendingSaves) save.since!.replace(first + head, first + oldLines.length - 1 - tail, newLines.length - head - tail, lineAt);
  }

  /** Makes edited regions exact (unchanged lines between edits given back); true when that changed them. */
  refine(): boolean {
    return this.edits.refine((line) => this.lineText(line));
  }

  /**
   * Takes the text being saved and how its lines came from the content before it (`baseline`, or the text of
   * an earlier save still being handled). While no save is being handled, `edits` is refined by the caller.
   */
  beginSave(baseline: { readonly text: string; readonly lines: string[] }): SaveSnapshot {
    const prior = this.pendingSaves[this.pendingSaves.length - 1];
    const tracker = prior?.since ?? this.edits;
    const lineAt = (line: number) => this.lineText(line);
    if (tracker !== this.edits) tracker.refine(lineAt);
    const saved: SavedText = this.doc.snapshot();
    const { lines } = saved;
    const change = tracker.lineChange(contentLineCount(prior ? prior.lines : baseline.lines), contentLineCount(lines), lineAt);
    // the content before: the baseline's text now (a string does not move), or the earlier save's, once joined
    const baselineText = prior ? undefined : baseline.text;
    const save: SaveSnapshot = {
      get text() {
        return saved.text;
      },
      length: saved.length,
      prepare: (sliceLines, pause) => saved.prepare(sliceLines, pause),
      lines,
      get before() {
        return baselineText ?? prior!.text;
      },
      change,
      tracked: tracker.snapshot(),
      since: new EditedLines(lines),
      // the lines changed from here on are the next save's
      untyped: this.untyped.take(),
    };
    this.pendingSaves.push(save);
    return save;
  }

  /** Takes `save` and the saves before it off the list; false when a reload overtook it (nothing to settle). */
  settle(save: SaveSnapshot): boolean {
    const at = this.pendingSaves.indexOf(save);
    if (at === -1 || !save.since) return false;
    this.pendingSaves.splice(0, at + 1);
    return true;
  }

  /** The baseline was replaced (a reload): saves still being handled no longer lead to it. */
  dropPendingSaves(): void {
    for (const save of this.pendingSaves) save.since = undefined;
    this.pendingSaves = [];
  }

  /** A new baseline of `lines`; `since`: the edits made after it was taken (a save's), which stay edits. */
  rebase(lines: string[], since?: EditedLines): void {
    if (since) this.edits.restore(since.snapshot());
    else {
      this.edits.reset(lines);
      this.untyped.clear();
    }
  }
}

function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}
