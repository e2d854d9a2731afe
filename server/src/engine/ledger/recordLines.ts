/**
 * Where the index reads a record's line back from when a query needs the record itself: the index keeps
 * only each record's byte offset and length, so a million-record ledger costs a few bytes per record in
 * memory, and the few records a query needs are parsed again on demand.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

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
  clear?(): void;
}

export interface FileIdentity {
  dev: number;
  ino: number;
}

/** Reads in one system call refs closer together than this (records of one file often sit side by side). */
const COALESCE_GAP = 16 * 1024;
/** …but never more than this in one read (a long line is still read whole, on its own). */
const MAX_READ = 1024 * 1024;
const NEWLINE = 0x0a;

/** Lines read back from the ledger file, checked against the identity of the file that was indexed. */
export class FileRecordLines implements RecordLines {
  constructor(
    readonly file: string,
    /** The identity of the file the index describes; lines are read only from that file. */
    private readonly identity: () => FileIdentity | undefined,
  ) {}

  read(refs: readonly LineRef[]): (Buffer | undefined)[] {
    const out = new Array<Buffer | undefined>(refs.length).fill(undefined);
    if (refs.length === 0) return out;
    let fd: number;
    try {
      fd = openSync(this.file, "r");
    } catch {
      return out;
    }
    try {
      const st = fstatSync(fd);
      const expected = this.identity();
      if (expected && (expected.dev !== st.dev || expected.ino !== st.ino)) return out;
      const order = refs.map((_, i) => i).sort((a, b) => refs[a]!.offset - refs[b]!.offset);
      for (let k = 0; k < order.length; ) {
        // one read for a run of nearby lines; each line is checked to end where the index says it does
        const first = refs[order[k]!]!;
        let last = k;
        while (last + 1 < order.length && refs[order[last + 1]!]!.offset - end(refs[order[last]!]!) <= COALESCE_GAP && end(refs[order[last + 1]!]!) - first.offset <= MAX_READ) last++;
        // from the byte before the first line (its newline) to the newline after the last
        const from = Math.max(0, first.offset - 1);
        const to = end(refs[order[last]!]!) + 1;
        if (to > st.size) break;
        const buf = Buffer.allocUnsafe(to - from);
        const got = readSync(fd, buf, 0, buf.length, from);
        for (let j = k; j <= last; j++) {
          const ref = refs[order[j]!]!;
          const at = ref.offset - from;
          const startsLine = ref.offset === 0 || buf[at - 1] === NEWLINE;
          if (startsLine && at + ref.length < got && buf[at + ref.length] === NEWLINE) out[order[j]!] = buf.subarray(at, at + ref.length);
        }
        k = last + 1;
      }
    } finally {
      closeSync(fd);
    }
    return out;
  }
}

function end(ref: LineRef): number {
  return ref.offset + ref.length;
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
        else return ref.offset + ref.length <= c.offset + c.bytes.length ? c.bytes.subarray(ref.offset - c.offset, ref.offset - c.offset + ref.length) : undefined;
      }
      return undefined;
    });
  }
}
