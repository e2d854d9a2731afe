/**
 * `intent report` as one self-contained HTML page (docs/INSIGHT.md): the numbers of `intent stats` in
 * tables that are complete without a script, the runs of lines behind them as data the page's script
 * (clients/report/page.ts, Chart.js bundled in) filters and draws. Nothing is fetched: the page's
 * Content-Security-Policy allows no request at all, so it opens the same offline, attached to a mail or in
 * an editor's webview.
 */
import { AUTHORS, percent, type Author, type LineCounts } from "./authorship";
import type { HistoryRow, Insight, Undated } from "./insight";
import { surenessText } from "./confidence";

export interface ReportMeta {
  /** The workspace's folder name (never its absolute path: the page is meant to be shared). */
  workspace: string;
  generatedAt: string;
  version: string;
  path?: string;
  binaryFiles: number;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const n = (x: number) => x.toLocaleString("en");
const SCRIPT_UNSAFE: Record<string, string> = { "<": "\\u003c", "\u2028": "\\u2028", "\u2029": "\\u2029" };
/** JSON inside a <script> element: nothing in it may close the element or start a comment (one pass over megabytes). */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/[<\u2028\u2029]/g, (c) => SCRIPT_UNSAFE[c]!);

const LABEL: Record<Author, string> = {
  ai: "AI",
  human: "people",
  mixed: "mixed",
  unknown: "unknown",
  untraced: "untraced",
  beforeAdoption: "before adoption",
};

/** The rows each breakdown table shows; the lines table below lists every run. */
const TABLE_ROWS = 25;

function breakdown(title: string, id: string, rows: { label: string; filter: string; lines: LineCounts }[], withUntraced: boolean): string {
  if (!rows.length) return `<section><h2>${esc(title)}</h2><p class="none">No traced lines.</p></section>`;
  // the first column is named for what each row is (intent, model, person, folder), as the chart's id says
  // lines from before the adoption point get a column where there are any: the columns add up to "lines"
  const adopted = withUntraced && rows.some((r) => r.lines.beforeAdoption > 0);
  const head = `<tr><th>${esc(id)}</th><th>lines</th><th>AI share</th><th>AI</th><th>people</th><th>mixed</th><th>unknown</th>${adopted ? "<th>before adoption</th>" : ""}${withUntraced ? "<th>untraced</th>" : ""}<th>out of scope</th></tr>`;
  const body = rows
    .slice(0, TABLE_ROWS)
    .map(
      (r) =>
        `<tr data-filter="${esc(r.filter)}" tabindex="0" title="Show these lines"><td>${esc(r.label)}</td><td>${n(r.lines.total)}</td><td>${percent(r.lines.ai, r.lines.total)}</td><td>${n(r.lines.ai)}</td><td>${n(r.lines.human)}</td><td>${n(r.lines.mixed)}</td><td>${n(r.lines.unknown)}</td>${adopted ? `<td>${n(r.lines.beforeAdoption)}</td>` : ""}${withUntraced ? `<td>${n(r.lines.untraced)}</td>` : ""}<td>${n(r.lines.outOfScope)}</td></tr>`,
    )
    .join("");
  const more =
    rows.length > TABLE_ROWS ? `<p class="note">${n(rows.length - TABLE_ROWS)} more not shown; <code>intent stats --json</code> lists them all.</p>` : "";
  return `<section><h2>${esc(title)}</h2><div class="chart"><canvas id="chart-${id}" role="img" aria-label="${esc(title)}"></canvas></div><table class="counts">${head}${body}</table>${more}</section>`;
}

