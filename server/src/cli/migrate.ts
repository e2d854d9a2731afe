import { relative, resolve } from "node:path";
import { AGENT_TRACE_VERSION } from "@shared/agentTrace";
import { writeNamedFile, writeOwnFile } from "../io/ownFiles";
import { migrateLedger } from "../engine/ledger/migrate";
import { validateRecord } from "../io/ledger/schema";
import { pathExists, readOptional } from "../io/optionalFile";
import { CliError, parse, ROOT_OPTION, type Command, type Options } from "./args";
import { openWorkspace } from "./workspace";

const DEFAULT_OUT = ".orchestration/agent_trace.migrated.jsonl";

const USAGE = `intent migrate [--from FILE] [--out FILE] [--force] [--root DIR]

Converts a ledger written in older dialects (relative_path / entity_type records, flat intent_id / file_path
records, the reference implementation's version "1.0") into Agent Trace ${AGENT_TRACE_VERSION} records, in a NEW file
with a fresh tamper-evident chain. The original is never touched: review the result (\`intent verify --ledger
FILE\`), then replace the ledger with it yourself if you want to.

  --from FILE   the ledger to read (default: the workspace's ledger)
  --out FILE    where to write (default: ${DEFAULT_OUT}), in a folder that exists; refused if it
                exists, unless --force`;

const OPTIONS = { ...ROOT_OPTION, from: { type: "string" }, out: { type: "string" }, force: { type: "boolean" } } as const satisfies Options;

export const migrateCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io) {
    const { values } = parse("migrate", argv, OPTIONS);
    const ws = openWorkspace(io, values.root);
    const from = values.from ? resolve(io.cwd, values.from) : resolve(ws.root, ws.rules.settings.ledgerPath);
    const out = values.out ? resolve(io.cwd, values.out) : resolve(ws.root, DEFAULT_OUT);
    const show = (p: string) => relative(io.cwd, p) || p;
    if (from === out) throw new CliError(`--out must differ from the ledger being migrated (${show(from)}); migrate never rewrites the original`, 2);
    const text = readOptional(from);
    if (text === undefined) throw new CliError(`${show(from)}: no such file; pass --from FILE`);
    if (pathExists(out) && !values.force) throw new CliError(`${show(out)} already exists; pass --force to replace it, or --out FILE`);

    const result = migrateLedger(text, validateRecord);
    const content = result.lines.length ? `${result.lines.join("\n")}\n` : "";
    // the default lands in the workspace: the own-file writer (never through a link out of it); an --out
    // the person named is written where they said
    try {
      if (values.out) writeNamedFile(out, content);
      else writeOwnFile(ws.root, DEFAULT_OUT, content);
    } catch (e) {
      throw new CliError((e as Error).message);
    }
    for (const s of result.skipped) io.err(`${show(from)}:${s.line}: skipped: ${s.reason}\n`);
    const c = result.counts;
    io.out(
      `Wrote ${result.lines.length} records to ${show(out)} (converted: ${c.older} older, ${c.flat} flat, ${c.reference} reference; ` +
        `kept: ${c.spec} already ${AGENT_TRACE_VERSION}). ${show(from)} is unchanged; check the result with \`intent verify --ledger ${show(out)}\`.\n`,
    );
    return result.skipped.length ? 1 : 0;
  },
};
