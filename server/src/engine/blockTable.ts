/**
 * The runs of lines behind the report's numbers, as the report page reads them (engine/reportPage.ts,
 * clients/report/page.ts): each block a row of numbers, its strings once in a table. Made as the files are
 * counted, from their runs, so that a workspace of a hundred thousand blocks is never held as objects.
 */
import { AUTHORS } from "./authorship";
import type { Run } from "./insight";

/** The numbers of one block in `PackedBlocks.rows`. */
export const BLOCK_FIELDS = 12;

export interface PackedBlocks {
  strings: string[];
  /**
   * Every block's BLOCK_FIELDS numbers, one block after the other: path, start, end, author, intent, model,
   * person, traceId, timestamp, outOfScope (0/1), committed, uncommitted (0/1); -1: none. One array, not one
   * per block: a hundred thousand small arrays cost more to make, keep and write than the numbers in them.
   */
  rows: number[];
}

/**
 * Whether run `next` goes on the block `block` began: the lines of one record in a row (untraced: of one
 * commit time), whatever else differs; `next` must also start right after the block's end.
 */
export function sameBlock(block: Run, next: Run): boolean {
  return block.author === next.author && block.traceId === next.traceId && block.committed === next.committed && block.uncommitted === next.uncommitted;
}

export class BlockTable {
  private readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();
  private readonly rows: number[] = [];
  /** The last record numbered (`record`): its id and time, and their numbers. */
  private last: { traceId: string; timestamp: string | undefined; id: number; time: number } | undefined;

  private id(s: string | undefined): number {
    if (s === undefined) return -1;
    let i = this.ids.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.ids.set(s, i);
    }
    return i;
  }

  /**
   * The numbers of a block's record id and time. A record's blocks are mostly one or a few in a row (a record
   * writes one file), so its strings are added as they come, not looked up among the hundreds of thousands
   * of other records' (a record split into blocks apart in its file adds its strings again).
   */
  private record(traceId: string | undefined, timestamp: string | undefined): [number, number] {
    if (traceId === undefined) return [-1, this.id(timestamp)];
    const last = this.last;
    if (last && last.traceId === traceId && last.timestamp === timestamp) return [last.id, last.time];
    const id = this.strings.push(traceId) - 1;
    const time = timestamp === undefined ? -1 : this.strings.push(timestamp) - 1;
    this.last = { traceId, timestamp, id, time };
    return [id, time];
  }

  /** A file's runs as its blocks (`sameBlock`), as engine/insight.ts `blocksOf` joins them. */
  addRuns(path: string, runs: readonly Run[]): void {
    const file = this.id(path);
    const rows = this.rows;
    let last: Run | undefined;
    /** Where in `rows` the block of run `last` starts. */
    let at = -1;
    for (const r of runs) {
      if (last && sameBlock(last, r) && rows[at + 2] === r.start - 1) rows[at + 2] = r.end;
      else {
        at = rows.length;
        const [traceId, timestamp] = this.record(r.traceId, r.timestamp);
        rows.push(
          file,
          r.start,
          r.end,
          AUTHORS.indexOf(r.author),
          this.id(r.intent),
          this.id(r.model),
          this.id(r.person),
          traceId,
          timestamp,
          r.outOfScope ? 1 : 0,
          this.id(r.committed),
          r.uncommitted ? 1 : 0,
        );
      }
      last = r;
    }
  }

  /** A file no record names: all its `count` lines untraced, in one block. */
  addUntracedFile(path: string, count: number): void {
    this.rows.push(this.id(path), 1, count, AUTHORS.indexOf("untraced"), -1, -1, -1, -1, -1, 0, -1, 0);
  }

  packed(): PackedBlocks {
    return { strings: this.strings, rows: this.rows };
  }
}
