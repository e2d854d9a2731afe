/**
 * `intent export --format parquet` (docs/EXPORT.md): the workspace's facts as Hive-partitioned Parquet that
 * any SQL engine reads — `lines` (the code at HEAD, one row per run of lines with one owner, as `intent stats`
 * counts them), `records` (every ledger record, a row per file), `lifecycle` (every intent move) and `repos`
 * (one row: what was exported). Incremental: a watermark per repository (`_state/`) says how far the ledger
 * was exported and what the lines were; a second export appends only the new records and moves, and rewrites
 * the lines only when they changed — a nightly job stays cheap.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
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
import { countedPaths, countedRuns, countedTexts, datedFileRuns, runsInWorkerThreads } from "../insight";
import { ledgerStamp } from "../insightCache";
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
  /** Told what did not go as a person asked (the files counted in fewer threads than `INTENT_LSP_THREADS`). */
  warn?: (text: string) => void;
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
  /** How many `lines` rows, files and binary files were written last. */
  lineRows: number;
  files: number;
  binaryFiles: number;
  /** The SHA-256 of what the lines were made from (HEAD, the ledgers, the working tree, the rules): equal, nothing is counted again. */
  stamp: string | null;
  /** Parts of `records` and `lifecycle` written so far. */
  parts: number;
}

const EMPTY: Watermark = {
  schema_version: EXPORT_SCHEMA_VERSION,
  ledger: { lines: 0, last: null },
  lines: null,
  lineRows: 0,
  files: 0,
  binaryFiles: 0,
  stamp: null,
  parts: 0,
};

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
    return w.schema_version === EXPORT_SCHEMA_VERSION && typeof w.ledger?.lines === "number" ? { ...EMPTY, ...w } : EMPTY;
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
export async function exportParquet(
  root: string,
  rules: Rules,
  openLedger: () => Promise<WorkspaceLedger>,
  opts: ParquetExportOptions,
): Promise<ParquetExportResult> {
  mkdirSync(join(opts.out, "_state"), { recursive: true });
  if (toWorkspacePath(root, opts.out) !== undefined && !existsSync(join(opts.out, ".gitignore")))
    writeNamedFile(join(opts.out, ".gitignore"), "# intent export --format parquet: its tables are not part of the repository\n*\n", { durable: false });
  const release = await acquireLock(statePath(opts.out, opts.repo), { stale: 60_000, retries: { retries: 600, minTimeout: 100, maxTimeout: 1000 } });
  try {
    return await exportLocked(root, rules, openLedger, opts);
  } finally {
    await release();
  }
}

