/**
 * DuckDB, embedded (docs/EXPORT.md): the engine `intent export --format parquet` writes Parquet with and
 * `intent org` reads it with. Loaded only by those commands — it is a native module of ~70 MB that no other
 * command, hook or the language server needs. Rows go in as newline-delimited JSON through a scratch file
 * of the process's own (DuckDB's JSON reader is its fastest way in from JavaScript), and every file meant for
 * the person is written by DuckDB into that scratch folder, then put in place by `writeNamedFile`.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Column, Row } from "../engine/export/exportTables";
import { isoMs } from "../engine/isoTime";
import { writeNamedFile } from "./ownFiles";

type DuckDb = typeof import("@duckdb/node-api");
type Connection = Awaited<ReturnType<Awaited<ReturnType<DuckDb["DuckDBInstance"]["create"]>>["connect"]>>;

function loadDuckDb(): DuckDb {
  try {
    return require("@duckdb/node-api") as DuckDb;
  } catch (e) {
    throw new Error(
      `DuckDB (the npm package @duckdb/node-api) could not be loaded: ${(e as Error).message.split("\n")[0]}. The Parquet export and \`intent org\` need it; install intent-lsp with its optional dependencies (npm install without --omit=optional).`,
    );
  }
}

/** A record's time as every engine reads it (read as intent-lsp reads record times: engine/isoTime.ts), else null. */
function isoOrNull(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const ms = isoMs(v);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** A SQL string literal. */
export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** One in-memory DuckDB with a scratch folder; `close` removes both. */
export class Duck {
  private constructor(
    private readonly connection: Connection,
    readonly scratch: string,
  ) {}

  static async open(): Promise<Duck> {
    const { DuckDBInstance } = loadDuckDb();
    const instance = await DuckDBInstance.create(":memory:");
    return new Duck(await instance.connect(), mkdtempSync(join(tmpdir(), "intent-duckdb-")));
  }

  async run(sql: string): Promise<void> {
    await this.connection.run(sql);
  }

  /**
   * The rows of a query as objects (BIGINT and HUGEINT as numbers: the counts it returns fit). Read by
   * column, then made into rows here: DuckDB's own row objects cost ten times as much at a million rows.
   */
  async rows(sql: string): Promise<Record<string, unknown>[]> {
    const reader = await this.connection.runAndReadAll(sql);
    const names = reader.columnNames();
    const columns = reader.getColumnsJS();
    const count = columns[0]?.length ?? 0;
    const out: Record<string, unknown>[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const row: Record<string, unknown> = {};
      for (let c = 0; c < names.length; c++) {
        const v = columns[c]![i];
        row[names[c]!] = typeof v === "bigint" ? Number(v) : v;
      }
      out[i] = row;
    }
    return out;
  }

  /**
   * Writes `rows` with `columns` as the Parquet file `target` (zstd), through the scratch folder; the bytes
   * it wrote. `target` is a file the person's `--out` named a folder for.
   */
  async writeParquet(target: string, columns: readonly Column[], rows: Iterable<Row>): Promise<{ rows: number; bytes: number }> {
    const json = join(this.scratch, "rows.jsonl");
    const parquet = join(this.scratch, "out.parquet");
    // written in batches: a million records must not become one string
    const fd = openSync(json, "w");
    let count = 0;
    let batch: string[] = [];
    const times = columns.filter((c) => c.type === "TIMESTAMP").map((c) => c.name);
    try {
      for (const r of rows) {
        // a time DuckDB could not read would fail the whole file: one no engine can read is null
        for (const t of times) r[t] = isoOrNull(r[t]);
        batch.push(JSON.stringify(r));
        count++;
        if (batch.length === 10_000) {
          writeSync(fd, `${batch.join("\n")}\n`);
          batch = [];
        }
      }
      if (batch.length) writeSync(fd, `${batch.join("\n")}\n`);
    } finally {
      closeSync(fd);
    }
    const types = `{${columns.map((c) => `${sqlString(c.name)}: ${sqlString(c.type)}`).join(", ")}}`;
    const select = count
      ? `SELECT ${columns.map((c) => `"${c.name}"`).join(", ")} FROM read_json(${sqlString(json)}, format = 'newline_delimited', columns = ${types})`
      : `SELECT ${columns.map((c) => `CAST(NULL AS ${c.type}) AS "${c.name}"`).join(", ")} WHERE false`;
    await this.run(`COPY (${select}) TO ${sqlString(parquet)} (FORMAT parquet, COMPRESSION zstd)`);
    const bytes = readFileSync(parquet);
    writeNamedFile(target, [bytes], { durable: false });
    rmSync(parquet, { force: true });
    rmSync(json, { force: true });
    return { rows: count, bytes: bytes.length };
  }

  close(): void {
    this.connection.closeSync?.();
    rmSync(this.scratch, { recursive: true, force: true });
  }
}
