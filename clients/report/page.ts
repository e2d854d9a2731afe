/**
 * The script of `intent report`'s page (server/src/engine/reportPage.ts): draws the charts with Chart.js
 * (bundled into the page by scripts/build.mjs) and lists the runs of lines behind a number when its row is
 * clicked. It computes nothing the report has not counted: every figure comes from the embedded data.
 */
import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartOptions,
  DoughnutController,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from "chart.js";

Chart.register(
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  DoughnutController,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
);

type Author = "ai" | "human" | "mixed" | "unknown" | "untraced" | "beforeAdoption";
/** In the order of the server's authors (engine/authorship.ts AUTHORS): a block's author is its index here. */
const AUTHORS: Author[] = ["ai", "human", "mixed", "unknown", "untraced", "beforeAdoption"];
const LABEL: Record<Author, string> = {
  ai: "AI",
  human: "people",
  mixed: "mixed",
  unknown: "unknown",
  untraced: "untraced",
  beforeAdoption: "before adoption",
};
/** The authors no record names: a run of theirs is of its commit time. */
const UNEXPLAINED = new Set([AUTHORS.indexOf("untraced"), AUTHORS.indexOf("beforeAdoption")]);
interface Counts extends Record<Author, number> {
  total: number;
  outOfScope?: number;
}
interface Data {
  insight: {
    lines: Counts;
    byIntent: { id: string | null; lines: Counts }[];
    byModel: { model: string | null; lines: Counts }[];
    byPerson: { person: string | null; lines: Counts }[];
    byFolder: { path: string; lines: Counts }[];
    /** `intent org report`: the repositories, and the teams when a mapping names them. */
    byRepo?: { repo: string; lines: Counts }[];
    byTeam?: { team: string; lines: Counts }[];
    history?: {
      by: string;
      periods: {
        period: string;
        written: Record<string, number>;
        writtenOutOfScope: number;
        surviving: Record<string, number>;
        durability: number | null;
        inCode: Counts & { untracedShare: number | null };
      }[];
    };
  };
  /** Every block's BLOCK_FIELDS numbers in one array (server/src/engine/blockTable.ts). */
  blocks: { strings: string[]; rows: number[] };
}

const data = JSON.parse(document.getElementById("insight-data")!.textContent!) as Data;
const S = data.blocks.strings;
const BLOCK_FIELDS = 12;
/** One array per block, made once: the filters and the table read a block's numbers by their place. */
const BLOCKS: number[][] = [];
for (let i = 0; i < data.blocks.rows.length; i += BLOCK_FIELDS) BLOCKS.push(data.blocks.rows.slice(i, i + BLOCK_FIELDS));
const str = (i: number) => (i < 0 ? undefined : S[i]);

function colors(): Record<Author | "out" | "fg" | "muted" | "line", string> {
  const css = getComputedStyle(document.body);
  const v = (name: string) => css.getPropertyValue(`--${name}`).trim();
  return {
    ai: v("ai"),
    human: v("human"),
    mixed: v("mixed"),
    unknown: v("unknown"),
    untraced: v("untraced"),
    beforeAdoption: v("before-adoption"),
    out: v("out"),
    fg: v("fg"),
    muted: v("muted"),
    line: v("line"),
  };
}

const TOP = 12;
const charts: Chart[] = [];

function stacked(id: string, labels: string[], rows: Counts[], authors: Author[], c: ReturnType<typeof colors>): void {
  const canvas = document.getElementById(id) as HTMLCanvasElement | null;
  if (!canvas) return;
  charts.push(
    new Chart(canvas, {
      type: "bar",
      data: {
        labels,
        datasets: authors.map((a) => ({ label: LABEL[a], data: rows.map((r) => r[a]), backgroundColor: c[a], borderWidth: 0, maxBarThickness: 28 })),
      },
      options: {
        indexAxis: "y",
        animation: false,
        maintainAspectRatio: false,
        plugins: { legend: { display: false }, tooltip: { mode: "index" } },
        scales: {
          x: { stacked: true, ticks: { color: c.muted }, grid: { color: c.line } },
          y: { stacked: true, ticks: { color: c.fg, autoSkip: false }, grid: { display: false } },
        },
      },
    }),
  );
}

