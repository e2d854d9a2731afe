/**
 * Follows the ledger file as other processes append to it, feeding only new complete lines to a sink (the
 * `LedgerIndex`), with the byte offset they start at. The index reads a record back (recordLines.ts) only
 * from the file this follower last saw.
 *
 * - remembers the byte offset read to; `poll()` reads only what lies beyond it;
 * - a partial last line (a writer mid-append, or a torn line) is not consumed until its newline arrives;
 * - a file that shrank, was replaced (other inode), or whose bytes before the offset changed (git checkout,
 *   a union merge that inserted lines) is read again from the start after `sink.reset()`; so is one where a
 *   line the sink was fed no longer reads back as it was (`notAsIndexed`);
 * - large reads go in chunks with a yield between them, so the server keeps answering while a big ledger
 *   loads, and progress can be reported.
 */
import { stat } from "node:fs/promises";
import type { Stats } from "node:fs";
import type { ChunkSummary } from "../../engine/ledger/chunkSummary";
import { lineChunks } from "./lineChunks";
import { fileKind, NotRegularFileError, openRegular } from "../regularFiles";

export interface LedgerSink {
  /**
   * Complete lines (`chunk`) that start at byte `offset` of the ledger, the first being line `firstLineNumber`;
   * `summary`: what a summarizer made of these bytes, when one did.
   */
  ingestBytes(chunk: Buffer, offset: number, firstLineNumber: number, summary?: ChunkSummary): unknown;
  reset(): void;
}

export interface FollowerOptions {
  /** Bytes read (and parsed) per step before yielding to the event loop. Default 1 MiB (~10 ms of parsing). */
  chunkBytes?: number;
  /**
   * Summarizes chunks in other threads (io/ledger/summaryWorkers.ts) for a read of `bytes` new bytes; called
   * at each read, it gives none when the read is too small to pay for starting them.
   */
  summarizer?: (bytes: number) => ChunkSummarizer | undefined;
}

/** Makes chunk summaries apart from the reading thread (engine/ledger/chunkSummary.ts). */
export interface ChunkSummarizer {
  /** Queues `bytes` (complete lines) to be summarized. */
  summarize(bytes: Buffer): PendingSummary;
  /** How many chunks to have queued ahead of the one being fed. */
  readonly ahead: number;
  /** Ends the threads; a summary still pending resolves undefined. */
  close(): void;
}

/** A chunk queued for a summary. */
export interface PendingSummary {
  /** Takes the chunk back if no thread has started on it: true when taken back (the reader reads it itself). */
  withdraw(): boolean;
  /** Its summary, or undefined when none could be made (the reader reads it itself). Never rejects. */
  readonly summary: Promise<ChunkSummary | undefined>;
}

export interface PollResult {
  /** The sink was reset and the file read from the start. */
  reset: boolean;
  /** The file does not exist (nothing was read). */
  missing: boolean;
  /** New bytes consumed (complete lines only). */
  bytesRead: number;
  /** New lines consumed. */
  lines: number;
}

/** `(bytesRead, totalBytes)` of the current poll. */
export type ProgressCallback = (bytesRead: number, totalBytes: number) => void;

const NEWLINE = 0x0a;
const FINGERPRINT_BYTES = 64;
const DEFAULT_CHUNK = 1024 * 1024;

export interface Identity {
  dev: number;
  ino: number;
}

export class LedgerFollower {
  private consumed = 0;
  private nextLineNumber = 1;
  private identity: Identity | undefined;
  /**
   * The file vanished after it had content: when it comes back (a checkout, a restore), its records are read
   * as a new ledger (`reset`), so that readers re-derive from them rather than take them for known news.
   */
  private vanished = false;
  /** Copy of the bytes just before `consumed`, to notice the file being rewritten underneath us. */
  private fingerprint: Buffer = Buffer.alloc(0);
  private running: Promise<PollResult> | undefined;
  private readonly chunkBytes: number;
  private readonly summarizer: FollowerOptions["summarizer"];
  /** A line the index points at could not be read back as it was indexed (`notAsIndexed`). */
  private notAsIndexedSeen = false;

  constructor(
    readonly file: string,
    private readonly sink: LedgerSink,
    opts: FollowerOptions = {},
  ) {
    this.chunkBytes = Math.max(opts.chunkBytes ?? DEFAULT_CHUNK, 1024);
    this.summarizer = opts.summarizer;
  }

  /** Byte offset up to which complete lines have been fed to the sink. */
  get offset(): number {
    return this.consumed;
  }

  /** Ledger line number the next consumed line will have. */
  get nextLine(): number {
    return this.nextLineNumber;
  }

  /** The file (device and inode) whose lines were fed to the sink; undefined before the first read. */
  get fileIdentity(): Identity | undefined {
    return this.identity;
  }

  /**
   * Continues from a saved index that was checked to describe the first `offset` bytes of the file
   * `identity` (lines 1 to `nextLine` - 1), whose last bytes are `before`: the next poll reads only what lies
   * beyond, and starts over if that file was replaced or changed meanwhile. Call before the first poll.
   */
  resume(offset: number, nextLine: number, identity: Identity, before: Buffer): void {
    this.consumed = offset;
    this.nextLineNumber = nextLine;
    this.fingerprint = Buffer.from(before.subarray(Math.max(0, before.length - FINGERPRINT_BYTES)));
    this.identity = identity;
  }

