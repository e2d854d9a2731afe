import type { ClaimCheck, Outcome } from "./compare";
import { emptyGitTally, type GitTally } from "./gitReading";

/**
 * Counting and printing: outcomes per surface (hover, blame) and per row (kind of change, path it came by),
 * and ledger records that claim lines their contributor did not change.
 */

export type Surface = "hover" | "blame";
export const OUTCOMES: readonly Outcome[] = ["correct", "wrong", "swap", "untraced", "edited", "other"];

export type Tally = Record<Outcome, number>;

const emptyTally = (): Tally => ({ correct: 0, wrong: 0, swap: 0, untraced: 0, edited: 0, other: 0 });

export interface RecordTally {
  /** Records appended. */
  records: number;
  /** Records claiming at least one line their contributor did not change. */
  overClaiming: number;
  overClaimedLines: number;
  /** Records naming another contributor (type, model or intent) than the one who made the change. */
  wrongContributor: number;
  /** Steps that changed the file's text but appended no record. */
  missing: number;
}

const emptyRecordTally = (): RecordTally => ({ records: 0, overClaiming: 0, overClaimedLines: 0, wrongContributor: 0, missing: 0 });

export interface Example {
  run: string;
  step: number;
  path: string;
  /** 1-based. */
  line: number;
  surface: Surface | "record" | "git";
  outcome: string;
  truth: string;
  seen: string;
  kind: string;
  via: string;
  text: string;
}

/** Examples kept: a few of each kind of problem rather than the first ones seen. */
const MAX_EXAMPLES = 80;
const MAX_EXAMPLES_PER_SORT = 2;

export class Report {
  /** `${surface}|${dimension}|${row}` → tally; dimension "all" has the row "all". */
  readonly lines = new Map<string, Tally>();
  /** `${dimension}|${row}` → record tally, rows by the step's kind and path. */
  readonly records = new Map<string, RecordTally>();
  /** Lines where hover and blame, asked at the same moment, said different things. */
  disagreements = 0;
  bothAsked = 0;
  readonly examples: Example[] = [];
  readonly notes: string[] = [];
  /**
   * A replayed history's lines judged with equally valid readings counted (compare.ts, grouping "text"), by
   * `${surface}|unique` or `${surface}|repeated`: whether the line's text occurs once in the file or more.
   */
  readonly readings = new Map<string, Tally>();
  /** Moved lines judged against git's reading after each commit (gitReading.ts), by row (what moved them). */
  readonly gitReading = new Map<string, GitTally>();

  countGitReading(row: string, add: (t: GitTally) => void): void {
    for (const r of [row, "all"]) {
      const t = this.gitReading.get(r) ?? emptyGitTally();
      add(t);
      this.gitReading.set(r, t);
    }
  }

  countLine(surface: Surface, outcome: Outcome, rows: Record<string, string>): void {
    for (const [dimension, row] of [["all", "all"], ...Object.entries(rows)] as [string, string][]) {
      const key = `${surface}|${dimension}|${row}`;
      const t = this.lines.get(key) ?? emptyTally();
      t[outcome]++;
      this.lines.set(key, t);
    }
  }

  countReading(surface: Surface, outcome: Outcome, uniqueText: boolean): void {
    const key = `${surface}|${uniqueText ? "unique" : "repeated"}`;
    const t = this.readings.get(key) ?? emptyTally();
    t[outcome]++;
    this.readings.set(key, t);
  }

  countRecord(rows: Record<string, string>, add: Partial<RecordTally>): void {
    for (const [dimension, row] of [["all", "all"], ...Object.entries(rows)] as [string, string][]) {
      const key = `${dimension}|${row}`;
      const t = this.records.get(key) ?? emptyRecordTally();
      for (const [k, v] of Object.entries(add) as [keyof RecordTally, number][]) t[k] += v;
      this.records.set(key, t);
    }
  }

  /** One ledger record's claims, as `checkClaims` judged them. */
  countClaims(rows: Record<string, string>, check: ClaimCheck): void {
    this.countRecord(rows, {
      records: 1,
      overClaiming: check.overClaimed.length ? 1 : 0,
      overClaimedLines: check.overClaimed.length,
      wrongContributor: check.wrongContributor ? 1 : 0,
    });
  }

