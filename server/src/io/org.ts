/**
 * What `intent org stats` and `intent org report` read (docs/EXPORT.md): the tables `intent export --format
 * parquet` wrote for many repositories, queried by an embedded DuckDB with the SQL that ships in docs/sql/
 * (the same text runs on Spark SQL), and counted by engine/export/orgInsight.ts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fileTallies from "../../../docs/sql/file_tallies.sql";
import outOfScopeRuns from "../../../docs/sql/out_of_scope_runs.sql";
import { COLUMNS, type TableName, TABLES } from "../engine/export/exportTables";
import { OrgCounter, type OrgInsight, type OutOfScopeRow, type TallyRow } from "../engine/export/orgInsight";
import { Duck, sqlString } from "./duckdb";

export interface OrgQuery {
  /** The folder the exports were written to (absolute). */
  from: string;
  /** Only this repository. */
  repo?: string;
  /** Repository → team. */
  teams?: ReadonlyMap<string, string>;
}

/** The Parquet files of `table` under `from` (any repository's partition). */
function partFiles(from: string, table: TableName, repo?: string): string[] {
  const dir = join(from, table);
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const part of readdirSync(dir)) {
    if (!part.startsWith("repo=") || (repo !== undefined && decodeURIComponent(part.slice("repo=".length)) !== repo)) continue;
    for (const f of readdirSync(join(dir, part))) if (f.endsWith(".parquet")) files.push(join(dir, part, f));
  }
  return files.sort();
}

/**
 * Makes each table a view named after it, as docs/sql/ names them: every repository's partition, `repo` a
 * column (Hive partitioning), restricted to `repo` when one is asked for. A table with no file yet is an
 * empty view with its columns, so every query runs. Made again for each repository (`repo`): only its
 * partition's files are read.
 */
export async function defineTables(duck: Duck, from: string, repo?: string): Promise<void> {
  for (const table of TABLES) {
    const files = partFiles(from, table, repo);
    const source = files.length
      ? `SELECT * FROM read_parquet([${files.map(sqlString).join(", ")}], hive_partitioning = true, hive_types = {'repo': VARCHAR}, union_by_name = true)`
      : `SELECT CAST(NULL AS VARCHAR) AS repo, ${COLUMNS[table].map((c) => `CAST(NULL AS ${c.type}) AS "${c.name}"`).join(", ")} WHERE false`;
    await duck.run(`CREATE OR REPLACE VIEW "${table}" AS ${source}`);
  }
}

const iso = (v: unknown): string | null => (v instanceof Date ? v.toISOString() : typeof v === "string" ? v : null);

/** The repositories with exported lines under `from` (their `lines` partitions), by name. */
function exportedRepos(from: string): string[] {
  const dir = join(from, "lines");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((p) => p.startsWith("repo="))
    .map((p) => decodeURIComponent(p.slice("repo=".length)))
    .sort();
}

/**
 * The organisation's numbers: what `intent org stats --json` prints. Read one repository at a time (the
 * tables as views over its partition only): the rows held at once are one repository's, whatever the
 * organisation's size.
 */
export async function queryOrg(q: OrgQuery): Promise<OrgInsight> {
  if (!existsSync(q.from)) throw new Error(`${q.from} does not exist; give --from the folder \`intent export --format parquet --out\` wrote to`);
  const all = exportedRepos(q.from);
  const repos = q.repo === undefined ? all : all.filter((r) => r === q.repo);
  if (q.repo !== undefined && !repos.length)
    throw new Error(`${q.from} holds no lines of the repository ${q.repo}; it holds ${all.length ? all.join(", ") : "none"}`);
  const counter = new OrgCounter(repos.length > 1, q.teams);
  let binaryFiles = 0;
  const duck = await Duck.open();
  try {
    for (const repo of repos) {
      await defineTables(duck, q.from, repo);
      const tallies = (await duck.rows(fileTallies)) as unknown as TallyRow[];
      const outOfScope = (await duck.rows(outOfScopeRuns)).map((r) => ({ ...r, written_at: iso(r["written_at"]) })) as unknown as OutOfScopeRow[];
      counter.add(tallies, outOfScope);
      for (const r of await duck.rows("SELECT MAX(binary_files) AS binary_files FROM repos")) binaryFiles += Number(r["binary_files"] ?? 0);
    }
  } finally {
    duck.close();
  }
  return counter.result(binaryFiles);
}

/** Runs one SQL text over the tables under `from` (the docs/sql/ files as a team runs them): its rows. */
export async function runOrgSql(from: string, sql: string): Promise<Record<string, unknown>[]> {
  const duck = await Duck.open();
  try {
    await defineTables(duck, from);
    return await duck.rows(sql);
  } finally {
    duck.close();
  }
}

/** Repository → team from a mapping file `{"team": ["owner/repo", …]}`; an error says what is wrong with it. */
export function readTeams(file: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}; give a JSON file {"team": ["owner/repo", …]}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`${file}: not a JSON object {"team": ["owner/repo", …]}`);
  const teams = new Map<string, string>();
  for (const [team, repos] of Object.entries(parsed)) {
    if (!Array.isArray(repos) || !repos.every((r) => typeof r === "string")) throw new Error(`${file}: team "${team}" must list its repositories as strings`);
    for (const r of repos as string[]) {
      const known = teams.get(r);
      if (known !== undefined && known !== team) throw new Error(`${file}: ${r} is in both "${known}" and "${team}"; a repository counts for one team`);
      teams.set(r, team);
    }
  }
  return teams;
}
