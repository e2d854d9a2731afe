/*
 * Where the index reads a record's line back from when a query needs the record itself: the index keeps
 * only each record's byte offset and length, so a million-record ledger costs a few bytes per record in
 * memory, and the few records a query needs are parsed again on demand.
 */

export interface LineRef {
  /** Byte offset of the line's first byte in the ledger. */
  offset: number;
  /** Bytes of the line, without its newline. */
  length: number;
}

export interface RecordLines {
  /**
   * The bytes of each line, in the order asked; undefined for a line that cannot be read as it was indexed
   * (the file was replaced or cut since: the follower notices on its next poll and indexes again).
   */
  read(refs: readonly LineRef[]): (Buffer | undefined)[];
  /** Keeps the bytes of a chunk that starts at `offset`, for sources that hold the ledger in memory. */
  keep?(offset: number, bytes: Buffer): void;
  /**
   * The saved index's rows were found not to match their checksum: the source drops that copy (no process
   * builds on it again) and indexes the ledger anew.
   */
  savedRowsDamaged?(): void;
  clear?(): void;
}

export interface FileIdentity {
  dev: number;
  ino: number;
}

/** The ledger's bytes kept in memory: for an index fed text directly (tests, in-memory ledgers). */
export class MemoryRecordLines implements RecordLines {
  private chunks: { offset: number; bytes: Buffer }[] = [];

  keep(offset: number, bytes: Buffer): void {
    this.chunks.push({ offset, bytes: Buffer.from(bytes) });
  }

  clear(): void {
    this.chunks = [];
  }

  /** Offset just past the last byte kept. */
  get end(): number {
    const last = this.chunks[this.chunks.length - 1];
    return last ? last.offset + last.bytes.length : 0;
  }

  read(refs: readonly LineRef[]): (Buffer | undefined)[] {
    return refs.map((ref) => {
      // chunks are kept in offset order; a line never spans two (each chunk is whole lines)
      let lo = 0;
      let hi = this.chunks.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const c = this.chunks[mid]!;
        if (ref.offset < c.offset) hi = mid - 1;
        else if (ref.offset >= c.offset + c.bytes.length) lo = mid + 1;
        else
          return ref.offset + ref.length <= c.offset + c.bytes.length ? c.bytes.subarray(ref.offset - c.offset, ref.offset - c.offset + ref.length) : undefined;
      }
      return undefined;
    });
  }
}
