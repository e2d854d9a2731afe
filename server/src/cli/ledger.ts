import { relative, resolve } from "node:path";
import { compactLedger, exportLines } from "../io/ledger/compact";
import { segmentsDir } from "../io/ledger/segments";
import { writeLinesAtomic } from "../io/atomicWrite";
import { CliError, parse, ROOT_OPTION, type Command } from "./args";
import { openWorkspace } from "./workspace";

const DEFAULT_KEEP_DAYS = 30;

const LEDGER_USAGE = `intent ledger compact [--before DATE | --keep-days N] [--root DIR]

Seals the live ledger's records older than the cut into compressed segments (one per calendar month) in
<ledger>.segments/, and keeps only the newer ones in the live file, which agents and other Agent Trace tools
keep appending to. Every command reads the segments before the live file; \`intent verify\` checks both and
\`intent export\` writes any period back as plain Agent Trace JSONL. Segments decode to exactly the lines that
were sealed. Commit the segments folder with the live file. Safe to stop at any point and to run again.

  --before DATE    seal records older than this date (ISO 8601, e.g. 2026-01-01)
  --keep-days N    seal records older than N days (default ${DEFAULT_KEEP_DAYS})`;

export const ledgerCommand: Command = {
  usage: LEDGER_USAGE,
  async run(argv, io) {
    const { values, positionals } = parse("ledger", argv, { ...ROOT_OPTION, before: { type: "string" }, "keep-days": { type: "string" } }, { min: 1, max: 1 });
    if (positionals[0] !== "compact") throw new CliError(`unknown ledger action "${positionals[0]}"; the one action is \`intent ledger compact\``, 2);
    if (values.before !== undefined && values["keep-days"] !== undefined) throw new CliError("pass --before or --keep-days, not both", 2);
    const before = values.before !== undefined ? dateOption("--before", values.before) : daysAgo(values["keep-days"]);
    const ws = openWorkspace(io, values.root);
    const ledgerPath = ws.rules.settings.ledgerPath;
    const r = await compactLedger(ws.root, ledgerPath, before);
    if (!r.sealed && !r.alreadySealed) {
      io.out(`Nothing to seal: ${ledgerPath} holds no record older than ${before.toISOString()}.\n`);
      return 0;
    }
    const parts = [];
    if (r.sealed)
      parts.push(
        `sealed ${r.sealed} line${r.sealed === 1 ? "" : "s"} into ${r.segments.length} segment${r.segments.length === 1 ? "" : "s"} in ${segmentsDir(ledgerPath)}/`,
      );
    if (r.alreadySealed) parts.push(`removed ${r.alreadySealed} line${r.alreadySealed === 1 ? "" : "s"} a segment already held`);
    io.out(`${capitalize(parts.join("; "))}; ${ledgerPath} keeps ${r.kept}. Commit both.\n`);
    return 0;
  },
};

const EXPORT_USAGE = `intent export [--since DATE] [--until DATE] [--out FILE] [--root DIR]

Writes the ledger's records of a period — sealed segments and the live file — as plain Agent Trace JSONL, each
record exactly as its writer wrote it, oldest first, to standard output or FILE.

  --since DATE   records at or after this time (ISO 8601)
  --until DATE   records before this time (ISO 8601)
  --out FILE     write here instead of standard output (replaced atomically)`;

export const exportCommand: Command = {
  usage: EXPORT_USAGE,
  async run(argv, io) {
    const { values } = parse("export", argv, { ...ROOT_OPTION, since: { type: "string" }, until: { type: "string" }, out: { type: "string" } });
    const since = values.since !== undefined ? dateOption("--since", values.since) : undefined;
    const until = values.until !== undefined ? dateOption("--until", values.until) : undefined;
    const ws = openWorkspace(io, values.root);
    const lines = exportLines(ws.root, ws.rules.settings.ledgerPath, { since, until });
    if (values.out === undefined) {
      for (const line of lines) io.out(`${line.toString("utf8")}\n`);
      return 0;
    }
    const out = resolve(io.cwd, values.out);
    // the person named the file: written where they said, whole or not at all
    const count = writeLinesAtomic(out, lines);
    io.out(`Wrote ${count} record${count === 1 ? "" : "s"} to ${relative(io.cwd, out) || out}.\n`);
    return 0;
  },
};

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
