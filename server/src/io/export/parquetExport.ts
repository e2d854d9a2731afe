/**
 * `intent export --format parquet` (docs/EXPORT.md): the workspace's facts as Hive-partitioned Parquet that
 * any SQL engine reads — `lines` (the code at HEAD, one row per run of lines with one owner, as `intent stats`
 * counts them), `records` (every ledger record, a row per file), `lifecycle` (every intent move) and `repos`
 * (one row: what was exported). Incremental: a watermark per repository (`_state/`) says how far the ledger
 * was exported and what the lines were; a second export appends only the new records and moves, and rewrites
 * the lines only when they changed — a nightly job stays cheap.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { COLUMNS, EXPORT_SCHEMA_VERSION, lifecycleRow, lineRows, recordRows, type Row, type TableName } from "../../engine/export/exportTables";
import { lifecycleEvents } from "../../engine/ledger/lifecycle";
import { parseLedgerLines } from "../../engine/ledger/read";
import type { Rules } from "../../engine/rules";
import { AdoptionTexts, adoptionOf } from "../adoption";
import { lineDating } from "../commitDates";
import { Duck } from "../duckdb";
import { repoNameFromUrl } from "../../engine/export/repoName";
import { GitError, headRevision, runGit } from "../git";
import { countedFiles, countedPaths, datedFileRuns } from "../insight";
import { exportLines } from "../ledger/compact";
import type { WorkspaceLedger } from "../ledger/workspaceLedger";
import { acquireLock } from "../fileLock";
import { writeNamedFile } from "../ownFiles";
import { toWorkspacePath } from "../../engine/paths";

export interface ParquetExportOptions {
  /** The folder the person named (absolute); the tables go under it. */
  out: string;
  /** The repository's name in the `repo` partition. */
  repo: string;
  /** People's names in the tables (false: `--no-names`). */
  names: boolean;
  now?: Date;
}

export interface TableWrite {
  table: TableName;
  rows: number;
  bytes: number;
  /** The file written; undefined when nothing changed. */
  file?: string;
}

export interface ParquetExportResult {
  repo: string;
  tables: TableWrite[];
  /** The ledger was exported again from its start: it is not the one the watermark describes. */
  restarted: boolean;
}

/** How far a repository was exported (`_state/<repo>.json`). */
interface Watermark {
  schema_version: number;
  /** Ledger lines exported (sealed segments first, blank lines not counted), and the SHA-256 of the last one. */
  ledger: { lines: number; last: string | null };
  /** The SHA-256 of the last `lines` rows written. */
  lines: string | null;
  /** Parts of `records` and `lifecycle` written so far. */
  parts: number;
}

const EMPTY: Watermark = { schema_version: EXPORT_SCHEMA_VERSION, ledger: { lines: 0, last: null }, lines: null, parts: 0 };

/** The name a repository exports under by default: its origin's `owner/name`, else its folder's name. */
export function defaultRepoName(root: string): string {
  try {
    const named = repoNameFromUrl(runGit(root, ["remote", "get-url", "origin"]));
    if (named) return named;
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
  }
  return basename(root);
}

/** The partition folder of `table` for `repo`: Hive's `repo=<value>`, the value escaped as engines expect. */
export function partitionDir(out: string, table: TableName, repo: string): string {
  return join(out, table, `repo=${encodeURIComponent(repo)}`);
}

function statePath(out: string, repo: string): string {
  return join(out, "_state", `${encodeURIComponent(repo)}.json`);
}

function readWatermark(out: string, repo: string): Watermark {
  const file = statePath(out, repo);
  if (!existsSync(file)) return EMPTY;
  try {
    const w = JSON.parse(readFileSync(file, "utf8")) as Watermark;
    // an export of another schema is written again whole: its columns are not these
    return w.schema_version === EXPORT_SCHEMA_VERSION && typeof w.ledger?.lines === "number" ? w : EMPTY;
  } catch {
    return EMPTY;
  }
}

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

/** Removes the parts an earlier export of this repository wrote to `table` (only files named as ours). */
function dropParts(out: string, table: TableName, repo: string): void {
  const dir = partitionDir(out, table, repo);
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) if (/^part-\d+\.parquet$/.test(name)) rmSync(join(dir, name));
}

/**
 * Exports the workspace under `opts.out`. Two exports of one repository into one folder at once (two CI jobs)
 * take turns: the repository's watermark is locked for the whole export, so each part is written once and the
 * watermark always describes the parts on disk. A folder inside the workspace ignores itself for git (a
 * `.gitignore` of `*` in it), so the export is never counted among the files it exports.
 */
export async function exportParquet(root: string, rules: Rules, ledger: WorkspaceLedger, opts: ParquetExportOptions): Promise<ParquetExportResult> {
  mkdirSync(join(opts.out, "_state"), { recursive: true });
  if (toWorkspacePath(root, opts.out) !== undefined && !existsSync(join(opts.out, ".gitignore")))
    writeNamedFile(join(opts.out, ".gitignore"), "# intent export --format parquet: its tables are not part of the repository\n*\n", { durable: false });
  const release = await acquireLock(statePath(opts.out, opts.repo), { stale: 60_000, retries: { retries: 600, minTimeout: 100, maxTimeout: 1000 } });
  try {
    return await exportLocked(root, rules, ledger, opts);
  } finally {
    await release();
  }
}

