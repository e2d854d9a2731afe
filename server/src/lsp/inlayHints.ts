import { InlayHintKind, type InlayHint, type Range } from "vscode-languageserver";
import { blockLabel } from "../engine/describe";
import { INTENTS_FILE } from "../engine/workspaceFiles";
import type { TrackedDocument } from "./documents";

/** The CodeLens block labels as inlay hints at the end of each block's first line, for editors without CodeLens (Helix). */
export function inlayHints(doc: TrackedDocument, range: Range, now: number): InlayHint[] {
  const ctx = doc.ctx;
  if (!ctx || doc.path === undefined || doc.path === INTENTS_FILE || !ctx.rules.settings.inlayHints.enabled) return [];
  return doc
    .attributedBlocks()
    .filter((b) => b.start >= range.start.line && b.start <= range.end.line)
    .map((b) => ({
      position: { line: b.start, character: doc.lineText(b.start).length },
      label: blockLabel(b.attribution.entry, now),
      kind: InlayHintKind.Type,
      paddingLeft: true,
    }));
}
