/**
 * What `intent stats` and `intent report` learnt of each file, kept in the workspace's cache folder so that
 * the next run counts an unchanged file without reading the ledger or attributing it again. Two files:
 * `.orchestration/.cache/insight.json` holds, under the hash of each file's bytes, its tally (engine/insight.ts
 * `FileTally`: all a plain `intent stats` needs), and is read by every run; `insight-runs.bin` holds each
 * file's runs of lines (`Run`), when git committed its untraced lines (under the HEAD it was asked at), and
 * the lines each ledger entry wrote, which only the history (`--by`) and the report's tables need, so only
 * they read it.
 *
 * A file's runs depend on its content and on the ledgers (its own records, and those of the paths its
 * content came from); the history depends on the ledgers only. So the whole cache holds only while every
 * ledger is byte for byte what it was (same file, length, modification time, and the same bytes at its
 * head and end, as the saved ledger index checks them), and was written by this very build of intent-lsp;
 * a file's runs and tally hold only for the same bytes, and its commit times only for the same bytes and
 * HEAD. Which files were counted holds only under the same exempt rules (the files the cache names are not
 * judged again while they are). Anything else is counted again from the ledger, and asked of git again.
 *
 * `insight-result.json` holds the last history or report's whole result under the hash of everything it
 * was made from (`ResultKey`): a run with the same inputs gives it again without reading the runs.
 */
import { createHash, hash, randomUUID } from "node:crypto";
import { closeSync, fstatSync, readFileSync, readSync, type Stats } from "node:fs";
import { join } from "node:path";
import { AUTHORS } from "../engine/authorship";
import { type CommitDate, type FileTally, hasUntraced, type Insight, type Run, type TallyGroup, type Written } from "../engine/insight";
import { authorCode, pushRun, readRun, RUN_FIELDS, StringTable } from "../engine/runRows";
import type { UnreadableLine } from "../engine/ledger/read";
import { CACHE_DIR, workspaceCacheDir } from "./cacheDir";
import { segmentNames } from "./ledger/segments";
import { REFERENCE_LEDGER } from "./ledger/workspaceLedger";
import { readOwnBytes, readOwnFile, removeOwnFile, writeOwnFile } from "./ownFiles";
import { pathExists } from "./optionalFile";
import { openRegularSync } from "./regularFiles";

export const INSIGHT_CACHE = `${CACHE_DIR}/insight.json`;
export const INSIGHT_RUNS_CACHE = `${CACHE_DIR}/insight-runs.bin`;
/** The last history or report's result, under the hash of everything it was made from (`saveInsightResult`). */
export const INSIGHT_RESULT_CACHE = `${CACHE_DIR}/insight-result.json`;
/** The runs as JSON, which older builds kept: removed when the runs are next saved (it is never read). */
const JSON_RUNS_CACHE = `${CACHE_DIR}/insight-runs.json`;
const FORMAT = 4;
/** Bytes of a ledger's head and of its end that must be unchanged (as the saved ledger index checks). */
const CHECK_BYTES = 4096;

export interface InsightCache {
  /** Per workspace path: the hash of the bytes counted and their tally. */
  files: Map<string, CachedFile>;
  /** The exempt rules (engine/ignore.ts `IgnoreRules.key`) under which the files were chosen. */
  exempt: string;
  unreadable: { path: string; lines: UnreadableLine[] }[];
}

export interface CachedFile {
  /** The hash of the bytes counted (`bytesKey`). */
  key: string;
  /**
   * The file's identity, size and times when they prove the bytes unchanged without reading them
   * (`statOf`); absent when the file changed too shortly before it was read for a time to prove that.
   */
  stat?: FileStat | undefined;
  tally: FileTally;
}

/** What the history and the report's tables need beyond the tallies (`insight-runs.bin`). */
export interface InsightRuns {
  /** Per workspace path: the hash of the bytes counted, their runs, and when git committed their untraced lines. */
  runs: Map<string, KeptRuns>;
  /**
   * Per workspace path: what each of its ledger entries wrote (the history's rows); absent when no run that
   * kept these runs needed the history (reading every record back for it is most of a first plain run).
   */
  written?: Map<string, Written[]>;
  /** The strings the loaded files' `stored` rows are numbered into. */
  strings?: readonly string[];
}

