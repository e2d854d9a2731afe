/**
 * The ledger's index, built incrementally from the lines the follower reads (or from text): for each file the
 * records that name it, for each intent its files, edit count and newest record, and the lines that could not
 * be read. Records themselves are not kept. A query that needs them (attribution, blame, context) reads those
 * lines back by byte offset and parses them again through `parseLedgerLines`, so every field the reader
 * knows reaches the caller; recently used files' entries stay parsed in an LRU. A million-record ledger
 * costs ~32 bytes per record here (under 60 with what grows along) instead of ~550 as parsed entries, and
 * the index can be saved and loaded (indexFile.ts) so that a restart reads only what was appended since.
 */
import { LRUCache } from "lru-cache";
import { parseLedgerLines, StringPool, type TraceEntry, type UnreadableLine } from "./read";
import { MemoryRecordLines, type LineRef, type RecordLines } from "./recordLines";
import { summarizeLine } from "./recordSummary";
import { isoTime, newestFirst } from "./entryOrder";

export interface IntentSummary {
  files: ReadonlySet<string>;
  /** Records (not ranges) written under the intent. */
  edits: number;
  /** The newest entry under the intent (by timestamp, then ledger order). */
  last: TraceEntry | undefined;
}

/** What `ingest` added, so callers can refresh only the affected files. */
export interface IngestResult {
  records: number;
  entries: number;
  unreadable: number;
  paths: ReadonlySet<string>;
}

/** A record's line: where it is in the ledger and which line it is. */
export interface RecordRef extends LineRef {
  /** 1-based ledger line. */
  line: number;
}

/** One row, as a query reads it. */
interface Row extends RecordRef {
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

export interface FileState {
  path: string;
  /** The file's rows in the saved index: a slice of its columns (each file's rows side by side there). */
  savedBase: number;
  savedCount: number;
  /** Rows added since (or all rows, for an index built here), chained in `RecordRows`. */
  first: number;
  last: number;
  /** Rows in all (saved and added). */
  count: number;
  /** Newest record by timestamp, then ledger order: what the file's content last was according to the ledger. */
  newestTime: number;
  newestPost: string | null | undefined;
}

export interface IntentState {
  files: Set<string>;
  edits: number;
  lastRecordLine: number;
  last: RecordRef | undefined;
  lastTime: number;
}

/** Some rows of a column store, as columns. */
export interface RowColumns {
  offset: Float64Array;
  time: Float64Array;
  length: Uint32Array;
  line: Uint32Array;
  post: Uint32Array;
}

/**
 * The files of a loaded index, left in the saved columns (sorted by path) until a query asks for one: a
 * hook that asks about one file of forty thousand makes one file's state and reads one file's rows.
 */
export interface SavedFiles {
  /** Sorted by UTF-16 code units (`<`). */
  paths: readonly string[];
  state(i: number): FileState;
  /** The saved rows [base, base + count); undefined when they cannot be read any more. */
  rows(base: number, count: number): RowColumns | undefined;
  /** Reads and checks all saved rows at once (before they are all needed); throws when they are damaged. */
  readAll(): void;
}

/** Everything the index holds, as plain data: what indexFile.ts writes (`files`, `rowsOf`) and reads (`saved`). */
export interface IndexState {
  records: number;
  lastLine: number;
  files: FileState[];
  /** Calls `row` for each of a file's rows in ledger order (saving a million rows makes no object per row). */
  eachRow?: (file: FileState, row: (offset: number, time: number, length: number, line: number, post: number) => void) => void;
  saved?: SavedFiles;
  intents: Map<string, IntentState>;
  /** Intents of a loaded index, made when first asked for. */
  savedIntents?: Map<string, () => IntentState>;
  unreadable: UnreadableLine[];
}

/** Parsed entries kept for recently used files, counted in entries. */
const LRU_ENTRIES = 100_000;
const NEWLINE = 0x0a;

export class LedgerIndex {
  private readonly pool = new StringPool();
  private rows = new RecordRows();
  /** Files made or asked for since the index was built or loaded; the others are still in `saved`. */
  private readonly byPath = new Map<string, FileState>();
  private saved: SavedFiles | undefined;
  private readonly byIntent = new Map<string, IntentState>();
  private savedIntents = new Map<string, () => IntentState>();
  private unreadableLines: UnreadableLine[] = [];
  private records = 0;
  private lastLine = 0;
  private readonly parsed = new LRUCache<string, readonly TraceEntry[]>({ maxSize: LRU_ENTRIES, sizeCalculation: (e) => e.length + 1 });
  /** Records by the post hash they pin (`pathsPinning`), made when first asked for and kept up as lines come. */
  private pins: PinIndex | undefined;
  /** Lines read back and parsed since the index was made (what tests count instead of time). */
  linesReparsed = 0;

