import type { Diagnostic } from "vscode-languageserver";
import type { Finding } from "../engine/check";

/**
 * An open document's findings that are not per keystroke: the whole-file ones (stale-file), and what
 * `intent check` reports for the saved content, in baseline line numbers. Both are recomputed on events (the
 * baseline, the ledger or the rules change), never per keystroke.
 */
export class DocumentFindings {
  private fileFindings: Diagnostic[] = [];
  /** The saved content's findings, for the baseline of hash `hash`. */
  private savedFindings: { hash: string; findings: Finding[] } | undefined;
  /** The hash of a baseline whose saved findings are being computed. */
  private due: string | undefined;

  /** Whole-file findings (stale-file). */
  get file(): readonly Diagnostic[] {
    return this.fileFindings;
  }

  setFile(findings: Diagnostic[]): void {
    this.fileFindings = findings;
  }

  get saved(): { readonly hash: string; readonly findings: readonly Finding[] } | undefined {
    return this.savedFindings;
  }

  /** The saved findings of the baseline of hash `hash` are being computed; until then none are published for it. */
  begin(hash: string): void {
    this.due = hash;
  }

  /** Whether the saved findings of `hash` are being computed (by the newest computation). */
  isDue(hash: string): boolean {
    return this.due !== undefined && this.due === hash;
  }

  /** No computation is due (the baseline moved on, or the document has no saved findings). */
  cancel(): void {
    this.due = undefined;
  }

  /** The computation for `hash` ended with `findings`; ignored when a newer one started meanwhile. */
  finish(hash: string, findings: Finding[]): void {
    if (this.due !== hash) return;
    this.due = undefined;
    this.savedFindings = { hash, findings };
  }
}
