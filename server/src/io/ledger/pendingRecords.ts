/**
 * Save records the ledger could not take (read-only, disk full), kept on disk until it can: the editor's
 * save has happened, and its record must survive the editor quitting. They live in
 * `.orchestration/.sessions/pending-records.jsonl`, one `{ledgerPath, record}` per line, oldest first: that
 * folder is this machine's own state (it ignores itself in git) and stays writable when only the ledger,
 * or `.orchestration/` itself, is made read-only. Whoever drains the file holds its lock (io/fileLock.ts) and
 * rewrites it after every record it writes, so two servers starting at once never write a record twice.
 */
import type { TraceRecord } from "@shared/agentTrace";
import { join } from "node:path";
import { SESSIONS_DIR } from "../../engine/workspaceFiles";
import { acquireLock } from "../fileLock";
import { readOptional } from "../optionalFile";
import { appendOwnFile, ownFilePath, removeOwnFile, writeOwnFile } from "../ownFiles";
import { appendWorkspaceRecord } from "./append";

export const PENDING_RECORDS = `${SESSIONS_DIR}/pending-records.jsonl`;

export interface PendingRecord {
  /** Workspace-relative ledger the record is meant for. */
  ledgerPath: string;
  record: TraceRecord;
}

/** Adds records at the end of the file, in one write; throws when the file cannot be written. */
export function keepPending(root: string, records: readonly PendingRecord[]): void {
  if (records.length) appendOwnFile(root, PENDING_RECORDS, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
}

/** How many records wait in the file (lines that are not records count too: they wait for a person). */
export function pendingCount(root: string): number {
  const text = readOptional(join(root, PENDING_RECORDS));
  return text === undefined ? 0 : text.split("\n").filter((l) => l.trim()).length;
}

/**
 * Writes the file's records to their ledgers, oldest first, under the file's lock; how many it wrote.
 * Stops at the first record a ledger refuses (throwing, the rest kept in order). A line that is not a
 * record is kept for a person to look at and skipped.
 */
export async function drainPending(root: string): Promise<number> {
  if (pendingCount(root) === 0) return 0;
  const release = await acquireLock(ownFilePath(root, PENDING_RECORDS), { stale: 10_000 });
  let written = 0;
  try {
    // read under the lock: another server may have drained it meanwhile
    const lines = (readOptional(join(root, PENDING_RECORDS)) ?? "").split("\n").filter((l) => l.trim());
    const kept: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      const pending = parsePending(lines[i]!);
      if (!pending) {
        kept.push(lines[i]!);
        continue;
      }
      await appendWorkspaceRecord(root, pending.ledgerPath, pending.record);
      written++;
      // before the next record: a crash now must not leave this one to be written again
      rewrite(root, [...kept, ...lines.slice(i + 1)]);
    }
  } finally {
    await release();
  }
  return written;
}

function rewrite(root: string, lines: readonly string[]): void {
  if (lines.length) writeOwnFile(root, PENDING_RECORDS, lines.map((l) => `${l}\n`).join(""));
  else removeOwnFile(root, PENDING_RECORDS);
}

function parsePending(line: string): PendingRecord | undefined {
  try {
    const v = JSON.parse(line) as Partial<PendingRecord>;
    return typeof v.ledgerPath === "string" && typeof v.record === "object" && v.record !== null ? (v as PendingRecord) : undefined;
  } catch {
    return undefined;
  }
}
