import { closeSync, fstatSync, readSync } from "node:fs";
import { lifecycleEvents, type LifecycleEvent } from "../../engine/ledger/lifecycle";
import { ownFilePath } from "../ownFiles";
import { openRegularSync } from "../regularFiles";

/** What marks a lifecycle record's line (`lifecycleEvents` reads no line without it). */
const MARK = Buffer.from('"lifecycle"', "latin1");
const NEWLINE = 0x0a;
/** Bytes read at a time: a ledger of a hundred megabytes is never held whole. */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Bytes of the ledger's head that must be unchanged for the events read so far to stay. */
const HEAD_BYTES = 256;

/**
 * The lifecycle moves of a ledger followed as it grows (the editor asks after every append): only the bytes
 * appended since the last read are read, and only the lines that hold the lifecycle mark are decoded and
 * parsed (a search of the bytes: a large ledger's first read is not spent decoding records that are not
 * moves); a ledger that shrank or was replaced is read again whole. The answer is `lifecycleEvents` of every
 * line, which `readLifecycleEvents` gives by reading the ledger whole.
 */
export class LifecycleLog {
  private offset = 0;
  private head: Buffer = Buffer.alloc(0);
  private events: LifecycleEvent[] = [];

  constructor(
    private readonly root: string,
    private readonly ledgerPath: () => string,
    private readonly chunkBytes = CHUNK_BYTES,
  ) {}

  read(): LifecycleEvent[] {
    let fd: number | undefined;
    try {
      fd = openRegularSync(ownFilePath(this.root, this.ledgerPath()));
      const size = fstatSync(fd).size;
      const head = readAt(fd, 0, Math.min(size, HEAD_BYTES));
      if (size < this.offset || !head.subarray(0, this.head.length).equals(this.head)) this.reset();
      // up to the last complete line: a line being appended is read when it is whole
      while (this.offset < size) {
        const chunk = readAt(fd, this.offset, Math.min(this.chunkBytes, size - this.offset));
        if (chunk.length === 0) break; // shorter than it was a moment ago: the next read starts over
        let end = chunk.lastIndexOf(NEWLINE) + 1;
        // a line longer than a chunk: read on until its end
        if (end === 0 && chunk.length < size - this.offset) end = lineEnd(fd, this.offset + chunk.length, size) - this.offset;
        if (end <= 0) break;
        const whole = end <= chunk.length ? chunk : readAt(fd, this.offset, end);
        this.events.push(...lifecycleEvents(markedLines(whole, end)));
        this.offset += end;
      }
      this.head = head;
    } catch {
      this.reset(); // no ledger (yet), or one that cannot be read safely: no moves to report
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    return this.events;
  }

  private reset(): void {
    this.offset = 0;
    this.head = Buffer.alloc(0);
    this.events = [];
  }
}

/** The lines of `bytes[0, end)` that hold the mark, decoded, in order. */
function* markedLines(bytes: Buffer, end: number): Generator<string> {
  for (let at = bytes.indexOf(MARK); at !== -1 && at < end; ) {
    const start = bytes.lastIndexOf(NEWLINE, at) + 1;
    // a mark before `end` is on a whole line: its newline is before `end` too
    const stop = bytes.indexOf(NEWLINE, at);
    yield bytes.toString("utf8", start, stop);
    at = bytes.indexOf(MARK, stop);
  }
}

/** The position just after the newline that ends the line going on at `from`, or 0 when none does yet. */
function lineEnd(fd: number, from: number, size: number): number {
  for (let at = from; at < size; ) {
    const chunk = readAt(fd, at, Math.min(CHUNK_BYTES, size - at));
    if (chunk.length === 0) return 0;
    const nl = chunk.indexOf(NEWLINE);
    if (nl !== -1) return at + nl + 1;
    at += chunk.length;
  }
  return 0;
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  const n = length ? readSync(fd, buf, 0, length, position) : 0;
  return buf.subarray(0, n);
}
