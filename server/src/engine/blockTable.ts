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
  /**
   * The string of the lines not committed yet (their time is the run's "now"), when there are any: a string
   * of its own, so that a result kept from an earlier run can be given again with only this time made new.
   */
  now?: number;
}

/**
 * Whether run `next` goes on the block `block` began: the lines of one record in a row (untraced: of one
 * commit time), whatever else differs; `next` must also start right after the block's end. `BlockTable.add`
 * applies the same rule to the numbers of a block.
 */
export function sameBlock(block: Run, next: Run): boolean {
  return block.author === next.author && block.traceId === next.traceId && block.committed === next.committed && block.uncommitted === next.uncommitted;
}

export class BlockTable {
  private readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();
  private readonly rows: number[] = [];
  private readonly times = new Map<number, number>();
  private nowId: number | undefined;
  /** Where in `rows` the last block starts (-1: none yet). */
  private at = -1;

  /** A string's number in the table (-1: absent). */
  id(s: string | undefined): number {
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
   * The numbers in this table of another table's strings (numbered from 1, 0: absent; engine/runRows.ts),
   * each added when first asked: a report adds the runs of a whole cache numbered that way. That table's
   * strings are distinct, so they are not looked up among this table's (a string also added by `id` is
   * in the table twice, which costs a few bytes and no meaning).
   */
  numbering(strings: readonly string[]): (i: number) => number {
    // filled as asked (the other table may grow meanwhile)
    const ids: number[] = [-1];
    return (i) => {
      let id = ids[i];
      if (id === undefined) ids[i] = id = this.strings.push(strings[i - 1]!) - 1;
      return id;
    };
  }

  /** The number of a file's path: each file is added once, so its path is not looked up. */
  file(path: string): number {
    return this.strings.push(path) - 1;
  }

  /** The number of the time of lines not committed yet (`PackedBlocks.now`): `iso` the first time. */
  uncommitted(iso: string): number {
    this.nowId ??= this.strings.push(iso) - 1;
    return this.nowId;
  }

  /** The number of a commit time, epoch ms (its ISO text in the table, made once per time). */
  time(ms: number): number {
    let i = this.times.get(ms);
    if (i === undefined) {
      i = this.id(new Date(ms).toISOString());
      this.times.set(ms, i);
    }
    return i;
  }

  /**
   * Lines `start`..`end` of file `file`, the other numbers as in `PackedBlocks.rows` (strings as `id`s).
   * They go on the last block when they follow it in the same file and are of the same record (untraced
   * lines: of the same commit time), whatever else differs: `sameBlock`, as engine/insight.ts `blocksOf` joins runs.
   */
  add(
    file: number,
    start: number,
    end: number,
    author: number,
    intent: number,
    model: number,
    person: number,
    traceId: number,
    timestamp: number,
    out: number,
    committed: number,
    uncommitted: number,
  ): void {
    const rows = this.rows;
    const at = this.at;
    if (
      at >= 0 &&
      rows[at] === file &&
      rows[at + 2] === start - 1 &&
      rows[at + 3] === author &&
      rows[at + 7] === traceId &&
      rows[at + 10] === committed &&
      rows[at + 11] === uncommitted
    ) {
      rows[at + 2] = end;
      return;
    }
    this.at = rows.length;
    rows.push(file, start, end, author, intent, model, person, traceId, timestamp, out, committed, uncommitted);
  }

  /** A file's runs as its blocks (see `add`). */
  addRuns(path: string, runs: readonly Run[]): void {
    const file = this.file(path);
    for (const r of runs)
      this.add(
        file,
        r.start,
        r.end,
        AUTHORS.indexOf(r.author),
        this.id(r.intent),
        this.id(r.model),
        this.id(r.person),
        this.id(r.traceId),
        this.id(r.timestamp),
        r.outOfScope ? 1 : 0,
        r.uncommitted && r.committed !== undefined ? this.uncommitted(r.committed) : this.id(r.committed),
        r.uncommitted ? 1 : 0,
      );
  }

  /** A file no record names: all its `count` lines untraced, in one block. */
  addUntracedFile(path: string, count: number): void {
    this.add(this.file(path), 1, count, AUTHORS.indexOf("untraced"), -1, -1, -1, -1, -1, 0, -1, 0);
  }

  packed(): PackedBlocks {
    return { strings: this.strings, rows: this.rows, ...(this.nowId !== undefined ? { now: this.nowId } : {}) };
  }
}
