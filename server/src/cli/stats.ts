import { oneLine } from "../engine/terminalText";
import { percent, type LineCounts } from "../engine/authorship";
import { surenessText } from "../engine/confidence";
import { PERIODS, type Insight, type InsightOptions, type Period } from "../engine/insight";
import { gatherInsightCached, parseWhen, type CachedInsight, type GatheredInsight } from "../io/insight";
import { CliError, parse, progressOf, ROOT_OPTION, type Command, type Options, type Io } from "./args";
import { unreadableWarnings } from "./blame";
import { openWorkspace, readLedger, type CliWorkspace } from "./workspace";

const USAGE = `intent stats [--json] [--path GLOB] [--since WHEN] [--until WHEN] [--by day|week|month] [--root DIR]

How much of the code AI wrote, under which intent, by which model and person: every line of the working
tree's files (tracked and untracked, not ignored; exempt paths left out) counted once by who wrote it, as
\`intent blame\` shows it. Lines no record explains are counted as untraced, never guessed; with an adoption
point (\`intent init\` records it), those still as they were there count apart, as "before adoption".

  --path GLOB    only these files ("src", "src/**/*.ts", "*.md")
  --since WHEN   history from WHEN (YYYY-MM-DD, an ISO time, or a git revision: its commit date)
  --until WHEN   history up to WHEN
  --by PERIOD    history per day, week or month (week when --since or --until is given alone):
                 lines written by AI and by people, and durability (of the AI's lines written then, the
                 share still in the code today); and the lines in the code today by when they were
                 written, untraced ones included: a traced line at its record's time, an untraced line
                 at the time of the commit that brought it onto the current branch (merged from another
                 branch: the merge's; uncommitted: today), with the untraced share of each period
  --json         the numbers as JSON`;

/** The options `intent stats`, `intent report` and `intent check --format` share. */
export const INSIGHT_OPTIONS = {
  ...ROOT_OPTION,
  path: { type: "string" },
  since: { type: "string" },
  until: { type: "string" },
  by: { type: "string" },
} as const;