/** A file's runs, under the hash of the bytes they were counted from. */
export interface KeptRuns {
  key: string;
  /**
   * The runs counted by this run; absent for a file loaded from the cache, whose runs are decoded from
   * `stored` when they are needed (`keptRunsOf`) and dropped once used: a hundred thousand runs held at once
   * cost more to keep than to decode.
   */
  runs?: Run[];
  /** When git committed the file's untraced lines, asked at HEAD `head` (io/commitDates.ts). */
  dates?: { head: string | null; dates: CommitDate[] };
  /**
   * The file's runs as loaded (RUN_FIELDS numbers each, into `InsightRuns.strings`): written back as they are
   * when no file's runs were counted again, so that a run that only dates lines anew (HEAD moved) does not
   * encode every run again.
   */
  stored?: Int32Array;
}

/**
 * What `lstat` says of a file that proves its bytes unchanged, as git's index trusts it: the same file
 * (device, inode), size, and modification and change times. A write leaves a time unchanged only within the
 * file system's clock tick, so a file is trusted this way only when its times are well before it was read.
 */
export type FileStat = readonly [dev: number, ino: number, size: number, mtimeMs: number, ctimeMs: number];

export function statOf(st: Stats): FileStat {
  return [st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs];
}

/** Whether `st` is the file `stat` describes, unchanged (compared as numbers: tens of thousands of files). */
export function sameStat(stat: FileStat, st: Stats): boolean {
  return stat[0] === st.dev && stat[1] === st.ino && stat[2] === st.size && stat[3] === st.mtimeMs && stat[4] === st.ctimeMs;
}

/** How long before the reading a file's times must be for its `statKey` to prove its bytes (coarse clocks tick up to 2 s). */
export const RACY_MS = 3000;

/** The key of a file's bytes. */
export function bytesKey(bytes: Uint8Array): string {
  return hash("sha1", bytes, "base64");
}

/**
 * What ties the cache to the ledgers as they are now, and to this build. Sealed segments are named by the
 * hash of their bytes (io/ledger/segments.ts), so their names say exactly which sealed records there are.
 */
export function ledgerStamp(root: string, ledgerPath: string): string {
  return JSON.stringify({
    build: buildStamp(),
    ledgerPath,
    ledgers: [ledgerPath, REFERENCE_LEDGER].map((p) => fileStamp(join(root, p))),
    segments: segmentStamp(root, ledgerPath),
  });
}

/** The sealed segments' names; when they cannot be listed, a stamp no later run matches (nothing is trusted). */
function segmentStamp(root: string, ledgerPath: string): unknown {
  try {
    return segmentNames(root, ledgerPath);
  } catch (e) {
    return { unreadable: (e as Error).message, at: randomUUID() };
  }
}

let build: string | undefined;
/** The running build (its script's bytes): another build may attribute differently. */
function buildStamp(): string {
  if (build === undefined) {
    try {
      build = bytesKey(readFileSync(__filename));
    } catch {
      build = "unknown";
    }
  }
  return build;
}

function fileStamp(file: string): unknown {
  let fd: number;
  try {
    fd = openRegularSync(file);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? (e as Error).name;
  }
  try {
    const st = fstatSync(fd);
    const read = (at: number, length: number) => {
      const b = Buffer.alloc(length);
      const n = readSync(fd, b, 0, length, at);
      return bytesKey(b.subarray(0, n));
    };
    return [st.dev, st.ino, st.size, st.mtimeMs, read(0, Math.min(CHECK_BYTES, st.size)), read(Math.max(0, st.size - CHECK_BYTES), CHECK_BYTES)];
  } finally {
    closeSync(fd);
  }
}

/** A tally's group as GROUP_FIELDS numbers: author × 2 + out of scope, intent, model, person, lines. */
const GROUP_FIELDS = 5;
const NO_RUNS: Run[] = [];
/** Where a stored file's tally starts: after path, key and the five numbers of its stat (dev -1: none). */
const TALLY_AT = 7;

function readStored<T extends { format: number; stamp: string }>(root: string, rel: string, stamp: string): T | undefined {
  let stored: T;
  try {
    const text = readOwnFile(root, rel);
    if (text === undefined) return undefined;
    stored = JSON.parse(text) as T;
  } catch {
    return undefined;
  }
  return stored.format === FORMAT && stored.stamp === stamp ? stored : undefined;
}

function writeStored(root: string, rel: string, stored: object): void {
  try {
    writeOwnFile(root, rel, JSON.stringify(stored), { durable: false });
  } catch {
    /* a read-only checkout: counted again next time */
  }
}

