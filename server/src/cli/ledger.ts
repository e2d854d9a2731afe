import { relative, resolve } from "node:path";
import { compactLedger, exportLines, type SegmentStore } from "../io/ledger/compact";
import { sealedManifestPath, segmentsDir } from "../io/ledger/segments";
import { fetchSealedRef, pushSealedRef, SEALED_REF } from "../io/ledger/sealedRef";
import { writeNamedFile } from "../io/ownFiles";
import { CliError, parse, progressOf, ROOT_OPTION, type Command, type Options } from "./args";
import { openWorkspace } from "./workspace";
import { AGENT_TRACE_VERSION } from "@shared/agentTrace";
import { chainHash } from "../engine/hashing";
import { migrateLine, UnmigratableRecord } from "../engine/ledger/migrate";
import { detectDialect } from "../engine/ledger/read";
import { validateRecord } from "../io/ledger/schema";
import type { Io } from "./args";

const DEFAULT_KEEP_DAYS = 3;

const LEDGER_USAGE = `intent ledger compact [--before DATE | --keep-days N] [--store ref|folder] [--root DIR]
intent ledger fetch [REMOTE] [--root DIR]
intent ledger push [REMOTE] [--root DIR]

compact: seals the live ledger's records older than the cut into compressed segments (one per calendar
month) and keeps only the newer ones in the live file, which agents and other Agent Trace tools keep
appending to. Every command reads the segments before the live file; \`intent verify\` checks both and
\`intent export\` writes any period back as plain Agent Trace JSONL. Segments decode to exactly the lines that
were sealed. Safe to stop at any point and to run again.
In a git repository the segments are stored in git under ${SEALED_REF}, out of the working tree, and
<ledger>.sealed names them: commit it with the live file, and share the segments with \`intent ledger push\`.
Segments an earlier compaction left in <ledger>.segments/ move there too.

  --before DATE    seal records older than this date (ISO 8601, e.g. 2026-01-01)
  --keep-days N    seal records older than N days (default ${DEFAULT_KEEP_DAYS})
  --store folder   keep segments as files in <ledger>.segments/ (the only store outside git)

fetch: brings REMOTE's sealed segments (default origin) into this clone's ${SEALED_REF}.
push: fetch, then pushes ${SEALED_REF} to REMOTE (default origin). Both merge the segments of every clone
that sealed: no conflict to resolve.`;

const LEDGER_OPTIONS = { ...ROOT_OPTION, before: { type: "string" }, "keep-days": { type: "string" }, store: { type: "string" } } as const satisfies Options;

export const ledgerCommand: Command = {
  usage: LEDGER_USAGE,
  options: LEDGER_OPTIONS,
  async run(argv, io) {
    const { values, positionals } = parse("ledger", argv, LEDGER_OPTIONS, { min: 1, max: 2 });
    const [action, remote = "origin"] = positionals as [string, string | undefined];
    if (action === "fetch" || action === "push") {
      const ws = openWorkspace(io, values.root);
      if (action === "fetch") {
        const found = fetchSealedRef(ws.root, remote);
        io.out(found ? `Fetched ${remote}'s sealed ledger segments into ${SEALED_REF}.\n` : `${remote} has no sealed ledger segments (${SEALED_REF}) yet.\n`);
      } else {
        pushSealedRef(ws.root, remote);
        io.out(`Pushed ${SEALED_REF} to ${remote}.\n`);
      }
      return 0;
    }
    if (action !== "compact") throw new CliError(`unknown ledger action "${action}"; the actions are compact, fetch and push`, 2);
    if (positionals.length > 1) throw new CliError(`\`intent ledger compact\` takes no argument "${positionals[1]}"`, 2);
    if (values.before !== undefined && values["keep-days"] !== undefined) throw new CliError("pass --before or --keep-days, not both", 2);
    if (values.store !== undefined && values.store !== "ref" && values.store !== "folder")
      throw new CliError(`--store "${values.store}" is not ref or folder`, 2);
    const before = values.before !== undefined ? dateOption("--before", values.before) : daysAgo(values["keep-days"]);
    const ws = openWorkspace(io, values.root);
    const ledgerPath = ws.rules.settings.ledgerPath;
    const progress = progressOf(io, "compacting the ledger");
    let r: Awaited<ReturnType<typeof compactLedger>>;
    try {
      r = await compactLedger(ws.root, ledgerPath, before, values.store as SegmentStore | undefined, (text) => progress.update(text));
    } finally {
      progress.done();
    }
    if (!r.sealed && !r.alreadySealed && !r.moved) {
      io.out(`Nothing to seal: ${ledgerPath} holds no record older than ${before.toISOString()}.\n`);
      return 0;
    }
    const where = r.store === "ref" ? `${SEALED_REF} (named in ${sealedManifestPath(ledgerPath)})` : `${segmentsDir(ledgerPath)}/`;
    const parts = [];
    if (r.moved) parts.push(`moved ${r.moved} segment${r.moved === 1 ? "" : "s"} from ${segmentsDir(ledgerPath)}/ into ${where}`);
    if (r.sealed)
      parts.push(`sealed ${r.sealed} line${r.sealed === 1 ? "" : "s"} into ${r.segments.length} segment${r.segments.length === 1 ? "" : "s"} in ${where}`);
    if (r.alreadySealed) parts.push(`removed ${r.alreadySealed} line${r.alreadySealed === 1 ? "" : "s"} a segment already held`);
    const next =
      r.store === "ref" ? `Commit ${sealedManifestPath(ledgerPath)} and ${ledgerPath}, and share the segments with \`intent ledger push\`.` : "Commit both.";
    io.out(`${capitalize(parts.join("; "))}; ${ledgerPath} keeps ${r.kept}. ${next}\n`);
    return 0;
  },
};