  /** `lines`: where records are read back from; by default the index keeps what it is fed in memory. */
  constructor(private readonly lines: RecordLines = new MemoryRecordLines()) {}

  /** Adds complete ledger lines; `firstLineNumber` is the 1-based ledger line of the text's first line. */
  ingest(chunkText: string, firstLineNumber: number): IngestResult {
    const bytes = Buffer.from(chunkText, "utf8");
    const offset = this.lines instanceof MemoryRecordLines ? this.lines.end : 0;
    return this.ingestBytes(bytes, offset, firstLineNumber);
  }

  /** Adds complete ledger lines that start at byte `offset` of the ledger. */
  ingestBytes(chunk: Buffer, offset: number, firstLineNumber: number): IngestResult {
    this.lines.keep?.(offset, chunk);
    const result = { records: 0, entries: 0, unreadable: 0, paths: new Set<string>() };
    let line = firstLineNumber;
    for (let start = 0; start < chunk.length; line++) {
      let end = chunk.indexOf(NEWLINE, start);
      if (end === -1) end = chunk.length;
      if (end > start) this.ingestLine(chunk, start, end, offset + start, line, result);
      start = end + 1;
    }
    // a chunk is complete lines, normally ending in "\n"; text without one still holds one line
    if (line > firstLineNumber) this.lastLine = Math.max(this.lastLine, line - 1);
    return result;
  }

  // the entries of the line being ingested, in reusable columns (a million records make no garbage here)
  private readonly pending = { paths: [] as string[], intents: [] as (string | undefined)[], posts: [] as (string | null | undefined)[] };
  private readonly collect = {
    entry: (path: string, intentId: string | undefined, postHash: string | null | undefined) => {
      this.pending.paths.push(path);
      this.pending.intents.push(intentId);
      this.pending.posts.push(postHash);
    },
  };

  private ingestLine(
    chunk: Buffer,
    start: number,
    end: number,
    offset: number,
    line: number,
    result: { records: number; entries: number; unreadable: number; paths: Set<string> },
  ): void {
    const { paths, intents, posts } = this.pending;
    paths.length = intents.length = posts.length = 0;
    const summary = summarizeLine(chunk.toString("utf8", start, end), line, this.pool, this.collect);
    if (summary.record) {
      this.records++;
      result.records++;
    }
    if (summary.parsed?.unreadable.length) {
      for (const u of summary.parsed.unreadable) this.unreadableLines.push(u);
      result.unreadable += summary.parsed.unreadable.length;
    }
    const n = paths.length;
    if (n === 0) return;
    result.entries += n;
    // every entry of a record has the record's timestamp
    const parsedTime = isoTime(summary.timestamp);
    const time = Number.isNaN(parsedTime) ? -Infinity : parsedTime;
    const ref: RecordRef = { offset, length: end - start, line };
    for (let i = 0; i < n; i++) {
      const path = paths[i]!;
      const key = postKey(posts[i]);
      this.pins?.add(key, offset, end - start, line);
      result.paths.add(path);
      let file = this.file(path);
      if (!file) {
        file = { path, savedBase: 0, savedCount: 0, first: NONE, last: NONE, count: 0, newestTime: -Infinity, newestPost: undefined };
        this.byPath.set(path, file);
      }
      if (file.last !== NONE && this.rows.line[file.last] === line) {
        // another entry of the same file in the same record
        if (this.rows.post[file.last] !== key) this.rows.post[file.last] = MIXED_POST;
      } else {
        const row = this.rows.push(offset, end - start, line, key, time);
        if (file.last === NONE) file.first = row;
        else this.rows.next[file.last] = row;
        file.last = row;
        file.count++;
      }
      // ingest is in ledger order, so ">=" makes the later line (and entry) win a timestamp tie
      if (time >= file.newestTime) {
        file.newestTime = time;
        file.newestPost = posts[i];
      }
      const intentId = intents[i];
      if (intentId !== undefined) this.addToIntent(intentId, path, ref, time);
    }
    // files whose entries are parsed already get the new ones; the others are read back when asked for
    if (this.parsed.size > 0) {
      for (const path of new Set(paths)) {
        if (!this.parsed.has(path)) continue;
        const fresh = summary.parsed ?? parseLedgerLines(chunk.toString("utf8", start, end), line, this.pool);
        this.parsed.set(path, this.parsed.get(path)!.concat(fresh.entries.filter((e) => e.path === path)));
      }
    }
  }