interface StoredTallies {
  format: number;
  stamp: string;
  exempt: string;
  strings: string[];
  /**
   * [path, key, dev, ino, size, mtimeMs, ctimeMs (dev -1: no stat), groups, ...groups as GROUP_FIELDS
   * numbers each, ...out-of-scope blocks as RUN_FIELDS numbers each]
   */
  files: (string | number)[][];
  unreadable: { path: string; lines: UnreadableLine[] }[];
}

/** The tallies, when they hold for `stamp`; undefined otherwise (absent, unreadable, or of other ledgers). */
export function loadInsightCache(root: string, stamp: string): InsightCache | undefined {
  const stored = readStored<StoredTallies>(root, INSIGHT_CACHE, stamp);
  if (!stored) return undefined;
  const s = stored.strings;
  const str = (i: number) => (i === 0 ? undefined : s[i - 1]);
  const files = new Map<string, CachedFile>();
  for (const f of stored.files) {
    const n = f as number[];
    const groups: TallyGroup[] = [];
    const groupsEnd = TALLY_AT + 1 + n[TALLY_AT]! * GROUP_FIELDS;
    for (let i = TALLY_AT + 1; i < groupsEnd; i += GROUP_FIELDS) {
      const c = n[i]!;
      // one shape for every group, as for runs
      groups.push({
        author: AUTHORS[c >> 1]!,
        outOfScope: (c & 1) === 1,
        intent: str(n[i + 1]!),
        model: str(n[i + 2]!),
        person: str(n[i + 3]!),
        lines: n[i + 4]!,
      });
    }
    // most files have no out-of-scope lines: they share one empty list (a tally is never changed)
    const outOfScope: Run[] = groupsEnd < f.length ? [] : NO_RUNS;
    for (let i = groupsEnd; i < f.length; i += RUN_FIELDS) outOfScope.push(readRun(n, i, str));
    const stat: FileStat | undefined = n[2] === -1 ? undefined : [n[2]!, n[3]!, n[4]!, n[5]!, n[6]!];
    files.set(f[0] as string, { key: f[1] as string, stat, tally: { groups, outOfScope } });
  }
  return { files, exempt: stored.exempt, unreadable: stored.unreadable };
}

/** Writes the tallies for `stamp` (quietly nothing when the cache folder cannot be used: it is only a cache). */
export function saveInsightCache(root: string, stamp: string, cache: InsightCache): void {
  if (!workspaceCacheDir(root, { create: true })) return;
  const t = new StringTable();
  const files: (string | number)[][] = [];
  for (const [path, f] of cache.files) {
    const row: (string | number)[] = [path, f.key, ...(f.stat ?? [-1, 0, 0, 0, 0]), f.tally.groups.length];
    for (const g of f.tally.groups) row.push(authorCode(g.author, g.outOfScope), t.id(g.intent), t.id(g.model), t.id(g.person), g.lines);
    for (const b of f.tally.outOfScope) pushRun(row, b, t);
    files.push(row);
  }
  const stored: StoredTallies = { format: FORMAT, stamp, exempt: cache.exempt, strings: t.strings, files, unreadable: cache.unreadable };
  writeStored(root, INSIGHT_CACHE, stored);
}

/**
 * `insight-runs.bin`: a u32 (little-endian) byte length, then the header (`RunsHeader`, JSON), then, from the
 * next multiple of 8, the dates and the history's rows as float64s (3 each) and the runs as int32s
 * (RUN_FIELDS each), file after file in the header's order. Numbers as typed arrays rather than JSON: a
 * workspace has hundreds of thousands of runs, and parsing them as text costs more than the rest of a report.
 */
interface RunsHeader {
  format: number;
  stamp: string;
  strings: string[];
  /** Per file, FILE_FIELDS values: path, key, its runs, HEAD its dates were asked at ("": no commit yet; null: no dates), its dates. */
  files: (string | number | null)[];
  /** Per path, 2 values: path, the rows of what its entries wrote; null: not counted (`InsightRuns.written`). */
  written: (string | number)[] | null;
  /** The float64s, then the int32s. */
  floats: number;
  ints: number;
}

const FILE_FIELDS = 5;
/** A date (start, end, ms or -1: not committed) and a history row (ms, lines, author × 2 + out of scope): 3 float64s each. */
const TRIPLE = 3;

