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
 * Layout: "ILSPIDX\n", u32 format version, u32 header length, f64 rows, 32-byte SHA-256 of everything that
 * follows; the header (JSON, padded to 8 bytes); then the row columns (offset f64, length/line/post/next u32).
 */
import { createHash, randomBytes } from "node:crypto";
import { readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { UnreadableLine } from "./read";
import { NONE, RecordRows, type FileState, type IndexState, type IntentState } from "./index";

export const INDEX_FORMAT_VERSION = 1;
const MAGIC = Buffer.from("ILSPIDX\n", "latin1");
const PREAMBLE = 56;
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
  /** path, first row, last row, count, newest time (null: -Infinity), newest post hash (0: none stated). */
  files: [string, number, number, number, number | null, string | null | 0][];
  /** id, file indexes, edits, last record line, last record [offset, length, line] or 0, last time. */
  intents: [string, number[], number, number, [number, number, number] | 0, number | null][];
  unreadable: [number, string][];
}

/** File name of the index of one ledger: several ledgers (ours, the reference one) each have their own. */
export function indexFileName(ledger: string): string {
  return `ledger-${createHash("sha256").update(ledger).digest("hex").slice(0, 16)}.idx`;
}

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

export function encodeIndex(state: IndexState, at: IndexedLedger): Buffer {
  const fileIndex = new Map(state.files.map((f, i) => [f.path, i]));
  const finite = (t: number) => (Number.isFinite(t) ? t : null);
  const header: Header = {
    ledger: at.ledger,
    indexed: at.indexed,
    nextLine: at.nextLine,
    head: sha(at.head),
    tail: sha(at.tail),
    records: state.records,
    lastLine: state.lastLine,
    files: state.files.map((f) => [f.path, f.first, f.last, f.count, finite(f.newestTime), f.newestPost === undefined ? 0 : f.newestPost]),
    intents: [...state.intents].map(([id, s]) => [id, [...s.files].map((p) => fileIndex.get(p)!), s.edits, s.lastRecordLine, s.last ? [s.last.offset, s.last.length, s.last.line] : 0, finite(s.lastTime)]),
    unreadable: state.unreadable.map((u) => [u.line, u.message]),
  };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const padded = Math.ceil(json.length / 8) * 8;
  const rows = state.rows;
  const n = rows.size;
  const body = Buffer.alloc(padded + n * 8 + n * 4 * 4);
  json.copy(body, 0);
  let at2 = padded;
  const put = (a: Float64Array | Uint32Array) => {
    const bytes = Buffer.from(a.buffer, a.byteOffset, n * a.BYTES_PER_ELEMENT);
    bytes.copy(body, at2);
    at2 += bytes.length;
  };
  put(rows.offset);
  put(rows.length);
  put(rows.line);
  put(rows.post);
  put(rows.next);
  const preamble = Buffer.alloc(PREAMBLE);
  MAGIC.copy(preamble, 0);
  preamble.writeUInt32LE(INDEX_FORMAT_VERSION, 8);
  preamble.writeUInt32LE(json.length, 12);
  preamble.writeDoubleLE(n, 16);
  createHash("sha256").update(body).digest().copy(preamble, 24);
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
  const padded = Math.ceil(jsonLength / 8) * 8;
  if (!Number.isInteger(n) || n < 0 || file.length !== PREAMBLE + padded + n * 24) return { problem: "torn: its length does not match its header" };
  const body = file.subarray(PREAMBLE);
  if (!createHash("sha256").update(body).digest().equals(file.subarray(24, 56))) return { problem: "corrupt: its checksum does not match" };
  let header: Header;
  try {
    header = JSON.parse(body.subarray(0, jsonLength).toString("utf8")) as Header;
  } catch {
    return { problem: "corrupt: its header is not JSON" };
  }
  // columns are copied out of the file's buffer: typed arrays need aligned memory, and the rows grow later
  const base = body.byteOffset + padded;
  const column = <T>(make: (b: ArrayBuffer, o: number, n: number) => T, at: number) => make(body.buffer.slice(base + at, base + at + n * (at === 0 ? 8 : 4)) as ArrayBuffer, 0, n);
  const rows = new RecordRows(0);
  rows.offset = column((b, o, k) => new Float64Array(b, o, k), 0);
  rows.length = column((b, o, k) => new Uint32Array(b, o, k), n * 8);
  rows.line = column((b, o, k) => new Uint32Array(b, o, k), n * 12);
  rows.post = column((b, o, k) => new Uint32Array(b, o, k), n * 16);
  rows.next = column((b, o, k) => new Uint32Array(b, o, k), n * 20);
  rows.size = n;
  // each file's rows are chained forward in ledger order: a chain that does not is not ours, and could loop
  for (let i = 0; i < n; i++) {
    const next = rows.next[i]!;
    if (next !== NONE && (next <= i || next >= n)) return { problem: "corrupt: its row chains are broken" };
  }
  const row = (r: number) => r === NONE || (Number.isInteger(r) && r >= 0 && r < n);
  if (!header.files.every(([, first, last]) => row(first) && row(last))) return { problem: "corrupt: its files point outside its rows" };
  const files: FileState[] = header.files.map(([path, first, last, count, t, post]) => ({ path, first, last, count, newestTime: t ?? -Infinity, newestPost: post === 0 ? undefined : post }));
  const intents = new Map<string, IntentState>(
    header.intents.map(([id, fileIndexes, edits, lastRecordLine, last, t]) => [
      id,
      { files: new Set(fileIndexes.map((i) => files[i]!.path)), edits, lastRecordLine, last: last ? { offset: last[0], length: last[1], line: last[2] } : undefined, lastTime: t ?? -Infinity },
    ]),
  );
  const unreadable: UnreadableLine[] = header.unreadable.map(([line, message]) => ({ line, message }));
  return {
    state: { records: header.records, lastLine: header.lastLine, rows, files, intents, unreadable },
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