const CSS = `
:root{color-scheme:light dark;--bg:#fbfbfd;--fg:#1d1d27;--muted:#5d6072;--card:#fff;--line:#e3e4ea;--ai:#7c3aed;--human:#0f9488;--mixed:#d97706;--unknown:#64748b;--untraced:#c9cdd8;--before-adoption:#e6e1d3;--out:#dc2626;--accent:#4f46e5}
@media (prefers-color-scheme:dark){:root{--bg:#15161c;--fg:#e7e8ee;--muted:#a0a3b5;--card:#1e1f27;--line:#30323d;--ai:#a78bfa;--human:#2dd4bf;--mixed:#fbbf24;--unknown:#94a3b8;--untraced:#4a4f60;--before-adoption:#5c5646;--out:#f87171;--accent:#818cf8}}
body.vscode-light{--bg:#fbfbfd;--fg:#1d1d27;--muted:#5d6072;--card:#fff;--line:#e3e4ea;--ai:#7c3aed;--human:#0f9488;--mixed:#d97706;--unknown:#64748b;--untraced:#c9cdd8;--before-adoption:#e6e1d3;--out:#dc2626;--accent:#4f46e5}
body.vscode-dark,body.vscode-high-contrast{--bg:#15161c;--fg:#e7e8ee;--muted:#a0a3b5;--card:#1e1f27;--line:#30323d;--ai:#a78bfa;--human:#2dd4bf;--mixed:#fbbf24;--unknown:#94a3b8;--untraced:#4a4f60;--before-adoption:#5c5646;--out:#f87171;--accent:#818cf8}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1180px;margin:0 auto;padding:28px 24px 64px}
h1{font-size:22px;margin:0 0 2px}h2{font-size:16px;margin:0 0 12px}
.sub{color:var(--muted);margin:0 0 22px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(160px,1fr));gap:12px;margin-bottom:20px}
.card,section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px 16px}
.card b{display:block;font-size:24px;font-variant-numeric:tabular-nums}.card span{color:var(--muted);font-size:12px}
.card.ai b{color:var(--ai)}.card.human b{color:var(--human)}.card.untraced b{color:var(--muted)}.card.beforeAdoption b{color:var(--muted)}.card.out b{color:var(--out)}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:16px;margin-bottom:16px}
section{margin-bottom:16px;overflow-x:auto}
.chart{position:relative;height:240px;margin-bottom:12px}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{text-align:right;padding:4px 8px;border-bottom:1px solid var(--line);white-space:nowrap}
th:first-child,td:first-child{text-align:left;white-space:normal;overflow-wrap:anywhere;min-width:9em}
table.counts{font-size:13px}
.grid table.counts th:first-child,.grid table.counts td:first-child{min-width:7em}
th{color:var(--muted);font-weight:600;font-size:12px;white-space:normal;vertical-align:bottom}
th,td{padding:4px 6px}
#lines-table th,#lines-table td{text-align:left}#lines-table td:nth-child(2),#lines-table td:nth-child(3),#lines-table th:nth-child(2),#lines-table th:nth-child(3){text-align:right}
tr[data-filter]{cursor:pointer}tr[data-filter]:hover,tr[data-filter]:focus,tr.active{background:color-mix(in srgb,var(--accent) 12%,transparent);outline:none}
i.ai{background:var(--ai)}i.human{background:var(--human)}i.mixed{background:var(--mixed)}i.unknown{background:var(--unknown)}i.untraced{background:var(--untraced)}i.beforeAdoption{background:var(--before-adoption)}
.legend{display:flex;gap:14px;flex-wrap:wrap;color:var(--muted);font-size:12px;margin:-6px 0 16px}.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.note,.none{color:var(--muted);font-size:12px}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.controls{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin-bottom:10px}
input,button{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:4px 8px}
button{cursor:pointer}
td.author-ai{color:var(--ai)}td.author-human{color:var(--human)}td.author-mixed{color:var(--mixed)}td.author-untraced{color:var(--muted)}td.author-beforeAdoption{color:var(--muted)}
td.out{color:var(--out)}
`;

