/** Record lines read back from the ledger file itself, for the index's on-demand queries. */
import { closeSync, fstatSync, readSync } from "node:fs";
import { openRegularSync } from "../regularFiles";
import type { FileIdentity, LineRef, RecordLines } from "../../engine/ledger/recordLines";

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
    /** Some line could not be read as it was indexed: the file is no longer the one the index describes. */
    private readonly notAsIndexed: () => void = () => undefined,
  ) {}

  read(refs: readonly LineRef[]): (Buffer | undefined)[] {
    const out = new Array<Buffer | undefined>(refs.length).fill(undefined);
    if (refs.length === 0) return out;
    let fd: number;
    try {
      fd = openRegularSync(this.file); // a FIFO swapped in for the ledger must not block the server
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
        while (
          last + 1 < order.length &&
          refs[order[last + 1]!]!.offset - end(refs[order[last]!]!) <= COALESCE_GAP &&
          end(refs[order[last + 1]!]!) - first.offset <= MAX_READ
        )
          last++;
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
      // the same file (identity) holds other bytes where the index points: it was written anew underneath
      if (out.includes(undefined)) this.notAsIndexed();
    } finally {
      closeSync(fd);
    }
    return out;
  }
}

function end(ref: LineRef): number {
  return ref.offset + ref.length;
}