function draw(): void {
  while (charts.length) charts.pop()!.destroy();
  const c = colors();
  const ins = data.insight;
  const traced: Author[] = ["ai", "human", "mixed", "unknown"];
  stacked(
    "chart-intent",
    ins.byIntent.slice(0, TOP).map((r) => r.id ?? "(no intent)"),
    ins.byIntent.slice(0, TOP).map((r) => r.lines),
    traced,
    c,
  );
  stacked(
    "chart-person",
    ins.byPerson.slice(0, TOP).map((r) => r.person ?? "(no name)"),
    ins.byPerson.slice(0, TOP).map((r) => r.lines),
    traced,
    c,
  );
  stacked(
    "chart-folder",
    ins.byFolder.slice(0, TOP).map((r) => `${r.path}/`),
    ins.byFolder.slice(0, TOP).map((r) => r.lines),
    AUTHORS,
    c,
  );
  if (ins.byRepo)
    stacked(
      "chart-repo",
      ins.byRepo.slice(0, TOP).map((r) => r.repo),
      ins.byRepo.slice(0, TOP).map((r) => r.lines),
      AUTHORS,
      c,
    );
  if (ins.byTeam)
    stacked(
      "chart-team",
      ins.byTeam.slice(0, TOP).map((r) => r.team),
      ins.byTeam.slice(0, TOP).map((r) => r.lines),
      AUTHORS,
      c,
    );
  const model = document.getElementById("chart-model") as HTMLCanvasElement | null;
  if (model) {
    const palette = [c.ai, c.human, c.mixed, c.unknown, c.out, c.muted];
    charts.push(
      new Chart(model, {
        type: "doughnut",
        data: {
          labels: ins.byModel.slice(0, TOP).map((r) => r.model ?? "(no model id)"),
          datasets: [
            {
              data: ins.byModel.slice(0, TOP).map((r) => r.lines.total),
              backgroundColor: ins.byModel.slice(0, TOP).map((_, i) => palette[i % palette.length]!),
              borderColor: c.line,
            },
          ],
        },
        options: { animation: false, maintainAspectRatio: false, plugins: { legend: { position: "right", labels: { color: c.fg } } } },
      }),
    );
  }
  drawInCode(c);
  const history = document.getElementById("chart-history") as HTMLCanvasElement | null;
  if (history && ins.history) {
    const p = ins.history.periods;
    charts.push(
      new Chart(history, {
        data: {
          labels: p.map((r) => r.period),
          datasets: [
            { type: "bar", label: "AI wrote", data: p.map((r) => r.written["ai"]!), backgroundColor: c.ai, stack: "w", yAxisID: "y", maxBarThickness: 56 },
            {
              type: "bar",
              label: "people wrote",
              data: p.map((r) => r.written["human"]!),
              backgroundColor: c.human,
              stack: "w",
              yAxisID: "y",
              maxBarThickness: 56,
            },
            {
              type: "bar",
              label: "mixed / unknown",
              data: p.map((r) => r.written["mixed"]! + r.written["unknown"]!),
              backgroundColor: c.mixed,
              stack: "w",
              yAxisID: "y",
              maxBarThickness: 56,
            },
            {
              type: "bar",
              label: "out of scope",
              data: p.map((r) => r.writtenOutOfScope),
              backgroundColor: c.out,
              stack: "o",
              yAxisID: "y",
              maxBarThickness: 56,
            },
            {
              type: "line",
              label: "AI share of lines written (%)",
              data: p.map((r) => share(r.written["ai"]!, r.written["ai"]! + r.written["human"]! + r.written["mixed"]! + r.written["unknown"]!)),
              borderColor: c.fg,
              backgroundColor: c.fg,
              yAxisID: "pct",
              spanGaps: true,
            },
            {
              type: "line",
              label: "durability (%)",
              data: p.map((r) => (r.durability === null ? null : Math.round(r.durability * 1000) / 10)),
              borderColor: c.muted,
              backgroundColor: c.muted,
              borderDash: [4, 4],
              yAxisID: "pct",
              spanGaps: true,
            },
          ],
        },
        options: timeChartOptions(c, "lines"),
      }),
    );
  }
}

