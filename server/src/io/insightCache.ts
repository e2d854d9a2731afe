/**
 * What `intent stats` and `intent report` learnt of each file, kept in the workspace's cache folder so that
 * the next run counts an unchanged file without reading the ledger or attributing it again. Two files:
 * `.orchestration/.cache/insight.json` holds, under the hash of each file's bytes, its tally (engine/insight.ts
 * `FileTally`: all a plain `intent stats` needs), and is read by every run; `insight-runs.bin` (io/insightRuns.ts)
 * holds each file's runs of lines, which only the history (`--by`) and the report's tables need.
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
import type { FileTally, Insight, Run, TallyGroup } from "../engine/insight";
import { authorCode, confidenceCode, confidenceOfCode, pushRun, readRun, RUN_FIELDS, StringTable } from "../engine/runRows";
import type { UnreadableLine } from "../engine/ledger/read";
import { CACHE_DIR, workspaceCacheDir } from "./cacheDir";
import { adoptionOf } from "./adoption";
import { segmentNames } from "./ledger/segments";
import { REFERENCE_LEDGER } from "./ledger/workspaceLedger";
import { type CacheKind, readCheckedCache, writeCheckedCache } from "./checkedCache";
import { removeOwnFile } from "./ownFiles";
import { openRegularSync } from "./regularFiles";

export const INSIGHT_CACHE = `${CACHE_DIR}/insight.json`;
/** The last history or report's result, under the hash of everything it was made from (`saveInsightResult`). */
export const INSIGHT_RESULT_CACHE = `${CACHE_DIR}/insight-result.json`;
const FORMAT = 6;
/** The two files as io/checkedCache.ts checks them: read by every run, hashed with what crypto does fastest. */
const TALLIES_KIND: CacheKind = { name: "insight", format: FORMAT, checksum: "sha256" };
const RESULT_KIND: CacheKind = { name: "insight-result", format: FORMAT, checksum: "sha256" };
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
    // lines kept since the adoption point count apart from the untraced (engine/adoption.ts)
    adoption: adoptionOf(root)?.commit ?? null,
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

/** A tally's group as GROUP_FIELDS numbers: author × 2 + out of scope, intent, model, person, lines, confidence. */
const GROUP_FIELDS = 6;
const NO_RUNS: Run[] = [];
/** Where a stored file's tally starts: after path, key and the five numbers of its stat (dev -1: none). */
const TALLY_AT = 7;

function readStored<T extends { format: number; stamp: string }>(root: string, rel: string, kind: CacheKind, stamp: string): T | undefined {
  let stored: T;
  try {
    const bytes = readCheckedCache(root, rel, kind);
    if (bytes === undefined) return undefined;
    stored = JSON.parse(bytes.toString("utf8")) as T;
  } catch {
    return undefined;
  }
  return stored?.format === FORMAT && stored.stamp === stamp ? stored : undefined;
}

/** Writes a cache file (quietly nothing when it cannot be: a read-only checkout counts again next time). */
function writeStored(root: string, rel: string, kind: CacheKind, stored: object): void {
  writeCheckedCache(root, rel, kind, JSON.stringify(stored));
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
  const stored = readStored<StoredTallies>(root, INSIGHT_CACHE, TALLIES_KIND, stamp);
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
        confidence: confidenceOfCode(n[i + 5]!),
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
    for (const g of f.tally.groups)
      row.push(authorCode(g.author, g.outOfScope), t.id(g.intent), t.id(g.model), t.id(g.person), g.lines, confidenceCode(g.confidence));
    for (const b of f.tally.outOfScope) pushRun(row, b, t);
    files.push(row);
  }
  const stored: StoredTallies = { format: FORMAT, stamp, exempt: cache.exempt, strings: t.strings, files, unreadable: cache.unreadable };
  writeStored(root, INSIGHT_CACHE, TALLIES_KIND, stored);
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
  const stored = readStored<StoredResult>(root, INSIGHT_RESULT_CACHE, RESULT_KIND, key);
  return stored && { insight: stored.insight, unreadable: stored.unreadable };
}

/** Keeps a result under the hash of its inputs (quietly nothing when the cache folder cannot be used). */
export function saveInsightResult(root: string, key: string, insight: Insight, unreadable: { path: string; lines: UnreadableLine[] }[]): void {
  if (!workspaceCacheDir(root, { create: true })) return;
  const stored: StoredResult = { format: FORMAT, stamp: key, insight, unreadable };
  writeStored(root, INSIGHT_RESULT_CACHE, RESULT_KIND, stored);
}

/** Drops the kept result (`saveInsightResult`). */
export function removeInsightResult(root: string): void {
  try {
    removeOwnFile(root, INSIGHT_RESULT_CACHE);
  } catch {
    /* a read-only checkout: a result no later run can match is left */
  }
}
