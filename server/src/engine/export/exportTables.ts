/**
 * The tables `intent export --format parquet` writes (docs/EXPORT.md): their columns, once, with the types
 * every SQL engine reads them as, and the rows made from what intent-lsp already knows — the runs of lines
 * `intent stats` counts (engine/insight.ts `Run`), the ledger's entries, its lifecycle moves. Data only: the
 * writer (io/export/parquetExport.ts) turns rows into files.
 */
import type { Author } from "../authorship";
import type { Run } from "../insight";
import type { LifecycleEvent } from "../ledger/lifecycle";
import type { TraceEntry } from "../ledger/read";

/** Bumped whenever a column is added, removed or changes meaning; every table carries it. */
export const EXPORT_SCHEMA_VERSION = 1;

export type ColumnType = "VARCHAR" | "INTEGER" | "BIGINT" | "BOOLEAN" | "TIMESTAMP";

export interface Column {
  name: string;
  type: ColumnType;
  /** What it holds, as docs/EXPORT.md says it (a test keeps the two equal). */
  doc: string;
}

export type TableName = "lines" | "records" | "lifecycle" | "repos";
export const TABLES: readonly TableName[] = ["lines", "records", "lifecycle", "repos"];

export type Row = Record<string, string | number | boolean | null>;

const SCHEMA: Column = { name: "schema_version", type: "INTEGER", doc: `the export's schema version (${EXPORT_SCHEMA_VERSION})` };

/**
 * The columns of each table, in file order. `repo` is not among them: it is the Hive partition
 * (`<table>/repo=<name>/…`), which every engine reads as a column, and a file column of the same name
 * would clash with it on Spark.
 */
export const COLUMNS: Readonly<Record<TableName, readonly Column[]>> = {
  lines: [
    { name: "path", type: "VARCHAR", doc: "workspace-relative path, forward slashes" },
    { name: "start_line", type: "INTEGER", doc: "first line of the run, 1-based" },
    { name: "end_line", type: "INTEGER", doc: "last line of the run, inclusive (an empty file: one run with end_line 0)" },
    { name: "kind", type: "VARCHAR", doc: "who wrote the run: ai, human, mixed, unknown, untraced (no record explains it) or before_adoption" },
    { name: "intent", type: "VARCHAR", doc: "the intent of the record that owns the run; null for none" },
    { name: "model", type: "VARCHAR", doc: "the owning record's model id (models.dev form); null for none" },
    { name: "person", type: "VARCHAR", doc: "the person the owning record names; null for none or with --no-names" },
    { name: "record_id", type: "VARCHAR", doc: "the owning record's id; null for untraced runs" },
    { name: "out_of_scope", type: "BOOLEAN", doc: "the owning record was written outside its intent's scope" },
    { name: "confidence", type: "VARCHAR", doc: "how sure the owner is: exact, replayed, moved, inferred; null for untraced runs" },
    {
      name: "written_at",
      type: "TIMESTAMP",
      doc: "when the lines entered the branch: the owning record's time, or for untraced lines the commit that brought them; null when not known or not committed",
    },
    { name: "uncommitted", type: "BOOLEAN", doc: "untraced lines not committed yet" },
    { name: "head", type: "VARCHAR", doc: "the commit the working tree was at (null: not a git repository, or no commit)" },
    SCHEMA,
  ],
  records: [
    { name: "ledger_line", type: "BIGINT", doc: "the record's place in the ledger, sealed segments first, 1-based" },
    { name: "record_id", type: "VARCHAR", doc: "the record's id" },
    { name: "timestamp", type: "TIMESTAMP", doc: "when the record was written" },
    { name: "path", type: "VARCHAR", doc: "one file of the record (a record of several files has a row per file)" },
    { name: "contributor", type: "VARCHAR", doc: "ai, human, mixed or unknown, as the record says it for this file's first range" },
    { name: "model", type: "VARCHAR", doc: "the contributor's model id; null for none" },
    { name: "person", type: "VARCHAR", doc: "the person the record names; null for none or with --no-names" },
    { name: "intent", type: "VARCHAR", doc: "the intent the record was written under; null for none" },
    { name: "lines", type: "INTEGER", doc: "the lines the record claims in this file (its ranges' lengths summed)" },
    {
      name: "scope",
      type: "VARCHAR",
      doc: "the scope verdict when written: PASS, OUT_OF_SCOPE, NO_INTENT, INTENT_NOT_IN_PROGRESS, EXEMPT; null when the record has none",
    },
    { name: "session", type: "VARCHAR", doc: "the conversation url (intent-lsp's records: urn:intent-lsp:session:<id>)" },
    { name: "tool", type: "VARCHAR", doc: "the tool that wrote the record (intent-lsp, git-ai, …)" },
    { name: "mutation_class", type: "VARCHAR", doc: "the record's mutation class; null when it has none" },
    SCHEMA,
  ],
  lifecycle: [
    { name: "timestamp", type: "TIMESTAMP", doc: "when the intent moved" },
    { name: "intent", type: "VARCHAR", doc: "the intent" },
    { name: "from_status", type: "VARCHAR", doc: "its status before" },
    { name: "to_status", type: "VARCHAR", doc: "its status after" },
    { name: "revision", type: "VARCHAR", doc: "the commit the move was made at; null when not known" },
    { name: "verification", type: "VARCHAR", doc: "passed or skipped for a move to COMPLETE that was verified; null otherwise" },
    { name: "criteria", type: "VARCHAR", doc: "the acceptance criteria checked, as JSON (kind, name or text, passed/confirmed, exit code)" },
    { name: "confirmed_by", type: "VARCHAR", doc: "the person who confirmed the move; null for none or with --no-names" },
    SCHEMA,
  ],
  repos: [
    { name: "head", type: "VARCHAR", doc: "the commit the working tree was at" },
    { name: "exported_at", type: "TIMESTAMP", doc: "when this export ran" },
    { name: "files", type: "INTEGER", doc: "files counted (those `intent stats` counts)" },
    { name: "binary_files", type: "INTEGER", doc: "binary files, not counted" },
    { name: "records", type: "BIGINT", doc: "records in the ledger" },
    SCHEMA,
  ],
};