/** The lines in the code today per period, untraced ones by commit time, and the untraced share. */
function drawInCode(c: ReturnType<typeof colors>): void {
  const canvas = document.getElementById("chart-untraced") as HTMLCanvasElement | null;
  const history = data.insight.history;
  if (!canvas || !history) return;
  const p = history.periods;
  const bar = (a: Author, values: number[]) => ({
    type: "bar" as const,
    label: LABEL[a],
    data: values,
    backgroundColor: c[a],
    stack: "c",
    yAxisID: "y",
    maxBarThickness: 56,
  });
  charts.push(
    new Chart(canvas, {
      data: {
        labels: p.map((r) => r.period),
        datasets: [
          bar(
            "ai",
            p.map((r) => r.inCode.ai),
          ),
          bar(
            "human",
            p.map((r) => r.inCode.human),
          ),
          bar(
            "mixed",
            p.map((r) => r.inCode.mixed + r.inCode.unknown),
          ),
          bar(
            "untraced",
            p.map((r) => r.inCode.untraced),
          ),
          bar(
            "beforeAdoption",
            p.map((r) => r.inCode.beforeAdoption ?? 0),
          ),
          {
            type: "line",
            label: "untraced share (%)",
            data: p.map((r) => (r.inCode.untracedShare === null ? null : Math.round(r.inCode.untracedShare * 1000) / 10)),
            borderColor: c.fg,
            backgroundColor: c.fg,
            yAxisID: "pct",
            spanGaps: true,
          },
        ],
      },
      options: timeChartOptions(c, "lines today"),
    }),
  );
}

/** What both charts over time show alike: stacked line counts (`lines`) on the left, percentages on the right. */
function timeChartOptions(c: ReturnType<typeof colors>, lines: string): ChartOptions<"bar" | "line"> {
  return {
    animation: false,
    maintainAspectRatio: false,
    plugins: { legend: { labels: { color: c.fg } }, tooltip: { mode: "index", intersect: false } },
    scales: {
      x: { stacked: true, ticks: { color: c.muted }, grid: { display: false } },
      y: { stacked: true, position: "left", ticks: { color: c.muted }, grid: { color: c.line }, title: { display: true, text: lines, color: c.muted } },
      pct: {
        min: 0,
        max: 100,
        position: "right",
        ticks: { color: c.muted },
        grid: { display: false },
        title: { display: true, text: "%", color: c.muted },
      },
    },
  };
}

const plural = (n: number, what: string) => `${n.toLocaleString("en")} ${what}${n === 1 ? "" : "s"}`;

function share(part: number, whole: number): number | null {
  return whole ? Math.round((1000 * part) / whole) / 10 : null;
}

// --- the lines behind a number ----------------------------------------------------------------------------

const PAGE = 200;
let shown = PAGE;
let rowFilter: ((r: number[]) => boolean) | undefined;
let filterText = "";

const periodOf = (iso: string, by: string) => {
  const d = new Date(iso);
  if (by === "month") return d.toISOString().slice(0, 7);
  if (by === "week") return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - ((d.getUTCDay() + 6) % 7))).toISOString().slice(0, 10);
  return d.toISOString().slice(0, 10);
};

/** The rows a table's `data-filter` names: exactly the lines its number counts. */
function filterFor(spec: string): (r: number[]) => boolean {
  const at = spec.indexOf(":");
  const kind = spec.slice(0, at);
  const value = spec.slice(at + 1);
  const is = (i: number) => (value === "" ? i < 0 : str(i) === value);
  switch (kind) {
    case "intent":
      return (r) => r[3]! < 4 && is(r[4]!);
    case "model":
      return (r) => r[3]! < 4 && is(r[5]!) && (r[5]! >= 0 || r[3] === 0 || r[3] === 2);
    case "person":
      return (r) => r[3]! < 4 && is(r[6]!) && (r[6]! >= 0 || r[3] === 1 || r[3] === 2);
    case "folder":
      return (r) => str(r[0]!)!.startsWith(`${value}/`);
    case "out":
      return (r) => r[9] === 1 && is(r[4]!);
    case "period": {
      const by = data.insight.history?.by ?? "week";
      return (r) => r[3] === 0 && r[8]! >= 0 && periodOf(str(r[8]!)!, by) === value;
    }
    case "inCode": {
      // a traced run at its record's time, an untraced one at its commit time: the numbers of its row
      const by = data.insight.history?.by ?? "week";
      return (r) => {
        const when = UNEXPLAINED.has(r[3]!) ? r[10]! : r[8]!;
        return when >= 0 && periodOf(str(when)!, by) === value;
      };
    }
    default:
      return () => true;
  }
}

