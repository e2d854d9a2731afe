import { LRUCache } from "lru-cache";
import { newestFirst } from "./entryOrder";
import type { FileIndex } from "./fileIndex";
import { parseLedgerLines, type ParseResult, type StringPool, type TraceEntry } from "./read";
import type { RecordLines } from "./recordLines";
import { MIXED_POST, postKey, type RecordRef } from "./recordRows";

/** Parsed entries kept for recently used files, counted in entries. */
const LRU_ENTRIES = 100_000;

/**
 * The reading back of the records the index points at: a query that needs entries reads their lines back by
 * byte offset and parses them again through `parseLedgerLines`, so every field the reader knows reaches the
 * caller; recently used files' entries stay parsed in an LRU.
 */
export class RecordReader {
  private readonly parsed = new LRUCache<string, readonly TraceEntry[]>({ maxSize: LRU_ENTRIES, sizeCalculation: (e) => e.length + 1 });
  /** Lines read back and parsed since the index was made (what tests count instead of time). */
  linesReparsed = 0;

  constructor(
    private readonly lines: RecordLines,
    private readonly pool: StringPool,
    private readonly fileIndex: FileIndex,
  ) {}

  /** Forgets every parsed entry. */
  clear(): void {
    this.parsed.clear();
  }

  /**
   * A record line was ingested (`text`, ledger line `line`, naming `paths`; `parsed` when its summary parsed
   * it already): files whose entries are parsed already get the new ones; the others are read back when
   * asked for.
   */
  ingested(paths: readonly string[], text: () => string, line: number, parsed: ParseResult | undefined): void {
    if (this.parsed.size > 0) {
      for (const path of new Set(paths)) {
        if (!this.parsed.has(path)) continue;
        const fresh = parsed ?? parseLedgerLines(text(), line, this.pool);
        this.parsed.set(path, this.parsed.get(path)!.concat(fresh.entries.filter((e) => e.path === path)));
      }
    }
  }

  /** Entries for a workspace-relative path, in ledger order. */
  entriesFor(path: string): readonly TraceEntry[] {
    const cached = this.parsed.get(path);
    if (cached) return cached;
    const file = this.fileIndex.file(path);
    if (!file) return [];
    const entries = this.readBack(this.fileIndex.fileRows(file), (e) => e.path === path);
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
    const file = this.fileIndex.file(path);
    if (!file) return;
    const rows = this.fileIndex.fileRows(file).sort((a, b) => b.time - a.time || b.line - a.line);
    for (let i = 0, size = first; i < rows.length; i += size, size *= 2) {
      yield this.readBack(rows.slice(i, i + size), (e) => e.path === path);
    }
  }

  /** Parses record lines again; entries for which `keep` is true, in ref order. */
  readBack(refs: readonly RecordRef[], keep: (e: TraceEntry) => boolean): TraceEntry[] {
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

  /** Whether any record pinned `path` to exactly this content (lets a writer skip a duplicate record). */
  hasPostHash(path: string, hash: string): boolean {
    const file = this.fileIndex.file(path);
    if (!file) return false;
    const cached = this.parsed.get(path);
    if (cached) return cached.some((e) => e.postHash === hash);
    // the keys find the few records that may say so; only those are read back
    const key = postKey(hash);
    const candidates = this.fileIndex.fileRows(file).filter((r) => r.post === key || r.post === MIXED_POST);
    return this.readBack(candidates, (e) => e.path === path && e.postHash === hash).length > 0;
  }
}
