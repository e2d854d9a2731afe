/**
 * What the index learns from a chunk of complete ledger lines, made apart from the index (in a worker
 * thread: io/ledger/summaryWorkers.ts) so that reading a large ledger parses its records on every processor.
 * It holds, for each line that `summarizeLine` reads on its own, what `LedgerIndex` would take from it (the
 * entries' paths, intents and post hashes, and the record's time) as numbers and a table of strings, which
 * cross between threads without making an object per record. A line that needs the full reader is marked
 * `OWN_LINE`: the index reads it itself, so everything the full reader reports (unreadable lines, its parsed
 * entries) comes from the index's own thread exactly as when it reads the chunk alone.
 *
 * The index takes a summary only for the very bytes it was made from (`bytes`, `lines`), and the unit tests
 * hold an index fed summaries to one fed the same lines plainly, chunk boundaries and dialects drawn at random.
 */
import { LineEntries } from "./lineEntries";
import type { StringPool } from "./read";
import type { SummaryVisitor } from "./recordSummary";

/** A line the summary read: a record, its entries in `entries`. */
export const SUMMARIZED_LINE = 1;
/** A line left to the index's own reading (the full reader's: other dialects, unreadable lines, …). */
export const OWN_LINE = 2;

/** In `ChunkSummary.entries`: no intent, and a post hash that is undefined or null. */
export const NO_STRING = -1;
export const NULL_STRING = -2;

export interface ChunkSummary {
  /** Length of the chunk it was made from, in bytes. */
  bytes: number;
  /** Per non-empty line, in order: SUMMARIZED_LINE or OWN_LINE, then how many entries it has (0 for OWN_LINE). */
  lines: Int32Array;
  /** Per summarized line: its record's time (`isoTime` of its timestamp; -Infinity when it has none). */
  times: Float64Array;
  /** Per entry, 3 numbers: its path, its intent and its post hash, as indices into `strings` (or NO_STRING, NULL_STRING). */
  entries: Int32Array;
  strings: string[];
}

const NEWLINE = 0x0a;

/**
 * Numbers strings: each distinct path and intent once (a chunk names the same ones many times), each post
 * hash as it comes (nearly every record has its own, and looking each up costs more than it saves).
 */
class StringTable {
  readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();

  id(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.add(s);
      this.ids.set(s, id);
    }
    return id;
  }

  add(s: string): number {
    this.strings.push(s);
    return this.strings.length - 1;
  }
}

/** Grows as numbers are pushed; `done` gives the filled part. */
class Column<T extends Int32Array | Float64Array> {
  private size = 0;
  constructor(
    private data: T,
    private readonly make: (n: number) => T,
  ) {}

  push(v: number): void {
    if (this.size === this.data.length) {
      const bigger = this.make(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.size++] = v;
  }

  done(): T {
    return this.data.slice(0, this.size) as T;
  }
}

/**
 * The summary of `chunk` (complete lines): every non-empty line, as `LedgerIndex.ingestBytes` splits them.
 * `pool` cleans paths as the index's own pool does (any pool gives the same clean paths).
 */
export function summarizeChunk(chunk: Uint8Array, pool: StringPool): ChunkSummary {
  const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const table = new StringTable();
  const lines = new Column(new Int32Array(256), (n) => new Int32Array(n));
  const times = new Column(new Float64Array(128), (n) => new Float64Array(n));
  const entries = new Column(new Int32Array(512), (n) => new Int32Array(n));
  // what the index itself takes from a line it reads (lineEntries.ts)
  const line = new LineEntries();
  eachLineOf(text, (start, end) => {
    if (end === start) return;
    if (line.summarize(text.toString("utf8", start, end), 0, pool)) {
      lines.push(OWN_LINE);
      lines.push(0);
      return;
    }
    lines.push(SUMMARIZED_LINE);
    lines.push(line.paths.length);
    times.push(line.time);
    for (let i = 0; i < line.paths.length; i++) {
      const intent = line.intents[i];
      const post = line.posts[i];
      entries.push(table.id(line.paths[i]!));
      entries.push(intent === undefined ? NO_STRING : table.id(intent));
      entries.push(post === undefined ? NO_STRING : post === null ? NULL_STRING : table.add(post));
    }
  });
  return { bytes: text.length, lines: lines.done(), times: times.done(), entries: entries.done(), strings: table.strings };
}

/**
 * Calls `each` with the bounds of every line of `chunk`, as the index splits a chunk of complete lines: each
 * ending at a "\n" (left out), and a last one without it; empty lines included, which carry a line number but
 * no record.
 */
export function eachLineOf(chunk: Uint8Array, each: (start: number, end: number) => void): void {
  for (let start = 0; start < chunk.length; ) {
    let end = chunk.indexOf(NEWLINE, start);
    if (end === -1) end = chunk.length;
    each(start, end);
    start = end + 1;
  }
}

/**
 * Whether `summary` can have been made of `chunk`: the same length, as many non-empty lines, and numbers that
 * agree with each other. A check against a summary handed to the wrong chunk, not a proof: the reader that
 * makes summaries feeds each with the very bytes it was made of (io/ledger/follow.ts).
 */
export function summaryFits(summary: ChunkSummary, chunk: Uint8Array): boolean {
  if (summary.bytes !== chunk.length || summary.lines.length % 2 !== 0) return false;
  let lines = 0;
  eachLineOf(chunk, (start, end) => {
    if (end > start) lines++;
  });
  if (lines * 2 !== summary.lines.length) return false;
  // the numbers agree with each other: as many times as summarized lines, 3 numbers per entry
  let summarized = 0;
  let entries = 0;
  for (let i = 0; i < summary.lines.length; i += 2) {
    if (summary.lines[i] !== SUMMARIZED_LINE) continue;
    summarized++;
    entries += summary.lines[i + 1]!;
  }
  return summarized === summary.times.length && entries * 3 === summary.entries.length;
}

/** Reads a summary line by line, in the order the index meets the chunk's non-empty lines. */
export class SummaryCursor {
  private line = 0;
  private entry = 0;
  private time = 0;
  constructor(private readonly summary: ChunkSummary) {}

  /** Whether the next line is a summarized one, which `take` then reads; a line left to the index is passed. */
  nextIsSummarized(): boolean {
    if (this.summary.lines[this.line * 2] === SUMMARIZED_LINE) return true;
    this.line++;
    return false;
  }

  /** Visits the next summarized line's entries, as `summarizeLine` would; its record's time. */
  take(visit: SummaryVisitor): number {
    const { lines, entries, strings } = this.summary;
    const n = lines[this.line * 2 + 1]!;
    this.line++;
    for (let i = 0; i < n; i++, this.entry++) {
      const e = this.entry * 3;
      // each path is one string per chunk: the index keeps the first it meets of each, as it keeps the
      // pool's (interning each chunk's again costs more than the copies it saves)
      const path = strings[entries[e]!]!;
      const intent = entries[e + 1]!;
      const post = entries[e + 2]!;
      visit.entry(path, intent === NO_STRING ? undefined : strings[intent], post === NO_STRING ? undefined : post === NULL_STRING ? null : strings[post]);
    }
    return this.summary.times[this.time++]!;
  }
}
