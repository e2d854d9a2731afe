/**
 * Appending to the ledger (docs/LEDGER.md "Appending"). Many writers share one file: the editor's server, agent
 * hooks in other processes, other Agent Trace tools. The rules that keep it readable:
 * - a cross-process lock (proper-lockfile: an atomic `mkdir` of `<ledger>.lock`, refreshed while held, taken
 *   over when not refreshed for `stale` ms, so a killed writer cannot block everyone forever);
 * - the whole line (the lines of one act's records) goes out in one `write` on an O_APPEND descriptor, then
 *   fsync: even if the lock is lost, lines never interleave byte-wise;
 * - only the tail is read (to chain `prev`), the file is never rewritten or truncated;
 * - a torn last line (crash mid-write) stays where it is; the new record starts on a fresh line.
 */
import { mkdir, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { AGENT_TRACE_VERSION, METADATA_KEY, type IntentLspMetadata, type TraceRecord } from "@shared/agentTrace";
import { acquireLock, type LockOptions } from "../fileLock";
import { ownFilePath } from "../ownFiles";
import { APPEND_FLAGS, openRegular, READ_APPEND_FLAGS } from "../regularFiles";
import { chainHash } from "../../engine/hashing";
import { validateRecord } from "./schema";
import { isBlankBytes } from "../../engine/ledger/blankLine";

export type LockRetries = NonNullable<LockOptions["retries"]>;
export type { LockOptions };

export interface AppendOptions extends LockOptions {
  /** Refuse records that fail the Agent Trace schema (checked for version 0.1.0 only). Default true. */
  validate?: boolean;
  /**
   * Asked once the lock is held, before anything is written: false writes nothing (another writer appended
   * the same change while this one waited). A check made before the lock can be overtaken; this one cannot.
   */
  stillDue?: () => Promise<boolean>;
}

export interface AppendResult {
  /** The record's JSON exactly as written, without the newline. */
  line: string;
  /** `chainHash` of the previous non-blank line; null when the ledger was empty. */
  prev: string | null;
  /** Byte offset at which the record's line starts. */
  offset: number;
  /** True when the file ended in a torn line, which was left in place before this record. */
  afterTornLine: boolean;
}

export const DEFAULT_STALE_MS = 10_000;
// Two writers appending in a tight loop can leave a waiter behind for the other's whole run, so the
// budget is generous; a waiter polls often (≤ 50 ms) to get in as soon as the lock is free.
export const DEFAULT_LOCK_RETRIES: LockRetries = { retries: 2000, factor: 1.2, minTimeout: 2, maxTimeout: 50, randomize: true };

const NEWLINE = 0x0a;
// Records are around 1 KiB; the window doubles for longer lines.
const TAIL_WINDOW = 8 * 1024;

/** Thrown when a record cannot be appended; the message says what to do. */
export class LedgerAppendError extends Error {
  override name = "LedgerAppendError";
}

/** Appends one record as one line, chaining `metadata["dev.intent-lsp"].prev` to the current last line. */
export async function appendRecord(ledgerFile: string, record: TraceRecord, opts: AppendOptions = {}): Promise<AppendResult> {
  return (await appendRecords(ledgerFile, [record], opts))[0]!;
}

/**
 * Appends records as consecutive lines under one lock and in one `write`, each chained to the line before it
 * (one act's records, one per intent: docs/LEDGER.md "One act, several files"). Every record is checked
 * before the lock is taken: one that fails the schema writes none.
 */
export async function appendRecords(ledgerFile: string, records: readonly TraceRecord[], opts: AppendOptions = {}): Promise<AppendResult[]> {
  if (records.length === 0) return [];
  for (const record of records) {
    if (opts.validate !== false && record.version === AGENT_TRACE_VERSION) {
      const errors = validateRecord(record);
      if (errors.length > 0) {
        throw new LedgerAppendError(`record ${record.id} for ${ledgerFile} does not match the Agent Trace schema, not written: ${errors.join("; ")}`);
      }
    }
  }
  const release = await acquireLedgerLock(ledgerFile, opts);
  try {
    if (opts.stillDue && !(await opts.stillDue())) return [];
    return await appendLocked(ledgerFile, records);
  } finally {
    await release();
  }
}

/**
 * Appends to a workspace's ledger (`ledgerPath`, relative to `root`) where it really lands, refusing a
 * ledger that leads out of the workspace through a symbolic link or is not a regular file (ownFiles). What
 * the editor's saves and the agent hooks use; `appendRecord` is the step below, for a file already checked.
 */
export async function appendWorkspaceRecord(root: string, ledgerPath: string, record: TraceRecord, opts: AppendOptions = {}): Promise<AppendResult> {
  return (await appendWorkspaceRecords(root, ledgerPath, [record], opts))[0]!;
}

/** `appendRecords` to a workspace's ledger, checked as `appendWorkspaceRecord` checks it. */
export async function appendWorkspaceRecords(
  root: string,
  ledgerPath: string,
  records: readonly TraceRecord[],
  opts: AppendOptions = {},
): Promise<AppendResult[]> {
  let file: string;
  try {
    file = ownFilePath(root, ledgerPath);
  } catch (err) {
    throw new LedgerAppendError(`${records.map((r) => `record ${r.id}`).join(", ")} not written: ${(err as Error).message}`);
  }
  return appendRecords(file, records, opts);
}

/**
 * Takes the ledger's cross-process lock (creating the ledger and its directory if missing) and returns the
 * release function. Exported so other writers (and tests simulating a crashed writer) use the same lock.
 */
export async function acquireLedgerLock(ledgerFile: string, opts: LockOptions = {}): Promise<() => Promise<void>> {
  await ensureFile(ledgerFile);
  try {
    return await acquireLock(ledgerFile, { stale: opts.stale ?? DEFAULT_STALE_MS, retries: opts.retries ?? DEFAULT_LOCK_RETRIES });
  } catch (e) {
    throw new LedgerAppendError((e as Error).message);
  }
}

async function appendLocked(ledgerFile: string, records: readonly TraceRecord[]): Promise<AppendResult[]> {
  const handle = await openRegular(ledgerFile, READ_APPEND_FLAGS);
  try {
    const { size } = await handle.stat();
    const tail = await readTail(handle, size);
    const afterTornLine = size > 0 && !tail.endsWithNewline;
    const results: AppendResult[] = [];
    let prev = tail.prev;
    let offset = size + (afterTornLine ? 1 : 0);
    for (const record of records) {
      const json = JSON.stringify(withPrev(record, prev));
      results.push({ line: json, prev, offset, afterTornLine: afterTornLine && results.length === 0 });
      const lineBytes = Buffer.from(json, "utf8");
      prev = chainHash(lineBytes);
      offset += lineBytes.length + 1;
    }
    const text = results.map((r) => `${r.line}\n`).join("");
    const bytes = Buffer.from(afterTornLine ? `\n${text}` : text, "utf8");
    const { bytesWritten } = await handle.write(bytes, 0, bytes.length);
    if (bytesWritten !== bytes.length) {
      throw new LedgerAppendError(
        `short write to ${ledgerFile} (${bytesWritten} of ${bytes.length} bytes; disk full?): the ledger now ends in a torn line, which the next append will step over; free space and record again`,
      );
    }
    await handle.sync();
    return results;
  } finally {
    await handle.close();
  }
}

function withPrev(record: TraceRecord, prev: string | null): TraceRecord {
  const metadata = record.metadata ?? {};
  const ours = { ...metadata[METADATA_KEY], prev } as IntentLspMetadata;
  return { ...record, metadata: { ...metadata, [METADATA_KEY]: ours } };
}

interface Tail {
  prev: string | null;
  endsWithNewline: boolean;
}

/**
 * Hash of the last non-blank line (torn or not) and whether the file ends with a newline. Reads a window
 * from the end, doubling it only while the line does not fit, so cost is independent of ledger size.
 */
async function readTail(handle: FileHandle, size: number): Promise<Tail> {
  if (size === 0) return { prev: null, endsWithNewline: true };
  let window = Math.min(size, TAIL_WINDOW);
  for (;;) {
    const from = size - window;
    const buf = Buffer.allocUnsafe(window);
    const { bytesRead } = await handle.read(buf, 0, window, from);
    const bytes = buf.subarray(0, bytesRead);
    const endsWithNewline = bytes[bytes.length - 1] === NEWLINE;
    const line = lastNonBlankLine(bytes, from === 0);
    if (line) return { prev: chainHash(bytes.subarray(line.start, line.end)), endsWithNewline };
    if (from === 0) return { prev: null, endsWithNewline };
    window = Math.min(size, window * 2);
  }
}

/**
 * Bounds of the last non-blank line in `bytes` (which end at the end of the file). A line whose start is
 * not inside the window is only accepted when the window starts the file (`atFileStart`).
 */
export function lastNonBlankLine(bytes: Uint8Array, atFileStart: boolean): { start: number; end: number } | undefined {
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === NEWLINE) end--;
  for (;;) {
    // (lastIndexOf with a negative start would count from the end, hence the guard)
    const nl = end === 0 ? -1 : bytes.lastIndexOf(NEWLINE, end - 1);
    if (nl === -1 && !atFileStart) return undefined;
    const start = nl + 1;
    if (!isBlankBytes(bytes, start, end)) return { start, end };
    if (nl === -1) return undefined;
    end = nl;
  }
}

async function ensureFile(ledgerFile: string): Promise<void> {
  await mkdir(dirname(ledgerFile), { recursive: true });
  // creates without truncating; the lock needs the file to exist. Non-blocking and checked: a FIFO in its
  // place would otherwise hold the writer forever.
  await (await openRegular(ledgerFile, APPEND_FLAGS)).close();
}
