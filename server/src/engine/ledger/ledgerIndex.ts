/**
 * The ledger's index, built incrementally from the lines the follower reads (or from text): for each file the
 * records that name it, for each intent its files, edit count and newest record, and the lines that could not
 * be read. Records themselves are not kept. A query that needs them (attribution, blame, context) reads those
 * lines back by byte offset and parses them again through `parseLedgerLines`, so every field the reader
 * knows reaches the caller; recently used files' entries stay parsed in an LRU. A million-record ledger
 * costs ~32 bytes per record here (under 60 with what grows along) instead of ~550 as parsed entries, and
 * the index can be saved and loaded (indexFile.ts) so that a restart reads only what was appended since.
 */
import { type ChunkSummary, eachLineOf, SummaryCursor, summaryFits } from "./chunkSummary";
import { FileIndex, type FileState, type SavedFiles } from "./fileIndex";
import { IntentIndex, type IntentState } from "./intentIndex";
import { ContentPins } from "./pinIndex";
import { type ParseResult, StringPool, type TraceEntry, type UnreadableLine } from "./read";
import { MemoryRecordLines, type RecordLines } from "./recordLines";
import { RecordReader } from "./recordReader";
import { postKey, type RecordRef } from "./recordRows";
import { LineEntries } from "./lineEntries";

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

type IngestCounts = { records: number; entries: number; unreadable: number; paths: Set<string> };

export class LedgerIndex {
  private readonly pool = new StringPool();
  private readonly fileIndex = new FileIndex(() => this.lines.savedRowsDamaged?.());
  private readonly intentIndex = new IntentIndex();
  private unreadableLines: UnreadableLine[] = [];
  private records = 0;
  private lastLine = 0;
  /** Records by the post hash they pin (`pathsPinning`), made when first asked for and kept up as lines come. */
  private readonly pins = new ContentPins(this.fileIndex);
  private readonly reader: RecordReader;
  private readonly entries = new LineEntries();

  /** `lines`: where records are read back from; by default the index keeps what it is fed in memory. */
  constructor(private readonly lines: RecordLines = new MemoryRecordLines()) {
    this.reader = new RecordReader(lines, new StringPool(false), this.fileIndex);
  }

  /** Lines read back and parsed since the index was made (what tests count instead of time). */
  get linesReparsed(): number {
    return this.reader.linesReparsed;
  }

  /** Lines taken from chunk summaries, not parsed here (what tests count to see that summaries were used). */
  linesSummarized = 0;

  /** Adds complete ledger lines; `firstLineNumber` is the 1-based ledger line of the text's first line. */
  ingest(chunkText: string, firstLineNumber: number): IngestResult {
    const bytes = Buffer.from(chunkText, "utf8");
    const offset = this.lines instanceof MemoryRecordLines ? this.lines.end : 0;
    return this.ingestBytes(bytes, offset, firstLineNumber);
  }

  /**
   * Adds complete ledger lines that start at byte `offset` of the ledger. `summary`, when given, is what
   * `summarizeChunk` made of exactly these bytes (in another thread): its lines are taken from it rather than
   * parsed here, with the same result; one made of other bytes is not used.
   */
  ingestBytes(chunk: Buffer, offset: number, firstLineNumber: number, summary?: ChunkSummary): IngestResult {
    this.lines.keep?.(offset, chunk);
    const result = { records: 0, entries: 0, unreadable: 0, paths: new Set<string>() };
    const taken = summary && summaryFits(summary, chunk) ? new SummaryCursor(summary) : undefined;
    let line = firstLineNumber;
    eachLineOf(chunk, (start, end) => {
      if (end > start) {
        // a line summarized in another thread is taken as it was read there
        if (taken?.nextIsSummarized()) {
          this.entries.fromSummary(taken);
          this.linesSummarized++;
          this.addLine(chunk, start, end, offset + start, line, undefined, result);
        } else this.ingestLine(chunk, start, end, offset + start, line, result);
      }
      line++;
    });
    // a chunk is complete lines, normally ending in "\n"; text without one still holds one line
    if (line > firstLineNumber) this.lastLine = Math.max(this.lastLine, line - 1);
    return result;
  }

  private ingestLine(chunk: Buffer, start: number, end: number, offset: number, line: number, result: IngestCounts): void {
    const parsed = this.entries.summarize(chunk.toString("utf8", start, end), line, this.pool);
    if (parsed?.unreadable.length) {
      for (const u of parsed.unreadable) this.unreadableLines.push(u);
      result.unreadable += parsed.unreadable.length;
    }
    this.addLine(chunk, start, end, offset, line, parsed, result);
  }