/** `bytes` as numbers of `Type`, copied when the bytes do not start on a multiple of its size. */
function numbersOf<T extends Int32Array | Float64Array>(
  Type: { new (b: ArrayBuffer, at: number, n: number): T; BYTES_PER_ELEMENT: number },
  bytes: Buffer,
  at: number,
  n: number,
): T {
  const start = bytes.byteOffset + at;
  if (start % Type.BYTES_PER_ELEMENT === 0) return new Type(bytes.buffer as ArrayBuffer, start, n);
  const copy = new ArrayBuffer(n * Type.BYTES_PER_ELEMENT);
  new Uint8Array(copy).set(bytes.subarray(at, at + n * Type.BYTES_PER_ELEMENT));
  return new Type(copy, 0, n);
}

const pad8 = (n: number) => Math.ceil(n / 8) * 8;

function readRunsFile(root: string, stamp: string): { header: RunsHeader; floats: Float64Array; ints: Int32Array } | undefined {
  try {
    const bytes = readOwnBytes(root, INSIGHT_RUNS_CACHE);
    if (!bytes || bytes.length < 4) return undefined;
    const length = bytes.readUInt32LE(0);
    if (4 + length > bytes.length) return undefined;
    const header = JSON.parse(bytes.toString("utf8", 4, 4 + length)) as RunsHeader;
    if (header.format !== FORMAT || header.stamp !== stamp) return undefined;
    const at = pad8(4 + length);
    if (at + header.floats * 8 + header.ints * 4 !== bytes.length) return undefined;
    return { header, floats: numbersOf(Float64Array, bytes, at, header.floats), ints: numbersOf(Int32Array, bytes, at + header.floats * 8, header.ints) };
  } catch {
    return undefined;
  }
}

/** The runs and the history's lines, when they hold for `stamp`; undefined otherwise (absent, torn, or of other ledgers). */
export function loadInsightRuns(root: string, stamp: string): InsightRuns | undefined {
  const file = readRunsFile(root, stamp);
  if (!file) return undefined;
  try {
    return decodeRuns(file);
  } catch {
    // a header of another shape than this build writes: read as none, counted again
    return undefined;
  }
}

function decodeRuns({ header, floats, ints }: { header: RunsHeader; floats: Float64Array; ints: Int32Array }): InsightRuns | undefined {
  const runs = new Map<string, KeptRuns>();
  let f = 0;
  let i = 0;
  const h = header.files;
  for (let k = 0; k < h.length; k += FILE_FIELDS) {
    const [path, key, count, head, dated] = [h[k] as string, h[k + 1] as string, h[k + 2] as number, h[k + 3] as string | null, h[k + 4] as number];
    const kept: KeptRuns = { key, stored: ints.subarray(i, i + count * RUN_FIELDS) };
    i += count * RUN_FIELDS;
    if (head !== null) {
      const dates: CommitDate[] = [];
      for (const end = f + dated * TRIPLE; f < end; f += TRIPLE)
        dates.push({ start: floats[f]!, end: floats[f + 1]!, ms: floats[f + 2]! < 0 ? null : floats[f + 2]! });
      kept.dates = { head: head === "" ? null : head, dates };
    }
    runs.set(path, kept);
  }
  const w = header.written;
  const written = w ? new Map<string, Written[]>() : undefined;
  for (let k = 0; k < (w?.length ?? 0); k += 2) {
    const rows: Written[] = [];
    for (const end = f + (w![k + 1] as number) * TRIPLE; f < end; f += TRIPLE) {
      const c = floats[f + 2]!;
      rows.push({ ms: floats[f]!, lines: floats[f + 1]!, author: AUTHORS[c >> 1]!, outOfScope: (c & 1) === 1 });
    }
    written!.set(w![k] as string, rows);
  }
  if (f !== floats.length || i !== ints.length) return undefined;
  return { runs, ...(written ? { written } : {}), strings: header.strings };
}

/** Whether a runs' file is there (not whether it holds for the ledgers as they are). */
export function hasInsightRuns(root: string): boolean {
  return pathExists(join(root, INSIGHT_RUNS_CACHE));
}

/** A kept file's runs: those counted by this run, or decoded from its stored row. */
export function keptRunsOf(detail: InsightRuns, file: KeptRuns): Run[] {
  if (file.runs) return file.runs;
  const s = detail.strings!;
  const str = (i: number) => (i === 0 ? undefined : s[i - 1]);
  const n = file.stored!;
  const rows: Run[] = [];
  for (let i = 0; i < n.length; i += RUN_FIELDS) rows.push(readRun(n, i, str));
  return rows;
}

const UNTRACED = AUTHORS.indexOf("untraced");

