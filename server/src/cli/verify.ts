import { resolve } from "node:path";
import { verifyLedgerFile } from "../io/ledger/verify";
import { verifyWorkspaceLedger } from "../io/ledger/verifySegments";
import { CliError, parse, ROOT_OPTION, type Command, type Options } from "./args";
import { openWorkspace } from "./workspace";

const USAGE = `intent verify [--ledger FILE] [--base BRANCH] [--json] [--root DIR]

Checks the ledger line by line, its sealed segments first (\`intent ledger compact\`), then the live file:
unreadable or torn lines, v0.1.0 records that fail the Agent Trace schema, and breaks in the tamper-evident
\`prev\` chain (a record edited, removed or forged); a segment whose bytes no longer hash to its name or whose
predecessor is missing; records committed at HEAD that neither the ledger nor a segment still holds (the
file cut short, emptied or deleted since the last commit, which the chain alone cannot show). Records of older dialects are listed as legacy (not failures). Exit code 1 when there
is any problem other than legacy records.

  --ledger FILE   verify this file instead of the workspace's ledger (e.g. the output of \`intent migrate\`)
  --base BRANCH   also hold the ledger to the one committed at the merge-base of HEAD and BRANCH: a branch whose
                  commits cut or rewrote records committed before it passes the hold to HEAD, not this one (CI:
                  \`intent verify --base origin/main\`, with the history fetched)`;

const OPTIONS = { ...ROOT_OPTION, ledger: { type: "string" }, base: { type: "string" }, json: { type: "boolean" } } as const satisfies Options;

export const verifyCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io) {
    const { values } = parse("verify", argv, OPTIONS);
    const ws = openWorkspace(io, values.root);
    const display = values.ledger ?? ws.rules.settings.ledgerPath;
    const file = values.ledger ? resolve(io.cwd, values.ledger) : resolve(ws.root, ws.rules.settings.ledgerPath);
    if (values.ledger && values.base !== undefined)
      throw new CliError("--base holds the workspace's ledger to a branch; it does not go with --ledger; see `intent verify --help`", 2);
    let report: Awaited<ReturnType<typeof verifyLedgerFile>>;
    try {
      report = values.ledger ? await verifyLedgerFile(file) : await verifyWorkspaceLedger(ws.root, ws.rules.settings.ledgerPath, values.base);
    } catch (e) {
      throw new CliError(`cannot read ${display}: ${(e as Error).message}`);
    }
    if (!report) {
      if (values.ledger) throw new CliError(`${display}: no such file`);
      io.out(
        values.json
          ? `${JSON.stringify({ path: display, ok: true, records: 0, problems: [] }, null, 2)}\n`
          : `${display} does not exist yet: nothing to verify.\n`,
      );
      return 0;
    }
    if (values.json) io.out(`${JSON.stringify({ path: display, ...report }, null, 2)}\n`);
    else {
      const lines = report.problems.map((p) => `${p.path ?? display}:${p.line}: ${p.kind}: ${p.message}`);
      const failures = report.problems.filter((p) => p.kind !== "legacy").length;
      lines.push(
        `${report.records} records; ${failures ? `${failures} problem${failures === 1 ? "" : "s"}` : "no problems"}${report.problems.length > failures ? ` (${report.problems.length - failures} legacy)` : ""}.`,
      );
      io.out(`${lines.join("\n")}\n`);
    }
    return report.ok ? 0 : 1;
  },
};
