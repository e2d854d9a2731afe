/**
 * What `intent stats` and `intent report` learnt of each file, kept in the workspace's cache folder so that
 * the next run counts an unchanged file without reading the ledger or attributing it again. Two files:
 * `.orchestration/.cache/insight.json` holds, under the hash of each file's bytes, its tally (engine/insight.ts
 * `FileTally`: all a plain `intent stats` needs), and is read by every run; `insight-runs.json` holds each
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
 */
import { hash, randomUUID } from "node:crypto";
import { closeSync, fstatSync, readFileSync, readSync, type Stats } from "node:fs";
import { join } from "node:path";
import { AUTHORS, type Author } from "../engine/authorship";
import { type CommitDate, type FileTally, hasUntraced, type Run, type TallyGroup, type Written } from "../engine/insight";
import type { UnreadableLine } from "../engine/ledger/read";
import { CACHE_DIR, workspaceCacheDir } from "./cacheDir";
import { segmentNames } from "./ledger/segments";
import { REFERENCE_LEDGER } from "./ledger/workspaceLedger";
import { readOwnFile, writeOwnFile } from "./ownFiles";
import { openRegularSync } from "./regularFiles";

export const INSIGHT_CACHE = `${CACHE_DIR}/insight.json`;
export const INSIGHT_RUNS_CACHE = `${CACHE_DIR}/insight-runs.json`;
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

/** What the history and the report's tables need beyond the tallies (`insight-runs.json`). */
export interface InsightRuns {
  /** Per workspace path: the hash of the bytes counted, their runs, and when git committed their untraced lines. */
  runs: Map<string, KeptRuns>;
  /** Per workspace path: what each of its ledger entries wrote. */
  written: Map<string, Written[]>;
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
   * The file's row as loaded (path, key, runs as numbers into `InsightRuns.strings`): written back as it is
   * when no file's runs were counted again, so that a run that only dates lines anew (HEAD moved) does not
   * encode every run again.
   */
  stored?: readonly (string | number)[];
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

/** The strings of a cache file, numbered from 1 (0: absent). */
class StringTable {
  readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();

  id(v: string | undefined): number {
    if (v === undefined) return 0;
    let i = this.ids.get(v);
    if (i === undefined) {
      this.strings.push(v);
      i = this.strings.length;
      this.ids.set(v, i);
    }
    return i;
  }
}

const code = (author: Author, out: boolean | undefined) => AUTHORS.indexOf(author) * 2 + (out ? 1 : 0);

/** A run as RUN_FIELDS numbers: start, end, author × 2 + out of scope, then the strings' numbers. */
const RUN_FIELDS = 8;
/** A tally's group as GROUP_FIELDS numbers: author × 2 + out of scope, intent, model, person, lines. */
const GROUP_FIELDS = 5;
const NO_RUNS: Run[] = [];
/** Where a stored file's tally starts: after path, key and the five numbers of its stat (dev -1: none). */
const TALLY_AT = 7;

function pushRun(row: (string | number)[], r: Run, t: StringTable): void {
  row.push(r.start, r.end, code(r.author, r.outOfScope), t.id(r.intent), t.id(r.model), t.id(r.person), t.id(r.traceId), t.id(r.timestamp));
}

function readRun(n: readonly number[], i: number, str: (i: number) => string | undefined): Run {
  const c = n[i + 2]!;
  // one shape for every run (absent fields undefined, which no output writes): decoded fast
  return {
    start: n[i]!,
    end: n[i + 1]!,
    author: AUTHORS[c >> 1]!,
    intent: str(n[i + 3]!),
    model: str(n[i + 4]!),
    person: str(n[i + 5]!),
    traceId: str(n[i + 6]!),
    timestamp: str(n[i + 7]!),
    outOfScope: c & 1 ? true : undefined,
  } as Run;
}

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
    for (const g of f.tally.groups) row.push(code(g.author, g.outOfScope), t.id(g.intent), t.id(g.model), t.id(g.person), g.lines);
    for (const b of f.tally.outOfScope) pushRun(row, b, t);
    files.push(row);
  }
  const stored: StoredTallies = { format: FORMAT, stamp, exempt: cache.exempt, strings: t.strings, files, unreadable: cache.unreadable };
  writeStored(root, INSIGHT_CACHE, stored);
}