/** The lines in the code today by the period they were written in, untraced ones by their commit time. */
function inCodeSection(by: string, periods: readonly HistoryRow[], undated: Undated): string {
  // lines from before the adoption point have a column of their own where there are any (the columns add up to "lines today")
  const adopted = periods.some((p) => p.inCode.beforeAdoption > 0);
  const rows = periods
    .map(
      (p) =>
        `<tr data-filter="inCode:${esc(p.period)}" tabindex="0" title="Show these lines"><td>${esc(p.period)}</td><td>${n(p.inCode.total)}</td><td>${n(p.inCode.ai)}</td><td>${n(p.inCode.human)}</td><td>${n(p.inCode.mixed + p.inCode.unknown)}</td>${adopted ? `<td>${n(p.inCode.beforeAdoption)}</td>` : ""}<td>${n(p.inCode.untraced)}</td><td>${p.inCode.untracedShare === null ? "–" : percent(p.inCode.untraced, p.inCode.total)}</td></tr>`,
    )
    .join("");
  const note = undated.lines
    ? `<p class="note">${n(undated.lines)} untraced ${undated.lines === 1 ? "line has" : "lines have"} no known commit time and ${undated.lines === 1 ? "is" : "are"} in no period: ${esc(undated.reasons.join("; ") || "git gave none")}.</p>`
    : "";
  return `<section><h2>Lines in the code today by the ${esc(by)} they were written, and the untraced share</h2><div class="chart"><canvas id="chart-untraced" role="img" aria-label="untraced share over time"></canvas></div>
<table class="counts"><tr><th>${esc(by)}</th><th>lines today</th><th>AI</th><th>people</th><th>mixed/unknown</th>${adopted ? "<th>before adoption</th>" : ""}<th>untraced</th><th>untraced share</th></tr>${rows}</table>
<p class="note">A traced line is of its record's time; an untraced line has no record, so it is of the time of the commit that brought it onto the current branch (a line merged from another branch: the merge's; a line not committed yet: today).</p>${note}</section>`;
}

/** An organisation's numbers (`intent org report`): one workspace's, with a repository dimension. */
export interface OrgDimensions {
  byRepo?: { repo: string; lines: LineCounts }[];
  byTeam?: { team: string; lines: LineCounts }[];
}