  private addToIntent(intentId: string, path: string, ref: RecordRef, time: number): void {
    let s = this.intent(intentId);
    if (!s) {
      s = { files: new Set(), edits: 0, lastRecordLine: 0, last: undefined, lastTime: -Infinity };
      this.byIntent.set(intentId, s);
    }
    s.files.add(path);
    // a record with several ranges or files yields several entries on one line: one edit
    if (s.lastRecordLine !== ref.line) {
      s.edits++;
      s.lastRecordLine = ref.line;
    }
    if (time >= s.lastTime) {
      s.last = ref;
      s.lastTime = time;
    }
  }

  /** Forgets everything (the ledger was replaced or truncated and will be read again from the start). */
  reset(): void {
    this.rows = new RecordRows();
    this.byPath.clear();
    this.saved = undefined;
    this.byIntent.clear();
    this.savedIntents = new Map();
    this.unreadableLines = [];
    this.records = 0;
    this.lastLine = 0;
    this.parsed.clear();
    this.pins = undefined;
    this.lines.clear?.();
  }

  get recordCount(): number {
    return this.records;
  }

  /** Highest ledger line ingested so far (0 before any). */
  get lineCount(): number {
    return this.lastLine;
  }

  get unreadable(): readonly UnreadableLine[] {
    return this.unreadableLines;
  }

  /** Entries for a workspace-relative path, in ledger order. */
  entriesFor(path: string): readonly TraceEntry[] {
    const cached = this.parsed.get(path);
    if (cached) return cached;
    const file = this.file(path);
    if (!file) return [];
    const entries = this.readBack(this.fileRows(file), (e) => e.path === path);
    this.parsed.set(path, entries);
    return entries;
  }

  /**
   * A file's entries newest first (by timestamp, then ledger line, as attribution orders them), in batches
   * that double in size: a reader that has what it needs after the first few records stops reading.
   */
  *entryBatches(path: string, first = 4): Generator<readonly TraceEntry[]> {
    const cached = this.parsed.get(path);
    if (cached) {
      yield newestFirst(cached);
      return;
    }
    const file = this.file(path);
    if (!file) return;
    const rows = this.fileRows(file).sort((a, b) => b.time - a.time || b.line - a.line);
    for (let i = 0, size = first; i < rows.length; i += size, size *= 2) {
      yield this.readBack(rows.slice(i, i + size), (e) => e.path === path);
    }
  }

  /** A file's rows in ledger order: its saved ones, then those added since. */
  private fileRows(file: FileState): Row[] {
    const out: Row[] = [];
    this.eachRow(file, (offset, time, length, line, post) => out.push({ offset, length, line, time, post }));
    return out;
  }

