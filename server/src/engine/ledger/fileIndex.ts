import { MIXED_POST, NO_POST, NONE, RecordRows, type RecordRef, type Row, type RowColumns } from "./recordRows";

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
  /** Where the rows of the file at `paths[i]` are in the saved columns, without making its state. */
  base(i: number): number;
  count(i: number): number;
  /** Every saved row, once `readAll` has read them; undefined before. */
  allRows(): RowColumns | undefined;
  /** Reads and checks all saved rows at once (before they are all needed); throws when they are damaged. */
  readAll(): void;
}

/** Called with each row's columns (a million rows make no object per row). */
export type RowVisitor = (offset: number, time: number, length: number, line: number, post: number) => void;

/**
 * The ledger index's files: each file's rows (its saved ones, then those added since) and the newest record's
 * post hash. A loaded index's files stay in the saved columns until a query asks for one.
 */
export class FileIndex {
  /** Whether the saved rows were found damaged (their checksum): no answer may rest on their columns. */
  rowsDamaged = false;
  private rows = new RecordRows();
  /** Files made or asked for since the index was built or loaded; the others are still in `saved`. */
  private readonly byPath = new Map<string, FileState>();
  private saved: SavedFiles | undefined;

  /**
   * Adds the entry of `path` in the record on ledger line `line` (at `offset`, `length` bytes), with its time
   * and post hash (`key`: its 32-bit key). Entries are added in ledger order.
   */
  add(path: string, offset: number, length: number, line: number, key: number, time: number, post: string | null | undefined): void {
    let file = this.file(path);
    if (!file) {
      file = { path, savedBase: 0, savedCount: 0, first: NONE, last: NONE, count: 0, newestTime: -Infinity, newestPost: undefined };
      this.byPath.set(path, file);
    }
    if (file.last !== NONE && this.rows.line[file.last] === line) {
      // another entry of the same file in the same record
      if (this.rows.post[file.last] !== key) this.rows.post[file.last] = MIXED_POST;
    } else {
      const row = this.rows.push(offset, length, line, key, time);
      if (file.last === NONE) file.first = row;
      else this.rows.next[file.last] = row;
      file.last = row;
      file.count++;
    }
    // ingest is in ledger order, so ">=" makes the later line (and entry) win a timestamp tie
    if (time >= file.newestTime) {
      file.newestTime = time;
      file.newestPost = post;
    }
  }

  /** `onDamaged`: called once when the saved rows are found damaged. */
  constructor(private readonly onDamaged: () => void = () => undefined) {}

  /** Forgets every file. */
  reset(): void {
    this.rowsDamaged = false;
    this.rows = new RecordRows();
    this.byPath.clear();
    this.saved = undefined;
  }

  /** Takes a loaded index's files: `saved`, and the states in `files`. */
  restore(saved: SavedFiles | undefined, files: readonly FileState[]): void {
    this.saved = saved;
    for (const f of files) this.byPath.set(f.path, f);
  }

  /** Reads and checks all saved rows at once (throws when they are damaged). */
  readAll(): void {
    if (this.rowsDamaged) throw new Error("the saved index's rows do not match their checksum");
    try {
      this.saved?.readAll();
    } catch (e) {
      this.damaged();
      throw e;
    }
  }

  private damaged(): void {
    if (!this.rowsDamaged) this.onDamaged();
    this.rowsDamaged = true;
  }

  /** A file's rows in ledger order: its saved ones, then those added since. */
  fileRows(file: FileState): Row[] {
    const out: Row[] = [];
    this.eachRow(file, (offset, time, length, line, post) => out.push({ offset, length, line, time, post }));
    return out;
  }

  eachRow(file: FileState, row: RowVisitor): void {
    if (file.savedCount > 0) {
      const saved = this.saved?.rows(file.savedBase, file.savedCount);
      // rows that cannot be read back (the saved copy changed underneath): no answer without them
      if (!saved) {
        this.damaged();
        throw new Error(`the saved ledger index could not be read back for ${file.path}; it is dropped, and the ledger is read anew on the next run`);
      }
      for (let i = 0; i < file.savedCount; i++) row(saved.offset[i]!, saved.time[i]!, saved.length[i]!, saved.line[i]!, saved.post[i]!);
    }
    const rows = this.rows;
    for (let r = file.first; r !== NONE; r = rows.next[r]!) row(rows.offset[r]!, rows.time[r]!, rows.length[r]!, rows.line[r]!, rows.post[r]!);
  }

