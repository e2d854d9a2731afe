import type { AdoptedLine } from "../engine/adoption";
import { adoptionOf, adoptionSource, keptFrom, type AdoptionSource } from "../io/adoption";
import type { WorkspaceContext } from "./workspaceContext";

/**
 * An open document's lines kept from before the adoption point (engine/adoption.ts), as `intent blame` tells
 * them: the file as it was at the adoption commit, asked of git once in the background when the document
 * opens, and the baseline's kept lines worked out from it per baseline (a save, a reload), never per keystroke.
 */
export class DocumentAdoption {
  /** undefined: no adoption point, or git could not say; "asking": git has not answered yet. */
  private source: AdoptionSource | null | "asking" | undefined;
  private kept: { hash: string; lines: (AdoptedLine | undefined)[] } | undefined;

  constructor(ctx: WorkspaceContext | undefined, path: string | undefined) {
    const adoption = ctx && path !== undefined ? adoptionOf(ctx.root) : undefined;
    if (!ctx || path === undefined || !adoption) return;
    this.source = "asking";
    void adoptionSource(ctx.root, adoption, path).then(
      (s) => (this.source = s),
      () => (this.source = undefined),
    );
  }

  /** Whether git told the file's lines at the adoption point (so an unexplained line is known to be changed since). */
  get known(): boolean {
    return this.source !== undefined && this.source !== "asking";
  }

  /**
   * The baseline line `index` (0-based) kept from before adoption, when it is; "asking" while git has not
   * answered (the line's owner is not known yet: never a false "untraced").
   */
  lineAt(baseline: string, hash: string, index: number): AdoptedLine | "asking" | undefined {
    const source = this.source;
    if (source === "asking") return "asking";
    if (source === undefined) return undefined;
    if (this.kept?.hash !== hash) this.kept = { hash, lines: keptFrom(source, baseline) };
    return this.kept.lines[index];
  }
}