  private eachRow(file: FileState, row: (offset: number, time: number, length: number, line: number, post: number) => void): void {
    if (file.savedCount > 0) {
      const saved = this.saved?.rows(file.savedBase, file.savedCount);
      if (saved) for (let i = 0; i < file.savedCount; i++) row(saved.offset[i]!, saved.time[i]!, saved.length[i]!, saved.line[i]!, saved.post[i]!);
    }
    const rows = this.rows;
    for (let r = file.first; r !== NONE; r = rows.next[r]!) row(rows.offset[r]!, rows.time[r]!, rows.length[r]!, rows.line[r]!, rows.post[r]!);
  }

  /** Parses record lines again; entries for which `keep` is true, in ref order. */
  private readBack(refs: readonly RecordRef[], keep: (e: TraceEntry) => boolean): TraceEntry[] {
    const bytes = this.lines.read(refs);
    const out: TraceEntry[] = [];
    for (let i = 0; i < refs.length; i++) {
      const b = bytes[i];
      // unreadable now: the ledger changed underneath; the follower re-reads it on its next poll
      if (!b) continue;
      this.linesReparsed++;
      for (const e of parseLedgerLines(b.toString("utf8"), refs[i]!.line, this.pool).entries) if (keep(e)) out.push(e);
    }
    return out;
  }

  /**
   * Whole-file hash the newest record says the file has: a string, null when the newest record deleted the
   * file, undefined when no record states it (never recorded, or only by dialects without hashes).
   */
  lastPostHash(path: string): string | null | undefined {
    return this.file(path)?.newestPost;
  }

  /** Whether any record pinned `path` to exactly this content (lets a writer skip a duplicate record). */
  hasPostHash(path: string, hash: string): boolean {
    const file = this.file(path);
    if (!file) return false;
    const cached = this.parsed.get(path);
    if (cached) return cached.some((e) => e.postHash === hash);
    // the keys find the few records that may say so; only those are read back
    const key = postKey(hash);
    const candidates = this.fileRows(file).filter((r) => r.post === key || r.post === MIXED_POST);
    return this.readBack(candidates, (e) => e.path === path && e.postHash === hash).length > 0;
  }

  hasFile(path: string): boolean {
    return this.file(path) !== undefined;
  }

  /**
   * Paths with a record pinning exactly this content (`post_hash`): where a renamed, moved or copied file's
   * content was recorded before (engine/lineage.ts). The keys select the records to read back; one pass over
   * the rows, so callers ask once per content, not per line.
   */
  pathsPinning(hash: string): string[] {
    const refs = this.preparePins().refs(postKey(hash));
    if (refs.length === 0) return [];
    const out = new Set<string>();
    for (const e of this.readBack(refs, (e) => e.postHash === hash)) out.add(e.path);
    return [...out];
  }

  /**
   * Makes the pin index with one pass over every row (`ingestLine` keeps it up from then on). A reader that
   * holds the whole ledger calls this while it reads, so the pass is never paid by a query that waits.
   */
  preparePins(): PinIndex {
    if (this.pins) return this.pins;
    const pins = new PinIndex();
    for (const path of this.files()) {
      const file = this.file(path);
      if (file) this.eachRow(file, (offset, _time, length, line, post) => pins.add(post, offset, length, line));
    }
    this.pins = pins;
    return pins;
  }

  files(): string[] {
    if (!this.saved) return [...this.byPath.keys()];
    return [...new Set([...this.saved.paths, ...this.byPath.keys()])];
  }

  /** An intent's state, made from the saved index when first asked for. */
  private intent(id: string): IntentState | undefined {
    let s = this.byIntent.get(id);
    if (s) return s;
    const make = this.savedIntents.get(id);
    if (!make) return undefined;
    s = make();
    this.savedIntents.delete(id);
    this.byIntent.set(id, s);
    return s;
  }