  /**
   * Every row of every file, in the order of `paths()` and each file's rows in ledger order: what `eachRow`
   * of each file gives, without making a state for each saved file (a pass over all the rows, at start,
   * over a hundred thousand of them).
   */
  eachRowOfAll(row: RowVisitor): void {
    for (const pass of this.rowPasses()) pass(row);
  }

  /** `eachRowOfAll` as one pass a file, in its order, for a caller that takes them a few at a time. */
  rowPasses(): ((row: RowVisitor) => void)[] {
    const saved = this.saved;
    const all = saved?.allRows();
    if (saved && all) {
      const passes = saved.paths.map((path, i) => {
        const known = this.byPath.get(path);
        if (known) return (row: RowVisitor) => this.eachRow(known, row);
        const end = saved.base(i) + saved.count(i);
        return (row: RowVisitor) => {
          for (let r = saved.base(i); r < end; r++) row(all.offset[r]!, all.time[r]!, all.length[r]!, all.line[r]!, all.post[r]!);
        };
      });
      const inSaved = new Set(saved.paths);
      for (const [path, file] of this.byPath) if (!inSaved.has(path)) passes.push((row) => this.eachRow(file, row));
      return passes;
    }
    return this.paths().map((path) => (row: RowVisitor) => {
      const file = this.file(path);
      if (file) this.eachRow(file, row);
    });
  }

  /**
   * The rows whose post key is `key`, then those whose entries disagree (`MIXED_POST`), each record line once
   * and each list in `eachRowOfAll` order: exactly what `PinIndex.of(this).refs(key)` answers, by one pass
   * over the post column instead of a map of every row (a CLI call asks for one or two contents, and building
   * the map cost it more than the rest of its ledger reading). Call `readAll` first, as `PinIndex.of` does.
   */
  rowsPosting(key: number): RecordRef[] {
    const wanted = (post: number) => (post === key && key !== NO_POST) || post === MIXED_POST;
    // [file order, row] for each wanted row: a saved file's place is its index, a file known only here
    // comes after every saved one
    const found: { order: number; post: number; ref: RecordRef }[] = [];
    const fromFile = (file: FileState, order: number) =>
      this.eachRow(file, (offset, _time, length, line, post) => {
        if (wanted(post)) found.push({ order, post, ref: { offset, length, line } });
      });
    const saved = this.saved;
    const all = saved?.allRows();
    if (saved && all) {
      const known = new Set<number>();
      let extra = saved.paths.length;
      for (const [path, file] of this.byPath) {
        const i = this.savedIndex(path);
        if (i === undefined) fromFile(file, extra++);
        else {
          known.add(i);
          fromFile(file, i);
        }
      }
      const post = all.post;
      let file = 0;
      for (let r = 0; r < post.length; r++) {
        if (!wanted(post[r]!)) continue;
        while (saved.base(file) + saved.count(file) <= r) file++;
        if (!known.has(file)) found.push({ order: file, post: post[r]!, ref: { offset: all.offset[r]!, length: all.length[r]!, line: all.line[r]! } });
      }
    } else {
      const paths = this.paths();
      for (let i = 0; i < paths.length; i++) {
        const file = this.file(paths[i]!);
        if (file) fromFile(file, i);
      }
    }
    // stable: a file's rows stay in ledger order
    found.sort((a, b) => a.order - b.order);
    const out: RecordRef[] = [];
    const seen = new Set<number>();
    for (const mixed of [false, true])
      for (const f of found) {
        if ((f.post === MIXED_POST) !== mixed || seen.has(f.ref.line)) continue;
        seen.add(f.ref.line);
        out.push(f.ref);
      }
    return out;
  }

  /** Where `path` is among the saved files, without making its state. */
  private savedIndex(path: string): number | undefined {
    const paths = this.saved?.paths;
    if (!paths) return undefined;
    let lo = 0;
    let hi = paths.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const p = paths[mid]!;
      if (p === path) return mid;
      if (p < path) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** How many rows there are at most: the saved ones (once read) and those added since. */
  rowCount(): number {
    return this.rows.size + (this.saved?.allRows()?.post.length ?? 0);
  }

  paths(): string[] {
    if (!this.saved) return [...this.byPath.keys()];
    return [...new Set([...this.saved.paths, ...this.byPath.keys()])];
  }

  /** A file's state, made from the saved columns when first asked for. */
  file(path: string): FileState | undefined {
    const known = this.byPath.get(path);
    if (known || !this.saved) return known;
    const i = this.savedIndex(path);
    if (i === undefined) return undefined;
    const state = this.saved.state(i);
    this.byPath.set(path, state);
    return state;
  }
}
