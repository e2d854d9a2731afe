/**
 * The history of `intent stats --by` and of the report (engine/insight.ts): lines written per period, read
 * from the ledger's entries, and the lines in the code today per period (a traced line at its record's
 * time, an untraced one at its commit time), with the untraced lines git gives no time counted apart.
 */
import { isUnexplained, type Author, type RecordedAuthor } from "./authorship";
import type { HistoryRow, InCode, Insight, InsightOptions, Period, Undated, Written } from "./insight";

const DAY_MS = 86_400_000;

const zeroWritten = (): Record<RecordedAuthor, number> => ({ ai: 0, human: 0, mixed: 0, unknown: 0 });
const zeroInCode = (): InCode => ({ ai: 0, human: 0, mixed: 0, unknown: 0, untraced: 0, beforeAdoption: 0, total: 0, untracedShare: null });

/** The period a time falls in, in UTC: `2026-11-26`, the Monday of its week, or `2026-11`. */
export function periodOf(ms: number, by: Period): string {
  const d = new Date(ms);
  if (by === "month") return d.toISOString().slice(0, 7);
  if (by === "week") {
    const monday = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - ((d.getUTCDay() + 6) % 7)));
    return monday.toISOString().slice(0, 10);
  }
  return d.toISOString().slice(0, 10);
}

/** Counts the history's rows of a window (`since`/`until`) per period (`by`; absent: counts nothing). */
export class History {
  private readonly periods = new Map<string, HistoryRow>();
  private readonly periodOfDay = new Map<number, string>();
  private readonly undated: Undated = { lines: 0, reasons: [] };

  constructor(private readonly opts: Pick<InsightOptions, "by" | "since" | "until">) {}

  /** Whether a time (epoch ms) is in the window; an unreadable one (NaN) is not. */
  inWindow(ms: number): boolean {
    return !Number.isNaN(ms) && (this.opts.since === undefined || ms >= this.opts.since) && (this.opts.until === undefined || ms <= this.opts.until);
  }

  /** Why some untraced lines have no time (said once each). */
  undatedBecause(reason: string): void {
    if (!this.undated.reasons.includes(reason)) this.undated.reasons.push(reason);
  }

  /**
   * Lines in the code today of `author`, at time `ms` (a traced line: its record's; a line no record explains:
   * its commit's): a traced line with no time is in no period, an unexplained one is undated.
   */
  inCode(author: Author, n: number, ms: number | undefined): void {
    const by = this.opts.by;
    if (!by) return;
    if (!isUnexplained(author)) {
      if (ms === undefined || !this.inWindow(ms)) return;
      const row = this.periodAt(ms, by);
      row.surviving[author] += n;
      row.inCode[author] += n;
    } else if (ms === undefined) this.undated.lines += n;
    else if (this.inWindow(ms)) this.periodAt(ms, by).inCode[author] += n;
  }

  /** Lines a record wrote (`writtenBy` its entry), in their period. */
  written(w: Written): void {
    const by = this.opts.by;
    if (!by || !this.inWindow(w.ms)) return;
    const row = this.periodAt(w.ms, by);
    if (!isUnexplained(w.author)) row.written[w.author] += w.lines;
    if (w.outOfScope) row.writtenOutOfScope += w.lines;
  }

  /** The rows, oldest period first, with their shares; undefined without a period. */
  result(): Insight["history"] {
    const by = this.opts.by;
    if (!by) return undefined;
    const periods = [...this.periods.values()].sort((a, b) => a.period.localeCompare(b.period));
    for (const p of periods) {
      p.durability = p.written.ai ? p.surviving.ai / p.written.ai : null;
      const c = p.inCode;
      c.total = c.ai + c.human + c.mixed + c.unknown + c.untraced + c.beforeAdoption;
      c.untracedShare = c.total ? c.untraced / c.total : null;
    }
    return {
      by,
      ...(this.opts.since !== undefined ? { since: new Date(this.opts.since).toISOString() } : {}),
      ...(this.opts.until !== undefined ? { until: new Date(this.opts.until).toISOString() } : {}),
      periods,
      undated: this.undated,
    };
  }

  /** The row of the period `ms` falls in: a period is whole UTC days, so it is found once per day. */
  private periodAt(ms: number, by: Period): HistoryRow {
    const day = Math.floor(ms / DAY_MS);
    let key = this.periodOfDay.get(day);
    if (key === undefined) {
      key = periodOf(ms, by);
      this.periodOfDay.set(day, key);
    }
    let row = this.periods.get(key);
    if (!row) {
      row = { period: key, written: zeroWritten(), writtenOutOfScope: 0, surviving: zeroWritten(), durability: null, inCode: zeroInCode() };
      this.periods.set(key, row);
    }
    return row;
  }
}