/** Whether some of a kept file's lines are untraced (read from its stored row without decoding it). */
export function keptHasUntraced(file: KeptRuns): boolean {
  if (file.runs) return hasUntraced(file.runs);
  const n = file.stored!;
  for (let i = 0; i < n.length; i += RUN_FIELDS) if (n[i + 2]! >> 1 === UNTRACED) return true;
  return false;
}

/** Writes the runs and the history's lines for `stamp` (quietly nothing when the cache folder cannot be used). */
export function saveInsightRuns(root: string, stamp: string, detail: InsightRuns): void {
  if (!workspaceCacheDir(root, { create: true })) return;
  // the rows as loaded, when every file's are: their numbers hold in the loaded table (which may keep a
  // removed file's strings until runs are next encoded)
  const asLoaded = detail.strings !== undefined && [...detail.runs.values()].every((f) => f.stored !== undefined);
  const t = new StringTable();
  const files: (string | number | null)[] = [];
  const ints: Int32Array[] = [];
  const floats: number[] = [];
  for (const [path, f] of detail.runs) {
    let stored = f.stored;
    if (!asLoaded || !stored) {
      const row: number[] = [];
      for (const r of keptRunsOf(detail, f)) pushRun(row, r, t);
      stored = Int32Array.from(row);
    }
    ints.push(stored);
    files.push(path, f.key, stored.length / RUN_FIELDS, f.dates ? (f.dates.head ?? "") : null, f.dates?.dates.length ?? 0);
    for (const c of f.dates?.dates ?? []) floats.push(c.start, c.end, c.ms ?? -1);
  }
  let written: (string | number)[] | null = null;
  if (detail.written) {
    written = [];
    for (const [path, rows] of detail.written) {
      written.push(path, rows.length);
      for (const w of rows) floats.push(w.ms, w.lines, authorCode(w.author, w.outOfScope));
    }
  }
  const intCount = ints.reduce((n, a) => n + a.length, 0);
  const header: RunsHeader = {
    format: FORMAT,
    stamp,
    strings: asLoaded ? [...detail.strings!] : t.strings,
    files,
    written,
    floats: floats.length,
    ints: intCount,
  };
  const head = Buffer.from(JSON.stringify(header), "utf8");
  const lead = Buffer.alloc(pad8(4 + head.length) - head.length);
  lead.writeUInt32LE(head.length, 0);
  const bytes = (a: Int32Array | Float64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  try {
    // the length first, then the header, then its padding to a multiple of 8
    writeOwnFile(root, INSIGHT_RUNS_CACHE, [lead.subarray(0, 4), head, lead.subarray(4), bytes(Float64Array.from(floats)), ...ints.map(bytes)], {
      durable: false,
    });
    removeOwnFile(root, JSON_RUNS_CACHE);
  } catch {
    /* a read-only checkout: counted again next time */
  }
}

interface StoredResult {
  format: number;
  /** The hash of the inputs (`resultKey`), in the place of the ledgers' stamp. */
  stamp: string;
  insight: Insight;
  unreadable: { path: string; lines: UnreadableLine[] }[];
}

/** The hash of a result's inputs: `parts`, then the files counted, each a path and the key of its bytes. */
export class ResultKey {
  private readonly h = createHash("sha1");

  constructor(parts: unknown) {
    this.h.update(JSON.stringify(parts));
  }

  file(path: string, key: string): void {
    this.h.update(`\0${path}\0${key}`);
  }

  digest(): string {
    return this.h.digest("base64");
  }
}

/** The result a run with the inputs `key` hashes gave, when one was kept. */
export function loadInsightResult(root: string, key: string): { insight: Insight; unreadable: { path: string; lines: UnreadableLine[] }[] } | undefined {
  const stored = readStored<StoredResult>(root, INSIGHT_RESULT_CACHE, key);
  return stored && { insight: stored.insight, unreadable: stored.unreadable };
}

/** Keeps a result under the hash of its inputs (quietly nothing when the cache folder cannot be used). */
export function saveInsightResult(root: string, key: string, insight: Insight, unreadable: { path: string; lines: UnreadableLine[] }[]): void {
  if (!workspaceCacheDir(root, { create: true })) return;
  const stored: StoredResult = { format: FORMAT, stamp: key, insight, unreadable };
  writeStored(root, INSIGHT_RESULT_CACHE, stored);
}

/** Drops the kept result (`saveInsightResult`). */
export function removeInsightResult(root: string): void {
  try {
    removeOwnFile(root, INSIGHT_RESULT_CACHE);
  } catch {
    /* a read-only checkout: a result no later run can match is left */
  }
}
