/**
 * The ledger index saved between processes, in the workspace's cache folder (`.orchestration/.cache/`), so
 * that a restart, a hook or a CLI call reads only what was appended to the ledger since.
 *
 * It is trusted only after checking that it describes the ledger as it is now: the same format version and
 * ledger path, a ledger at least as long as what was indexed, and the same bytes at its head and just before
 * the indexed end (a rewrite, truncation, checkout or merge shows there); otherwise the ledger is indexed
 * again from the start. The file carries a SHA-256 of its content, so a torn or corrupt file is never used.
 * Writers (the server, every hook and CLI call) write a temporary file and rename it: concurrent writers each
 * leave a whole index, the last rename wins, and any of them is valid for the ledger prefix it describes.
 *
 * Layout (little-endian): "ILSPIDX\n", u32 format version, u32 header length, f64 rows, f64 files, then a
 * SHA-256 of the meta sections and one of the rows (over the SHA-256s of its five columns); the meta
 * sections, each 8-byte aligned: the header (JSON: what ties the index to the ledger, the intents, the
 * unreadable lines), the file table (per file sorted by path: its row count u32, newest time f64, newest
 * post hash as 32 bytes and a kind byte) and the paths (UTF-8, one per line); then the rows, each file's
 * side by side in ledger order, as columns (offset and time f64, length, line and post key u32). Hashes are
 * kept as bytes. A process that asks about a few files (a hook) reads the meta sections and those files'
 * rows only; rows it reads are checked against the ledger itself.
 */
