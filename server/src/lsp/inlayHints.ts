import { InlayHintKind, type InlayHint, type Range } from "vscode-languageserver";
import { blockDetails, hintLabel } from "../engine/describe";
import { INTENTS_FILE } from "../engine/workspaceFiles";
import type { TrackedDocument } from "./documents";

/**
 * Who wrote a block, at the end of its first line, for editors without CodeLens (Helix): a short label (the
 * intent and who), the rest in the tooltip, so a hint never pushes a long line wider.
 */
export function inlayHints(doc: TrackedDocument, range: Range, now: number): InlayHint[] {
  const ctx = doc.ctx;
  if (!ctx || doc.path === undefined || doc.path === INTENTS_FILE || !ctx.rules.settings.inlayHints.enabled) return [];
  return doc
    .attributedBlocks()
    .filter((b) => b.start >= range.start.line && b.start <= range.end.line)
    .map((b) => ({
      position: { line: b.start, character: doc.lineText(b.start).length },
      label: hintLabel(b.attribution.entry),
      tooltip: blockDetails(b.attribution.entry, ctx.rules.catalogue, now),
      kind: InlayHintKind.Type,
      paddingLeft: true,
    }));
}