  /** The first two lines a record of a replayed commit claims although the commit left them unchanged. */
  overClaimedInCommit(check: ClaimCheck, at: { run: string; step: number; path: string; seen: string; via: string; texts: readonly string[] }): void {
    for (const n of check.overClaimed.slice(0, 2)) {
      this.example({
        run: at.run,
        step: at.step,
        path: at.path,
        line: n,
        surface: "record",
        outcome: "over-claimed",
        truth: "unchanged",
        seen: at.seen,
        kind: "commit",
        via: at.via,
        text: at.texts[n - 1] ?? "",
      });
    }
  }

  private readonly exampleSorts = new Map<string, number>();

  example(e: Example): void {
    const sort = `${e.surface}|${e.outcome}|${e.kind}|${e.via}`;
    const n = this.exampleSorts.get(sort) ?? 0;
    if (n >= MAX_EXAMPLES_PER_SORT || this.examples.length >= MAX_EXAMPLES) return;
    this.exampleSorts.set(sort, n + 1);
    this.examples.push(e);
  }

  merge(other: Report): void {
    for (const [k, t] of other.readings) {
      const mine = this.readings.get(k) ?? emptyTally();
      for (const o of OUTCOMES) mine[o] += t[o];
      this.readings.set(k, mine);
    }
    for (const [k, t] of other.lines) {
      const mine = this.lines.get(k) ?? emptyTally();
      for (const o of OUTCOMES) mine[o] += t[o];
      this.lines.set(k, mine);
    }
    for (const [k, t] of other.records) {
      const mine = this.records.get(k) ?? emptyRecordTally();
      for (const f of Object.keys(t) as (keyof RecordTally)[]) mine[f] += t[f];
      this.records.set(k, mine);
    }
    for (const [k, t] of other.gitReading) {
      const mine = this.gitReading.get(k) ?? emptyGitTally();
      const { outcomes, ...counts } = t;
      for (const f of Object.keys(counts) as (keyof typeof counts)[]) mine[f] += counts[f];
      for (const o of OUTCOMES) mine.outcomes[o] += outcomes[o];
      this.gitReading.set(k, mine);
    }
    this.disagreements += other.disagreements;
    this.bothAsked += other.bothAsked;
    for (const e of other.examples) this.example(e);
    this.notes.push(...other.notes);
  }

  tally(surface: Surface, dimension = "all", row = "all"): Tally {
    return this.lines.get(`${surface}|${dimension}|${row}`) ?? emptyTally();
  }

  recordTally(dimension = "all", row = "all"): RecordTally {
    return this.records.get(`${dimension}|${row}`) ?? emptyRecordTally();
  }

  rows(surface: Surface, dimension: string): string[] {
    const prefix = `${surface}|${dimension}|`;
    return [...this.lines.keys()]
      .filter((k) => k.startsWith(prefix))
      .map((k) => k.slice(prefix.length))
      .sort();
  }

  /** The per-row table of one surface and dimension, in markdown. */
  table(surface: Surface, dimension: string): string {
    const head = `| ${dimension} (${surface}) | lines compared | correct | wrong | human↔AI swaps | untraced although recorded | "edited, not saved" | other |`;
    const out = [head, "|---|---:|---:|---:|---:|---:|---:|---:|"];
    const row = (name: string, t: Tally) => {
      const n = OUTCOMES.reduce((s, o) => s + t[o], 0);
      const pct = (x: number) => (n ? `${((100 * x) / n).toFixed(1)}%` : "–");
      const cell = (x: number) => (x ? `${x} (${pct(x)})` : "0");
      out.push(`| ${name} | ${n} | ${pct(t.correct)} | ${cell(t.wrong + t.swap)} | ${t.swap} | ${cell(t.untraced)} | ${cell(t.edited)} | ${cell(t.other)} |`);
    };
    for (const r of this.rows(surface, dimension)) row(r, this.tally(surface, dimension, r));
    row("**all**", this.tally(surface));
    return out.join("\n");
  }

  /**
   * A replayed history's lines with equally valid readings counted: identical lines anywhere in the file
   * matched as a multiset, because git's own diff (the truth) could have paired them either way; the row of
   * lines whose text is unique in the file is judged exactly as the main tables judge it.
   */
  readingsTable(surface: Surface): string {
    const out = [
      `| equally valid readings counted (${surface}) | lines compared | correct | wrong | human↔AI swaps | untraced although recorded | other |`,
      "|---|---:|---:|---:|---:|---:|---:|",
    ];
    const all = emptyTally();
    for (const [label, key] of [
      ["text unique in the file", "unique"],
      ["text repeated in the file", "repeated"],
      ["**all**", ""],
    ] as const) {
      const t = key ? (this.readings.get(`${surface}|${key}`) ?? emptyTally()) : all;
      if (key) for (const o of OUTCOMES) all[o] += t[o];
      const n = OUTCOMES.reduce((sum, o) => sum + t[o], 0);
      const pct = (x: number) => (n ? `${((100 * x) / n).toFixed(2)}%` : "–");
      out.push(`| ${label} | ${n} | ${pct(t.correct)} | ${t.wrong} | ${t.swap} | ${t.untraced} | ${t.edited + t.other} |`);
    }
    return out.join("\n");
  }

