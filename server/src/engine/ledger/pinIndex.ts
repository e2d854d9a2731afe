import type { FileIndex } from "./fileIndex";
import { MIXED_POST, NO_POST, NONE, type RecordRef } from "./recordRows";

/** Contents asked about by scanning before the pin index is made: a scan costs about a fortieth of making it. */
const PIN_SCANS = 8;

/**
 * Which records of a ledger index may pin a content: from the pin index once it is made; before, a scan of
 * the post column for each of the first few questions (a CLI call asks one or two, and the scan costs a
 * fraction of making the index), then the index, for a caller that asks of many contents (`intent stats`
 * over untraced files). A reader that holds the whole ledger makes the index while it reads (`prepare`).
 */
export class ContentPins {
  private index: PinIndex | undefined;
  private scans = 0;

  constructor(private readonly files: FileIndex) {}

  refs(key: number): RecordRef[] {
    if (this.index || ++this.scans > PIN_SCANS) return this.prepare().refs(key);
    try {
      this.files.readAll();
    } catch {
      /* damaged saved rows: each file's are read and checked against the ledger, as PinIndex.of does */
    }
    return this.files.rowsPosting(key);
  }

  prepare(): PinIndex {
    this.index ??= PinIndex.of(this.files);
    return this.index;
  }

  /** A record line's entry, once the index is made (`FileIndex.add` keeps the rows a scan reads). */
  add(key: number, offset: number, length: number, line: number): void {
    this.index?.add(key, offset, length, line);
  }

  reset(): void {
    this.index = undefined;
    this.scans = 0;
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

  /** The pin index of every row of `files`, made with one pass over them. */
  static of(files: FileIndex): PinIndex {
    // every file's rows are read: one read of the saved columns, not five per file (a CLI call on a
    // 40,000-file ledger spent most of its time in those reads)
    try {
      files.readAll();
    } catch {
      /* damaged saved rows: each file's are read and checked against the ledger as before */
    }
    const pins = new PinIndex();
    files.eachRowOfAll((offset, _time, length, line, post) => pins.add(post, offset, length, line));
    return pins;
  }

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