interface StoredRuns {
  format: number;
  stamp: string;
  strings: string[];
  /** [path, key, ...runs as RUN_FIELDS numbers each] */
  runs: (string | number)[][];
  /** [path, head or "" (no commit yet), ...commit dates as 3 numbers each: start, end, ms or -1 (not committed)] */
  dates: (string | number)[][];
  /** [path, ...written as 3 numbers each: ms, lines, author × 2 + out of scope] */
  written: (string | number)[][];
}

/** The runs and the history's lines, when they hold for `stamp`; undefined otherwise. */
export function loadInsightRuns(root: string, stamp: string): InsightRuns | undefined {
  const stored = readStored<StoredRuns>(root, INSIGHT_RUNS_CACHE, stamp);
  if (!stored) return undefined;
  const runs = new Map<string, KeptRuns>();
  for (const f of stored.runs) runs.set(f[0] as string, { key: f[1] as string, stored: f });
  for (const d of stored.dates) {
    const file = runs.get(d[0] as string);
    if (!file) continue;
    const n = d as number[];
    const dates: CommitDate[] = [];
    for (let i = 2; i < d.length; i += 3) dates.push({ start: n[i]!, end: n[i + 1]!, ms: n[i + 2]! < 0 ? null : n[i + 2]! });
    file.dates = { head: d[1] === "" ? null : (d[1] as string), dates };
  }
  const written = new Map<string, Written[]>();
  for (const w of stored.written) {
    const rows: Written[] = [];
    const n = w as number[];
    for (let i = 1; i < w.length; i += 3) rows.push({ ms: n[i]!, lines: n[i + 1]!, author: AUTHORS[n[i + 2]! >> 1]!, outOfScope: (n[i + 2]! & 1) === 1 });
    written.set(w[0] as string, rows);
  }
  return { runs, written, strings: stored.strings };
}

/** A kept file's runs: those counted by this run, or decoded from its stored row. */
export function keptRunsOf(detail: InsightRuns, file: KeptRuns): Run[] {
  if (file.runs) return file.runs;
  const s = detail.strings!;
  const str = (i: number) => (i === 0 ? undefined : s[i - 1]);
  const n = file.stored as number[];
  const rows: Run[] = [];
  for (let i = 2; i < n.length; i += RUN_FIELDS) rows.push(readRun(n, i, str));
  return rows;
}

const UNTRACED = AUTHORS.indexOf("untraced");

/** Whether some of a kept file's lines are untraced (read from its stored row without decoding it). */
export function keptHasUntraced(file: KeptRuns): boolean {
  if (file.runs) return hasUntraced(file.runs);
  const n = file.stored as number[];
  for (let i = 2; i < n.length; i += RUN_FIELDS) if (n[i + 2]! >> 1 === UNTRACED) return true;
  return false;
}

/** Writes the runs and the history's lines for `stamp` (quietly nothing when the cache folder cannot be used). */
export function saveInsightRuns(root: string, stamp: string, detail: InsightRuns): void {
  if (!workspaceCacheDir(root, { create: true })) return;
  // the rows as loaded, when every file's are: their numbers hold in the loaded table (which may keep a
  // removed file's strings until runs are next encoded)
  const asLoaded = detail.strings !== undefined && [...detail.runs.values()].every((f) => f.stored !== undefined);
  const t = new StringTable();
  const runs: (string | number)[][] = [];
  const dates: (string | number)[][] = [];
  for (const [path, f] of detail.runs) {
    if (asLoaded) runs.push(f.stored as (string | number)[]);
    else {
      const row: (string | number)[] = [path, f.key];
      for (const r of keptRunsOf(detail, f)) pushRun(row, r, t);
      runs.push(row);
    }
    if (f.dates) {
      const d: (string | number)[] = [path, f.dates.head ?? ""];
      for (const c of f.dates.dates) d.push(c.start, c.end, c.ms ?? -1);
      dates.push(d);
    }
  }
  const written: (string | number)[][] = [];
  for (const [path, rows] of detail.written) {
    const row: (string | number)[] = [path];
    for (const w of rows) row.push(w.ms, w.lines, code(w.author, w.outOfScope));
    written.push(row);
  }
  const strings = asLoaded ? (detail.strings as string[]) : t.strings;
  const stored: StoredRuns = { format: FORMAT, stamp, strings, runs, dates, written };
  writeStored(root, INSIGHT_RUNS_CACHE, stored);
}
