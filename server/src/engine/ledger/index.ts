/**
 * In-memory index over the ledger, built incrementally: the follower feeds it each run of new complete
 * lines once, so a million-record ledger is parsed once per process and appends cost only their own bytes.
 * Answers per-file (attribution, stale/untraced checks) and per-intent (hover, CodeLens, intent map) queries.
 */
import { parseLedgerLines, StringPool, type TraceEntry, type UnreadableLine } from "./read";

export interface IntentSummary {
  files: ReadonlySet<string>;
  /** Records (not ranges) written under the intent. */
  edits: number;
  /** The newest entry under the intent (by timestamp, then ledger order). */
  last: TraceEntry | undefined;
}

interface FileState {
  entries: TraceEntry[];
  /** Newest entry by timestamp, then ledger order: what the file's content last was according to the ledger. */
  newest: TraceEntry;
  newestTime: number;
}

interface IntentState {
  files: Set<string>;
  edits: number;
  lastRecordLine: number;
  last: TraceEntry | undefined;
  lastTime: number;
}

/** What `ingest` added, so callers can refresh only the affected files. */
export interface IngestResult {
  records: number;
  entries: number;
  unreadable: number;
  paths: ReadonlySet<string>;
}

export class LedgerIndex {
  private readonly pool = new StringPool();
  private readonly byPath = new Map<string, FileState>();
  private readonly byIntent = new Map<string, IntentState>();
  private readonly unreadableLines: UnreadableLine[] = [];
  private records = 0;
  private lastLine = 0;

  /** Adds complete ledger lines; `firstLineNumber` is the 1-based ledger line of the text's first line. */
  ingest(chunkText: string, firstLineNumber: number): IngestResult {
    const parsed = parseLedgerLines(chunkText, firstLineNumber, this.pool);
    const paths = new Set<string>();
    for (const entry of parsed.entries) {
      this.addEntry(entry);
      paths.add(entry.path);
    }
    for (const u of parsed.unreadable) this.unreadableLines.push(u);
    this.records += parsed.records;
    this.lastLine = Math.max(this.lastLine, firstLineNumber + countNewlines(chunkText) - 1);
    return { records: parsed.records, entries: parsed.entries.length, unreadable: parsed.unreadable.length, paths };
  }

  /** Forgets everything (the ledger was replaced or truncated and will be read again from the start). */
  reset(): void {
    this.byPath.clear();
    this.byIntent.clear();
    this.unreadableLines.length = 0;
    this.records = 0;
    this.lastLine = 0;
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
    return this.byPath.get(path)?.entries ?? [];
  }

  /**
   * Whole-file hash the newest record says the file has: a string, null when the newest record deleted the
   * file, undefined when no record states it (never recorded, or only by dialects without hashes).
   */
  lastPostHash(path: string): string | null | undefined {
    return this.byPath.get(path)?.newest.postHash;
  }

  /** Whether any record pinned `path` to exactly this content (lets a writer skip a duplicate record). */
  hasPostHash(path: string, hash: string): boolean {
    const entries = this.byPath.get(path)?.entries;
    if (!entries) return false;
    // Newest first: the content being asked about is almost always the latest one.
    for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.postHash === hash) return true;
    return false;
  }

  files(): string[] {
    return [...this.byPath.keys()];
  }

  intents(): string[] {
    return [...this.byIntent.keys()];
  }

  filesFor(intentId: string): string[] {
    return [...(this.byIntent.get(intentId)?.files ?? [])];
  }

  editCount(intentId: string): number {
    return this.byIntent.get(intentId)?.edits ?? 0;
  }

  lastChange(intentId: string): TraceEntry | undefined {
    return this.byIntent.get(intentId)?.last;
  }

  intentSummary(intentId: string): IntentSummary | undefined {
    const s = this.byIntent.get(intentId);
    return s && { files: s.files, edits: s.edits, last: s.last };
  }

  private addEntry(entry: TraceEntry): void {
    const time = entryTime(entry);
    const file = this.byPath.get(entry.path);
    // A record's pre_hash is usually the previous record's post_hash: share the string (~90 bytes per record).
    if (file && entry.preHash && entry.preHash === file.newest.postHash) entry.preHash = file.newest.postHash;
    if (!file) {
      this.byPath.set(entry.path, { entries: [entry], newest: entry, newestTime: time });
    } else {
      file.entries.push(entry);
      // Ingest is in ledger order, so ">=" makes the later line win a timestamp tie.
      if (time >= file.newestTime) {
        file.newest = entry;
        file.newestTime = time;
      }
    }
    if (entry.intentId !== undefined) this.addToIntent(entry.intentId, entry, time);
  }

  private addToIntent(intentId: string, entry: TraceEntry, time: number): void {
    let s = this.byIntent.get(intentId);
    if (!s) {
      s = { files: new Set(), edits: 0, lastRecordLine: 0, last: undefined, lastTime: -Infinity };
      this.byIntent.set(intentId, s);
    }
    s.files.add(entry.path);
    // A record with several ranges or files yields several entries on one line: one edit.
    if (s.lastRecordLine !== entry.line) {
      s.edits++;
      s.lastRecordLine = entry.line;
    }
    if (time >= s.lastTime) {
      s.last = entry;
      s.lastTime = time;
    }
  }
}

/** Milliseconds of an entry's timestamp; entries without a usable timestamp sort as oldest. */
export function entryTime(entry: Pick<TraceEntry, "timestamp">): number {
  const t = Date.parse(entry.timestamp);
  return Number.isNaN(t) ? -Infinity : t;
}

function countNewlines(s: string): number {
  if (s === "") return 0;
  let n = 0;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n++;
  // A chunk is complete lines, normally ending in "\n"; text without one still holds one line.
  return s.endsWith("\n") ? n : n + 1;
}
