import { fileURLToPath } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { Diagnostic, TextDocumentContentChangeEvent } from "vscode-languageserver";
import { attribute, type LineAttribution } from "../engine/attribution";
import type { LineOwner } from "../engine/blame";
import { EditedLines } from "../engine/editedLines";
import type { Verdict } from "../engine/gate";
import { fileHash, splitLines } from "../engine/hashing";
import type { TraceEntry } from "../engine/ledger/read";
import type { WorkspaceContext } from "./workspaceContext";

/**
 * An open document: its text, the lines edited since its baseline, and a cached verdict. The verdict
 * depends on the path and the rules only, so it is computed once per rules generation, not per keystroke.
 */
export interface AttributedBlock {
  start: number;
  end: number;
  attribution: LineAttribution;
}

export type { LineOwner };

export class TrackedDocument {
  readonly edits: EditedLines;
  private verdictCache: { generation: number; verdict: Verdict } | undefined;
  /** The text at open or last save, which `edits` and `attributions` refer to. */
  private baselineText: string;
  /** Hash of the file as the editor last loaded or saved it, to notice writes by someone else. */
  diskHash: string;
  /** Attribution of each baseline line, from the ledger; current lines map onto it through `edits`. */
  private attributions: (LineAttribution | undefined)[] = [];
  private blocksCache: { version: number; attributions: unknown; blocks: AttributedBlock[] } | undefined;
  /** Whole-file findings (stale-file, untraced-change, claimed-elsewhere), recomputed on events, not keystrokes. */
  fileFindings: Diagnostic[] = [];

  /** The file on disk, or undefined for an untitled or non-file document. */
  readonly fsPath: string | undefined;

  /**
   * `savedText`: the file as last saved and recorded, when the buffer opens already different from it (a
   * restored session, a dirty buffer renamed): the differences are edits from the start.
   */
  constructor(
    public doc: TextDocument,
    readonly path: string | undefined,
    readonly ctx: WorkspaceContext | undefined,
    savedText?: string,
  ) {
    this.fsPath = uriToPath(doc.uri);
    this.baselineText = savedText ?? doc.getText();
    this.diskHash = fileHash(this.baselineText);
    const baseline = splitLines(this.baselineText);
    this.edits = new EditedLines(baseline);
    if (savedText !== undefined && savedText !== doc.getText()) this.edits.replace(0, baseline.length - 1, doc.lineCount, (line) => this.lineText(line));
  }

  get baseline(): string {
    return this.baselineText;
  }

  get uri(): string {
    return this.doc.uri;
  }

  /** Applies one notification's changes in order, feeding each into the edit tracker. */
  applyChanges(changes: readonly TextDocumentContentChangeEvent[], version: number): void {
    for (const change of changes) {
      if ("range" in change) {
        // Clamped as TextDocument clamps it: clients send ranges past the end (Neovim deleting the last lines).
        const start = this.doc.positionAt(this.doc.offsetAt(change.range.start));
        const end = this.doc.positionAt(this.doc.offsetAt(change.range.end));
        // line counts from the document itself, so CRLF, LF and lone CR count exactly as the client counts them
        const before = this.doc.lineCount;
        this.doc = TextDocument.update(this.doc, [{ range: { start, end }, text: change.text }], version);
        const newLines = this.doc.lineCount - before + (end.line - start.line + 1);
        this.edits.replace(start.line, end.line, newLines, (line) => this.lineText(line));
      } else {
        // Full-text sync: all we know is the new text, so compare every line with the baseline.
        const before = this.edits.lineCount;
        this.doc = TextDocument.update(this.doc, [change], version);
        this.edits.replace(0, Math.max(0, before - 1), this.doc.lineCount, (line) => this.lineText(line));
      }
    }
  }

  /** The saved text becomes the new baseline: nothing is "edited" any more. */
  rebase(): void {
    // carry each surviving line's attribution over to its new position until the ledger is read again
    if (this.attributions.length) this.attributions = this.edits.origins().map((o) => (o === undefined ? undefined : this.attributions[o]));
    this.baselineText = this.doc.getText();
    this.diskHash = fileHash(this.baselineText);
    this.edits.reset(splitLines(this.baselineText));
  }

  /** Re-anchors the ledger's entries for this file onto the baseline text (at open, save, or a ledger change). */
  attribute(entries: readonly TraceEntry[]): void {
    this.attributions = entries.length ? attribute(entries, splitLines(this.baselineText)) : [];
  }

  /** Who wrote a current line: a ledger entry, an unsaved edit here, or nobody on record. */
  owner(line: number): LineOwner {
    const origin = this.edits.origin(line);
    if (origin === undefined) return { kind: "edited" };
    const attribution = this.attributions[origin];
    return attribution ? { kind: "traced", attribution } : { kind: "untraced" };
  }

  /**
   * Runs of current lines written by the same record, for CodeLens and inlay hints. Clients ask again after
   * every change, so the answer is kept per document version and attribution.
   */
  attributedBlocks(): AttributedBlock[] {
    if (this.blocksCache?.version !== this.doc.version || this.blocksCache.attributions !== this.attributions) {
      this.blocksCache = { version: this.doc.version, attributions: this.attributions, blocks: this.computeBlocks() };
    }
    return this.blocksCache.blocks;
  }

  private computeBlocks(): AttributedBlock[] {
    const out: AttributedBlock[] = [];
    if (!this.attributions.length) return out;
    this.edits.origins().forEach((origin, line) => {
      const attribution = origin === undefined ? undefined : this.attributions[origin];
      if (!attribution) return;
      const last = out[out.length - 1];
      if (last && last.end === line - 1 && last.attribution.entry.recordId === attribution.entry.recordId) last.end = line;
      else out.push({ start: line, end: line, attribution });
    });
    return out;
  }

  lineText(line: number): string {
    const text = this.doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
    return text.replace(/(\r\n|\r|\n)$/, "");
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
