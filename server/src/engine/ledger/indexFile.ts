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
 * Layout (little-endian): "ILSPIDX\n", u32 format version, u32 header length, f64 rows, f64 files, 24 bytes
 * reserved, then a SHA-256 of everything that follows; the header (JSON: what ties the index to the ledger,
 * the intents, the unreadable lines); then, each section 8-byte aligned, the row columns (offset and time
 * f64, length/line/post/next u32), the file columns (first/last/count u32, newest time f64, newest post hash as
 * 32 bytes and a kind byte) and the file paths (UTF-8, one per line). Hashes are kept as bytes.
 */
import { createHash, randomBytes } from "node:crypto";
import { readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { UnreadableLine } from "./read";
import { NONE, RecordRows, type IndexState, type IntentState, type SavedFiles } from "./index";

export const INDEX_FORMAT_VERSION = 3;
const MAGIC = Buffer.from("ILSPIDX\n", "latin1");
const PREAMBLE = 80;
const CHECKSUM_AT = 48;
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

/** File name of the index of one ledger: several ledgers (ours, the reference one) each have their own. */
export function indexFileName(ledger: string): string {
  return `ledger-${createHash("sha256").update(ledger).digest("hex").slice(0, 16)}.idx`;
}

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const align8 = (n: number) => Math.ceil(n / 8) * 8;

/** Byte offsets of each section after the preamble, for `rows` rows and `files` files. */
function sections(jsonLength: number, rows: number, files: number, pathBytes: number) {
  const rowsAt = align8(jsonLength);
  const filesAt = rowsAt + rows * 32;
  const pathsAt = filesAt + align8(files * (12 + 8 + 32 + 1));
  return { rowsAt, filesAt, pathsAt, end: pathsAt + pathBytes };
}

export function encodeIndex(state: IndexState, at: IndexedLedger): Buffer {
  // sorted, so that a reader finds a file by binary search without building a map of all of them
  const files = [...state.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const fileIndex = new Map(files.map((f, i) => [f.path, i]));
  const finite = (t: number) => (Number.isFinite(t) ? t : null);
  const paths = Buffer.from(files.map((f) => f.path).join("\n"), "utf8");
  const otherPosts: Record<string, string> = {};
  files.forEach((f, i) => {
    if (typeof f.newestPost === "string" && !SHA256_HEX.test(f.newestPost)) otherPosts[i] = f.newestPost;
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
    intents: [...state.intents].map(([id, s]) => [id, [...s.files].map((p) => fileIndex.get(p)!), s.edits, s.lastRecordLine, s.last ? [s.last.offset, s.last.length, s.last.line] : 0, finite(s.lastTime)]),
    unreadable: state.unreadable.map((u) => [u.line, u.message]),
  };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const n = state.rows.size;
  const f = files.length;
  const at2 = sections(json.length, n, f, paths.length);
  const body = Buffer.alloc(at2.end);
  json.copy(body, 0);
  let cursor = at2.rowsAt;
  const put = (a: Float64Array | Uint32Array | Uint8Array, count: number) => {
    const bytes = Buffer.from(a.buffer, a.byteOffset, count * a.BYTES_PER_ELEMENT);
    bytes.copy(body, cursor);
    cursor += bytes.length;
  };
  const rows = state.rows;
  put(rows.offset, n);
  put(rows.time, n);
  put(rows.length, n);
  put(rows.line, n);
  put(rows.post, n);
  put(rows.next, n);
  const first = new Uint32Array(f);
  const last = new Uint32Array(f);
  const count = new Uint32Array(f);
  const time = new Float64Array(f);
  const kind = new Uint8Array(f);
  const post = Buffer.alloc(f * 32);
  files.forEach((file, i) => {
    first[i] = file.first;
    last[i] = file.last;
    count[i] = file.count;
    time[i] = file.newestTime;
    const p = file.newestPost;
    kind[i] = p === undefined ? POST_NONE : p === null ? POST_NULL : SHA256_HEX.test(p) ? POST_SHA256 : POST_OTHER;
    if (kind[i] === POST_SHA256) post.write(p!.slice(7), i * 32, "hex");
  });
  put(time, f);
  put(first, f);
  put(last, f);
  put(count, f);
  put(post, f * 32);
  put(kind, f);
  paths.copy(body, at2.pathsAt);
  const preamble = Buffer.alloc(PREAMBLE);
  MAGIC.copy(preamble, 0);
  preamble.writeUInt32LE(INDEX_FORMAT_VERSION, 8);
  preamble.writeUInt32LE(json.length, 12);
  preamble.writeDoubleLE(n, 16);
  preamble.writeDoubleLE(f, 24);
  createHash("sha256").update(body).digest().copy(preamble, CHECKSUM_AT);
  return Buffer.concat([preamble, body]);
}

export type Decoded = { state: IndexState; indexed: number; nextLine: number; headHash: string; tailHash: string; ledger: string } | { problem: string };

/** The saved index, or why it cannot be used (never throws on bad bytes). */
export function decodeIndex(file: Buffer): Decoded {
  try {
    return decodeChecked(file);
  } catch (e) {
    return { problem: `corrupt: ${(e as Error).message}` };
  }
}

function decodeChecked(file: Buffer): Decoded {
  if (file.length < PREAMBLE || !file.subarray(0, 8).equals(MAGIC)) return { problem: "not an index file" };
  if (file.readUInt32LE(8) !== INDEX_FORMAT_VERSION) return { problem: `format version ${file.readUInt32LE(8)}, not ${INDEX_FORMAT_VERSION}` };
  const jsonLength = file.readUInt32LE(12);
  const n = file.readDoubleLE(16);
  const f = file.readDoubleLE(24);
  if (!Number.isInteger(n) || n < 0 || !Number.isInteger(f) || f < 0) return { problem: "torn: its length does not match its header" };
  const body = file.subarray(PREAMBLE);
  if (body.length < jsonLength) return { problem: "torn: its length does not match its header" };
  if (!createHash("sha256").update(body).digest().equals(file.subarray(CHECKSUM_AT, CHECKSUM_AT + 32))) return { problem: "corrupt: its checksum does not match" };
  const header = JSON.parse(body.subarray(0, jsonLength).toString("utf8")) as Header;
  const at = sections(jsonLength, n, f, header.pathBytes);
  if (body.length !== at.end) return { problem: "torn: its length does not match its header" };

  // typed arrays over the file's own bytes when they are aligned (a large read is), else over a copy
  let cursor = at.rowsAt;
  const take = <T>(make: (b: ArrayBuffer, o: number, k: number) => T, size: number, k: number): T => {
    const start = body.byteOffset + cursor;
    cursor += size * k;
    if (start % size === 0) return make(body.buffer as ArrayBuffer, start, k);
    return make(body.buffer.slice(start, start + size * k) as ArrayBuffer, 0, k);
  };
  const f64 = (k: number) => take((b, o, c) => new Float64Array(b, o, c), 8, k);
  const u32 = (k: number) => take((b, o, c) => new Uint32Array(b, o, c), 4, k);
  const rows = new RecordRows(0);
  rows.offset = f64(n);
  rows.time = f64(n);
  rows.length = u32(n);
  rows.line = u32(n);
  rows.post = u32(n);
  rows.next = u32(n);
  rows.size = n;
  // each file's rows are chained forward in ledger order: a chain that does not is not ours, and could loop
  for (let i = 0; i < n; i++) {
    const next = rows.next[i]!;
    if (next !== NONE && (next <= i || next >= n)) return { problem: "corrupt: its row chains are broken" };
  }
  const time = f64(f);
  const first = u32(f);
  const last = u32(f);
  const count = u32(f);
  const postAt = body.byteOffset + cursor;
  const postBytes = Buffer.from(body.buffer, postAt, f * 32);
  const kindAt = postAt + f * 32;
  const kinds = Buffer.from(body.buffer, kindAt, f);
  const paths = f === 0 ? [] : body.subarray(at.pathsAt, at.end).toString("utf8").split("\n");
  if (paths.length !== f) return { problem: "corrupt: its file table does not match its header" };
  const row = (r: number) => r === NONE || r < n;
  for (let i = 0; i < f; i++) if (!row(first[i]!) || !row(last[i]!)) return { problem: "corrupt: its files point outside its rows" };
  for (let i = 1; i < f; i++) if (!(paths[i - 1]! < paths[i]!)) return { problem: "corrupt: its file table is not sorted" };
  const saved: SavedFiles = {
    paths,
    state: (i) => {
      const kind = kinds[i];
      const newestPost = kind === POST_SHA256 ? `sha256:${postBytes.toString("hex", i * 32, i * 32 + 32)}` : kind === POST_NULL ? null : kind === POST_OTHER ? header.otherPosts[i] : undefined;
      return { path: paths[i]!, first: first[i]!, last: last[i]!, count: count[i]!, newestTime: time[i]!, newestPost };
    },
  };
  const intents = new Map<string, IntentState>(
    header.intents.map(([id, fileIndexes, edits, lastRecordLine, last, t]) => [
      id,
      { files: new Set(fileIndexes.map((i) => paths[i]!)), edits, lastRecordLine, last: last ? { offset: last[0], length: last[1], line: last[2] } : undefined, lastTime: t ?? -Infinity },
    ]),
  );
  const unreadable: UnreadableLine[] = header.unreadable.map(([line, message]) => ({ line, message }));
  return {
    state: { records: header.records, lastLine: header.lastLine, rows, files: [], saved, intents, unreadable },
    indexed: header.indexed,
    nextLine: header.nextLine,
    headHash: header.head,
    tailHash: header.tail,
    ledger: header.ledger,
  };
}

export type Loaded = { state: IndexState; at: IndexedLedger; identity: { dev: number; ino: number } } | { problem: string };

/** The saved index of `ledger` (workspace-relative, at `ledgerFile`) if it still describes the ledger. */
export async function loadIndex(cacheDir: string, ledger: string, ledgerFile: string): Promise<Loaded> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(cacheDir, indexFileName(ledger)));
  } catch {
    return { problem: "no saved index" };
  }
  const d = decodeIndex(bytes);
  if ("problem" in d) return d;
  if (d.ledger !== ledger) return { problem: `it indexes ${d.ledger}, not ${ledger}` };
  const handle = await open(ledgerFile, "r").catch(() => undefined);
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

/** Saves the index atomically (temporary file, then rename); false when it could not be written. */
export function saveIndex(cacheDir: string, state: IndexState, at: IndexedLedger): boolean {
  const target = join(cacheDir, indexFileName(at.ledger));
  const tmp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(tmp, encodeIndex(state, at));
    renameSync(tmp, target);
    removeStaleTemps(cacheDir);
    return true;
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      /* never created */
    }
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