async function exportLocked(root: string, rules: Rules, openLedger: () => Promise<WorkspaceLedger>, opts: ParquetExportOptions): Promise<ParquetExportResult> {
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
    let lastLine: Buffer | undefined;
    for (const line of exportLines(root, rules.settings.ledgerPath)) {
      if (++count === known) at = sha256(line);
      lastLine = line;
    }
    const last = lastLine === undefined ? null : sha256(lastLine);
    const restarted = known > 0 && (count < known || at !== before.ledger.last);
    const from = restarted ? 0 : known;
    if (restarted) for (const t of ["records", "lifecycle"] as const) dropParts(out, t, repo);
    const part = restarted ? 1 : before.parts + 1;
    const partName = `part-${String(part).padStart(6, "0")}.parquet`;
    // the new records streamed into their file (a million rows are never held), the moves gathered on the way
    const moves: Row[] = [];
    function* newRecords(): Generator<Row> {
      let i = 0;
      for (const line of exportLines(root, rules.settings.ledgerPath)) {
        if (++i <= from) continue;
        const text = line.toString("utf8");
        yield* recordRows(parseLedgerLines(text, i).entries, i, names);
        if (text.includes('"lifecycle"')) for (const e of lifecycleEvents([text])) moves.push(lifecycleRow(e, names));
      }
    }
    const records = count > from ? await writePart(duck, out, "records", repo, partName, newRecords()) : undefined;
    tables.push(records ?? { table: "records", rows: 0, bytes: 0 });
    const lifecycle = moves.length ? await writePart(duck, out, "lifecycle", repo, partName, moves) : undefined;
    tables.push(lifecycle ?? { table: "lifecycle", rows: 0, bytes: 0 });

    // the code as it is, unless nothing it is made from changed since the last export (HEAD, the ledgers, the
    // working tree's changes, the exempt rules): then its rows are the ones written, and no file is read again
    const stamp = sha256(JSON.stringify([head, ledgerStamp(root, rules.settings.ledgerPath), workingTreeStamp(root), rules.ignore.key, names]));
    let lines: { rows: number; digest: string; files: number; binaryFiles: number } | undefined;
    if (stamp === before.stamp && !restarted && before.lines !== null) tables.push({ table: "lines", rows: before.lineRows, bytes: 0 });
    else {
      const rows = await codeRows(root, rules, await openLedger(), head, names, now, opts.warn ?? (() => {}));
      const digest = sha256(JSON.stringify(rows.rows));
      lines = { rows: rows.rows.length, digest, files: rows.files, binaryFiles: rows.binaryFiles };
      if (digest === before.lines && !restarted) tables.push({ table: "lines", rows: rows.rows.length, bytes: 0 });
      else tables.push(await writePart(duck, out, "lines", repo, "part-000001.parquet", rows.rows));
    }

    // what this export was: written when anything else was, so an export that found nothing new writes nothing
    if (tables.some((t) => t.file)) {
      const repoRow: Row = {
        head,
        exported_at: now.toISOString(),
        files: lines?.files ?? before.files,
        binary_files: lines?.binaryFiles ?? before.binaryFiles,
        records: count,
        schema_version: EXPORT_SCHEMA_VERSION,
      };
      tables.push(await writePart(duck, out, "repos", repo, "part-000001.parquet", [repoRow]));
    } else tables.push({ table: "repos", rows: 1, bytes: 0 });

    const after: Watermark = {
      schema_version: EXPORT_SCHEMA_VERSION,
      ledger: { lines: count, last },
      lines: lines?.digest ?? before.lines,
      lineRows: lines?.rows ?? before.lineRows,
      files: lines?.files ?? before.files,
      binaryFiles: lines?.binaryFiles ?? before.binaryFiles,
      stamp,
      parts: records || lifecycle ? part : restarted ? 0 : before.parts,
    };
    // an export that found nothing new leaves every file as it was, the watermark too
    if (JSON.stringify(after) !== JSON.stringify(before)) writeNamedFile(statePath(out, repo), `${JSON.stringify(after)}\n`, { durable: false });
    return { repo, tables, restarted };
  } finally {
    duck.close();
  }
}

/** Writes `rows` as the part `name` of `table` for `repo`. */
async function writePart(duck: Duck, out: string, table: TableName, repo: string, name: string, rows: Iterable<Row>): Promise<TableWrite> {
  const file = join(partitionDir(out, table, repo), name);
  mkdirSync(partitionDir(out, table, repo), { recursive: true });
  const written = await duck.writeParquet(file, COLUMNS[table], rows);
  return { table, rows: written.rows, bytes: written.bytes, file };
}

/**
 * The code as it is: every counted file's runs as `lines` rows, untraced ones dated by git. The files are
 * counted as `intent stats` counts them: in worker threads when there are many (io/runsWorkers.ts), the rest
 * here.
 */
async function codeRows(
  root: string,
  rules: Rules,
  ledger: WorkspaceLedger,
  head: string | null,
  names: boolean,
  now: Date,
  warn: (text: string) => void,
): Promise<{ rows: Row[]; files: number; binaryFiles: number }> {
  const adoption = adoptionOf(root);
  const then = adoption ? AdoptionTexts.read(root, adoption, countedPaths(root, rules, {})) : undefined;
  const dating = await lineDating(root, "worktree");
  const texts = [...countedTexts(root, rules, {})];
  const toCount = texts.flatMap((f) => ("binary" in f ? [] : [f]));
  const inWorkers = await runsInWorkerThreads(root, rules.settings.ledgerPath, ledger, toCount, [], then, () => {}, warn);
  const rows: Row[] = [];
  for (const f of toCount) {
    const runs = inWorkers?.runs.get(f.path) ?? countedRuns(ledger, f.path, f.text, then);
    for (const r of lineRows(f.path, datedFileRuns(dating, f.path, runs, now.getTime()), head, names)) rows.push(r);
  }
  return { rows, files: toCount.length, binaryFiles: texts.length - toCount.length };
}

/**
 * What the working tree holds besides HEAD, cheaply: git's list of changed and untracked files with each one's
 * size and time. Equal stamps (with HEAD and the ledgers') mean the files are as they were.
 */
function workingTreeStamp(root: string): unknown {
  let status: string;
  try {
    status = runGit(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]);
  } catch (e) {
    if (e instanceof GitError) return { noGit: randomUUID() }; // not a repository: never the same
    throw e;
  }
  const entries = status.split("\0").filter(Boolean);
  return entries.map((e) => {
    const st = lstatSync(join(root, e.slice(3)), { throwIfNoEntry: false });
    return [e, st?.size ?? -1, st?.mtimeMs ?? -1];
  });
}
