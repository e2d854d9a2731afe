import { basename, resolve } from "node:path";
import { percent } from "../engine/authorship";
import { reportHtml } from "../engine/reportPage";
import type { OrgInsight } from "../engine/export/orgInsight";
import { queryOrg, readTeams } from "../io/org";
import { writeNamedFile } from "../io/ownFiles";
import { REPORT_SCRIPT } from "../reportScript";
import { INTENT_LSP_VERSION } from "../version";
import { CliError, parse, progressOf, type Command, type Io, type Options } from "./args";
import { statsText } from "./stats";
import { oneLine } from "../engine/terminalText";

const USAGE = `intent org stats --from DIR [--repo NAME] [--teams FILE.json] [--json]
intent org report --from DIR --out FILE.html [--repo NAME] [--teams FILE.json]

An organisation's numbers from the tables \`intent export --format parquet --out DIR\` wrote for each of its
repositories (docs/EXPORT.md): the same numbers and page as \`intent stats\` and \`intent report\`, with a
repository dimension (and a team one when FILE.json maps teams to repositories), computed by an embedded DuckDB
with the SQL in docs/sql/ — the same SQL runs on Spark. One repository's numbers (--repo) are its own
\`intent stats\`'s. Nothing is sent anywhere.

  --from DIR        the folder the exports were written to
  --repo NAME       only this repository
  --teams FILE      {"team": ["owner/repo", …], …}: a team dimension (repositories in no team: "(no team)")
  --json            (stats) the numbers as \`intent stats --json\` gives them, with byRepo (and byTeam)
  --out FILE.html   (report) where the page goes`;

const OPTIONS = {
  from: { type: "string" },
  repo: { type: "string" },
  teams: { type: "string" },
  json: { type: "boolean" },
  out: { type: "string" },
} as const satisfies Options;

function byRepoText(s: OrgInsight): string {
  const rows = (s.byRepo ?? []).map((r) => `${oneLine(r.repo)}  ${r.lines.total.toLocaleString("en")} lines  AI ${percent(r.lines.ai, r.lines.total)}`);
  const teams = (s.byTeam ?? []).map((r) => `${oneLine(r.team)}  ${r.lines.total.toLocaleString("en")} lines  AI ${percent(r.lines.ai, r.lines.total)}`);
  return `\nrepositories (${s.repos})\n${rows.join("\n")}\n${teams.length ? `\nteams\n${teams.join("\n")}\n` : ""}`;
}

export const orgCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io: Io) {
    const [sub, ...rest] = argv;
    if (sub !== "stats" && sub !== "report") throw new CliError(`intent org ${sub ?? ""}: say stats or report (see \`intent org --help\`)`, 2);
    const { values } = parse(`org ${sub}`, rest, OPTIONS);
    if (values.from === undefined) throw new CliError(`intent org ${sub} needs --from DIR, the folder \`intent export --format parquet --out\` wrote to`, 2);
    if (sub === "report" && values.out === undefined) throw new CliError("intent org report needs --out FILE.html", 2);
    const from = resolve(io.cwd, values.from);
    let teams: Map<string, string> | undefined;
    try {
      teams = values.teams === undefined ? undefined : readTeams(resolve(io.cwd, values.teams));
    } catch (e) {
      throw new CliError(`--teams: ${(e as Error).message}`, 2);
    }
    const progress = progressOf(io, "reading the exported tables");
    let s: OrgInsight;
    try {
      s = await queryOrg({ from, ...(values.repo !== undefined ? { repo: values.repo } : {}), ...(teams ? { teams } : {}) });
    } catch (e) {
      throw e instanceof CliError ? e : new CliError((e as Error).message);
    } finally {
      progress.done();
    }
    if (sub === "stats") {
      if (values.json) await io.write(`${JSON.stringify(s, null, 2)}\n`);
      else io.out(statsText(s, undefined) + byRepoText(s));
      return 0;
    }
    if (!REPORT_SCRIPT) throw new CliError("this build of intent has no report page script; build it with `npm run build`");
    const html = reportHtml(
      s,
      {
        workspace: values.repo ?? `${s.repos} repositories in ${basename(from)}`,
        generatedAt: new Date().toISOString(),
        version: INTENT_LSP_VERSION,
        binaryFiles: s.binaryFiles,
      },
      REPORT_SCRIPT,
    );
    const out = resolve(io.cwd, values.out!);
    try {
      writeNamedFile(out, html, { durable: false });
    } catch (e) {
      throw new CliError((e as Error).message);
    }
    io.out(`Wrote ${out}: ${s.repos} repositories, AI wrote ${percent(s.lines.ai, s.lines.total)} of ${s.lines.total.toLocaleString("en")} lines.\n`);
    return 0;
  },
};
