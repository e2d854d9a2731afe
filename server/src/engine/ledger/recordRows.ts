/**
 * The ledger index's rows: where each record naming a file is in the ledger, with its time and post-hash key,
 * as columns (a million rows make no object per row).
 */
import type { LineRef } from "./recordLines";

/** A record's line: where it is in the ledger and which line it is. */
export interface RecordRef extends LineRef {
  /** 1-based ledger line. */
  line: number;
}

/** One row, as a query reads it. */
export interface Row extends RecordRef {
  time: number;
  post: number;
}

/**
 * One row per (file, record naming it), in ledger order, as columns; each file's rows are chained through
 * `next`. The post hash is kept as a 32-bit key (the first 8 hex digits of a sha256), enough to find the
 * one record to read back when asked whether some record pinned a file to some content; the record's time
 * orders a file's records newest first without reading them.
 */
export class RecordRows {
  size = 0;
  offset: Float64Array;
  time: Float64Array;
  length: Uint32Array;
  line: Uint32Array;
  post: Uint32Array;
  next: Uint32Array;

  constructor(capacity = 1024) {
    this.offset = new Float64Array(capacity);
    this.time = new Float64Array(capacity);
    this.length = new Uint32Array(capacity);
    this.line = new Uint32Array(capacity);
    this.post = new Uint32Array(capacity);
    this.next = new Uint32Array(capacity);
  }

  push(offset: number, length: number, line: number, post: number, time: number): number {
    // grown by a quarter: a million rows built in place should not leave half a million unused behind
    if (this.size === this.offset.length) this.grow(Math.ceil(this.size * 1.25) + 1024);
    const i = this.size++;
    this.offset[i] = offset;
    this.time[i] = time;
    this.length[i] = length;
    this.line[i] = line;
    this.post[i] = post;
    this.next[i] = NONE;
    return i;
  }

  private grow(capacity: number): void {
    const copy = <T extends Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(capacity);
      b.set(a.subarray(0, this.size));
      return b;
    };
    this.offset = copy(this.offset, (n) => new Float64Array(n));
    this.time = copy(this.time, (n) => new Float64Array(n));
    this.length = copy(this.length, (n) => new Uint32Array(n));
    this.line = copy(this.line, (n) => new Uint32Array(n));
    this.post = copy(this.post, (n) => new Uint32Array(n));
    this.next = copy(this.next, (n) => new Uint32Array(n));
  }
}

export const NONE = 0xffffffff;
/** Post-hash keys: no entry of the record states one for the file; the entries disagree (read it back). */
export const NO_POST = 0;
export const MIXED_POST = 1;

/** Some rows of a column store, as columns. */
export interface RowColumns {
  offset: Float64Array;
  time: Float64Array;
  length: Uint32Array;
  line: Uint32Array;
  post: Uint32Array;
}

/**
 * The 32-bit key of a post hash: the first 8 hex digits of `sha256:<hex>` (any other string is hashed), 0 and
 * 1 being reserved for "none" and "mixed". Keys only select records to read back; equal keys prove nothing.
 */
export function postKey(hash: string | null | undefined): number {
  if (hash === undefined || hash === null) return NO_POST;
  let key = hash.startsWith("sha256:") ? parseInt(hash.slice(7, 15), 16) : NaN;
  if (Number.isNaN(key)) {
    key = 0x811c9dc5;
    for (let i = 0; i < hash.length; i++) key = Math.imul(key ^ hash.charCodeAt(i), 0x01000193) >>> 0;
  }
  return key > MIXED_POST ? key : MIXED_POST + 1;
}
