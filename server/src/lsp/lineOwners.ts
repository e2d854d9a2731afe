import type { Attributions, LineAttribution } from "../engine/attribution";
import type { LineOwner } from "../engine/blame";
import type { EditedLines } from "../engine/editedLines";
import type { EntryContributor, TraceEntry } from "../engine/ledger/read";

export interface AttributedBlock {
  start: number;
  end: number;
  attribution: LineAttribution;
}

/**
 * Who wrote each baseline line of an open document, and through its edits each current line: a ledger
 * entry, an unsaved edit, nobody on record, or not known yet (the ledger is still being read).
 */
export class LineOwners {
  /** Owner of each baseline line; undefined while not known. */
  private attributions: Attributions | undefined;
  private blocksCache: { version: number; attributions: unknown; blocks: AttributedBlock[] } | undefined;

  /** The baseline's owners; undefined while not known. */
  get known(): Attributions | undefined {
    return this.attributions;
  }

  /** Whether some of the `count` baseline lines is explained by no record (false while not known). */
  anyUnexplained(count: number): boolean {
    const a = this.attributions;
    if (!a) return false;
    for (let i = 0; i < count; i++) if (!a[i]) return true;
    return false;
  }

  set(attributions: Attributions | undefined): void {
    this.attributions = attributions;
    this.blocksCache = undefined;
  }

  /** The edits moved (refined): runs of owned lines are computed again. */
  editsMoved(): void {
    this.blocksCache = undefined;
  }

  /** The record that explains a baseline line (0-based); undefined: none does, or not known yet. */
  baselineRecord(index: number): TraceEntry | undefined {
    return this.attributions?.[index]?.entry;
  }

  /** Who wrote the current line whose baseline line is `origin` (undefined: an edit). */
  owner(origin: number | undefined): LineOwner {
    if (origin === undefined) return { kind: "edited" };
    if (!this.attributions) return { kind: "indexing" };
    const attribution = this.attributions[origin];
    return attribution ? { kind: "traced", attribution } : { kind: "untraced" };
  }

  /**
   * Runs of current lines written by the same record, for CodeLens and inlay hints. Clients ask again after
   * every change, so the answer is kept per document version and attribution.
   */
  blocks(version: number, edits: EditedLines): AttributedBlock[] {
    if (this.blocksCache?.version !== version || this.blocksCache.attributions !== this.attributions) {
      this.blocksCache = { version, attributions: this.attributions, blocks: this.computeBlocks(edits) };
    }
    return this.blocksCache.blocks;
  }

  private computeBlocks(edits: EditedLines): AttributedBlock[] {
    const out: AttributedBlock[] = [];
    const attributions = this.attributions;
    if (!attributions?.length) return out;
    edits.origins().forEach((origin, line) => {
      const attribution = origin === undefined ? undefined : attributions[origin];
      if (!attribution) return;
      const last = out[out.length - 1];
      // one record's lines make one block, unless the record names different writers for them (lines the
      // editor could not credit sit beside the person's own in one save's record)
      const same =
        last && last.attribution.entry.recordId === attribution.entry.recordId && sameWriter(last.attribution.entry.contributor, attribution.entry.contributor);
      if (last && last.end === line - 1 && same) last.end = line;
      else out.push({ start: line, end: line, attribution });
    });
    return out;
  }
}

function sameWriter(a: EntryContributor, b: EntryContributor): boolean {
  return a === b || (a.type === b.type && a.modelId === b.modelId && a.name === b.name && a.why === b.why);
}
