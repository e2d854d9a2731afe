import { relative, resolve } from "node:path";
import { defaultRepoName, exportParquet } from "../io/export/parquetExport";
import { oneLine } from "../engine/terminalText";
import { CliError, progressOf, type Io } from "./args";
import { openWorkspace, readLedger } from "./workspace";

/** `intent export --format parquet` (docs/EXPORT.md): the door; io/export/parquetExport.ts does the work. */
export async function parquetExport(
  values: { out?: string; repo?: string; "no-names"?: boolean; since?: string; until?: string; root?: string },
  io: Io,
): Promise<number> {
  if (values.out === undefined) throw new CliError("--format parquet needs --out DIR, the folder the tables go under", 2);
  if (values.since !== undefined || values.until !== undefined)
    throw new CliError("--since and --until do not go with --format parquet: the export is of every record, and a second run adds only the new ones", 2);
  const ws = openWorkspace(io, values.root);
  const out = resolve(io.cwd, values.out);
  const repo = values.repo?.trim() || defaultRepoName(ws.root);
  const progress = progressOf(io, "exporting to Parquet");
  try {
    progress.update(`exporting ${repo} to Parquet`);
    // the ledger's index is read only when the code's lines must be counted again
    const warn = (text: string) => progress.warn(`intent export: warning: ${oneLine(text)}\n`);
    const result = await exportParquet(ws.root, ws.rules, () => readLedger(ws), { out, repo, names: !values["no-names"], warn });
    progress.done();
    const where = relative(io.cwd, out) || out;
    const said = result.tables.map(
      (t) => `${t.table} ${t.file ? `${t.rows} row${t.rows === 1 ? "" : "s"} (${t.bytes} bytes)` : t.rows ? "unchanged" : "nothing new"}`,
    );
    io.out(
      `Exported ${repo} to ${where}${result.restarted ? " (the ledger is not the one last exported: written again from its start)" : ""}: ${said.join(", ")}.\n`,
    );
    return 0;
  } catch (e) {
    progress.done();
    throw e instanceof CliError ? e : new CliError((e as Error).message);
  }
}
