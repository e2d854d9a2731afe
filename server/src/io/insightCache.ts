/**
 * What `intent stats` and `intent report` learnt of each file, kept in the workspace's cache folder
 * (`.orchestration/.cache/insight.json`) so that the next run counts an unchanged file without reading the
 * ledger or attributing it again: the file's runs of lines (engine/insight.ts `Run`) under the hash of its
 * bytes, when git committed its untraced lines (under the HEAD it was asked at), and the lines each ledger
 * entry wrote (the history).
 *
 * A file's runs depend on its content and on the ledgers (its own records, and those of the paths its
 * content came from); the history depends on the ledgers only. So the whole cache holds only while every
 * ledger is byte for byte what it was (same file, length, modification time, and the same bytes at its
 * head and end, as the saved ledger index checks them), and was written by this very build of intent-lsp;
 * a file's runs hold only for the same bytes, and its commit times only for the same bytes and HEAD.
 * Anything else is counted again from the ledger, and asked of git again.
 */
import { hash, randomUUID } from "node:crypto";
import { closeSync, fstatSync, readFileSync, readSync, type Stats } from "node:fs";
import { join } from "node:path";
import { AUTHORS, type Author } from "../engine/authorship";
import type { CommitDate, Run, Written } from "../engine/insight";
import type { UnreadableLine } from "../engine/ledger/read";
import { CACHE_DIR, workspaceCacheDir } from "./cacheDir";
import { segmentNames } from "./ledger/segments";
import { REFERENCE_LEDGER } from "./ledger/workspaceLedger";
import { readOwnFile, writeOwnFile } from "./ownFiles";
import { openRegularSync } from "./regularFiles";

export const INSIGHT_CACHE = `${CACHE_DIR}/insight.json`;
const FORMAT = 3;
/** Bytes of a ledger's head and of its end that must be unchanged (as the saved ledger index checks). */
const CHECK_BYTES = 4096;

export interface InsightCache {
  /** Per workspace path: the hash of the bytes counted and their runs. */
  files: Map<string, CachedFile>;
  /** Per workspace path: what each of its ledger entries wrote. */
  written: Map<string, Written[]>;
  unreadable: { path: string; lines: UnreadableLine[] }[];
}

export interface CachedFile {
  /** The hash of the bytes counted (`bytesKey`). */
  key: string;
  /**
   * The file's identity, size and times when they prove the bytes unchanged without reading them
   * (`statKey`); absent when the file changed too shortly before it was read for a time to prove that.
   */
  stat?: string;
  runs: Run[];
  /** When git committed the file's untraced lines, asked at HEAD `head` (io/commitDates.ts). */
  dates?: { head: string | null; dates: CommitDate[] };
}

/**
 * What `lstat` says of a file that proves its bytes unchanged, as git's index trusts it: the same file (device,
 * inode), size, and modification and change times. A write leaves a time unchanged only within the file
 * system's clock tick, so a file is trusted this way only when its times are well before it was read.
 */
export function statKey(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
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

interface Stored {
  format: number;
  stamp: string;
  strings: string[];
  /** [path, key, stat key or "", ...runs as RUN_FIELDS numbers each] */
  files: (string | number)[][];
  /** [path, head or "" (no commit yet), ...commit dates as 3 numbers each: start, end, ms or -1 (not committed)] */
  dates?: (string | number)[][];
  /** [path, ...written as 3 numbers each: ms, lines, author × 2 + out of scope] */
  written: (string | number)[][];
  unreadable: { path: string; lines: UnreadableLine[] }[];
}

const RUN_FIELDS = 8;

/** The cache, when it holds for `stamp`; undefined otherwise (absent, unreadable, or of other ledgers). */
export function loadInsightCache(root: string, stamp: string): InsightCache | undefined {
  let stored: Stored;
  try {
    const text = readOwnFile(root, INSIGHT_CACHE);
    if (text === undefined) return undefined;
    stored = JSON.parse(text) as Stored;
  } catch {
    return undefined;
  }
  if (stored.format !== FORMAT || stored.stamp !== stamp) return undefined;
  const s = stored.strings;
  const str = (i: number) => (i === 0 ? undefined : s[i - 1]);
  const files = new Map<string, CachedFile>();
  for (const f of stored.files) {
    const runs: Run[] = [];
    for (let i = 3; i < f.length; i += RUN_FIELDS) {
      const n = f as number[];
      const code = n[i + 2]!;
      // one shape for every run (absent fields undefined, which no output writes): decoded fast
      const run: Run = {
        start: n[i]!,
        end: n[i + 1]!,
        author: AUTHORS[code >> 1]!,
        intent: str(n[i + 3]!),
        model: str(n[i + 4]!),
        person: str(n[i + 5]!),
        traceId: str(n[i + 6]!),
        timestamp: str(n[i + 7]!),
        outOfScope: code & 1 ? true : undefined,
      } as Run;
      runs.push(run);
    }
    files.set(f[0] as string, { key: f[1] as string, ...(f[2] ? { stat: f[2] as string } : {}), runs });
  }
  for (const d of stored.dates ?? []) {
    const file = files.get(d[0] as string);
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
  return { files, written, unreadable: stored.unreadable };
}

/** Writes the cache for `stamp` (quietly nothing when the cache folder cannot be used: it is only a cache). */
export function saveInsightCache(root: string, stamp: string, cache: InsightCache): void {
  if (!workspaceCacheDir(root, { create: true })) return;
  const strings: string[] = [];
  const ids = new Map<string, number>();
  const id = (v: string | undefined) => {
    if (v === undefined) return 0;
    let i = ids.get(v);
    if (i === undefined) {
      strings.push(v);
      i = strings.length;
      ids.set(v, i);
    }
    return i;
  };
  const code = (author: Author, out: boolean | undefined) => AUTHORS.indexOf(author) * 2 + (out ? 1 : 0);
  const files: (string | number)[][] = [];
  const dates: (string | number)[][] = [];
  for (const [path, f] of cache.files) {
    const row: (string | number)[] = [path, f.key, f.stat ?? ""];
    for (const r of f.runs) row.push(r.start, r.end, code(r.author, r.outOfScope), id(r.intent), id(r.model), id(r.person), id(r.traceId), id(r.timestamp));
    files.push(row);
    if (f.dates) {
      const d: (string | number)[] = [path, f.dates.head ?? ""];
      for (const c of f.dates.dates) d.push(c.start, c.end, c.ms ?? -1);
      dates.push(d);
    }
  }
  const written: (string | number)[][] = [];
  for (const [path, rows] of cache.written) {
    const row: (string | number)[] = [path];
    for (const w of rows) row.push(w.ms, w.lines, code(w.author, w.outOfScope));
    written.push(row);
  }
  const stored: Stored = { format: FORMAT, stamp, strings, files, dates, written, unreadable: cache.unreadable };
  try {
    writeOwnFile(root, INSIGHT_CACHE, JSON.stringify(stored), { durable: false });
  } catch {
    /* a read-only checkout: counted again next time */
  }
}