const minute = (iso: string) => iso.slice(0, 16).replace("T", " ");

/** A run's time: its record's; an untraced run's commit (or that it is not committed yet). */
function when(r: number[]): string {
  const recorded = str(r[8]!);
  if (recorded) return minute(recorded);
  if (r[11] === 1) return "not committed yet";
  const committed = str(r[10]!);
  return committed ? `committed ${minute(committed)}` : "";
}

function render(): void {
  const q = (document.getElementById("q") as HTMLInputElement).value.trim().toLowerCase();
  const matches = BLOCKS.filter(
    (r) => (!rowFilter || rowFilter(r)) && (!q || [r[0], r[4], r[5], r[6], r[7]].some((i) => i! >= 0 && str(i!)!.toLowerCase().includes(q))),
  );
  const lines = matches.reduce((n, r) => n + r[2]! - r[1]! + 1, 0);
  document.getElementById("lines-summary")!.textContent =
    `${plural(lines, "line")} in ${plural(matches.length, "run")}${matches.length > shown ? `; the first ${shown.toLocaleString("en")} runs shown` : ""}.`;
  document.getElementById("filter-label")!.textContent = filterText;
  const body = document.querySelector("#lines-table tbody")!;
  const frag = document.createDocumentFragment();
  for (const r of matches.slice(0, shown)) {
    const tr = document.createElement("tr");
    const author = AUTHORS[r[3]!]!;
    const cells: [string, string?][] = [
      [str(r[0]!)!],
      [r[1] === r[2] ? `${r[1]}` : `${r[1]}–${r[2]}`],
      [`${r[2]! - r[1]! + 1}`],
      [LABEL[author] + (r[9] ? " · out of scope" : ""), `author-${author}${r[9] ? " out" : ""}`],
      [str(r[4]!) ?? ""],
      [str(r[5]!) ?? str(r[6]!) ?? ""],
      [(str(r[7]!) ?? "").slice(0, 8)],
      [when(r)],
    ];
    for (const [text, cls] of cells) {
      const td = document.createElement("td");
      td.textContent = text;
      if (cls) td.className = cls;
      tr.appendChild(td);
    }
    const id = str(r[7]!);
    if (id) tr.title = `record ${id}`;
    frag.appendChild(tr);
  }
  body.replaceChildren(frag);
  (document.getElementById("more") as HTMLButtonElement).hidden = matches.length <= shown;
}

function choose(row: HTMLTableRowElement): void {
  for (const e of document.querySelectorAll("tr.active")) e.classList.remove("active");
  row.classList.add("active");
  rowFilter = filterFor(row.dataset["filter"]!);
  filterText = `showing: ${row.closest("section")!.querySelector("h2")!.textContent} → ${row.cells[0]!.textContent}`;
  shown = PAGE;
  render();
  document.getElementById("lines")!.scrollIntoView({ behavior: "auto", block: "start" });
}

document.addEventListener("click", (e) => {
  const row = (e.target as HTMLElement).closest<HTMLTableRowElement>("tr[data-filter]");
  if (row) choose(row);
});
document.addEventListener("keydown", (e) => {
  const row = (e.target as HTMLElement).closest?.<HTMLTableRowElement>("tr[data-filter]");
  if (row && (e.key === "Enter" || e.key === " ")) {
    e.preventDefault();
    choose(row);
  }
});
document.getElementById("q")!.addEventListener("input", () => {
  shown = PAGE;
  render();
});
document.getElementById("clear")!.addEventListener("click", () => {
  rowFilter = undefined;
  filterText = "";
  (document.getElementById("q") as HTMLInputElement).value = "";
  for (const e of document.querySelectorAll("tr.active")) e.classList.remove("active");
  shown = PAGE;
  render();
});
document.getElementById("more")!.addEventListener("click", () => {
  shown += PAGE * 5;
  render();
});

draw();
render();
matchMedia("(prefers-color-scheme: dark)").addEventListener("change", draw);
// a VS Code webview says its theme through the body's class
new MutationObserver(draw).observe(document.body, { attributes: true, attributeFilter: ["class"] });
document.body.dataset["ready"] = "true";
