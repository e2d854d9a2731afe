import { gitAiRecords } from "../engine/ledger/gitAiRecords";
import { appendWorkspaceRecords } from "../io/ledger/append";
import { exportLines } from "../io/ledger/compact";
import { runGit } from "../io/git";
import { GIT_AI_REF, readGitAiNotes } from "../io/gitAiNotes";
import type { TraceRecord } from "@shared/agentTrace";
import { CliError, parse, ROOT_OPTION, type Command, type Options } from "./args";
import { openWorkspace } from "./workspace";

const USAGE = `intent import git-ai [--dry-run] [--root DIR]

Turns git-ai's authorship notes (${GIT_AI_REF}, the Git AI Standard v3) into Agent Trace records appended to
the ledger, so the lines they attribute show in hover, \`intent blame\` and \`intent stats\` with their agent and
model, named as coming from git-ai. One record per note, file and session: the lines the note lists, as
they are in the commit it is attached to, found again by content wherever they are now. The same notes
always give the same records (ids and times come from the notes and their commits), and a record already in
the ledger is never written again: run it again after a fetch to bring in new notes only. Lines a note does
not list are not recorded (git-ai does not know who wrote them).

  --dry-run   say what would be imported, write nothing`;

const OPTIONS = { ...ROOT_OPTION, "dry-run": { type: "boolean" } } as const satisfies Options;

export const importCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io) {
    const { values, positionals } = parse("import", argv, OPTIONS, { min: 1, max: 1 });
    if (positionals[0] !== "git-ai") throw new CliError(`cannot import "${positionals[0]}": intent import reads git-ai's notes (\`intent import git-ai\`)`, 2);
    const ws = openWorkspace(io, values.root);
    const prefix = repoPrefix(ws.root);
    const { notes, unreadable } = readGitAiNotes(ws.root);
    const records: TraceRecord[] = [];
    const skipped: string[] = [];
    for (const n of notes) {
      // the notes name files from the repository's top; the ledger names them from the workspace's
      const inWorkspace = {
        ...n,
        note: { ...n.note, files: n.note.files.filter((f) => f.path.startsWith(prefix)).map((f) => ({ ...f, path: f.path.slice(prefix.length) })) },
      };
      const made = gitAiRecords({ ...inWorkspace, content: (path) => n.content(prefix + path) }, ws.rules.settings.identity);
      records.push(...made.records);
      skipped.push(...made.skipped);
    }
    records.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const present = recordIds(ws.root, ws.rules.settings.ledgerPath);
    const fresh = records.filter((r) => !present.has(r.id));
    for (const u of unreadable) io.err(`intent import: the note of ${u.commit.slice(0, 12)} was not imported: ${u.why}\n`);
    for (const s of skipped) io.err(`intent import: not imported: ${s}\n`);
    const lines = (rs: readonly TraceRecord[]) =>
      rs.reduce((n, r) => n + r.files[0]!.conversations[0]!.ranges.reduce((k, x) => k + x.end_line - x.start_line + 1, 0), 0);
    const summary = `${fresh.length} record${fresh.length === 1 ? "" : "s"} (${lines(fresh)} lines) from ${notes.length} git-ai note${notes.length === 1 ? "" : "s"}`;
    const already = records.length - fresh.length;
    const tail = already ? `; ${already} already in the ledger` : "";
    if (!notes.length && !unreadable.length) {
      io.out(`No git-ai notes in ${GIT_AI_REF}: nothing to import. (\`git fetch origin ${GIT_AI_REF}:${GIT_AI_REF}\` brings a remote's notes.)\n`);
      return 0;
    }
    if (values["dry-run"]) {
      io.out(`Would import ${summary}${tail}.\n`);
      return 0;
    }
    if (fresh.length) await appendWorkspaceRecords(ws.root, ws.rules.settings.ledgerPath, fresh);
    io.out(fresh.length ? `Imported ${summary}${tail}.\n` : `Nothing to import: every record of the ${notes.length} git-ai notes is in the ledger.\n`);
    return unreadable.length || skipped.length ? 1 : 0;
  },
};

/** The workspace's folder inside its repository (`sub/dir/`, or empty at the top). */
function repoPrefix(root: string): string {
  try {
    return runGit(root, ["rev-parse", "--show-prefix"]).trim();
  } catch (e) {
    throw new CliError(`${root} is not in a git repository, so it has no git-ai notes (${(e as Error).message})`);
  }
}

/** The ids of the records the ledger holds, sealed or live. */
function recordIds(root: string, ledgerPath: string): Set<string> {
  const ids = new Set<string>();
  for (const line of exportLines(root, ledgerPath)) {
    const m = /"id"\s*:\s*"([^"]{1,200})"/.exec(line.toString("utf8"));
    if (m) ids.add(m[1]!);
  }
  return ids;
}
