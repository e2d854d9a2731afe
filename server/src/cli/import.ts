import { appendWorkspaceRecords } from "../io/ledger/append";
import { claimedLines, GIT_AI_REF, gitAiImportPlan } from "../io/gitAiNotes";
import { CliError, parse, ROOT_OPTION, type Command, type Options } from "./args";
import { openWorkspace } from "./workspace";

const USAGE = `intent import git-ai [--dry-run] [--root DIR]

Turns git-ai's authorship notes (${GIT_AI_REF}, the Git AI Standard v3) into Agent Trace records appended to
the ledger, so the lines they attribute count in hover, \`intent blame\` and \`intent stats\` with their agent
and model; hover and blame name the note they come from. One record per note, file and session: the lines
it lists, as they are in the commit it is attached to, found again by content wherever they are now. The
same notes always give the same records (ids and times come from the notes and their commits), and a record
already in the ledger is never written again: run it again after a fetch to bring in new notes only. Lines
a note does not list are not recorded (git-ai does not know who wrote them).

  --dry-run   say what would be imported, write nothing`;

const OPTIONS = { ...ROOT_OPTION, "dry-run": { type: "boolean" } } as const satisfies Options;

export const importCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io) {
    const { values, positionals } = parse("import", argv, OPTIONS, { min: 1, max: 1 });
    if (positionals[0] !== "git-ai") throw new CliError(`cannot import "${positionals[0]}": intent import reads git-ai's notes (\`intent import git-ai\`)`, 2);
    const ws = openWorkspace(io, values.root);
    let plan: ReturnType<typeof gitAiImportPlan>;
    try {
      plan = gitAiImportPlan(ws.root, ws.rules.settings.ledgerPath, ws.rules.settings.identity);
    } catch (e) {
      throw new CliError(`could not read git-ai's notes in ${ws.root}: ${(e as Error).message}`);
    }
    const { fresh, records, unreadable, skipped, noteCount } = plan;
    for (const u of unreadable) io.err(`intent import: the note of ${u.commit.slice(0, 12)} was not imported: ${u.why}\n`);
    for (const s of skipped) io.err(`intent import: not imported: ${s}\n`);
    if (!noteCount) {
      io.out(`No git-ai notes in ${GIT_AI_REF}: nothing to import. (\`git fetch origin ${GIT_AI_REF}:${GIT_AI_REF}\` brings a remote's notes.)\n`);
      return 0;
    }
    const readable = noteCount - unreadable.length;
    const summary = `${fresh.length} record${fresh.length === 1 ? "" : "s"} (${claimedLines(fresh)} lines) from ${readable} git-ai note${readable === 1 ? "" : "s"}`;
    const already = records.length - fresh.length;
    const tail = already ? `; ${already} already in the ledger` : "";
    if (values["dry-run"]) {
      io.out(`Would import ${summary}${tail}.\n`);
      return 0;
    }
    if (fresh.length) await appendWorkspaceRecords(ws.root, ws.rules.settings.ledgerPath, fresh);
    io.out(fresh.length ? `Imported ${summary}${tail}.\n` : `Nothing to import: every record of the ${readable} git-ai notes is in the ledger.\n`);
    return unreadable.length || skipped.length ? 1 : 0;
  },
};
