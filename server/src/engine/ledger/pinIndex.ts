import type { FileIndex } from "./fileIndex";
import { MIXED_POST, NO_POST, NONE, type RecordRef } from "./recordRows";

/** Contents asked about by scanning before the pin index is made: a scan costs about a fortieth of making it. */
const PIN_SCANS = 8;
/** Rows a step of `PinIndex.inSteps` adds: some tens of milliseconds. */
const ROWS_PER_STEP = 25_000;

/**
 * Which records of a ledger index may pin a content: from the pin index once it is made; before, a scan of
 * the post column for each of the first few questions (a CLI call asks one or two, and the scan costs a
 * fraction of making the index), then the index, for a caller that asks of many contents (`intent stats`
 * over untraced files). A reader that holds the whole ledger makes the index while it reads (`prepare`).
 */
export class ContentPins {
  private index: PinIndex | undefined;
  private scans = 0;
  /** Questions answered by a scan before the index is made (`indexAtFirstQuestion`: none). */
  private scansBeforeIndex = PIN_SCANS;

  /** The index being made a step at a time (`prepareStep`); never used before it is whole. */
  private making: Generator<void, PinIndex> | undefined;

  constructor(private readonly files: FileIndex) {}

  refs(key: number): RecordRef[] {
    if (!this.index && ++this.scans > this.scansBeforeIndex) this.prepare();
    if (this.index) return this.index.refs(key);
    try {
      this.files.readAll();
    } catch {
      // damaged saved rows: their post keys cannot be trusted, so every record is read back and checked
      return everyRecord(this.files);
    }
    return this.files.rowsPosting(key);
  }

  /**
   * For a reader that holds the whole ledger and answers no one while it works (a command line): the index
   * is made at the first question, not after it reads. Making it then costs the same, and a command that
   * asks none (`intent stats` counting in worker threads, each with its own index) never pays for it. The
   * editor makes it after it reads, a slice at a time between answers (`prepareStep`), so that no question
   * waits for the pass.
   */
  indexAtFirstQuestion(): void {
    this.scansBeforeIndex = 0;
  }

  /** Makes the index, unless the saved rows it would be made of are damaged. */
  prepare(): void {
    this.making = undefined;
    if (!this.index && !this.damaged()) this.index = PinIndex.of(this.files);
  }

  private damaged(): boolean {
    try {
      this.files.readAll();
    } catch {
      /* rowsDamaged says it */
    }
    return this.files.rowsDamaged;
  }

  /**
   * Makes the index a slice of the rows at a time, for a reader that answers in between (the editor, after
   * its first read of a million records): true while there is more to make. Until it is whole, questions
   * are answered by the scan of the rows, as when none is begun.
   */
  prepareStep(): boolean {
    if (this.index || (!this.making && this.damaged())) return false;
    this.making ??= PinIndex.inSteps(this.files);
    const step = this.making.next();
    if (!step.done) return true;
    this.index = step.value;
    this.making = undefined;
    return false;
  }

  /** A record line's entry, once the index is made (`FileIndex.add` keeps the rows a scan reads). */
  add(key: number, offset: number, length: number, line: number): void {
    this.index?.add(key, offset, length, line);
    // an index half made would miss this row or list it twice: made again from the start
    this.making = undefined;
  }

  reset(): void {
    this.index = undefined;
    this.making = undefined;
    this.scans = 0;
  }
}

/** Every record line the rows name, each once, in `eachRowOfAll` order. */
function everyRecord(files: FileIndex): RecordRef[] {
  const seen = new Set<number>();
  const out: RecordRef[] = [];
  files.eachRowOfAll((offset, _time, length, line) => {
    if (seen.has(line)) return;
    seen.add(line);
    out.push({ offset, length, line });
  });
  return out;
}

/**
 * Record lines by post-hash key, as chained columns: a lookup reads the few records with the key (and those
 * whose entries stated different hashes for one file, `MIXED_POST`), so asking about content no record pins
 * costs one probe whatever the ledger's size. A record is listed once per key.
 *
 * The keys are an open-addressing table in typed arrays, not a `Map`: nearly every record pins a content of
 * its own, so a ledger of a million records has about a million keys, and a `Map` of them costs the
 * editor's main thread more than twice the time to make after its first read (0.6 s against 0.25 s).
 */
export class PinIndex {
  private readonly keys: KeyTable;
  private size = 0;
  private offset: Float64Array;
  private length: Uint32Array;
  private line: Uint32Array;
  private next: Uint32Array;