import { createHash, createHmac } from "node:crypto";
import { cacheKey } from "../cacheKey";
import { closeSync, fstatSync, readdirSync, readSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { openRegular, openRegularSync } from "../regularFiles";
import { CACHE_DIR } from "../cacheDir";
import { ownFilePath, replaceOwnFileInSteps } from "../ownFiles";
import type { UnreadableLine } from "../../engine/ledger/read";
import type { FileState, SavedFiles } from "../../engine/ledger/fileIndex";
import type { IntentState } from "../../engine/ledger/intentIndex";
import type { IndexState } from "../../engine/ledger/ledgerIndex";
import type { RowColumns } from "../../engine/ledger/recordRows";

export const INDEX_FORMAT_VERSION = 7;
const MAGIC = Buffer.from("ILSPIDX\n", "latin1");
const META_SUM_AT = 32;
const ROWS_SUM_AT = 64;
const PREAMBLE = 96;
const ROW_BYTES = 8 + 8 + 4 + 4 + 4;
const FILE_BYTES_AFTER_COUNT = 8 + 32 + 1;
/** Bytes of the ledger's head and of the end of its indexed part that must be unchanged. */
export const CHECK_BYTES = 4096;
/** A temporary file left this long ago belongs to a writer that died. */
const STALE_TEMP_MS = 10 * 60_000;

/** What ties a saved index to the ledger it was built from. */
export interface IndexedLedger {
  /** Workspace-relative path of the ledger. */
  ledger: string;
  /** Bytes of the ledger indexed (complete lines). */
  indexed: number;
  /** Line number of the first line after them. */
  nextLine: number;
  /** The ledger's first `min(CHECK_BYTES, indexed)` bytes and the last ones before `indexed`. */
  head: Buffer;
  tail: Buffer;
}

interface Header {
  ledger: string;
  indexed: number;
  nextLine: number;
  head: string;
  tail: string;
  records: number;
  lastLine: number;
  pathBytes: number;
  /** Newest post hashes that are not `sha256:<64 hex>`, by file index. */
  otherPosts: Record<string, string>;
  /** id, file indexes, edits, last record line, last record [offset, length, line] or 0, last time. */
  intents: [string, number[], number, number, [number, number, number] | 0, number | null][];
  unreadable: [number, string][];
}

/** How a file's newest post hash is stored: none stated, null (deleted), 32 bytes, or a string in the header. */
const POST_NONE = 0;
const POST_NULL = 1;
const POST_SHA256 = 2;
const POST_OTHER = 3;
const SHA256_HEX = /^sha256:[0-9a-f]{64}$/;

function postKind(p: string | null | undefined): number {
  return p === undefined ? POST_NONE : p === null ? POST_NULL : p.length === 71 && SHA256_HEX.test(p) ? POST_SHA256 : POST_OTHER;
}

/** File name of the index of one ledger: several ledgers (ours, the reference one) each have their own. */
export function indexFileName(ledger: string): string {
  return `ledger-${createHash("sha256").update(ledger).digest("hex").slice(0, 16)}.idx`;
}

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const align8 = (n: number) => Math.ceil(n / 8) * 8;

/** Byte offsets of each section from the start of the file. */
function sections(jsonLength: number, rows: number, files: number, pathBytes: number) {
  const filesAt = PREAMBLE + align8(jsonLength);
  // counts (padded to 8 bytes), then times, post hashes and their kinds
  const pathsAt = filesAt + align8(align8(files * 4) + files * FILE_BYTES_AFTER_COUNT);
  const rowsAt = pathsAt + align8(pathBytes);
  return { filesAt, pathsAt, rowsAt, end: rowsAt + rows * ROW_BYTES };
}

/** Rows a step of `writeIndexInSteps` writes: some tens of milliseconds. */
const ROWS_PER_STEP = 50_000;

/** Where column `k` (0 offset, 1 time, 2 length, 3 line, 4 post) of row `i` is, for `n` rows from `rowsAt`. */
function columnAt(rowsAt: number, n: number, k: number, i: number): number {
  const starts = [0, 8 * n, 16 * n, 20 * n, 24 * n];
  return rowsAt + starts[k]! + i * (k < 2 ? 8 : 4);
}

/**
 * Writes the index to `fd`: the meta sections built in memory, the rows streamed column by column, pausing
 * after each file that brings the rows written since the last pause to `rowsPerStep`.
 */
export function* writeIndexInSteps(fd: number, state: IndexState, at: IndexedLedger, rowsPerStep = ROWS_PER_STEP): Generator<void> {
  // sorted, so that a reader finds a file by binary search without building a map of all of them
  const files = [...state.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const fileIndex = new Map(files.map((f, i) => [f.path, i]));
  const finite = (t: number) => (Number.isFinite(t) ? t : null);
  const paths = Buffer.from(files.map((f) => f.path).join("\n"), "utf8");
  const kinds = files.map((f) => postKind(f.newestPost));
  const otherPosts: Record<string, string> = {};
  files.forEach((f, i) => {
    if (kinds[i] === POST_OTHER) otherPosts[i] = f.newestPost as string;
  });
  const header: Header = {
    ledger: at.ledger,
    indexed: at.indexed,
    nextLine: at.nextLine,
    head: sha(at.head),
    tail: sha(at.tail),
    records: state.records,
    lastLine: state.lastLine,
    pathBytes: paths.length,
    otherPosts,
    intents: [...state.intents].map(([id, s]) => [
      id,
      [...s.files].map((p) => fileIndex.get(p)!),
      s.edits,
      s.lastRecordLine,
      s.last ? [s.last.offset, s.last.length, s.last.line] : 0,
      finite(s.lastTime),
    ]),
    unreadable: state.unreadable.map((u) => [u.line, u.message]),
  };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  // a file's count is its rows in all (saved and added since)
  const n = files.reduce((sum, file) => sum + file.count, 0);
  const f = files.length;
  const where = sections(json.length, n, f, paths.length);

  const meta = Buffer.alloc(where.rowsAt - PREAMBLE);
  json.copy(meta, 0);
  // file table: counts, then times, then post hashes, then their kinds
  const countAt = where.filesAt - PREAMBLE;
  const timeAt = countAt + align8(f * 4);
  const postAt = timeAt + f * 8;
  const kindAt = postAt + f * 32;
  files.forEach((file, i) => {
    meta.writeUInt32LE(file.count, countAt + i * 4);
    meta.writeDoubleLE(file.newestTime, timeAt + i * 8);
    meta[kindAt + i] = kinds[i]!;
    if (kinds[i] === POST_SHA256) meta.write(file.newestPost!.slice(7), postAt + i * 32, "hex");
  });
  paths.copy(meta, where.pathsAt - PREAMBLE);

  const pre = Buffer.alloc(PREAMBLE);
  MAGIC.copy(pre, 0);
  pre.writeUInt32LE(INDEX_FORMAT_VERSION, 8);
  pre.writeUInt32LE(json.length, 12);
  pre.writeDoubleLE(n, 16);
  pre.writeDoubleLE(f, 24);
  writeAll(fd, pre, 0); // its two checksums are written last, once the rows are
  writeAll(fd, meta, PREAMBLE);

  // the rows, in one pass through a small buffer per column: a million rows need no second copy in memory
  const CHUNK = 8192;
  const offsets = new Float64Array(CHUNK);
  const times = new Float64Array(CHUNK);
  const lengths = new Uint32Array(CHUNK);
  const lines = new Uint32Array(CHUNK);
  const posts = new Uint32Array(CHUNK);
  const columns = [offsets, times, lengths, lines, posts].map((values, k) => ({
    values,
    position: columnAt(where.rowsAt, n, k, 0),
    hash: createHash("sha256"),
  }));
  let used = 0;
  const flush = () => {
    for (const c of columns) {
      const bytes = Buffer.from(c.values.buffer, 0, used * c.values.BYTES_PER_ELEMENT);
      c.hash.update(bytes);
      writeAll(fd, bytes, c.position);
      c.position += bytes.length;
    }
    used = 0;
  };
  let rows = 0;
  // one function for every row of every file, writing straight into the columns: a million calls
  const row = (offset: number, time: number, length: number, line: number, post: number) => {
    if (used === CHUNK) flush();
    offsets[used] = offset;
    times[used] = time;
    lengths[used] = length;
    lines[used] = line;
    posts[used] = post;
    used++;
    rows++;
  };
  let sincePause = 0;
  for (const file of files) {
    rows = 0;
    state.eachRow!(file, row);
    // a file whose saved rows could not be read back: not saved half-described
    if (rows !== file.count) throw new Error(`${file.path}: ${rows} rows, not ${file.count}`);
    sincePause += rows;
    if (sincePause < rowsPerStep) continue;
    sincePause = 0;
    yield;
  }
  flush();
  if (columns[4]!.position !== where.end) throw new Error(`wrote up to ${columns[4]!.position}, not ${where.end}`);
  const rowsSum = rowsChecksum(columns.map((c) => c.hash.digest()));
  rowsSum.copy(pre, ROWS_SUM_AT);
  writeAll(fd, rowsSum, ROWS_SUM_AT);
  // the meta's keyed checksum covers the rows' checksum, known only now
  writeAll(fd, metaSum(meta, pre), META_SUM_AT);
}

/**
 * The meta sections' checksum, keyed with this user's cache key (io/cacheKey.ts), over the rows' checksum
 * too: an index made elsewhere (shipped in a repository, copied from another machine) never checks, so
 * blame and hover never answer from rows intent-lsp did not write here.
 */
function metaSum(meta: Buffer, pre: Buffer): Buffer {
  return createHmac("sha256", cacheKey())
    .update(pre.subarray(ROWS_SUM_AT, ROWS_SUM_AT + 32))
    .update(meta)
    .digest();
}

/** The rows' checksum: of each column's SHA-256, so that a writer can hash the columns as it fills them. */
function rowsChecksum(columnHashes: Buffer[]): Buffer {
  return createHash("sha256").update(Buffer.concat(columnHashes)).digest();
}

/** The rows' checksum of rows read whole. */
function rowsChecksumOf(rows: Buffer, n: number): Buffer {
  const bounds = [0, 8 * n, 16 * n, 20 * n, 24 * n, 28 * n];
  return rowsChecksum(
    bounds.slice(0, 5).map((from, k) =>
      createHash("sha256")
        .update(rows.subarray(from, bounds[k + 1]))
        .digest(),
    ),
  );
}

function writeAll(fd: number, bytes: Buffer, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

export type Decoded = { state: IndexState; indexed: number; nextLine: number; headHash: string; tailHash: string; ledger: string } | { problem: string };

/** Reads bytes of the index file; undefined past its end. */
type ReadAt = (position: number, length: number) => Buffer | undefined;

/**
 * The saved index, or why it cannot be used (never throws on bad bytes). `whole`: every byte is checked
 * and the rows are used in place; otherwise (`readAt` given) only the meta sections are read and checked,
 * and a file's rows are read when a query asks for them.
 */
export function decodeIndex(file: Buffer): Decoded {
  return decodeFrom((p, l) => (p + l <= file.length ? file.subarray(p, p + l) : undefined), file.length, true);
}

function decodeFrom(readAt: ReadAt, size: number, whole: boolean): Decoded {
  try {
    return decodeChecked(readAt, size, whole);
  } catch (e) {
    return { problem: `corrupt: ${(e as Error).message}` };
  }
}

function decodeChecked(readAt: ReadAt, size: number, whole: boolean): Decoded {
  const pre = readAt(0, PREAMBLE);
  if (!pre?.subarray(0, 8).equals(MAGIC)) return { problem: "not an index file" };
  if (pre.readUInt32LE(8) !== INDEX_FORMAT_VERSION) return { problem: `format version ${pre.readUInt32LE(8)}, not ${INDEX_FORMAT_VERSION}` };
  const jsonLength = pre.readUInt32LE(12);
  const n = pre.readDoubleLE(16);
  const f = pre.readDoubleLE(24);
  const torn = { problem: "torn: its length does not match its header" };
  if (!Number.isInteger(n) || n < 0 || !Number.isInteger(f) || f < 0 || PREAMBLE + jsonLength > size) return torn;
  const json = readAt(PREAMBLE, jsonLength);
  if (!json) return torn;
  const header = JSON.parse(json.toString("utf8")) as Header;
  const where = sections(jsonLength, n, f, header.pathBytes);
  if (where.end !== size) return torn;
  const meta = readAt(PREAMBLE, where.rowsAt - PREAMBLE);
  if (!meta || !metaSum(meta, pre).equals(pre.subarray(META_SUM_AT, META_SUM_AT + 32))) return { problem: "corrupt: its checksum does not match" };
  const rowBytes = whole ? readAt(where.rowsAt, n * ROW_BYTES) : undefined;
  if (whole && (!rowBytes || !rowsChecksumOf(rowBytes, n).equals(pre.subarray(ROWS_SUM_AT, ROWS_SUM_AT + 32))))
    return { problem: "corrupt: its checksum does not match" };

  const local = (at: number) => at - PREAMBLE;
  const countAt = local(where.filesAt);
  const timeAt = countAt + align8(f * 4);
  const postAt = timeAt + f * 8;
  const kindAt = postAt + f * 32;
  const counts = typed((b, o, k) => new Uint32Array(b, o, k), meta, countAt, 4, f);
  const times = typed((b, o, k) => new Float64Array(b, o, k), meta, timeAt, 8, f);
  const bases = new Float64Array(f);
  let total = 0;
  for (let i = 0; i < f; i++) {
    bases[i] = total;
    total += counts[i]!;
  }
  if (total !== n) return { problem: "corrupt: its file table does not match its rows" };
  const paths =
    f === 0
      ? []
      : meta
          .subarray(local(where.pathsAt), local(where.pathsAt) + header.pathBytes)
          .toString("utf8")
          .split("\n");
  if (paths.length !== f) return { problem: "corrupt: its file table does not match its header" };

  const columns = (bytes: Buffer, rows: number): RowColumns => ({
    offset: typed((b, o, k) => new Float64Array(b, o, k), bytes, 0, 8, rows),
    time: typed((b, o, k) => new Float64Array(b, o, k), bytes, 8 * rows, 8, rows),
    length: typed((b, o, k) => new Uint32Array(b, o, k), bytes, 16 * rows, 4, rows),
    line: typed((b, o, k) => new Uint32Array(b, o, k), bytes, 20 * rows, 4, rows),
    post: typed((b, o, k) => new Uint32Array(b, o, k), bytes, 24 * rows, 4, rows),
  });
  let all = rowBytes ? columns(rowBytes, n) : undefined;
  const saved: SavedFiles = {
    paths,
    state: (i): FileState => {
      const kind = meta[kindAt + i];
      const newestPost =
        kind === POST_SHA256
          ? `sha256:${meta.toString("hex", postAt + i * 32, postAt + i * 32 + 32)}`
          : kind === POST_NULL
            ? null
            : kind === POST_OTHER
              ? header.otherPosts[i]
              : undefined;
      return {
        path: paths[i]!,
        savedBase: bases[i]!,
        savedCount: counts[i]!,
        first: NONE_ROW,
        last: NONE_ROW,
        count: counts[i]!,
        newestTime: times[i]!,
        newestPost,
      };
    },
    rows: (base, count) => {
      if (all)
        return {
          offset: all.offset.subarray(base, base + count),
          time: all.time.subarray(base, base + count),
          length: all.length.subarray(base, base + count),
          line: all.line.subarray(base, base + count),
          post: all.post.subarray(base, base + count),
        };
      // one read per column of just this file's rows
      const parts = [0, 1, 2, 3, 4].map((k) => readAt(columnAt(where.rowsAt, n, k, base), count * (k < 2 ? 8 : 4)));
      if (parts.some((p) => !p)) return undefined;
      const bytes = Buffer.concat(parts as Buffer[]);
      return columns(bytes, count);
    },
    base: (i) => bases[i]!,
    count: (i) => counts[i]!,
    allRows: () => all,
    readAll: () => {
      if (all) return;
      // every row, checked (before the index is saved again, say)
      const bytes = readAt(where.rowsAt, n * ROW_BYTES);
      if (!bytes || !rowsChecksumOf(bytes, n).equals(pre.subarray(ROWS_SUM_AT, ROWS_SUM_AT + 32)))
        throw new Error("the saved index's rows do not match their checksum");
      all = columns(bytes, n);
    },
  };
  const savedIntents = new Map<string, () => IntentState>(
    header.intents.map(([id, fileIndexes, edits, lastRecordLine, last, t]) => [
      id,
      () => ({
        files: new Set(fileIndexes.map((i) => paths[i]!)),
        edits,
        lastRecordLine,
        last: last ? { offset: last[0], length: last[1], line: last[2] } : undefined,
        lastTime: t ?? -Infinity,
      }),
    ]),
  );
  const unreadable: UnreadableLine[] = header.unreadable.map(([line, message]) => ({ line, message }));
  return {
    state: { records: header.records, lastLine: header.lastLine, files: [], saved, intents: new Map(), savedIntents, unreadable },
    indexed: header.indexed,
    nextLine: header.nextLine,
    headHash: header.head,
    tailHash: header.tail,
    ledger: header.ledger,
  };
}

const NONE_ROW = 0xffffffff;

/** A typed array over `count` values at `at` in `bytes`: in place when aligned (a large read is), else a copy. */
function typed<T>(make: (b: ArrayBuffer, o: number, k: number) => T, bytes: Buffer, at: number, size: number, count: number): T {
  const start = bytes.byteOffset + at;
  if (start % size === 0) return make(bytes.buffer as ArrayBuffer, start, count);
  return make(bytes.buffer.slice(start, start + size * count) as ArrayBuffer, 0, count);
}

export type Loaded = { state: IndexState; at: IndexedLedger; identity: { dev: number; ino: number } } | { problem: string };

/**
 * The saved index of `ledger` (workspace-relative, at `ledgerFile`) if it still describes the ledger.
 * `partial`: read only what queries ask for (a process that asks about a few files); the file stays open
 * for the life of the process, so a writer replacing it meanwhile cannot mix two indexes.
 */
export async function loadIndex(cacheDir: string, ledger: string, ledgerFile: string, opts: { partial?: boolean } = {}): Promise<Loaded> {
  const path = join(cacheDir, indexFileName(ledger));
  let d: Decoded;
  if (opts.partial) {
    let fd: number;
    try {
      fd = openRegularSync(path);
    } catch {
      return { problem: "no saved index" };
    }
    const size = fstatSync(fd).size;
    const readAt: ReadAt = (position, length) => {
      if (position + length > size) return undefined;
      const b = Buffer.allocUnsafe(length);
      return readSync(fd, b, 0, length, position) === length ? b : undefined;
    };
    d = decodeFrom(readAt, size, false);
    if ("problem" in d) closeSync(fd);
  } else {
    let bytes: Buffer;
    try {
      const handle = await openRegular(path);
      try {
        bytes = await handle.readFile();
      } finally {
        await handle.close();
      }
    } catch {
      return { problem: "no saved index" };
    }
    d = decodeIndex(bytes);
  }
  if ("problem" in d) return d;
  if (d.ledger !== ledger) return { problem: `it indexes ${d.ledger}, not ${ledger}` };
  const handle = await openRegular(ledgerFile).catch(() => undefined);
  if (!handle) return { problem: "no ledger" };
  try {
    const { size, dev, ino } = await handle.stat();
    if (size < d.indexed) return { problem: `the ledger is shorter (${size} bytes) than what was indexed (${d.indexed})` };
    const read = async (from: number, length: number) => {
      const b = Buffer.alloc(length);
      const { bytesRead } = await handle.read(b, 0, length, from);
      return b.subarray(0, bytesRead);
    };
    const head = await read(0, Math.min(CHECK_BYTES, d.indexed));
    const tail = await read(Math.max(0, d.indexed - CHECK_BYTES), Math.min(CHECK_BYTES, d.indexed));
    if (sha(head) !== d.headHash) return { problem: "the ledger's head changed" };
    if (sha(tail) !== d.tailHash) return { problem: "the ledger changed before the indexed end" };
    return { state: d.state, at: { ledger, indexed: d.indexed, nextLine: d.nextLine, head, tail }, identity: { dev, ino } };
  } finally {
    await handle.close();
  }
}

/**
 * Saves the index through the own-file writer (a fresh temporary file, then rename, in the workspace's
 * cache folder where it really lands), a slice of the rows at a time for a caller that runs each step in a
 * turn of its own (the editor, on a ledger of a million records: the save is half a second). The index must
 * not change between steps. Returns whether the index was saved.
 */
export function* saveIndexInSteps(root: string, state: () => IndexState, at: IndexedLedger, rowsPerStep = ROWS_PER_STEP): Generator<void, boolean> {
  try {
    yield* replaceOwnFileInSteps(root, `${CACHE_DIR}/${indexFileName(at.ledger)}`, (fd) => writeIndexInSteps(fd, state(), at, rowsPerStep));
    removeStaleTemps(ownFilePath(root, CACHE_DIR, "directory"));
    return true;
  } catch {
    return false;
  }
}

function removeStaleTemps(dir: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".tmp")) continue;
    try {
      if (now - statSync(join(dir, name)).mtimeMs > STALE_TEMP_MS) unlinkSync(join(dir, name));
    } catch {
      /* another process removed it */
    }
  }
}