  /** Indexes the line as `entries` holds it; `parsed`: what the full reader made of it, when it read it. */
  private addLine(chunk: Buffer, start: number, end: number, offset: number, line: number, parsed: ParseResult | undefined, result: IngestCounts): void {
    const { paths, intents, posts, record, time } = this.entries;
    if (record) {
      this.records++;
      result.records++;
    }
    const n = paths.length;
    if (n === 0) return;
    result.entries += n;
    // every entry of a record has the record's timestamp
    const ref: RecordRef = { offset, length: end - start, line };
    for (let i = 0; i < n; i++) {
      const path = paths[i]!;
      const key = postKey(posts[i]);
      this.pins.add(key, offset, end - start, line);
      result.paths.add(path);
      this.fileIndex.add(path, offset, end - start, line, key, time, posts[i]);
      const intentId = intents[i];
      if (intentId !== undefined) this.intentIndex.add(intentId, path, ref, time);
    }
    this.reader.ingested(paths, () => chunk.toString("utf8", start, end), line, parsed);
  }

  /** Forgets everything (the ledger was replaced or truncated and will be read again from the start). */
  reset(): void {
    this.fileIndex.reset();
    this.intentIndex.reset();
    this.unreadableLines = [];
    this.records = 0;
    this.lastLine = 0;
    this.reader.clear();
    this.pins.reset();
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
    return this.reader.entriesFor(path);
  }

  /** A file's entries newest first, in batches that double in size (see `RecordReader.entryBatches`). */
  entryBatches(path: string, first = 4): Generator<readonly TraceEntry[]> {
    return this.reader.entryBatches(path, first);
  }

  /**
   * Whole-file hash the newest record says the file has: a string, null when the newest record deleted the
   * file, undefined when no record states it (never recorded, or only by dialects without hashes).
   */
  lastPostHash(path: string): string | null | undefined {
    return this.fileIndex.file(path)?.newestPost;
  }

  /** Whether any record pinned `path` to exactly this content (lets a writer skip a duplicate record). */
  hasPostHash(path: string, hash: string): boolean {
    return this.reader.hasPostHash(path, hash);
  }

  hasFile(path: string): boolean {
    return this.fileIndex.file(path) !== undefined;
  }

  /**
   * Paths with a record pinning exactly this content (`post_hash`): where a renamed, moved or copied file's
   * content was recorded before (engine/lineage.ts). The keys select the records to read back; one pass over
   * the rows, so callers ask once per content, not per line.
   */
  pathsPinning(hash: string): string[] {
    const refs = this.pins.refs(postKey(hash));
    if (refs.length === 0) return [];
    const out = new Set<string>();
    for (const e of this.reader.readBack(refs, (e) => e.postHash === hash)) out.add(e.path);
    return [...out];
  }

  /** Makes the pin index a slice of the rows at a time (ContentPins.prepareStep); true while there is more. */
  preparePinsStep(): boolean {
    return this.pins.prepareStep();
  }

  /** Makes the pin index at the first question instead (ContentPins.indexAtFirstQuestion). */
  pinsAtFirstQuestion(): void {
    this.pins.indexAtFirstQuestion();
  }

  files(): string[] {
    return this.fileIndex.paths();
  }

  intents(): string[] {
    return this.intentIndex.ids();
  }

  filesFor(intentId: string): string[] {
    return [...(this.intentIndex.get(intentId)?.files ?? [])];
  }

  editCount(intentId: string): number {
    return this.intentIndex.get(intentId)?.edits ?? 0;
  }

  lastChange(intentId: string): TraceEntry | undefined {
    const last = this.intentIndex.get(intentId)?.last;
    if (!last) return undefined;
    // the newest record's last entry under the intent, as it was when ingested
    const entries = this.reader.readBack([last], (e) => e.intentId === intentId);
    return entries[entries.length - 1];
  }

  intentSummary(intentId: string): IntentSummary | undefined {
    const s = this.intentIndex.get(intentId);
    return s && { files: s.files, edits: s.edits, last: this.lastChange(intentId) };
  }

  /** The index as plain data, for saving: every file, and each file's rows in ledger order. */
  state(): IndexState {
    this.fileIndex.readAll();
    const files = this.files().map((p) => this.fileIndex.file(p)!);
    return {
      records: this.records,
      lastLine: this.lastLine,
      files,
      eachRow: (f, row) => this.fileIndex.eachRow(f, row),
      intents: this.intentIndex.all(),
      unreadable: this.unreadableLines,
    };
  }

  /** Replaces everything with a saved state (indexFile.ts checked that it describes the ledger). */
  restore(state: IndexState): void {
    this.reset();
    this.fileIndex.restore(state.saved, state.files);
    this.intentIndex.restore(state.intents, state.savedIntents);
    this.unreadableLines = state.unreadable;
    this.records = state.records;
    this.lastLine = state.lastLine;
  }
}