  /** Moved lines against git's reading (`git blame -w -C -C` after each commit), per row. */
  gitReadingTable(): string {
    const out = [
      "| moved lines against git's reading (`git blame -w -C -C` after each commit) | blamed by git to another file | intent blame = git | wrong | human↔AI swaps | untraced | other | hover = git | truth = git | not detected by git | origin not held |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ];
    const rows = [...this.gitReading.keys()].filter((k) => k !== "all").sort();
    for (const r of [...rows, "all"]) {
      const t = this.gitReading.get(r)!;
      const o = t.outcomes;
      const judged = OUTCOMES.reduce((s, x) => s + o[x], 0);
      const pct = (x: number) => (judged ? `${((100 * x) / judged).toFixed(2)}%` : "–");
      out.push(
        `| ${r === "all" ? "**all**" : r} | ${t.detected} | ${pct(o.correct)} | ${o.wrong} | ${o.swap} | ${o.untraced} | ${o.edited + o.other} | ${t.hoverAgrees} of ${t.hoverAsked} | ${pct(t.truthAgrees)} | ${t.notDetected} | ${t.skipped} |`,
      );
    }
    return out.join("\n");
  }

  recordTable(dimension: string): string {
    const out = [
      `| ${dimension} | records | over-claiming records | over-claimed lines | wrong contributor | changes with no record |`,
      "|---|---:|---:|---:|---:|---:|",
    ];
    const rows = [...this.records.keys()]
      .filter((k) => k.startsWith(`${dimension}|`))
      .map((k) => k.slice(dimension.length + 1))
      .sort();
    for (const r of [...rows, "all"]) {
      const t = r === "all" ? this.recordTally() : this.recordTally(dimension, r);
      out.push(`| ${r === "all" ? "**all**" : r} | ${t.records} | ${t.overClaiming} | ${t.overClaimedLines} | ${t.wrongContributor} | ${t.missing} |`);
    }
    return out.join("\n");
  }

  /** Everything, in markdown: the line tables per surface and dimension, the record tables, examples. */
  render(title: string, dimensions: readonly string[], recordDimensions = dimensions): string {
    const parts = [`## ${title}`];
    for (const surface of ["hover", "blame"] as const) {
      if (!this.rows(surface, "all").length) continue;
      for (const d of dimensions) parts.push("", this.table(surface, d));
    }
    for (const surface of ["hover", "blame"] as const) if (this.readings.size) parts.push("", this.readingsTable(surface));
    if (this.gitReading.size) parts.push("", this.gitReadingTable());
    for (const d of recordDimensions) parts.push("", this.recordTable(d));
    parts.push("", `hover and \`intent blame\` disagreed on ${this.disagreements} of ${this.bothAsked} lines asked of both at the same moment.`);
    if (this.notes.length) parts.push("", ...this.notes.map((n) => `- ${n}`));
    if (this.examples.length) {
      parts.push(
        "",
        "First problems seen:",
        "",
        "| run | step | path:line | surface | outcome | truth | server | kind | via | text |",
        "|---|---:|---|---|---|---|---|---|---|---|",
      );
      for (const e of this.examples) {
        parts.push(
          `| ${e.run} | ${e.step} | ${e.path}:${e.line} | ${e.surface} | ${e.outcome} | ${e.truth} | ${e.seen} | ${e.kind} | ${e.via} | \`${e.text.replace(/\|/g, "\\|").slice(0, 50)}\` |`,
        );
      }
    }
    return parts.join("\n");
  }

  toJSON(): object {
    return {
      lines: Object.fromEntries(this.lines),
      records: Object.fromEntries(this.records),
      disagreements: this.disagreements,
      bothAsked: this.bothAsked,
      examples: this.examples,
      notes: this.notes,
      readings: Object.fromEntries(this.readings),
      gitReading: Object.fromEntries(this.gitReading),
    };
  }
}

export function share(t: Tally, outcome: Outcome): number {
  const n = OUTCOMES.reduce((s, o) => s + t[o], 0);
  return n ? t[outcome] / n : 1;
}
