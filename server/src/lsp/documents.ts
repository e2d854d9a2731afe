import { TextDocument } from "vscode-languageserver-textdocument";
import type { TextDocumentContentChangeEvent } from "vscode-languageserver";
import { EditedLines } from "../engine/editedLines";
import type { Verdict } from "../engine/gate";
import type { WorkspaceContext } from "./workspace";

/**
 * An open document: its text, the lines edited since its baseline, and a cached verdict. The verdict
 * depends on the path and the rules only, so it is computed once per rules generation, not per keystroke.
 */
export class TrackedDocument {
  readonly edits: EditedLines;
  private verdictCache: { generation: number; verdict: Verdict } | undefined;

  constructor(
    public doc: TextDocument,
    readonly path: string | undefined,
    readonly ctx: WorkspaceContext | undefined,
  ) {
    this.edits = new EditedLines(splitLines(doc.getText()));
  }

  get uri(): string {
    return this.doc.uri;
  }

  /** Applies one notification's changes in order, feeding each into the edit tracker. */
  applyChanges(changes: readonly TextDocumentContentChangeEvent[], version: number): void {
    for (const change of changes) {
      if ("range" in change) {
        const { start, end } = change.range;
        const newLines = countLines(change.text);
        this.doc = TextDocument.update(this.doc, [change], version);
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
    this.edits.reset(splitLines(this.doc.getText()));
  }

  lineText(line: number): string {
    const text = this.doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
    return text.replace(/\r?\n$/, "");
  }

  verdict(): Verdict | undefined {
    if (!this.ctx || this.path === undefined) return undefined;
    if (this.verdictCache?.generation !== this.ctx.generation) {
      this.verdictCache = { generation: this.ctx.generation, verdict: this.ctx.judge(this.path) };
    }
    return this.verdictCache.verdict;
  }
}

export function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