const EXPORT_USAGE = `intent export [--since DATE] [--until DATE] [--out FILE] [--root DIR]
intent export --format parquet --out DIR [--repo NAME] [--no-names] [--root DIR]

Writes the ledger's records of a period — sealed segments and the live file — as plain Agent Trace JSONL,
oldest first, to standard output or FILE: every line a record that validates against the Agent Trace
${AGENT_TRACE_VERSION} schema ("version": "${AGENT_TRACE_VERSION}"). Records in that form are written exactly as their writer
wrote them; records of other dialects (the reference implementation's "1.0", older and flat records) are
converted as \`intent migrate\` converts them, and a line that cannot be a record is left out; stderr says which.

  --since DATE   records at or after this time (ISO 8601)
  --until DATE   records before this time (ISO 8601)
  --out FILE     write here instead of standard output (a file in a folder that exists, replaced whole)

--format parquet writes the workspace's facts as Hive-partitioned Parquet for SQL engines (docs/EXPORT.md):
DIR/<table>/repo=<NAME>/… for the tables lines (the code as it is, a row per run of lines with one owner),
records (every record, a row per file), lifecycle (every intent move) and repos. Run again, it writes only
what changed since (a watermark in DIR/_state/). \`intent org stats --from DIR\` reads them.

  --repo NAME    the repository's name in the tables (default: the origin's owner/name, else the folder's)
  --no-names     leave people's names out (the identity settings already decide what the ledger keeps)`;

const EXPORT_OPTIONS = {
  ...ROOT_OPTION,
  since: { type: "string" },
  until: { type: "string" },
  out: { type: "string" },
  format: { type: "string" },
  repo: { type: "string" },
  "no-names": { type: "boolean" },
} as const satisfies Options;

export const exportCommand: Command = {
  usage: EXPORT_USAGE,
  options: EXPORT_OPTIONS,
  async run(argv, io) {
    const { values } = parse("export", argv, EXPORT_OPTIONS);
    if (values.format !== undefined && values.format !== "jsonl") {
      if (values.format !== "parquet") throw new CliError(`--format ${values.format}: give jsonl (Agent Trace records, the default) or parquet`, 2);
      return (require("./exportParquet") as typeof import("./exportParquet")).parquetExport(values, io);
    }
    if (values.repo !== undefined || values["no-names"]) throw new CliError("--repo and --no-names go with --format parquet", 2);
    const since = values.since !== undefined ? dateOption("--since", values.since) : undefined;
    const until = values.until !== undefined ? dateOption("--until", values.until) : undefined;
    const ws = openWorkspace(io, values.root);
    const conversion = new SpecConversion();
    const lines = conversion.of(exportLines(ws.root, ws.rules.settings.ledgerPath, { since, until }));
    let count = 0;
    const progress = progressOf(io, "exporting the ledger");
    const counted = () => progress.update(`exporting the ledger: ${++count} records`);
    const out = values.out === undefined ? undefined : resolve(io.cwd, values.out);
    try {
      if (out === undefined) {
        // the records exactly as written, for a program to read: not text for a terminal
        for (const line of lines) {
          counted();
          await io.write(`${line.toString("utf8")}\n`);
        }
        conversion.report(io);
        return 0;
      }
      // the person named the file: written where they said, whole or not at all
      writeNamedFile(out, withNewlines(lines, counted));
    } catch (e) {
      throw out === undefined ? e : new CliError((e as Error).message);
    } finally {
      progress.done();
    }
    conversion.report(io);
    io.out(`Wrote ${count} record${count === 1 ? "" : "s"} to ${relative(io.cwd, out) || out}.\n`);
    return 0;
  },
};