const KIND: Readonly<Record<Author, string>> = {
  ai: "ai",
  human: "human",
  mixed: "mixed",
  unknown: "unknown",
  untraced: "untraced",
  beforeAdoption: "before_adoption",
};

/** The author a `kind` column names (the inverse of the export's naming). */
export function authorOfKind(kind: string): Author | undefined {
  return (Object.keys(KIND) as Author[]).find((a) => KIND[a] === kind);
}

/** A file's runs as `lines` rows; `names`: false leaves people out. */
export function lineRows(path: string, runs: readonly Run[], head: string | null, names: boolean): Row[] {
  return runs.map((r) => ({
    path,
    start_line: r.start,
    end_line: r.end,
    kind: KIND[r.author],
    intent: r.intent ?? null,
    model: r.model ?? null,
    person: names ? (r.person ?? null) : null,
    record_id: r.traceId ?? null,
    out_of_scope: r.outOfScope === true,
    confidence: r.confidence ?? null,
    written_at: r.timestamp ?? (r.uncommitted ? null : (r.committed ?? null)),
    uncommitted: r.uncommitted === true,
    head,
    schema_version: EXPORT_SCHEMA_VERSION,
  }));
}

/**
 * One record's entries (one per range, several files possible) as `records` rows, a row per file.
 * `ledgerLine`: the record's place in the whole ledger.
 */
export function recordRows(entries: readonly TraceEntry[], ledgerLine: number, names: boolean): Row[] {
  const byPath = new Map<string, Row>();
  for (const e of entries) {
    const lines = e.startLine === 0 ? 0 : e.endLine - e.startLine + 1;
    const row = byPath.get(e.path);
    if (row) {
      row["lines"] = (row["lines"] as number) + lines;
      continue;
    }
    byPath.set(e.path, {
      ledger_line: ledgerLine,
      record_id: e.recordId,
      timestamp: e.timestamp,
      path: e.path,
      contributor: e.contributor.type,
      model: e.contributor.modelId ?? null,
      person: names ? (e.contributor.name ?? null) : null,
      intent: e.intentId ?? null,
      lines,
      scope: e.scope ?? null,
      session: e.url ?? null,
      tool: e.toolName ?? null,
      mutation_class: e.mutationClass ?? null,
      schema_version: EXPORT_SCHEMA_VERSION,
    });
  }
  return [...byPath.values()];
}

export function lifecycleRow(e: LifecycleEvent, names: boolean): Row {
  const v = e.verification;
  return {
    timestamp: e.at,
    intent: e.intentId,
    from_status: e.from,
    to_status: e.to,
    revision: e.revision ?? null,
    verification: v?.result ?? null,
    criteria: v ? JSON.stringify(v.criteria) : null,
    confirmed_by: names ? (v?.confirmed_by?.name ?? e.person?.name ?? null) : null,
    schema_version: EXPORT_SCHEMA_VERSION,
  };
}
