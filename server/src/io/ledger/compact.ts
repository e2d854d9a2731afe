/**
 * `intent ledger compact` and `intent export` (docs/LEDGER.md "Segments"): sealing the live ledger's older
 * lines into segments, and reading any period back as plain Agent Trace JSONL.
 *
 * Sealing runs under the ledger's append lock, in steps that each leave a readable ledger. In a git
 * repository: the segments become blobs under `refs/intent/ledger`, then the manifest names them, then the
 * live file is replaced without the sealed lines (segments a folder still holds move to the ref on the
 * way). Elsewhere: each segment is a new file renamed into the segments folder, then the live file is
 * replaced. A crash between steps leaves lines in a segment and in the live file; readers count them once,
 * and the next compaction removes them from the live file. Running it again with the same cut seals
 * nothing more.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { lineTimestamp, type SegmentHeader } from "../../engine/ledger/segment";
import { isBlankBytes } from "../../engine/ledger/blankLine";
import { formatManifest, type ManifestEntry } from "../../engine/ledger/sealedManifest";
import { checkOwnRead, removeOwnFile, replaceOwnFile, writeAllSync, writeOwnFile } from "../ownFiles";
import { readRegularBytes } from "../regularFiles";
import { acquireLedgerLock } from "./append";
import { addToSealedRef, inGitWorkTree, writeBlob } from "./sealedRef";
import {
  encodedHeader,
  encodeSegment,
  SegmentTooLargeError,
  folderSegmentNames,
  readManifest,
  readSegments,
  SEGMENT_EXTENSION,
  sealedLines,
  sealedManifestPath,
  segmentName,
  segmentsDir,
  writeSegment,
  type SegmentFile,
} from "./segments";

/** Where new segments go: git (the ref, named by the manifest) or files in the segments folder. */
export type SegmentStore = "ref" | "folder";

export interface CompactResult {
  store: SegmentStore;
  /** Segments moved from the segments folder into the ref. */
  moved: number;
  /** The segments written, oldest first: one per calendar month (UTC) of the sealed records. */
  segments: string[];
  /** Lines sealed into it. */
  sealed: number;
  /** Live lines removed because a segment already held them (a compaction cut short, a merge). */
  alreadySealed: number;
  /** Lines the live file keeps. */
  kept: number;
}

/** How many lines go by between two words to `progress` in the loops over every line. */
const PROGRESS_EVERY = 4096;

/**
 * Seals the live ledger's leading lines whose records are older than `before` into new segments, one per
 * calendar month. `store` defaults to the ref inside a git work tree, the folder elsewhere. `progress` is told
 * what the work is doing.
 */
export async function compactLedger(
  root: string,
  ledgerPath: string,
  before: Date,
  store: SegmentStore = defaultStore(root),
  progress: (text: string) => void = () => {},
): Promise<CompactResult> {
  const file = join(root, ledgerPath);
  checkOwnRead(root, ledgerPath);
  progress("waiting for the ledger's lock");
  const release = await acquireLedgerLock(file);
  try {
    progress("reading the ledger and its segments");
    const live = readRegularBytes(file);
    const segments = readSegments(root, ledgerPath);
    const sealed = new Set<string>();
    let done = 0;
    for (const { bytes } of sealedLines(segments)) {
      if (++done % PROGRESS_EVERY === 0) progress(`reading the sealed segments: ${done} lines`);
      if (!isBlankBytes(bytes)) sealed.add(digest(bytes));
    }

    const { lines, tail } = splitLines(live);
    const fresh = lines.filter((l, i) => {
      if ((i + 1) % PROGRESS_EVERY === 0) progress(`reading the live ledger: ${i + 1} of ${lines.length} lines`);
      return isBlankBytes(l) || !sealed.has(digest(l));
    });
    const cut = sealingCut(fresh, before.getTime());
    const toSeal = fresh.slice(0, cut);
    const kept = fresh.slice(cut);
    const toMove = store === "ref" ? folderSegments(root, ledgerPath, segments) : [];
    const result: CompactResult = {
      store,
      moved: toMove.length,
      segments: [],
      sealed: toSeal.length,
      alreadySealed: lines.length - fresh.length,
      kept: kept.length,
    };
    if (!toSeal.length && !result.alreadySealed && !toMove.length) return result;

    let after = segments.length ? segments[segments.length - 1]!.name : null;
    const sealedNow: Buffer[] = [];
    const months = byMonth(toSeal);
    for (const [i, group] of months.entries()) {
      progress(`sealing month ${i + 1} of ${months.length}`);
      for (const bytes of encodeWithinCaps(group, after)) {
        after = store === "ref" ? segmentName(bytes) : writeSegment(root, ledgerPath, bytes);
        sealedNow.push(bytes);
        result.segments.push(after);
      }
    }
    if (store === "ref") {
      progress("storing the segments in git");
      storeInRef(root, ledgerPath, toMove, sealedNow);
    }
    progress("writing the live ledger");
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

function defaultStore(root: string): SegmentStore {
  return inGitWorkTree(root) ? "ref" : "folder";
}

/** The segments read from the folder that the manifest does not name yet. */
function folderSegments(root: string, ledgerPath: string, segments: readonly SegmentFile[]): SegmentFile[] {
  const named = new Set(readManifest(root, ledgerPath).entries.map((e) => e.name));
  const inFolder = new Set(folderSegmentNames(root, ledgerPath));
  return segments.filter((s) => inFolder.has(s.name) && !named.has(s.name));
}

/**
 * Puts the folder's segments and the new ones under the ref, names them in the manifest (after the ones
 * it names), then removes the folder's files: each step leaves every segment readable.
 */
function storeInRef(root: string, ledgerPath: string, moved: readonly SegmentFile[], sealed: readonly Buffer[]): void {
  const entries: Omit<ManifestEntry, "line">[] = readManifest(root, ledgerPath).entries;
  const blobs = new Map<string, string>();
  const add = (name: string, bytes: Buffer, header: SegmentHeader) => {
    if (entries.some((e) => e.name === name)) return;
    const blob = writeBlob(root, bytes);
    blobs.set(name, blob);
    entries.push({ name, blob, lines: header.lines, from: header.from, until: header.until });
  };
  for (const s of moved) add(s.name, s.bytes, s.header);
  for (const bytes of sealed) add(segmentName(bytes), bytes, encodedHeader(bytes));
  addToSealedRef(root, blobs);
  writeOwnFile(root, sealedManifestPath(ledgerPath), formatManifest(entries));
  for (const s of moved) removeOwnFile(root, `${segmentsDir(ledgerPath)}/${s.name}${SEGMENT_EXTENSION}`);
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

/**
 * The segments of one month's lines, sealed after `after`: one, or, for a month more than a segment may
 * hold (engine/ledger/segmentBounds.ts), its halves in order, each sealed after the one before.
 */
function encodeWithinCaps(group: readonly Buffer[], after: string | null): Buffer[] {
  const times = group.map((l) => lineTimestamp(l.toString("utf8"))).filter((t): t is string => t !== undefined);
  try {
    return [encodeSegment(group, after, times[0] ?? null, times[times.length - 1] ?? null)];
  } catch (e) {
    if (!(e instanceof SegmentTooLargeError) || group.length < 2) throw e;
  }
  const half = Math.ceil(group.length / 2);
  const first = encodeWithinCaps(group.slice(0, half), after);
  return [...first, ...encodeWithinCaps(group.slice(half), segmentName(first[first.length - 1]!))];
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