/** Our own records start so: the appender validated each before writing it (io/ledger/append.ts). */
const OWN_RECORD_START = Buffer.from(`{"version":"${AGENT_TRACE_VERSION}","id":"`);
const OWN_TOOL = Buffer.from('"tool":{"name":"intent-lsp"');

/**
 * Export's lines as spec records: our own as written, other writers' that validate as written, the rest
 * converted as `intent migrate` converts them (a fresh `prev` to the line before in the export) or left out.
 */
class SpecConversion {
  private readonly converted = new Map<string, number>();
  private readonly leftOut: string[] = [];
  private previous: Buffer | undefined;
  private ordinal = 0;

  *of(lines: Iterable<Buffer>): Generator<Buffer> {
    for (const bytes of lines) {
      this.ordinal++;
      const line = this.specLine(bytes);
      if (line === undefined) continue;
      this.previous = line;
      yield line;
    }
  }

  private specLine(bytes: Buffer): Buffer | undefined {
    if (bytes.subarray(0, OWN_RECORD_START.length).equals(OWN_RECORD_START) && bytes.includes(OWN_TOOL)) return bytes;
    const raw = bytes.toString("utf8");
    try {
      const obj: unknown = JSON.parse(raw);
      if (detectDialect(obj) === "spec" && validateRecord(obj).length === 0) return bytes;
      const { line, dialect } = migrateLine(raw, this.ordinal, this.previous ? chainHash(this.previous) : null, validateRecord);
      const errors = dialect === "spec" ? validateRecord(JSON.parse(line)) : [];
      if (errors.length) throw new UnmigratableRecord(`does not match the Agent Trace schema: ${errors.slice(0, 3).join("; ")}`);
      this.converted.set(dialect, (this.converted.get(dialect) ?? 0) + 1);
      return Buffer.from(line);
    } catch (e) {
      this.leftOut.push(`record ${this.ordinal} of the period: ${e instanceof UnmigratableRecord ? e.message : (e as Error).message}`);
      return undefined;
    }
  }

  report(io: Io): void {
    if (this.converted.size) {
      const by = [...this.converted].map(([d, n]) => `${n} ${DIALECT_NAMES[d] ?? d}`).join(", ");
      io.err(`intent export: converted to Agent Trace ${AGENT_TRACE_VERSION} as \`intent migrate\` does: ${by}\n`);
    }
    for (const l of this.leftOut.slice(0, 20)) io.err(`intent export: left out ${l}\n`);
    if (this.leftOut.length > 20) io.err(`intent export: left out ${this.leftOut.length - 20} more; \`intent verify\` lists every line\n`);
  }
}

const DIALECT_NAMES: Record<string, string> = {
  reference: "of the reference implementation (version 1.0)",
  older: "of the older dialect (relative_path)",
  flat: "flat (file_path)",
};

const NEWLINE = new Uint8Array([0x0a]);

/** Each line followed by its newline, `counted` once per line. */
function* withNewlines(lines: Iterable<Uint8Array>, counted: () => void): Generator<Uint8Array> {
  for (const line of lines) {
    counted();
    yield line;
    yield NEWLINE;
  }
}

function dateOption(name: string, value: string): Date {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new CliError(`${name} "${value}" is not a date; write it as ISO 8601, e.g. 2026-01-01 or 2026-01-01T12:00:00Z`, 2);
  return new Date(t);
}

function daysAgo(value: string | undefined): Date {
  const days = value === undefined ? DEFAULT_KEEP_DAYS : Number(value);
  if (!Number.isInteger(days) || days < 0) throw new CliError(`--keep-days "${value}" is not a whole number of days`, 2);
  return new Date(Date.now() - days * 86_400_000);
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
