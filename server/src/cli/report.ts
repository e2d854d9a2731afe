import { resolve } from "node:path";
import { percent } from "../engine/authorship";
import { DEFAULT_REPORT, reportFrom, reportOptions, writeReportNamed } from "../io/report";
import { REPORT_SCRIPT } from "../reportScript";
import { INTENT_LSP_VERSION } from "../version";
import { CliError, parse, type Command, type Options, type Io } from "./args";
import { unreadableWarnings } from "./blame";
import { gatherShowingProgress, INSIGHT_OPTIONS, insightOptions } from "./stats";
import { openWorkspace } from "./workspace";

const USAGE = `intent report [--out FILE.html|-] [--path GLOB] [--since WHEN] [--until WHEN] [--by day|week|month] [--root DIR]

One self-contained HTML page (no network: script, styles and charts inline) with \`intent stats\`'s numbers:
AI share over time, by intent, model, person and folder, out-of-scope and untraced lines, and tables that
list the lines behind each number (file, range, record). --out defaults to ${DEFAULT_REPORT} (ignored
by git); any other path is written where you name it (relative to the current directory), replaced whole;
"-" prints the page. The history is per week unless --by says.`;

const OPTIONS = { ...INSIGHT_OPTIONS, out: { type: "string" } } as const satisfies Options;

export const reportCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io: Io) {
    const { values } = parse("report", argv, OPTIONS);
    if (!REPORT_SCRIPT) throw new CliError("this build of intent has no report page script; build it with `npm run build`");
    const ws = openWorkspace(io, values.root);
    const opts = insightOptions(ws.root, values, true);
    const gathered = await gatherShowingProgress(io, ws, reportOptions(opts), "report");
    const { html, insight } = reportFrom(ws.root, gathered.insight, opts, { version: INTENT_LSP_VERSION, script: REPORT_SCRIPT });
    for (const warning of unreadableWarnings(gathered.unreadable, "report")) io.err(warning);
    if (values.out === "-") {
      await io.write(html);
      return 0;
    }
    let written: string;
    try {
      written = writeReportNamed(ws.root, html, values.out === undefined ? undefined : resolve(io.cwd, values.out));
    } catch (e) {
      throw new CliError((e as Error).message);
    }
    const t = insight.lines;
    io.out(
      `Wrote ${written}: AI wrote ${percent(t.ai, t.total)} of ${t.total.toLocaleString("en")} lines; ${t.untraced.toLocaleString("en")} untraced (${percent(t.untraced, t.total)}).\n`,
    );
    return 0;
  },
};