export function reportHtml(insight: Insight & OrgDimensions, meta: ReportMeta, script: string): string {
  const t = insight.lines;
  const filter = meta.path ? ` matching <code>${esc(meta.path)}</code>` : "";
  const cards = [
    ["ai", percent(t.ai, t.total), `written by AI (${n(t.ai)} lines)`],
    ["human", percent(t.human, t.total), `written by people (${n(t.human)} lines)`],
    ["mixed", n(t.mixed + t.unknown), "mixed or unknown contributor"],
    ["untraced", percent(t.untraced, t.total), `untraced (${n(t.untraced)} lines no record explains${t.beforeAdoption ? ", changed since adoption" : ""})`],
    ...(t.beforeAdoption
      ? [["beforeAdoption", percent(t.beforeAdoption, t.total), `before adoption (${n(t.beforeAdoption)} lines as they were when intent-lsp was taken up)`]]
      : []),
    ["out", n(insight.outOfScope.lines), "lines written out of their intent's scope"],
    ["total", n(t.total), `lines in ${n(insight.files)} files`],
  ]
    .map(([cls, big, small]) => `<div class="card ${cls}"><b>${big}</b><span>${esc(small!)}</span></div>`)
    .join("");
  const legend = `<div class="legend">${AUTHORS.map((a) => `<span><i class="${a}"></i>${LABEL[a]}</span>`).join("")}</div>`;
  const history = insight.history;
  const historySection = history?.periods.length
    ? `<section><h2>Lines written per ${history.by}, and how many of the AI's are still in the code</h2><div class="chart"><canvas id="chart-history" role="img" aria-label="history"></canvas></div>
<table class="counts"><tr><th>${history.by}</th><th>AI wrote</th><th>people wrote</th><th>mixed/unknown</th><th>out of scope</th><th>AI lines today</th><th>durability</th></tr>${history.periods
        .map(
          (p) =>
            `<tr data-filter="period:${esc(p.period)}" tabindex="0" title="Show the lines of this period still in the code"><td>${esc(p.period)}</td><td>${n(p.written.ai)}</td><td>${n(p.written.human)}</td><td>${n(p.written.mixed + p.written.unknown)}</td><td>${n(p.writtenOutOfScope)}</td><td>${n(p.surviving.ai)}</td><td>${p.durability === null ? "–" : percent(p.surviving.ai, p.written.ai)}</td></tr>`,
        )
        .join("")}</table></section>
${inCodeSection(history.by, history.periods, history.undated)}`
    : insight.byRepo
      ? `<section><h2>History</h2><p class="none">This page counts the code as it is in each repository. The history of what was written when is in the exported <code>records</code> table (docs/sql/), and on each repository's own <code>intent report</code>.</p></section>`
      : `<section><h2>History</h2><p class="none">No records in the ledger${history?.since || history?.until ? " for this window" : ""}.</p></section>`;
  const out = insight.outOfScope;
  const outSection = `<section><h2>Out of scope</h2>${
    out.lines
      ? `<table class="counts"><tr><th>intent</th><th>lines</th></tr>${out.byIntent.map((r) => `<tr data-filter="out:${esc(r.id ?? "")}" tabindex="0" title="Show these lines"><td>${esc(r.id ?? "(no intent)")}</td><td>${n(r.lines)}</td></tr>`).join("")}</table>`
      : `<p class="none">No line in the code was written outside its intent's scope.</p>`
  }</section>`;
  // what the page's script reads (clients/report/page.ts `Data`): not the per-file counts, which it never shows
  const data = {
    insight: { ...insight, blocks: undefined, byFile: undefined, outOfScope: { ...out, blocks: undefined } },
    blocks: insight.blocks ?? { strings: [], rows: [] },
    meta,
  };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Insight · ${esc(meta.workspace)}</title>
<style>${CSS}</style></head>
<body><main>
<h1>How much of ${esc(meta.workspace)} AI wrote</h1>
<p class="sub">${n(t.total)} lines in ${n(insight.files)} files${filter}, as they are now · every line counted once by the record that owns it, as <code>intent blame</code> shows it · ${esc(meta.generatedAt.slice(0, 16).replace("T", " "))} UTC · intent-lsp ${esc(meta.version)}${meta.binaryFiles ? ` · ${n(meta.binaryFiles)} binary files not counted` : ""}</p>
${t.ai ? `<p class="sub sure">AI wrote ${percent(t.ai, t.total)}: ${esc(surenessText(insight.confidence.ai, t.total))} · how sure each line's owner is, as <code>intent blame</code> says it (exact: the record's own hash matches the line)</p>` : ""}
<div class="cards">${cards}</div>
${legend}
${historySection}
<div class="grid">
${
  insight.byRepo
    ? breakdown(
        "By repository",
        "repo",
        insight.byRepo.map((r) => ({ label: r.repo, filter: `folder:${r.repo}`, lines: r.lines })),
        true,
      )
    : ""
}
${
  insight.byTeam
    ? breakdown(
        "By team",
        "team",
        insight.byTeam.map((r) => ({ label: r.team, filter: `team:${r.team}`, lines: r.lines })),
        true,
      )
    : ""
}
${breakdown(
  "By intent",
  "intent",
  insight.byIntent.map((r) => ({ label: r.id ?? "(no intent)", filter: `intent:${r.id ?? ""}`, lines: r.lines })),
  false,
)}
${breakdown(
  "By model",
  "model",
  insight.byModel.map((r) => ({ label: r.model ?? "(no model id)", filter: `model:${r.model ?? ""}`, lines: r.lines })),
  false,
)}
${breakdown(
  "By person",
  "person",
  insight.byPerson.map((r) => ({ label: r.person ?? "(no name)", filter: `person:${r.person ?? ""}`, lines: r.lines })),
  false,
)}
${breakdown(
  "Largest folders",
  "folder",
  insight.byFolder.map((r) => ({ label: `${r.path}/`, filter: `folder:${r.path}`, lines: r.lines })),
  true,
)}
</div>
${outSection}
${insight.byRepo ? `<section><h2>The lines behind the numbers</h2><p class="none">Each repository's <code>intent report</code> lists them, and the exported <code>lines</code> table holds every run.</p></section>` : ""}
<section id="lines"${insight.byRepo ? " hidden" : ""}><h2>The lines behind the numbers</h2>
<div class="controls"><input id="q" type="search" placeholder="filter: path, intent, model, person, record" size="40"><span id="filter-label" class="note"></span><button id="clear" type="button">show all</button></div>
<p id="lines-summary" class="note"></p>
<table id="lines-table"><thead><tr><th>file</th><th>lines</th><th>count</th><th>written by</th><th>intent</th><th>model / person</th><th>record</th><th>when</th></tr></thead><tbody></tbody></table>
<div class="controls"><button id="more" type="button">show more</button></div>
<p class="note">Each row is a run of lines owned by one record (or by none: untraced). <code>intent blame FILE:START-END</code> shows the same lines.</p>
</section>
</main>
<script type="application/json" id="insight-data">${scriptJson(data)}</script>
<script>${script.replace(/<\/script/gi, "<\\/script")}</script>
</body></html>
`;
}
