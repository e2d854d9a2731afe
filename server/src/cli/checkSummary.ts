/**
 * `intent check`'s pull request summary (docs/CI.md): the AI share of the changed lines by intent and
 * model, how many are untraced, and the findings, as Markdown. `--format github` appends it to the job's
 * summary (`$GITHUB_STEP_SUMMARY`); `--format markdown` prints it for any other CI. `--since`/`--until`
 * count only the changed lines written in that window, `--by` adds them per period; the findings are
 * always those of the whole check.
 */
import { percent, type LineCounts } from "../engine/authorship";
import { countedFindings, type Finding } from "../engine/check";
import type { ChangedInsight, Undated } from "../engine/insight";
import { codeCell, codeSpan, inlineText } from "../engine/markdownText";

export interface SummaryInput {
  repoPrefix: string;
  base: string;
  staged: boolean;
  checkedFiles: number;
  checkedLines: number;
  findings: readonly Finding[];
  /** The changed lines counted by who wrote them. */
  changed: ChangedInsight;
  /** `--path`: the counts are of these files' changed lines only. */
  path?: string;
}

const n = (x: number) => x.toLocaleString("en");
const plural = (x: number, word: string) => `${n(x)} ${word}${x === 1 ? "" : "s"}`;
/** A table cell of text: no line break, no column break, no markup. */
const cell = inlineText;
/** A name from the ledger (an intent id, a model id) as a table cell: as code, or the placeholder for none. */
const nameCell = (name: string | null, none: string) => (name === null ? none : codeCell(name));

const ICON: Record<Finding["severity"], string> = { error: "❌ error", warning: "⚠️ warning", information: "ℹ️ note", hint: "💡 hint" };

/** Rows each table shows; the JSON format has them all. */
const ROWS = 20;

function countsTable(head: string, rows: { cell: string; lines: LineCounts }[]): string {
  if (!rows.length) return "";
  const body = rows
    .slice(0, ROWS)
    .map(
      (r) =>
        `| ${r.cell} | ${n(r.lines.total)} | ${percent(r.lines.ai, r.lines.total)} | ${n(r.lines.ai)} | ${n(r.lines.human)} | ${n(r.lines.mixed + r.lines.unknown)} | ${n(r.lines.outOfScope)} |`,
    )
    .join("\n");
  const more = rows.length > ROWS ? `\n\n…and ${n(rows.length - ROWS)} more (\`intent check --format json\`, \`intent stats --json\`).` : "";
  return `| ${head} | changed lines | AI share | AI | people | mixed / unknown | out of scope |\n|---|---:|---:|---:|---:|---:|---:|\n${body}${more}\n\n`;
}

const day = (iso: string) => (iso.endsWith("T00:00:00.000Z") || iso.endsWith("T23:59:59.999Z") ? iso.slice(0, 10) : iso);

function undatedText(u: Undated, what: string): string {
  if (!u.lines) return "";
  return `${plural(u.lines, "untraced line")} ${what}: git gives ${u.lines === 1 ? "it" : "them"} no commit time (${cell(u.reasons.join("; ") || "no answer")}).`;
}

/** What `--since`/`--until` kept: the window, and how many changed lines fell outside it. */
function windowText(c: ChangedInsight): string {
  const w = c.window;
  if (!w) return "";
  const span = w.since && w.until ? `from ${day(w.since)} to ${day(w.until)}` : w.since ? `since ${day(w.since)}` : `until ${day(w.until!)}`;
  let out = `Counted: the changed lines written ${span} (a traced line at its record's time, an untraced one at the time of the commit that brought it onto the current branch; not committed yet: today). `;
  out += `${plural(w.leftOut, "changed line")} written outside it left out.`;
  const undated = undatedText(w.undated, "of them left out");
  return `${out}${undated ? ` ${undated}` : ""}\n\n`;
}

/** `--by`: the counted changed lines per period they were written in. */
function periodsTable(c: ChangedInsight): string {
  const h = c.history;
  if (!h) return "";
  const rows = h.periods.filter((p) => p.inCode.total);
  let out = `### Changed lines by the ${h.by} they were written\n\n`;
  if (!rows.length) out += `No counted changed line has a known time.\n\n`;
  else {
    out += `| ${h.by} | changed lines | AI share | AI | people | mixed / unknown | untraced | untraced share |\n|---|---:|---:|---:|---:|---:|---:|---:|\n`;
    out += rows
      .map((p) => {
        const i = p.inCode;
        return `| ${p.period} | ${n(i.total)} | ${percent(i.ai, i.total)} | ${n(i.ai)} | ${n(i.human)} | ${n(i.mixed + i.unknown)} | ${n(i.untraced)} | ${percent(i.untraced, i.total)} |`;
      })
      .join("\n");
    out += "\n\n";
  }
  const undated = undatedText(h.undated, "in no period");
  return undated ? `${out}${undated}\n\n` : out;
}

export function checkSummaryMarkdown(r: SummaryInput): string {
  const t = r.changed.lines;
  const against = `${r.staged ? "staged changes" : "working tree"} vs ${codeSpan(r.base)}`;
  const matching = r.path ? ` matching ${codeSpan(r.path)}` : "";
  let out = `## intent-lsp: who wrote this change\n\n`;
  out += t.total
    ? `**AI wrote ${percent(t.ai, t.total)} of ${plural(t.total, "changed line")}** in ${plural(r.changed.files, "file")}${matching} (${against}).\n\n` +
      `AI ${n(t.ai)} · people ${n(t.human)} · mixed ${n(t.mixed)} · unknown ${n(t.unknown)} · **untraced ${n(t.untraced)}** (${percent(t.untraced, t.total)}: no record explains them) · out of scope ${n(t.outOfScope)}\n\n`
    : `No changed lines with content${matching} (${against}).\n\n`;
  out += countsTable(
    "intent",
    r.changed.byIntent.map((i) => ({ cell: nameCell(i.id, "(no intent)"), lines: i.lines })),
  );
  out += countsTable(
    "model",
    r.changed.byModel.map((m) => ({ cell: nameCell(m.model, "(no model id)"), lines: m.lines })),
  );
  out += windowText(r.changed);
  out += periodsTable(r.changed);
  out += `### Findings\n\n${countedFindings(r.findings, plural)} in ${plural(r.checkedLines, "changed line")} of ${plural(r.checkedFiles, "file")}.\n`;
  if (r.findings.length) {
    out += `\n| | where | finding | message |\n|---|---|---|---|\n`;
    out += r.findings
      .slice(0, ROWS * 5)
      .map(
        (f) =>
          `| ${ICON[f.severity]} | ${codeCell(`${r.repoPrefix}${f.path}:${f.startLine}${f.endLine > f.startLine ? `-${f.endLine}` : ""}`)} | ${f.code} | ${cell(f.message)} |`,
      )
      .join("\n");
    out += "\n";
    if (r.findings.length > ROWS * 5) out += `\n…and ${n(r.findings.length - ROWS * 5)} more findings (the annotations list them all).\n`;
  }
  return out;
}