  /** `expected`: about how many rows will be added; the columns and the key table start that large. */
  constructor(expected = 0) {
    const n = Math.max(256, expected);
    this.keys = new KeyTable(expected);
    this.offset = new Float64Array(n);
    this.length = new Uint32Array(n);
    this.line = new Uint32Array(n);
    this.next = new Uint32Array(n);
  }

  /** The pin index of every row of `files`, made with one pass over them. */
  static of(files: FileIndex): PinIndex {
    const steps = PinIndex.inSteps(files, Number.POSITIVE_INFINITY);
    for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
  }

  /** `of`, pausing after each file that brings the rows since the last pause to `rowsPerStep`. */
  static *inSteps(files: FileIndex, rowsPerStep = ROWS_PER_STEP): Generator<void, PinIndex> {
    // every file's rows are read: one read of the saved columns, not five per file (a CLI call on a
    // 40,000-file ledger spent most of its time in those reads)
    try {
      files.readAll();
    } catch {
      /* damaged saved rows: ContentPins makes no index of them; a caller that does gets each file's rows as read */
    }
    const pins = new PinIndex(files.rowCount());
    let rows = 0;
    const add = (offset: number, _time: number, length: number, line: number, post: number) => {
      pins.add(post, offset, length, line);
      rows++;
    };
    for (const pass of files.rowPasses()) {
      pass(add);
      if (rows < rowsPerStep) continue;
      rows = 0;
      yield;
    }
    return pins;
  }

  add(post: number, offset: number, length: number, line: number): void {
    if (post === NO_POST) return;
    const slot = this.keys.slotOf(post, true);
    const last = this.keys.tail(slot);
    if (last !== NONE && this.line[last] === line) return;
    if (this.size === this.offset.length) this.grow();
    const i = this.size++;
    this.offset[i] = offset;
    this.length[i] = length;
    this.line[i] = line;
    this.next[i] = NONE;
    if (last === NONE) this.keys.setHead(slot, i);
    else this.next[last] = i;
    this.keys.setTail(slot, i);
  }

  /** The records listed under `key` and under `MIXED_POST`, each line once. */
  refs(key: number): RecordRef[] {
    const out: RecordRef[] = [];
    const seen = new Set<number>();
    for (const k of [key, MIXED_POST]) {
      const slot = this.keys.slotOf(k, false);
      for (let i = slot === NONE ? NONE : this.keys.head(slot); i !== NONE; i = this.next[i]!) {
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
 * 32-bit keys to the first and last row of their chain: linear probing in a power-of-two table kept at most
 * half full, each slot's key, head and tail side by side (one cache line a probe). A slot whose head is NONE
 * is empty: a key is only ever added with its first row.
 */
class KeyTable {
  private bits: number;
  private used = 0;
  private slots: Uint32Array;

  /** `expected`: about how many keys will be added (none need be): the table is made that large at once. */
  constructor(expected = 0) {
    this.bits = Math.max(10, Math.ceil(Math.log2(Math.max(1, expected) * 2)));
    this.slots = KeyTable.empty(this.bits);
  }

  private static empty(bits: number): Uint32Array {
    const slots = new Uint32Array(3 << bits);
    for (let s = 1; s < slots.length; s += 3) slots[s] = slots[s + 1] = NONE;
    return slots;
  }

  head(slot: number): number {
    return this.slots[slot * 3 + 1]!;
  }

  tail(slot: number): number {
    return this.slots[slot * 3 + 2]!;
  }

  setHead(slot: number, row: number): void {
    this.slots[slot * 3 + 1] = row;
  }

  setTail(slot: number, row: number): void {
    this.slots[slot * 3 + 2] = row;
  }

  /** The slot of `key`: made (its chain empty) when `make` and absent, else NONE when absent. */
  slotOf(key: number, make: boolean): number {
    const mask = (1 << this.bits) - 1;
    const k = key >>> 0;
    for (let slot = Math.imul(k, 0x9e3779b1) >>> (32 - this.bits); ; slot = (slot + 1) & mask) {
      const at = slot * 3;
      if (this.slots[at + 1] === NONE) {
        if (!make) return NONE;
        if ((this.used + 1) * 2 > mask + 1) {
          this.rehash();
          return this.slotOf(k, true);
        }
        this.used++;
        this.slots[at] = k;
        return slot;
      }
      if (this.slots[at] === k) return slot;
    }
  }

  private rehash(): void {
    const old = this.slots;
    this.bits++;
    this.slots = KeyTable.empty(this.bits);
    this.used = 0;
    for (let at = 0; at < old.length; at += 3) {
      if (old[at + 1] === NONE) continue;
      const slot = this.slotOf(old[at]!, true);
      this.setHead(slot, old[at + 1]!);
      this.setTail(slot, old[at + 2]!);
    }
  }
}