  /** A file's state, made from the saved columns when first asked for. */
  private file(path: string): FileState | undefined {
    const known = this.byPath.get(path);
    if (known || !this.saved) return known;
    const paths = this.saved.paths;
    let lo = 0;
    let hi = paths.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const p = paths[mid]!;
      if (p === path) {
        const state = this.saved.state(mid);
        this.byPath.set(path, state);
        return state;
      }
      if (p < path) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  intents(): string[] {
    return [...new Set([...this.savedIntents.keys(), ...this.byIntent.keys()])];
  }

  filesFor(intentId: string): string[] {
    return [...(this.intent(intentId)?.files ?? [])];
  }

  editCount(intentId: string): number {
    return this.intent(intentId)?.edits ?? 0;
  }

  lastChange(intentId: string): TraceEntry | undefined {
    const last = this.intent(intentId)?.last;
    if (!last) return undefined;
    // the newest record's last entry under the intent, as it was when ingested
    const entries = this.readBack([last], (e) => e.intentId === intentId);
    return entries[entries.length - 1];
  }

  intentSummary(intentId: string): IntentSummary | undefined {
    const s = this.intent(intentId);
    return s && { files: s.files, edits: s.edits, last: this.lastChange(intentId) };
  }

  /** The index as plain data, for saving: every file, and each file's rows in ledger order. */
  state(): IndexState {
    this.saved?.readAll();
    const files = this.files().map((p) => this.file(p)!);
    for (const id of this.intents()) this.intent(id);
    return {
      records: this.records,
      lastLine: this.lastLine,
      files,
      eachRow: (f, row) => this.eachRow(f, row),
      intents: this.byIntent,
      unreadable: this.unreadableLines,
    };
  }

  /** Replaces everything with a saved state (indexFile.ts checked that it describes the ledger). */
  restore(state: IndexState): void {
    this.reset();
    this.saved = state.saved;
    for (const f of state.files) this.byPath.set(f.path, f);
    for (const [id, s] of state.intents) this.byIntent.set(id, s);
    this.savedIntents = new Map(state.savedIntents);
    this.unreadableLines = state.unreadable;
    this.records = state.records;
    this.lastLine = state.lastLine;
  }
}

/**
 * Record lines by post-hash key, as chained columns: a lookup reads the few records with the key (and those
 * whose entries stated different hashes for one file, `MIXED_POST`), so asking about content no record pins
 * costs one map lookup whatever the ledger's size. A record is listed once per key.
 */
export class PinIndex {
  private readonly head = new Map<number, number>();
  private readonly tail = new Map<number, number>();
  private size = 0;
  private offset = new Float64Array(256);
  private length = new Uint32Array(256);
  private line = new Uint32Array(256);
  private next = new Uint32Array(256);

  add(post: number, offset: number, length: number, line: number): void {
    if (post === NO_POST) return;
    // as a signed 32-bit integer the key is a small integer to V8: no heap number per map entry
    const key = post | 0;
    const last = this.tail.get(key);
    if (last !== undefined && this.line[last] === line) return;
    if (this.size === this.offset.length) this.grow();
    const i = this.size++;
    this.offset[i] = offset;
    this.length[i] = length;
    this.line[i] = line;
    this.next[i] = NONE;
    if (last === undefined) this.head.set(key, i);
    else this.next[last] = i;
    this.tail.set(key, i);
  }

  /** The records listed under `key` and under `MIXED_POST`, each line once. */
  refs(key: number): RecordRef[] {
    const out: RecordRef[] = [];
    const seen = new Set<number>();
    for (const k of [key | 0, MIXED_POST]) {
      for (let i = this.head.get(k) ?? NONE; i !== NONE; i = this.next[i]!) {
        const line = this.line[i]!;
        if (seen.has(line)) continue;
        seen.add(line);
        out.push({ offset: this.offset[i]!, length: this.length[i]!, line });
      }
    }
    return out;
  }

  private grow(): void {
    const n = this.size * 2;
    const grown = <T extends Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.offset = grown(this.offset, (n) => new Float64Array(n));
    this.length = grown(this.length, (n) => new Uint32Array(n));
    this.line = grown(this.line, (n) => new Uint32Array(n));
    this.next = grown(this.next, (n) => new Uint32Array(n));
  }
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