export function insightOptions(root: string, values: { path?: string; since?: string; until?: string; by?: string }, history: boolean): InsightOptions {
  if (values.by !== undefined && !(PERIODS as readonly string[]).includes(values.by)) throw new CliError(`--by "${values.by}": use day, week or month`, 2);
  const when = (flag: string, given: string | undefined, end: boolean) => {
    if (given === undefined) return undefined;
    try {
      return parseWhen(root, given, end);
    } catch (e) {
      throw new CliError(`${flag}: ${(e as Error).message}`, 2);
    }
  };
  const since = when("--since", values.since, false);
  const until = when("--until", values.until, true);
  if (since !== undefined && until !== undefined && until < since) throw new CliError(`--until ${values.until} is before --since ${values.since}`, 2);
  const by = (values.by as Period | undefined) ?? (history || since !== undefined || until !== undefined ? "week" : undefined);
  return {
    ...(values.path ? { path: values.path } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(by ? { by } : {}),
  };
}

const n = (x: number) => x.toLocaleString("en");

function table(head: string[], rows: string[][]): string {
  const widths = head.map((_, c) => Math.max(...[head, ...rows].map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}

const countCells = (c: LineCounts) => [n(c.total), percent(c.ai, c.total), n(c.ai), n(c.human), n(c.mixed), n(c.unknown), n(c.outOfScope)];
const COUNT_HEAD = ["lines", "AI", "ai", "human", "mixed", "unknown", "out of scope"];

/** How many rows each breakdown shows in the terminal (`--json` has them all). */
const TOP = 10;

function section(title: string, rows: { name: string; lines: LineCounts }[], untracedColumn: boolean): string {
  if (!rows.length) return "";
  // lines from before the adoption point get a column where there are any: the columns add up to "lines"
  const adopted = untracedColumn && rows.some((r) => r.lines.beforeAdoption > 0);
  const shown = rows
    .slice(0, TOP)
    .map((r) => [oneLine(r.name), ...countCells(r.lines), ...(adopted ? [n(r.lines.beforeAdoption)] : []), ...(untracedColumn ? [n(r.lines.untraced)] : [])]);
  const more = rows.length > TOP ? `\n… and ${rows.length - TOP} more (--json lists all)` : "";
  return `\n${table([title, ...COUNT_HEAD, ...(adopted ? ["before adoption"] : []), ...(untracedColumn ? ["untraced"] : [])], shown)}${more}\n`;
}

export function statsText(s: GatheredInsight, filter: string | undefined): string {
  const t = s.lines;
  const where = `${n(s.files)} ${s.files === 1 ? "file" : "files"}${filter ? ` matching ${oneLine(filter)}` : ""}`;
  let out = `AI wrote ${percent(t.ai, t.total)} of ${n(t.total)} lines in ${where}${t.ai ? `: ${surenessText(s.confidence.ai, t.total)}` : ""}.\n`;
  out += `ai ${n(t.ai)} · human ${n(t.human)} · mixed ${n(t.mixed)} · unknown ${n(t.unknown)} · ${
    t.beforeAdoption
      ? `before adoption ${n(t.beforeAdoption)} (${percent(t.beforeAdoption, t.total)}: as they were when intent-lsp was taken up; \`intent blame\` shows git's authors) · untraced ${n(t.untraced)} (${percent(t.untraced, t.total)}: changed since, no record explains them)`
      : `untraced ${n(t.untraced)} (${percent(t.untraced, t.total)}: no record explains them)`
  }\n`;
  out += `Out of scope: ${n(s.outOfScope.lines)} ${s.outOfScope.lines === 1 ? "line" : "lines"}${s.outOfScope.byIntent.length ? ` (${s.outOfScope.byIntent.map((i) => `${oneLine(i.id ?? "no intent")} ${n(i.lines)}`).join(", ")})` : ""}\n`;
  if (s.binaryFiles) out += `${n(s.binaryFiles)} binary ${s.binaryFiles === 1 ? "file" : "files"} not counted (no lines).\n`;
  out += section(
    "intent",
    s.byIntent.map((r) => ({ name: r.id ?? "(no intent)", lines: r.lines })),
    false,
  );
  out += section(
    "model",
    s.byModel.map((r) => ({ name: r.model ?? "(no model id)", lines: r.lines })),
    false,
  );
  out += section(
    "person",
    s.byPerson.map((r) => ({ name: r.person ?? "(no name)", lines: r.lines })),
    false,
  );
  out += section(
    "folder",
    s.byFolder.map((r) => ({ name: `${r.path}/`, lines: r.lines })),
    true,
  );
  out += historyText(s);
  return out;
}

function historyText(s: Insight): string {
  const h = s.history;
  if (!h) return "";
  if (!h.periods.length)
    return `\nNo lines written ${h.since ? `since ${h.since.slice(0, 10)} ` : ""}${h.until ? `until ${h.until.slice(0, 10)}` : ""}.\n${undatedText(h.undated)}`;
  const rows = h.periods.map((p) => [
    p.period,
    n(p.written.ai),
    n(p.written.human),
    n(p.written.mixed + p.written.unknown),
    n(p.writtenOutOfScope),
    n(p.surviving.ai),
    p.durability === null ? "–" : percent(p.surviving.ai, p.written.ai),
  ]);
  let out = `\n${table([h.by, "AI wrote", "people wrote", "mixed/unknown", "out of scope", "AI lines today", "durability"], rows)}\n`;
  const inCode = h.periods.map((p) => [
    p.period,
    n(p.inCode.total),
    n(p.inCode.ai),
    n(p.inCode.human),
    n(p.inCode.mixed + p.inCode.unknown),
    n(p.inCode.untraced),
    p.inCode.untracedShare === null ? "–" : percent(p.inCode.untraced, p.inCode.total),
  ]);
  out += `\nLines in the code today by when they were written (untraced: when git committed them; uncommitted: today):\n`;
  out += `${table([h.by, "lines today", "ai", "human", "mixed/unknown", "untraced", "untraced share"], inCode)}\n`;
  return out + undatedText(h.undated);
}

function undatedText(u: { lines: number; reasons: string[] }): string {
  if (!u.lines) return "";
  return `${n(u.lines)} untraced ${u.lines === 1 ? "line has" : "lines have"} no known commit time and ${u.lines === 1 ? "is" : "are"} in no period: ${oneLine(u.reasons.join("; ")) || "git gave none"}.\n`;
}

/** `intent stats` and `intent report`'s numbers, the work's progress shown on a terminal meanwhile (io/progress.ts). */
export async function gatherShowingProgress(io: Io, ws: CliWorkspace, opts: InsightOptions, command = "stats"): Promise<CachedInsight> {
  const progress = progressOf(io, "looking at the files");
  try {
    return await gatherInsightCached(
      ws.root,
      ws.rules,
      opts,
      () => readLedger(ws, { progress }),
      (text) => progress.update(text),
      (text) => progress.warn(`intent ${command}: warning: ${oneLine(text)}\n`),
    );
  } finally {
    progress.done();
  }
}

const OPTIONS = { ...INSIGHT_OPTIONS, json: { type: "boolean" } } as const satisfies Options;

export const statsCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io: Io) {
    const { values } = parse("stats", argv, OPTIONS);
    const ws = openWorkspace(io, values.root);
    const opts = insightOptions(ws.root, values, false);
    const { insight: stats, unreadable } = await gatherShowingProgress(io, ws, opts);
    io.out(values.json ? `${JSON.stringify(stats, null, 2)}\n` : statsText(stats, values.path));
    for (const warning of unreadableWarnings(unreadable, "stats")) io.err(warning);
    return 0;
  },
};