async function exportLocked(root: string, rules: Rules, ledger: WorkspaceLedger, opts: ParquetExportOptions): Promise<ParquetExportResult> {
  const { out, repo, names } = opts;
  const now = opts.now ?? new Date();
  const head = headRevision(root) ?? null;
  const before = readWatermark(out, repo);
  const duck = await Duck.open();
  try {
    const tables: TableWrite[] = [];
    // the ledger since the watermark; all of it when the line the watermark names is not there any more
    const known = before.ledger.lines;
    let count = 0;
    let at: string | null = null;
    for (const line of exportLines(root, rules.settings.ledgerPath)) if (++count === known) at = sha256(line);
    const restarted = known > 0 && (count < known || at !== before.ledger.last);
    const from = restarted ? 0 : known;
    const records: Row[] = [];
    const moves: Row[] = [];
    let last: string | null = null;
    let i = 0;
    for (const line of exportLines(root, rules.settings.ledgerPath)) {
      if (++i === count) last = sha256(line);
      if (i <= from) continue;
      const text = line.toString("utf8");
      for (const r of recordRows(parseLedgerLines(text, i).entries, i, names)) records.push(r);
      if (text.includes('"lifecycle"')) for (const e of lifecycleEvents([text])) moves.push(lifecycleRow(e, names));
    }
    if (restarted) for (const t of ["records", "lifecycle"] as const) dropParts(out, t, repo);
    const part = restarted ? 1 : before.parts + 1;
    const partName = `part-${String(part).padStart(6, "0")}.parquet`;
    for (const [table, rows] of [
      ["records", records],
      ["lifecycle", moves],
    ] as const) {
      if (!rows.length) {
        tables.push({ table, rows: 0, bytes: 0 });
        continue;
      }
      const file = join(partitionDir(out, table, repo), partName);
      mkdirSync(partitionDir(out, table, repo), { recursive: true });
      tables.push({ table, rows: rows.length, bytes: await duck.writeParquet(file, COLUMNS[table], rows), file });
    }

    // the code as it is: every counted file's runs, untraced ones dated by git
    const adoption = adoptionOf(root);
    const paths: string[] = [];
    const fileRuns: { path: string; runs: ReturnType<typeof datedFileRuns> }[] = [];
    let binaryFiles = 0;
    const then = adoption ? AdoptionTexts.read(root, adoption, countedPaths(root, rules, {})) : undefined;
    const dating = await lineDating(root, "worktree");
    for (const f of countedFiles(root, rules, ledger, {}, then)) {
      if ("binary" in f) {
        binaryFiles++;
        continue;
      }
      paths.push(f.path);
      fileRuns.push({ path: f.path, runs: datedFileRuns(dating, f.path, f.runs, now.getTime()) });
    }
    const lines = fileRuns.flatMap((f) => lineRows(f.path, f.runs, head, names));
    const linesDigest = sha256(JSON.stringify(lines));
    if (linesDigest === before.lines && !restarted) tables.push({ table: "lines", rows: lines.length, bytes: 0 });
    else {
      const file = join(partitionDir(out, "lines", repo), "part-000001.parquet");
      mkdirSync(partitionDir(out, "lines", repo), { recursive: true });
      tables.push({ table: "lines", rows: lines.length, bytes: await duck.writeParquet(file, COLUMNS.lines, lines), file });
    }

    // what this export was: written when anything else was, so an export that found nothing new writes nothing
    if (tables.some((t) => t.file)) {
      const repoRow: Row = {
        head,
        exported_at: now.toISOString(),
        files: paths.length,
        binary_files: binaryFiles,
        records: count,
        schema_version: EXPORT_SCHEMA_VERSION,
      };
      const repoFile = join(partitionDir(out, "repos", repo), "part-000001.parquet");
      mkdirSync(partitionDir(out, "repos", repo), { recursive: true });
      tables.push({ table: "repos", rows: 1, bytes: await duck.writeParquet(repoFile, COLUMNS.repos, [repoRow]), file: repoFile });
    } else tables.push({ table: "repos", rows: 1, bytes: 0 });

    const after: Watermark = {
      schema_version: EXPORT_SCHEMA_VERSION,
      ledger: { lines: count, last },
      lines: linesDigest,
      parts: records.length || moves.length ? part : restarted ? 0 : before.parts,
    };
    // an export that found nothing new leaves every file as it was, the watermark too
    if (JSON.stringify(after) !== JSON.stringify(before)) {
      writeNamedFile(statePath(out, repo), `${JSON.stringify(after)}\n`, { durable: false });
    }
    return { repo, tables, restarted };
  } finally {
    duck.close();
  }
}
