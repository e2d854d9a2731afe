/** Record lines read back from the ledger file itself, for the index's on-demand queries. */
import { closeSync, fstatSync, readSync, type Stats, statSync } from "node:fs";
import { openRegularSync } from "../regularFiles";
import type { FileIdentity, LineRef, RecordLines } from "../../engine/ledger/recordLines";

/** Reads in one system call refs closer together than this (records of one file often sit side by side). */
const COALESCE_GAP = 16 * 1024;
/** …but never more than this in one read (a long line is still read whole, on its own). */
const MAX_READ = 1024 * 1024;
const NEWLINE = 0x0a;

/** A query reads a file's records in several batches: the descriptor is kept this long after the last read. */
const KEEP_OPEN_MS = 1000;

interface OpenLedger {
  fd: number;
  dev: number;
  ino: number;
}

/**
 * Lines read back from the ledger file, checked against the identity of the file that was indexed. The file
 * is looked up by its path at every read (one `stat`): its descriptor is reused while the path still names
 * the same file, and closed once reads stop.
 */
export class FileRecordLines implements RecordLines {
  private kept: OpenLedger | undefined;
  private closer: NodeJS.Timeout | undefined;

  constructor(
    readonly file: string,
    /** The identity of the file the index describes; lines are read only from that file. */
    private readonly identity: () => FileIdentity | undefined,
    /** Some line could not be read as it was indexed: the file is no longer the one the index describes. */
    private readonly notAsIndexed: () => void = () => undefined,
    /** The saved index the rows came from is damaged (RecordLines.savedRowsDamaged). */
    private readonly damagedSave: () => void = () => undefined,
  ) {}

  savedRowsDamaged(): void {
    this.damagedSave();
  }

  read(refs: readonly LineRef[]): (Buffer | undefined)[] {
    const out = new Array<Buffer | undefined>(refs.length).fill(undefined);
    if (refs.length === 0) return out;
    const ledger = this.descriptor();
    if (!ledger) return out;
    const expected = this.identity();
    if (expected && (expected.dev !== ledger.dev || expected.ino !== ledger.ino)) return out;
    try {
      const order = refs.map((_, i) => i).sort((a, b) => refs[a]!.offset - refs[b]!.offset);
      for (let k = 0; k < order.length; ) {
        // one read for a run of nearby lines; each line is checked to end where the index says it does
        const first = refs[order[k]!]!;
        let last = k;
        while (
          last + 1 < order.length &&
          refs[order[last + 1]!]!.offset - end(refs[order[last]!]!) <= COALESCE_GAP &&
          end(refs[order[last + 1]!]!) - first.offset <= MAX_READ
        )
          last++;
        // from the byte before the first line (its newline) to the newline after the last; past the end of
        // the file, fewer bytes come back and the lines they lack are not read
        const from = Math.max(0, first.offset - 1);
        const to = end(refs[order[last]!]!) + 1;
        const buf = Buffer.allocUnsafe(to - from);
        const got = readSync(ledger.fd, buf, 0, buf.length, from);
        for (let j = k; j <= last; j++) {
          const ref = refs[order[j]!]!;
          const at = ref.offset - from;
          const startsLine = ref.offset === 0 || buf[at - 1] === NEWLINE;
          if (startsLine && at + ref.length < got && buf[at + ref.length] === NEWLINE) out[order[j]!] = buf.subarray(at, at + ref.length);
        }
        k = last + 1;
      }
    } catch (e) {
      this.close();
      throw e;
    }
    // the same file (identity) holds other bytes where the index points: it was written anew underneath
    if (out.includes(undefined)) this.notAsIndexed();
    return out;
  }

  /** The open ledger the path names now: the kept one while it is the same file, else opened anew; undefined when it cannot be. */
  private descriptor(): OpenLedger | undefined {
    let st: Stats;
    try {
      st = statSync(this.file);
    } catch {
      this.close();
      return undefined;
    }
    // a kept descriptor holds its file: no other file can have its device and inode meanwhile
    if (!this.kept || this.kept.dev !== st.dev || this.kept.ino !== st.ino) {
      this.close();
      try {
        const fd = openRegularSync(this.file); // a FIFO swapped in for the ledger must not block the server
        const opened = fstatSync(fd);
        this.kept = { fd, dev: opened.dev, ino: opened.ino };
      } catch {
        return undefined;
      }
    }
    clearTimeout(this.closer);
    this.closer = setTimeout(() => this.close(), KEEP_OPEN_MS);
    this.closer.unref?.();
    return this.kept;
  }

  private close(): void {
    clearTimeout(this.closer);
    if (!this.kept) return;
    const { fd } = this.kept;
    this.kept = undefined;
    try {
      closeSync(fd);
    } catch {
      // already closed: nothing is kept either way
    }
  }
}

function end(ref: LineRef): number {
  return ref.offset + ref.length;
}
