/**
 * The ledger as a dataset (docs/EXPORT.md), measured from outside as a CI job runs it:
 * - `export`: `intent export --format parquet` of a workload's ledger — time, the records table's bytes
 *   against the JSONL's, and the run again when nothing changed (the nightly case);
 * - `org`: `intent org stats` over 1,000 repositories × 10,000 runs of lines, and the records question of
 *   docs/sql over 50 M records (an organisation's year), both generated directly as Parquet — time and peak
 *   memory, against DuckDB reading the same files with a bare `SELECT count(*)` (the floor).
 * Every process is spawned, DuckDB's too (a node process loading @duckdb/node-api), so the benchmark's own
 * bundle does not load the native module.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../scripts/lspClient";
import type { Figure, Options } from "./figures";
import { timeProcess } from "./measure";
import { LEDGER, type Workload } from "./workload";

const CLI = join(REPO_ROOT, "dist/cli.js");
const NODE = process.execPath;
const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(0)} ms`);
const x = (v: number) => `${v >= 10 ? v.toFixed(0) : v.toFixed(2)}×`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** A process timed with its peak memory (GNU time's maximum resident set size). */
function timedWithPeak(args: string[], cwd: string): { ms: number; cpuMs: number; peakMb: number; stdout: string } {
  const r = timeProcess("/usr/bin/time", ["-f", "PEAK_KB=%M", ...args], { cwd, keepStdout: true });
  if (r.status !== 0) throw new Error(`${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  const kb = Number(/PEAK_KB=(\d+)/.exec(r.stderr)?.[1] ?? Number.NaN);
  return { ms: r.ms, cpuMs: r.cpuMs, peakMb: kb / 1024, stdout: r.stdout };
}

/** Runs SQL in a DuckDB of its own process (as a user's engine would), with the tables under `dir` as views. */
function duckdb(sql: string, cwd: string) {
  const script = `
const { DuckDBInstance } = require(${JSON.stringify(join(REPO_ROOT, "node_modules", "@duckdb", "node-api"))});
(async () => {
  const c = await (await DuckDBInstance.create(":memory:")).connect();
  const r = await c.runAndReadAll(${JSON.stringify(sql)});
  process.stdout.write(JSON.stringify(r.getRowsJS(), (k, v) => (typeof v === "bigint" ? Number(v) : v)));
})().catch((e) => { console.error(e); process.exit(1); });`;
  return timedWithPeak([NODE, "-e", script], cwd);
}

function folderBytes(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const st = statSync(join(dir, name));
    if (st.isFile()) n += st.size;
  }
  return n;
}

export function exportFigure(w: Workload, o: Options): Figure[] {
  const out = mkdtempSync(join(tmpdir(), "intent-bench-export-"));
  try {
    const first = timedWithPeak([NODE, CLI, "export", "--format", "parquet", "--out", out, "--repo", "bench/workload"], w.root);
    const parquet = folderBytes(join(out, "records"));
    const jsonl = statSync(join(w.root, LEDGER)).size;
    const again = timedWithPeak([NODE, CLI, "export", "--format", "parquet", "--out", out, "--repo", "bench/workload"], w.root);
    o.log(`    export ${ms(first.ms)} (peak ${first.peakMb.toFixed(0)} MB), records ${mb(parquet)} vs JSONL ${mb(jsonl)}; again ${ms(again.ms)}`);
    return [
      {
        id: "export (parquet)",
        records: w.records,
        now: `${ms(first.ms)}, ${mb(parquet)} records`,
        baseline: `JSONL ${mb(jsonl)}`,
        ratio: `${x(parquet / jsonl)} bytes`,
        target: "–",
        met: null,
        data: { ms: first.ms, cpuMs: first.cpuMs, peakMb: first.peakMb, parquetBytes: parquet, jsonlBytes: jsonl, allBytes: folderBytes(out) },
      },
      {
        id: "export again (nothing new)",
        records: w.records,
        now: ms(again.ms),
        baseline: `first ${ms(first.ms)}`,
        ratio: x(again.ms / first.ms),
        target: "–",
        met: null,
        data: { ms: again.ms, cpuMs: again.cpuMs },
      },
    ];
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export const ORG = { repos: 1_000, runsPerRepo: 10_000, records: 50_000_000 } as const;

/** The organisation's tables, made by DuckDB straight as Parquet, Hive-partitioned as the export writes them. */
function generate(dir: string, quick: boolean): { repos: number; runs: number; records: number } {
  const repos = quick ? 100 : ORG.repos;
  const records = quick ? 5_000_000 : ORG.records;
  const runs = repos * ORG.runsPerRepo;
  const kinds = "['ai','human','untraced','ai','human','mixed','unknown','untraced']";
  const sql = `
COPY (
  SELECT 'org/repo-' || (i // ${ORG.runsPerRepo}) AS repo,
         'src/m' || ((i // 100) % 100) || '/f' || ((i // 10) % 10) || '.ts' AS path,
         (i % 10) * 40 + 1 AS start_line, (i % 10) * 40 + 40 AS end_line,
         (${kinds})[1 + (i % 8)] AS kind,
         CASE WHEN i % 8 IN (2, 7) THEN NULL ELSE 'INT-' || (i % 50) END AS intent,
         CASE WHEN i % 8 IN (0, 3, 5) THEN 'anthropic/claude-sonnet-4-5' ELSE NULL END AS model,
         CASE WHEN i % 8 IN (1, 4, 5) THEN 'Person ' || (i % 40) ELSE NULL END AS person,
         CASE WHEN i % 8 IN (2, 7) THEN NULL ELSE 'r' || i END AS record_id,
         i % 97 = 0 AND i % 8 NOT IN (2, 7) AS out_of_scope,
         CASE WHEN i % 8 IN (2, 7) THEN NULL ELSE 'exact' END AS confidence,
         TIMESTAMP '2026-01-01' + INTERVAL (i % 300) DAY AS written_at,
         false AS uncommitted, 'head' AS head, 1 AS schema_version
  FROM range(${runs}) t(i)
) TO '${join(dir, "lines")}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (repo));
COPY (SELECT 'org/repo-' || (i % ${repos}) AS repo, 0 AS binary_files, 'head' AS head, TIMESTAMP '2026-11-30' AS exported_at, 0 AS files, 0 AS records, 1 AS schema_version
      FROM range(${repos}) t(i)) TO '${join(dir, "repos")}' (FORMAT parquet, PARTITION_BY (repo));
COPY (
  SELECT 'org/repo-' || (i % ${repos}) AS repo, i AS ledger_line, 'r' || i AS record_id,
         TIMESTAMP '2026-01-01' + INTERVAL (i % 31536000) SECOND AS timestamp, 'src/f' || (i % 500) || '.ts' AS path,
         CASE WHEN i % 3 = 0 THEN 'human' ELSE 'ai' END AS contributor,
         CASE WHEN i % 3 = 0 THEN NULL WHEN i % 3 = 1 THEN 'anthropic/claude-sonnet-4-5' ELSE 'openai/gpt-5' END AS model,
         CASE WHEN i % 3 = 0 THEN 'Person ' || (i % 40) ELSE NULL END AS person,
         'INT-' || (i % 50) AS intent, (i % 20) + 1 AS lines, CASE WHEN i % 97 = 0 THEN 'OUT_OF_SCOPE' ELSE 'PASS' END AS scope,
         'urn:intent-lsp:session:s' || (i % 10000) AS session, 'intent-lsp' AS tool, 'INTENT_EVOLUTION' AS mutation_class, 1 AS schema_version
  FROM range(${records}) t(i)
) TO '${join(dir, "records")}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (repo));`;
  duckdb(`${sql} SELECT 1`, dir);
  return { repos, runs, records };
}

export function orgFigures(o: Options): Figure[] {
  const dir = mkdtempSync(join(tmpdir(), "intent-bench-org-"));
  try {
    const t0 = Date.now();
    const size = generate(dir, o.quick);
    o.log(
      `    generated ${size.repos} repositories × ${ORG.runsPerRepo} runs and ${size.records.toLocaleString("en")} records in ${((Date.now() - t0) / 1000).toFixed(0)} s (${mb(folderBytes(dir))})`,
    );
    const stats = timedWithPeak([NODE, CLI, "org", "stats", "--from", dir, "--json"], dir);
    const linesFloor = duckdb(`SELECT count(*) FROM read_parquet('${join(dir, "lines")}/*/*.parquet', hive_partitioning = true)`, dir);
    // the records question an organisation asks most: who wrote how much, per month (docs/sql/)
    const byMonth = duckdb(
      `CREATE VIEW records AS SELECT * FROM read_parquet('${join(dir, "records")}/*/*.parquet', hive_partitioning = true);
       ${readFileSync(join(REPO_ROOT, "docs/sql/records_by_model_month.sql"), "utf8")}`,
      dir,
    );
    const recordsFloor = duckdb(`SELECT count(*) FROM read_parquet('${join(dir, "records")}/*/*.parquet', hive_partitioning = true)`, dir);
    const row = (id: string, records: number, now: typeof stats, floor: typeof stats): Figure => ({
      id,
      records,
      now: `${ms(now.ms)}, peak ${now.peakMb.toFixed(0)} MB`,
      baseline: `count(*) ${ms(floor.ms)}, peak ${floor.peakMb.toFixed(0)} MB`,
      ratio: x(now.ms / floor.ms),
      target: "–",
      met: null,
      data: { ms: now.ms, cpuMs: now.cpuMs, peakMb: now.peakMb, floorMs: floor.ms, floorPeakMb: floor.peakMb },
    });
    o.log(
      `    org stats ${ms(stats.ms)} (peak ${stats.peakMb.toFixed(0)} MB) vs count(*) ${ms(linesFloor.ms)}; records by month ${ms(byMonth.ms)} vs count(*) ${ms(recordsFloor.ms)}`,
    );
    return [
      row(`org stats (${size.repos.toLocaleString("en")} repos × ${ORG.runsPerRepo.toLocaleString("en")} runs)`, size.runs, stats, linesFloor),
      row(`org records by model and month (${(size.records / 1e6).toFixed(0)} M records)`, size.records, byMonth, recordsFloor),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
