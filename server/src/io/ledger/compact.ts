/**
 * `intent ledger compact` and `intent export` (docs/LEDGER.md "Segments"): sealing the live ledger's older
 * lines into a segment, and reading any period back as plain Agent Trace JSONL.
 *
 * Sealing runs under the ledger's append lock, in two steps that each leave a readable ledger: the segment
 * is written (a new file, renamed into place), then the live file is replaced without the sealed lines. A
 * crash between them leaves lines in both; readers count them once, and the next compaction removes them
 * from the live file. Running it again with the same cut seals nothing more.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { lineTimestamp } from "../../engine/ledger/segment";
import { isBlankBytes } from "../../engine/ledger/blankLine";
import { checkOwnRead, replaceOwnFile, writeAllSync } from "../ownFiles";
import { readRegularBytes } from "../regularFiles";
import { acquireLedgerLock } from "./append";
import { encodeSegment, readSegments, sealedLines, writeSegment } from "./segments";

export interface CompactResult {
  /** The segments written, oldest first: one per calendar month (UTC) of the sealed records. */
  segments: string[];
  /** Lines sealed into it. */
  sealed: number;
  /** Live lines removed because a segment already held them (a compaction cut short, a merge). */
  alreadySealed: number;
  /** Lines the live file keeps. */
  kept: number;
}

/** Seals the live ledger's leading lines whose records are older than `before` into one new segment. */
export async function compactLedger(root: string, ledgerPath: string, before: Date): Promise<CompactResult> {
  const file = join(root, ledgerPath);
  checkOwnRead(root, ledgerPath);
  const release = await acquireLedgerLock(file);
  try {
    const live = readRegularBytes(file);
    const segments = readSegments(root, ledgerPath);
    const sealed = new Set<string>();
    for (const { bytes } of sealedLines(segments)) if (!isBlankBytes(bytes)) sealed.add(digest(bytes));

    const { lines, tail } = splitLines(live);
    const fresh = lines.filter((l) => isBlankBytes(l) || !sealed.has(digest(l)));
    const cut = sealingCut(fresh, before.getTime());
    const toSeal = fresh.slice(0, cut);
    const kept = fresh.slice(cut);
    const result: CompactResult = { segments: [], sealed: toSeal.length, alreadySealed: lines.length - fresh.length, kept: kept.length };
    if (!toSeal.length && !result.alreadySealed) return result;

    let after = segments.length ? segments[segments.length - 1]!.name : null;
    for (const group of byMonth(toSeal)) {
      const times = group.map((l) => lineTimestamp(l.toString("utf8"))).filter((t): t is string => t !== undefined);
      after = writeSegment(root, ledgerPath, encodeSegment(group, after, times[0] ?? null, times[times.length - 1] ?? null));
      result.segments.push(after);
    }
    replaceOwnFile(root, ledgerPath, (fd) => {
      const parts: Buffer[] = [];
      for (const l of kept) parts.push(l, NEWLINE);
      if (tail.length) parts.push(tail);
      if (parts.length) writeAllSync(fd, Buffer.concat(parts));
    });
    return result;
  } finally {
    await release();
  }
}

/**
 * How many leading lines to seal: up to the first record at or after `before` (records are appended in
 * time order; a record without a readable time goes with its neighbours). Trailing lines that are not
 * records stay live, next to the records they came with.
 */
function sealingCut(lines: readonly Buffer[], before: number): number {
  let cut = 0;
  for (let i = 0; i < lines.length; i++) {
    const at = lineTimestamp(lines[i]!.toString("utf8"));
    if (at === undefined) continue;
    const t = Date.parse(at);
    if (Number.isNaN(t)) continue;
    if (t >= before) break;
    cut = i + 1;
  }
  return cut;
}

/** Consecutive runs of lines by the calendar month of their records; a line without a time stays with the run it is in. */
function byMonth(lines: readonly Buffer[]): Buffer[][] {
  const groups: Buffer[][] = [];
  let month: string | undefined;
  for (const l of lines) {
    const m = lineTimestamp(l.toString("utf8"))?.slice(0, 7);
    if (!groups.length || (m !== undefined && month !== undefined && m !== month)) groups.push([]);
    if (m !== undefined) month = m;
    groups[groups.length - 1]!.push(l);
  }
  return groups;
}

export interface ExportOptions {
  /** Records at or after this time. */
  since?: Date;
  /** Records before this time. */
  until?: Date;
}

/**
 * The records of a period across the sealed segments and the live file, in ledger order, each line exactly
 * as its writer wrote it. Lines that are not records (blank, torn, foreign text) are left out, and a record
 * both a segment and the live file hold is given once.
 */
export function* exportLines(root: string, ledgerPath: string, opts: ExportOptions = {}): Generator<Buffer> {
  const since = opts.since?.getTime() ?? -Infinity;
  const until = opts.until?.getTime() ?? Infinity;
  const seen = new Set<string>();
  const inPeriod = (bytes: Buffer): boolean => {
    const at = lineTimestamp(bytes.toString("utf8"));
    if (at === undefined) return false;
    const t = Date.parse(at);
    return !Number.isNaN(t) && t >= since && t < until;
  };
  for (const { bytes } of sealedLines(readSegments(root, ledgerPath))) {
    if (isBlankBytes(bytes)) continue;
    seen.add(digest(bytes));
    if (inPeriod(bytes)) yield bytes;
  }
  checkOwnRead(root, ledgerPath);
  let live: Buffer;
  try {
    live = readRegularBytes(join(root, ledgerPath));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  for (const bytes of splitLines(live).lines) if (!isBlankBytes(bytes) && !seen.has(digest(bytes)) && inPeriod(bytes)) yield bytes;
}

const NEWLINE = Buffer.from("\n");

function digest(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest().toString("latin1");
}

/** The newline-terminated lines of `bytes` (without newlines), and what follows the last newline. */
function splitLines(bytes: Buffer): { lines: Buffer[]; tail: Buffer } {
  const lines: Buffer[] = [];
  let start = 0;
  for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, nl));
    start = nl + 1;
  }
  return { lines, tail: bytes.subarray(start) };
}
