/**
 * How sure an attributed line's owner is (docs/LEDGER.md "How sure: confidence"), from how the line was
 * matched to its record (attribution.ts `AnchorKind`):
 * - `exact`: a record's own range covers the line in the very content it pins: its range's content hash
 *   matches the line where it was recorded, or its `post_hash` is the content at hand (a whole-file record
 *   whose hash matches, too);
 * - `replayed`: the record's range, carried to this line through the line maps of the records after it;
 * - `moved`: written in another path and brought here by a move or a cut and paste that was recorded as it
 *   happened (`moved_from`, `moved_lines`);
 * - `inferred`: found by content (a block found elsewhere in the file, a line by its own hash, a copy or a
 *   rename git detected) or placed by the record's line numbers alone;
 * - `untraced`: no record explains the line.
 */
import type { LineAttribution } from "./attribution";
import { percent } from "./authorship";

export type Confidence = "exact" | "replayed" | "moved" | "inferred" | "untraced";

export const CONFIDENCES: readonly Confidence[] = ["exact", "replayed", "moved", "inferred", "untraced"];

/** The confidence levels of an attributed line (every one but `untraced`). */
export type TracedConfidence = Exclude<Confidence, "untraced">;
export const TRACED_CONFIDENCES: readonly TracedConfidence[] = ["exact", "replayed", "moved", "inferred"];

/**
 * "30% exact, 4% inferred": how sure the owners of an author's lines are, as shares of all `total` lines (so
 * they add up to the author's share, give or take rounding); empty when the author has none. `intent stats`
 * and the report say it after the author's share.
 */
export function surenessText(levels: Readonly<Record<TracedConfidence, number>>, total: number): string {
  return TRACED_CONFIDENCES.filter((c) => levels[c] > 0)
    .map((c) => `${percent(levels[c], total)} ${c}`)
    .join(", ");
}

/**
 * The confidence of a traced line of `path` whose owner is `a`; `pinned`: the hash of the content the
 * attribution was computed on (the file on disk; an open document's last loaded or saved content).
 */
export function confidenceOf(a: Pick<LineAttribution, "entry" | "anchor" | "movedBy">, path: string | undefined, pinned: string | undefined): Confidence {
  if (path !== undefined && a.entry.path !== path) return a.movedBy ? "moved" : "inferred";
  switch (a.anchor) {
    case "range":
    case "file":
      return "exact";
    case "carried":
      return pinned !== undefined && a.entry.postHash === pinned ? "exact" : "replayed";
    default:
      return "inferred";
  }
}
