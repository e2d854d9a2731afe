import type { FileHandle } from "node:fs/promises";
import { lifecycleEvents, type LifecycleEvent } from "../../engine/ledger/lifecycle";
import { SEALED_COPY } from "../ledger/segments";
import { ownFilePath } from "../ownFiles";
import { openRegular } from "../regularFiles";

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
 * line of the file (test/unit/lifecycleLog.test.ts holds it to that plain reading).
 *
 * The reads are asynchronous, a chunk at a time: the editor's first read of a ledger of a gigabyte searches
 * it for about a second and a half, which must not hold up typing. One read runs at a time.
 */
export class LifecycleLog {
  private offset = 0;
  private head: Buffer = Buffer.alloc(0);
  private events: LifecycleEvent[] = [];
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly root: string,
    private readonly ledgerPath: () => string,
    private readonly chunkBytes = CHUNK_BYTES,
  ) {}

  /** Every move on record, read on from where the last read ended once any read under way is done. */
  read(): Promise<LifecycleEvent[]> {
    const next = this.running.then(() => this.readOn());
    this.running = next.catch(() => undefined);
    return next;
  }

  private async readOn(): Promise<LifecycleEvent[]> {
    let handle: FileHandle | undefined;
    try {
      handle = await openRegular(ownFilePath(this.root, this.ledgerPath()));
      const size = (await handle.stat()).size;
      const head = await readAt(handle, 0, Math.min(size, HEAD_BYTES));
      if (size < this.offset || !head.subarray(0, this.head.length).equals(this.head)) this.reset();
      // up to the last complete line: a line being appended is read when it is whole
      while (this.offset < size) {
        const chunk = await readAt(handle, this.offset, Math.min(this.chunkBytes, size - this.offset));
        if (chunk.length === 0) break; // shorter than it was a moment ago: the next read starts over
        let end = chunk.lastIndexOf(NEWLINE) + 1;
        // a line longer than a chunk: read on until its end
        if (end === 0 && chunk.length < size - this.offset) end = (await lineEnd(handle, this.offset + chunk.length, size)) - this.offset;
        if (end <= 0) break;
        const whole = end <= chunk.length ? chunk : await readAt(handle, this.offset, end);
        for (const e of lifecycleEvents(markedLines(whole, end))) this.events.push(e);
        this.offset += end;
      }
      this.head = head;
    } catch {
      this.reset(); // no ledger (yet), or one that cannot be read safely: no moves to report
    } finally {
      await handle?.close();
    }
    // a copy: a caller holds its answer across later reads, which add to (or start over) the log's own list
    return [...this.events];
  }

  private reset(): void {
    this.offset = 0;
    this.head = Buffer.alloc(0);
    this.events = [];
  }
}

/**
 * The lifecycle moves of every ledger the workspace reads, oldest first: those in the decoded copy of the
 * sealed segments (`refreshSealedCopy`, which the ledger's readers keep up to date), then the live file's. A
 * compaction seals moves with every other record: the live file alone would forget when an intent started.
 * A move in both (a line one branch sealed and another kept live) is one move.
 */
export class WorkspaceLifecycle {
  private readonly sealed: LifecycleLog;
  private readonly live: LifecycleLog;

  constructor(root: string, ledgerPath: () => string, chunkBytes = CHUNK_BYTES) {
    this.sealed = new LifecycleLog(root, () => SEALED_COPY, chunkBytes);
    this.live = new LifecycleLog(root, ledgerPath, chunkBytes);
  }

  async read(): Promise<LifecycleEvent[]> {
    const sealed = await this.sealed.read();
    const live = await this.live.read();
    const seen = new Set(sealed.map(moveKey));
    return [...sealed, ...live.filter((e) => !seen.has(moveKey(e)))];
  }
}

/** What tells two moves apart: the intent, its statuses, when and at which commit. */
function moveKey(e: LifecycleEvent): string {
  return JSON.stringify([e.intentId, e.from, e.to, e.at, e.revision ?? null]);
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
async function lineEnd(handle: FileHandle, from: number, size: number): Promise<number> {
  for (let at = from; at < size; ) {
    const chunk = await readAt(handle, at, Math.min(CHUNK_BYTES, size - at));
    if (chunk.length === 0) return 0;
    const nl = chunk.indexOf(NEWLINE);
    if (nl !== -1) return at + nl + 1;
    at += chunk.length;
  }
  return 0;
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  const { bytesRead } = length ? await handle.read(buf, 0, length, position) : { bytesRead: 0 };
  return buf.subarray(0, bytesRead);
}
