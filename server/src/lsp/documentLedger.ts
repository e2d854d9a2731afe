import { SESSION_URN_PREFIX } from "@shared/agentTrace";
import { attribute, type Attributions, type RecordStep } from "../engine/attribution";
import type { TraceEntry } from "../engine/ledger/read";
import { borrowed, type BlockSource, type MovedLines } from "../engine/lineage";
import type { Span } from "../engine/lineChange";
import type { DocumentBaseline } from "./documentBaseline";
import type { WorkspaceContext } from "./workspaceContext";

/** What the workspace's ledger says about one open document; nothing outside a workspace. */
export class DocumentLedger {
  constructor(
    private readonly ctx: WorkspaceContext | undefined,
    private readonly path: string | undefined,
    private readonly baseline: DocumentBaseline,
  ) {}

  /** Whether the document is a file of a workspace (it has a ledger). */
  get inWorkspace(): boolean {
    return !!this.ctx && this.path !== undefined;
  }

  /**
   * Whether the ledger's newest record of this file pins this content: the write that just happened was
   * recorded. An older record with the same content (the file went back to an earlier state) proves nothing
   * about who wrote it now.
   */
  isNewestRecorded(hash: string): boolean {
    return !!this.ctx && this.path !== undefined && this.ctx.ledger.lastPostHash(this.path) === hash;
  }

  /** The records the ledger holds of this file itself (not of the files its content came from), by id. */
  recordIds(): ReadonlySet<string> {
    if (!this.ctx || this.path === undefined) return new Set();
    return new Set(this.ctx.ledger.entriesFor(this.path).map(entryKey));
  }

  /** A record of this file itself, not of one of the files its content came from. */
  isOfThisFile(entry: TraceEntry): boolean {
    return entry.path === this.path;
  }

  /** Written by this server (its saves are already carried forward). */
  isOurs(entry: TraceEntry): boolean {
    return !!this.ctx && entry.url === SESSION_URN_PREFIX + encodeURIComponent(this.ctx.session.id);
  }

  /**
   * The ledger's entries that explain this document's baseline: its own and those of the paths its content
   * came from (a rename, a move, a copy: engine/lineage.ts). Empty outside a workspace.
   */
  entries(): readonly TraceEntry[] {
    return this.ctx && this.path !== undefined ? this.ctx.ledger.attributionEntries(this.path, this.baseline.lines, undefined, this.baseline.hash) : [];
  }

  /** The owners of `lines` as `intent blame` tells them (the file on disk holds them); undefined outside a workspace. */
  ownersOf(lines: string[]): Attributions | undefined {
    if (!this.ctx || this.path === undefined) return undefined;
    return attribute(this.ctx.ledger.attributionEntries(this.path, lines), lines);
  }

  /**
   * The owners of `lines`, saved by `step` over the baseline with lines pasted from other files: those keep
   * their owners there (the ledger's records of those files say who). Undefined outside a workspace.
   */
  ownersWithPasted(step: RecordStep, movedIn: readonly MovedLines[], lines: string[]): Attributions | undefined {
    if (!this.ctx || this.path === undefined) return undefined;
    const ledger = this.ctx.ledger;
    return attribute(
      [
        ...ledger.attributionEntries(this.path, this.baseline.lines, undefined, this.baseline.hash),
        ...step.entries,
        ...movedIn.flatMap((m) => ledger.entriesFor(m.from).map(borrowed)),
      ],
      lines,
    );
  }

  /**
   * Recorded contents of this document a block pasted into another file may come from (engine/lineage.ts
   * `findMovedBlocks`): its baseline, and the baseline before its last save (a cut saved before the paste).
   * The lines a cut removed come first, each as a source of its own: of a block the file holds twice, the
   * paste takes the one that was cut (`unsavedCut`: the baseline lines the buffer no longer holds).
   */
  blockSources(unsavedCut?: readonly Span[]): BlockSource[] {
    const whole: BlockSource[] = [];
    const cuts: BlockSource[] = [];
    if (!this.ctx || this.path === undefined) return whole;
    const [current, prior] = this.baseline.recent();
    const pinned = (b: { hash: string }) => this.ctx!.ledger.hasPostHash(this.path!, b.hash);
    for (const b of [current!, ...(prior ? [prior] : [])]) if (pinned(b)) whole.push({ path: this.path, hash: b.hash, lines: b.lines });
    if (unsavedCut && pinned(current!)) cuts.push(cutOnly(this.path, current!, unsavedCut));
    if (prior?.removed && pinned(prior)) cuts.push(cutOnly(this.path, prior, prior.removed));
    return [...cuts, ...whole];
  }
}

/** What tells one record from another: its id, or its place for a record that has none. */
export function entryKey(e: TraceEntry): string {
  return e.recordId || `line ${e.line}`;
}

/** A content with only the `removed` lines (the others unknown to the matcher). */
function cutOnly(path: string, b: { hash: string; lines: readonly string[] }, removed: readonly Span[]): BlockSource {
  const lines = new Array<string | undefined>(b.lines.length).fill(undefined);
  for (const s of removed) for (let i = s.start; i <= s.end && i < b.lines.length; i++) lines[i] = b.lines[i];
  return { path, hash: b.hash, lines };
}