  /**
   * A line fed to the sink could not be read back as it was fed: the file is no longer what was indexed, even
   * if it has the same identity and the same bytes before the offset (git writes a new file, which may take the
   * old one's inode, and writes it again for each commit a rebase replays). The next poll starts from the top.
   */
  notAsIndexed(): void {
    this.notAsIndexedSeen = true;
  }

  /**
   * Reads whatever was appended since the last poll. Concurrent calls (file-watcher bursts) are serialized;
   * each one still sees the bytes present when it starts.
   */
  poll(onProgress?: ProgressCallback): Promise<PollResult> {
    const previous = this.running ?? Promise.resolve(undefined);
    const next = previous.then(
      () => this.pollOnce(onProgress),
      () => this.pollOnce(onProgress),
    );
    this.running = next;
    return next;
  }

  private async pollOnce(onProgress: ProgressCallback | undefined): Promise<PollResult> {
    let st: Stats;
    try {
      st = await stat(this.file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      const hadContent = this.identity !== undefined || this.consumed > 0;
      if (hadContent) {
        this.restart(undefined);
        this.vanished = true;
      }
      return { reset: hadContent, missing: true, bytesRead: 0, lines: 0 };
    }
    if (!st.isFile()) throw new NotRegularFileError(this.file, fileKind(st)); // a FIFO would block the read forever
    const identity = { dev: st.dev, ino: st.ino };
    const replaced = this.identity !== undefined && (this.identity.dev !== identity.dev || this.identity.ino !== identity.ino);
    const reset = replaced || this.vanished || st.size < this.consumed || !(await this.fingerprintStillMatches()) || this.notAsIndexedSeen;
    this.vanished = false;
    this.notAsIndexedSeen = false;
    if (reset) this.restart(identity);
    this.identity = identity;
    if (st.size === this.consumed) return { reset, missing: false, bytesRead: 0, lines: 0 };
    const { bytesRead, lines } = await this.readNew(st.size, onProgress);
    return { reset, missing: false, bytesRead, lines };
  }

  private restart(identity: Identity | undefined): void {
    this.sink.reset();
    this.consumed = 0;
    this.nextLineNumber = 1;
    this.fingerprint = Buffer.alloc(0);
    this.identity = identity;
  }

  private async fingerprintStillMatches(): Promise<boolean> {
    if (this.fingerprint.length === 0) return true;
    const handle = await openRegular(this.file).catch(() => undefined);
    if (!handle) return false;
    try {
      const buf = Buffer.alloc(this.fingerprint.length);
      const { bytesRead } = await handle.read(buf, 0, buf.length, this.consumed - buf.length);
      return bytesRead === buf.length && buf.equals(this.fingerprint);
    } finally {
      await handle.close();
    }
  }

  /**
   * Reads [consumed, size) in chunks, feeding complete lines; a trailing partial line waits for the next poll.
   * With a summarizer, chunks are summarized in other threads while earlier ones are fed, in order.
   */
  private async readNew(size: number, onProgress: ProgressCallback | undefined): Promise<{ bytesRead: number; lines: number }> {
    const start = this.consumed;
    const total = size - start;
    let lines = 0;
    const feed = (bytes: Buffer, summary?: ChunkSummary) => {
      const count = countNewlines(bytes);
      this.sink.ingestBytes(bytes, this.consumed, this.nextLineNumber, summary);
      this.nextLineNumber += count;
      lines += count;
      this.consumed += bytes.length;
      this.fingerprint = Buffer.from(bytes.subarray(Math.max(0, bytes.length - FINGERPRINT_BYTES)));
      onProgress?.(this.consumed - start, total);
    };
    const handle = await openRegular(this.file);
    const summarizer = this.summarizer?.(total);
    try {
      const ahead: { bytes: Buffer; pending: PendingSummary }[] = [];
      // the oldest chunk is read here when no thread has started on it (threads still starting, or busy with
      // later chunks): the reader never waits for a summary it could have made as fast itself
      const feedOldest = async () => {
        const { bytes, pending } = ahead.shift()!;
        feed(bytes, pending.withdraw() ? undefined : await pending.summary);
      };
      // with workers, each chunk is read into memory of its own that they share rather than are sent a copy of
      for await (const { bytes } of lineChunks(handle, start, size, this.chunkBytes, summarizer ? sharedBuffer : undefined)) {
        if (!summarizer) {
          feed(bytes);
          continue;
        }
        ahead.push({ bytes, pending: summarizer.summarize(bytes) });
        while (ahead.length > summarizer.ahead) await feedOldest();
      }
      while (ahead.length) await feedOldest();
    } finally {
      summarizer?.close();
      await handle.close();
    }
    return { bytesRead: this.consumed - start, lines };
  }
}

function sharedBuffer(size: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(size));
}

function countNewlines(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(NEWLINE); i !== -1; i = buf.indexOf(NEWLINE, i + 1)) n++;
  return n;
}
