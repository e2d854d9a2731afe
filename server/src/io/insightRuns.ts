/**
 * Each file's runs of lines (engine/insight.ts `Run`), when git committed its untraced lines (under the HEAD
 * they were asked at), and the lines each ledger entry wrote: what the history (`--by`) and the report's
 * tables need beyond the tallies of io/insightCache.ts. Kept in `.orchestration/.cache/insight-runs.bin`,
 * under the same stamp as the tallies (`ledgerStamp`), and read only by those runs.
 */
import { join } from "node:path";
import { AUTHORS } from "../engine/authorship";
import { type CommitDate, hasUntraced, type Run, type Written } from "../engine/insight";
import { authorCode, pushRun, readRun, RUN_FIELDS, StringTable } from "../engine/runRows";
import { CACHE_DIR, workspaceCacheDir } from "./cacheDir";
import { type CacheKind, readCheckedCache, writeCheckedCache } from "./checkedCache";
import { pathExists } from "./optionalFile";
import { removeOwnFile } from "./ownFiles";

export const INSIGHT_RUNS_CACHE = `${CACHE_DIR}/insight-runs.bin`;
/** The runs as JSON, which older builds kept: removed when the runs are next saved (it is never read). */
const JSON_RUNS_CACHE = `${CACHE_DIR}/insight-runs.json`;
/** This build's layout of the file (the stamp ties it to the build as well), checked as io/checkedCache.ts checks every cache. */
const KIND: CacheKind = { name: "insight-runs", format: 3, checksum: "sha256" };

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
 * `insight-runs.bin`'s payload (inside io/checkedCache.ts's envelope): a u32 (little-endian) byte length,
 * then the header (`RunsHeader`, JSON), then, from the next multiple of 8, the dates and the history's rows
 * as float64s (3 each) and the runs as int32s (RUN_FIELDS each), file after file in the header's order. Numbers as typed arrays rather than JSON: a
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
function typedView<T extends Int32Array | Float64Array>(
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
    const bytes = readCheckedCache(root, INSIGHT_RUNS_CACHE, KIND);
    if (!bytes || bytes.length < 4) return undefined;
    const length = bytes.readUInt32LE(0);
    if (4 + length > bytes.length) return undefined;
    const header = JSON.parse(bytes.toString("utf8", 4, 4 + length)) as RunsHeader;
    if (header.format !== KIND.format || header.stamp !== stamp) return undefined;
    const at = pad8(4 + length);
    if (at + header.floats * 8 + header.ints * 4 !== bytes.length) return undefined;
    return { header, floats: typedView(Float64Array, bytes, at, header.floats), ints: typedView(Int32Array, bytes, at + header.floats * 8, header.ints) };
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
    format: KIND.format,
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
  // the length first, then the header, then its padding to a multiple of 8; a read-only checkout: counted again next time
  const parts = [lead.subarray(0, 4), head, lead.subarray(4), bytes(Float64Array.from(floats)), ...ints.map(bytes)];
  if (!writeCheckedCache(root, INSIGHT_RUNS_CACHE, KIND, parts)) return;
  try {
    removeOwnFile(root, JSON_RUNS_CACHE);
  } catch {
    /* left for a later save to remove: it is never read */
  }
}
