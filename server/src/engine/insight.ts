/**
 * The numbers of `intent stats` and `intent report` (docs/INSIGHT.md), as data in and data out.
 *
 * The present: every line of the files as they are now, counted once by who wrote it (engine/authorship.ts),
 * from the rows `intent blame` prints for each file, so every number is a sum of blame rows. The history:
 * lines written per period, read from the ledger's records, and how many of the AI's are still in the code
 * (the present's lines owned by a record of that period). Untraced lines have no record: they are counted
 * and shown, never given a writer. Their time is the one git knows, the commit that brought them onto the
 * current branch (engine/lineTimes.ts; an uncommitted line: today), so the lines still in the code form one series per period, untraced ones
 * included (`inCode`); a line whose time git cannot tell is counted as undated, never put in a period.
 */
import { Minimatch } from "minimatch";
import {
  addCounts,
  addLines,
  AUTHORS,
  authorOfEntry,
  emptyCounts,
  isOutOfScopeEntry,
  type Author,
  type LineCounts,
  type RecordedAuthor,
  isUnexplained,
} from "./authorship";
import { attributeChanged, blameByOwner, type BlameLine } from "./blame";
import { BlockTable, type PackedBlocks, sameBlock } from "./blockTable";
import { History, periodOf } from "./insightHistory";
import { isoMs } from "./isoTime";
import { splitLines } from "./hashing";
import { RUN_FIELDS } from "./runRows";
import type { TraceEntry } from "./ledger/read";
import type { Confidence, TracedConfidence } from "./confidence";

/** Attributed lines by author and by how sure their owner is: every traced line once. */
export type ConfidenceCounts = Record<RecordedAuthor, Record<TracedConfidence, number>>;

export type Period = "day" | "week" | "month";
export const PERIODS: readonly Period[] = ["day", "week", "month"];

export interface InsightOptions {
  /** Only paths this glob matches (workspace-relative, as `intent blame` names them). */
  path?: string;
  /** History window, epoch ms, inclusive. */
  since?: number;
  until?: number;
  /** Period of the history; absent: no history. */
  by?: Period;
  /** Keep the runs of lines behind the numbers (the report's tables). */
  blocks?: boolean;
  /** "Today", epoch ms: the time of lines not committed yet. */
  now?: number;
}

/** When git says a run of a file's lines was last committed: epoch ms, or null when not committed yet (today). */
export interface CommitDate {
  start: number;
  end: number;
  ms: number | null;
}

/**
 * A file's untraced lines dated by git (`CommitDate`s over them), or why git cannot date them (all of them,
 * or those `dates` leaves out).
 */
export type UntracedDates = readonly CommitDate[] | { undated: string; dates?: readonly CommitDate[] };

/** A run of consecutive lines of one file owned by the same record (or untraced): what a number links to. */
export interface Block {
  path: string;
  start: number;
  end: number;
  author: Author;
  intent?: string;
  model?: string;
  person?: string;
  traceId?: string;
  timestamp?: string;
  outOfScope?: boolean;
  /** How sure the owner is (engine/confidence.ts); absent for lines no record owns. */
  confidence?: Confidence;
  /** An untraced run's commit time (ISO; uncommitted lines: today), when git knows it. */
  committed?: string;
  /** An untraced run not committed yet (its `committed` is today). */
  uncommitted?: boolean;
}

export interface Keyed<K extends string> {
  lines: LineCounts;
  key: string | null;
  kind: K;
}

export interface HistoryRow {
  period: string;
  /** Lines written in the period, by the records' contributor type (re-attributions are not writing). */
  written: Record<RecordedAuthor, number>;
  /** Of those, written out of their intent's scope. */
  writtenOutOfScope: number;
  /** Lines in the code today whose owning record was written in the period, by author. */
  surviving: Record<RecordedAuthor, number>;
  /** surviving.ai / written.ai, null when the AI wrote nothing in the period. */
  durability: number | null;
  /**
   * Lines in the code today written in the period, by author: a traced line by its owning record's time,
   * an untraced one by its commit time (`surviving` with the untraced lines), and the untraced share.
   */
  inCode: InCode;
}

export interface InCode extends Record<Author, number> {
  total: number;
  /** untraced / total; null when no line of the period is in the code. */
  untracedShare: number | null;
}

/** Untraced lines of the code today that git gives no time (in no period), and why. */
export interface Undated {
  lines: number;
  reasons: string[];
}

export interface Insight {
  files: number;
  lines: LineCounts;
  /** The attributed lines of `lines` by how sure their owner is (docs/LEDGER.md "How sure: confidence"). */
  confidence: ConfidenceCounts;
  byIntent: { id: string | null; lines: LineCounts }[];
  byModel: { model: string | null; lines: LineCounts }[];
  byPerson: { person: string | null; lines: LineCounts }[];
  byFolder: { path: string; lines: LineCounts }[];
  byFile: { path: string; lines: LineCounts }[];
  outOfScope: { lines: number; byIntent: { id: string | null; lines: number }[]; blocks: Block[] };
  history?: { by: Period; since?: string; until?: string; periods: HistoryRow[]; undated: Undated };
  /** With `blocks`: every run of lines behind the numbers, packed as the report page reads them. */
  blocks?: PackedBlocks;
}

/** A glob over workspace paths (`--path`): `src` means the folder, `*.ts` any depth's file name. */
export function pathMatcher(glob: string | undefined): (path: string) => boolean {
  if (!glob) return () => true;
  const g = glob.replace(/^\.\//, "").replace(/\/+$/, "");
  // compiled once: a workspace has tens of thousands of paths
  const patterns = [g, `${g}/**`].map((p) => new Minimatch(p, { dot: true, matchBase: !g.includes("/") }));
  return (path) => patterns.some((p) => p.match(path));
}

/** Folders summed for "the largest folders": the first two levels. */
const FOLDER_DEPTH = 2;

/** Collects files' blame rows and ledger entries into an `Insight`. */
export class InsightBuilder {
  private readonly total = emptyCounts();
  private readonly intents = new Map<string | null, LineCounts>();
  private readonly models = new Map<string | null, LineCounts>();
  private readonly persons = new Map<string | null, LineCounts>();
  private readonly folders = new Map<string, LineCounts>();
  private readonly confidence = emptyConfidence();
  private readonly files: { path: string; lines: LineCounts }[] = [];
  private readonly outBlocks: Block[] = [];
  private readonly allBlocks: BlockTable | undefined;
  private readonly history: History;
  private rowStrings: { strings: readonly string[]; block: (i: number) => number; time: (i: number) => number | undefined } | undefined;
  readonly matches: (path: string) => boolean;

  constructor(private readonly opts: InsightOptions = {}) {
    this.matches = pathMatcher(opts.path);
    this.allBlocks = opts.blocks ? new BlockTable() : undefined;
    this.history = new History(opts);
  }

  /** Whether a run of lines was written in the window (records' time; untraced lines' commit time). */
  runInWindow(r: Run): boolean {
    const when = isUnexplained(r.author) ? r.committed : r.timestamp;
    return when !== undefined && this.history.inWindow(isoMs(when));
  }

  /**
   * What of "now" (epoch ms) the result depends on besides the lines not committed yet being of it: the
   * period it falls in and whether it is in the window. A result kept from a run at another "now" with the
   * same `nowKey` is this run's result, given again at this "now" (`resultAt`).
   */
  nowKey(now: number): string {
    return `${this.opts.by ? periodOf(now, this.opts.by) : ""}:${this.history.inWindow(now)}`;
  }

  /** Why some untraced lines have no time (said once each). */
  undatedBecause(reason: string): void {
    this.history.undatedBecause(reason);
  }

  /** One file of the present: its blame rows (every line), as `intent blame --json` prints them. */
  addFile(path: string, rows: readonly BlameLine[]): void {
    this.addRuns(path, runsOf(rows));
  }

  /**
   * Whether the numbers need a file's runs (`addRuns`) rather than its tally (`addTally`): the history's
   * surviving lines and lines in the code need each run's time (untraced runs: their commit time), the
   * report's tables each run.
   */
  get needsRuns(): boolean {
    return this.opts.by !== undefined || this.opts.blocks === true;
  }

  /**
   * One file of the present as its runs of lines (`runsOf` its blame rows): what `addFile` counts. `tally`:
   * `tallyOf` these runs when it is known already (dating untraced runs leaves it the same).
   */
  addRuns(path: string, runs: readonly Run[], tally?: FileTally): void {
    this.addTally(path, tally ?? tallyOf(runs));
    // Stryker disable next-line ConditionalExpression: without a period History.inCode counts nothing; this test spares the loop
    if (this.opts.by)
      for (const r of runs) {
        const when = isUnexplained(r.author) ? r.committed : r.timestamp;
        this.history.inCode(r.author, r.end - r.start + 1, when === undefined ? undefined : isoMs(when));
      }
    this.allBlocks?.addRuns(path, runs);
  }

  /**
   * One file of the present as its runs' numbers (engine/runRows.ts, strings numbered in `strings`), its
   * untraced lines dated by `dates` (a line not committed yet: `now`): what `addRuns` counts of those runs
   * made into objects and dated (`datedRuns`), without making them. `tally`: `tallyOf` the runs.
   */
  addRunRows(path: string, rows: ArrayLike<number>, strings: readonly string[], dates: UntracedDates | undefined, now: number, tally: FileTally): void {
    this.addTally(path, tally);
    const blocks = this.allBlocks;
    // Stryker disable next-line ConditionalExpression: without a period and blocks the pieces below count nothing (History.inCode, blocks?.add); this spares making them
    if (!this.opts.by && !blocks) return;
    const t = this.numbersOf(strings);
    // Stryker disable next-line UnaryOperator: without blocks no piece reads the file's number (blocks?.add is not called)
    const file = blocks ? blocks.file(path) : -1;
    const sorted = sortedDates(dates);
    let from = 0;
    // the run at rows[i] (made once per file: a file has many runs)
    let i = 0;
    // a piece of it: untraced lines of one commit time (ms; null: not committed; undefined: undated)
    const piece = (s: number, e: number, ms: number | null | undefined) => {
      const c = rows[i + 2]!;
      const author = AUTHORS[c >> 1]!;
      const when = ms === null ? now : ms;
      // Stryker disable next-line ConditionalExpression: without a period History.inCode counts nothing; this test spares reading the record's time
      if (this.opts.by) this.history.inCode(author, e - s + 1, !isUnexplained(author) ? t.time(rows[i + 7]!) : when);
      blocks?.add(
        file,
        s,
        e,
        c >> 1,
        t.block(rows[i + 3]!),
        t.block(rows[i + 4]!),
        t.block(rows[i + 5]!),
        t.block(rows[i + 6]!),
        t.block(rows[i + 7]!),
        c & 1,
        when === undefined ? -1 : ms === null ? blocks.uncommitted(isoOf(now)) : blocks.time(when),
        ms === null ? 1 : 0,
      );
    };
    for (; i < rows.length; i += RUN_FIELDS) {
      if (!isUnexplained(AUTHORS[rows[i + 2]! >> 1]!) || !sorted) piece(rows[i]!, rows[i + 1]!, undefined);
      else from = splitByDates(rows[i]!, rows[i + 1]!, sorted, from, piece);
    }
  }

  /** What `addRunRows` needs of a table of strings, made once per table: their numbers among the blocks', and times. */
  private numbersOf(strings: readonly string[]): { block: (i: number) => number; time: (i: number) => number | undefined } {
    // Stryker disable next-line ConditionalExpression: a cache; a table numbered again adds its strings to the blocks' strings again, which costs memory, and the blocks read the same strings
    if (this.rowStrings?.strings === strings) return this.rowStrings;
    // Stryker disable next-line ArrowFunction,UnaryOperator: without blocks no block number is read (blocks?.add is not called)
    const block = this.allBlocks ? this.allBlocks.numbering(strings) : () => -1;
    // filled as asked (the table may grow meanwhile)
    // Stryker disable next-line ArrayDeclaration: index 0 is never read (time(0) is undefined) and every other index is written before it is read
    const times: number[] = [];
    const time = (i: number) => {
      if (i === 0) return undefined;
      let ms = times[i];
      // Stryker disable next-line ConditionalExpression: a cache; a time read again is the same time
      if (ms === undefined) times[i] = ms = isoMs(strings[i - 1]!);
      return ms;
    };
    this.rowStrings = { strings, block, time };
    return this.rowStrings;
  }

  /**
   * One file of the present as its tally (`tallyOf` its runs): all `addRuns` counts when the numbers need no
   * runs (`needsRuns`).
   */
  addTally(path: string, tally: FileTally): void {
    const counts = emptyCounts();
    for (const g of tally.groups) {
      const { author, outOfScope: out, lines: n } = g;
      addLines(counts, author, out, n);
      if (isUnexplained(author)) continue;
      // a group read from an older cache has no confidence: the cache's format says it cannot be one
      if (g.confidence !== undefined && g.confidence !== "untraced") this.confidence[author][g.confidence] += n;
      bump(this.intents, g.intent ?? null, author, out, n);
      if (g.model !== undefined || author === "ai" || author === "mixed") bump(this.models, g.model ?? null, author, out, n);
      if (g.person !== undefined || author === "human" || author === "mixed") bump(this.persons, g.person ?? null, author, out, n);
    }
    for (const b of tally.outOfScope) this.outBlocks.push({ path, ...b });
    this.addCountsOf(path, counts);
  }

  /** A file no record names: `count` untraced lines (what `addFile` counts from its rows, without them). */
  addUntracedFile(path: string, count: number): void {
    const counts = emptyCounts();
    addLines(counts, "untraced", false, count);
    if (count) this.allBlocks?.addUntracedFile(path, count);
    this.history.inCode("untraced", count, undefined);
    this.addCountsOf(path, counts);
  }

  private addCountsOf(path: string, counts: LineCounts): void {
    addCounts(this.total, counts);
    this.files.push({ path, lines: counts });
    // the folders are the path up to each of its first FOLDER_DEPTH slashes
    for (let depth = 1, slash = path.indexOf("/"); depth <= FOLDER_DEPTH && slash !== -1; depth++, slash = path.indexOf("/", slash + 1)) {
      const folder = path.slice(0, slash);
      let c = this.folders.get(folder);
      if (!c) {
        c = emptyCounts();
        this.folders.set(folder, c);
      }
      addCounts(c, counts);
    }
  }

  /** One ledger entry of the history: the lines its record wrote, in its period. */
  addWritten(entry: TraceEntry): void {
    const w = writtenBy(entry);
    if (w) this.addWrittenLines(entry.path, w);
  }

  /** Lines a record wrote in one file (`writtenBy` its entry), in their period. */
  addWrittenLines(path: string, w: Written): void {
    if (this.matches(path)) this.history.written(w);
  }

  result(): Insight {
    const outByIntent = new Map<string | null, number>();
    for (const b of this.outBlocks) outByIntent.set(b.intent ?? null, (outByIntent.get(b.intent ?? null) ?? 0) + b.end - b.start + 1);
    const insight: Insight = {
      files: this.files.length,
      lines: this.total,
      confidence: this.confidence,
      byIntent: byLines(this.intents).map(([id, lines]) => ({ id, lines })),
      byModel: byLines(this.models).map(([model, lines]) => ({ model, lines })),
      byPerson: byLines(this.persons).map(([person, lines]) => ({ person, lines })),
      byFolder: byLines(this.folders).map(([path, lines]) => ({ path, lines })),
      byFile: [...this.files].sort((a, b) => b.lines.total - a.lines.total || a.path.localeCompare(b.path)),
      outOfScope: {
        lines: this.total.outOfScope,
        byIntent: [...outByIntent].sort((a, b) => b[1] - a[1]).map(([id, lines]) => ({ id, lines })),
        blocks: this.outBlocks,
      },
    };
    const history = this.history.result();
    if (history) insight.history = history;
    if (this.allBlocks) insight.blocks = this.allBlocks.packed();
    return insight;
  }
}

/** A breakdown's rows, most lines first, then by name: the order every breakdown (and an organisation's repositories) lists. */
export function byLines<K>(m: Map<K, LineCounts>): [K, LineCounts][] {
  return [...m].sort((a, b) => b[1].total - a[1].total || String(a[0]).localeCompare(String(b[0])));
}

function bump(map: Map<string | null, LineCounts>, key: string | null, author: Author, out: boolean, n: number): void {
  let c = map.get(key);
  if (!c) {
    c = emptyCounts();
    map.set(key, c);
  }
  addLines(c, author, out, n);
}

/**
 * Consecutive lines of a file that count the same in every number (author, intent, model, person, record,
 * time, scope): a file's blame rows said in a few runs, which is all the numbers need of them.
 */
export type Run = Omit<Block, "path">;

/** A file's traced lines of one author, scope, intent, model and person (or its untraced lines). */
export interface TallyGroup {
  author: Author;
  outOfScope: boolean;
  intent?: string;
  model?: string;
  person?: string;
  /** How sure the owner is; absent for lines no record owns. */
  confidence?: Confidence;
  lines: number;
}

/**
 * What a file's runs add to the present's numbers (not to the history's): its lines grouped by what the
 * breakdowns count them under, and its out-of-scope blocks. Smaller than the runs: what a repeated
 * `intent stats` keeps of an unchanged file.
 */
export interface FileTally {
  groups: TallyGroup[];
  /** The file's blocks (`blocksOf`) that start out of scope: what the out-of-scope numbers link to. */
  outOfScope: Run[];
}

/** Whether some of a file's lines no record explains (the lines a history dates by git's commit times). */
export const hasUntraced = (runs: readonly Run[]) => runs.some((r) => isUnexplained(r.author));

/** A file's blocks: its runs joined where consecutive lines are one record's (what a number links to). */
export function blocksOf(runs: readonly Run[]): Run[] {
  const blocks: Run[] = [];
  let block: Run | undefined;
  for (const r of runs) {
    if (block && sameBlock(block, r) && block.end === r.start - 1) block.end = r.end;
    else {
      block = { ...r };
      blocks.push(block);
    }
  }
  return blocks;
}

const MANY_GROUPS = 16;

/** A file's tally (`FileTally`) from its runs; its out-of-scope lines as blocks (`blocksOf`). */
export function tallyOf(runs: readonly Run[]): FileTally {
  const groups: TallyGroup[] = [];
  // a file has a few groups: found by looking through them, or by key once there are many
  let byKey: Map<string, TallyGroup> | undefined;
  for (const r of runs) {
    const out = r.outOfScope === true;
    const n = r.end - r.start + 1;
    const key = byKey ? JSON.stringify([r.author, out, r.intent, r.model, r.person, r.confidence]) : undefined;
    let g: TallyGroup | undefined;
    // Stryker disable next-line ConditionalExpression: a fast path; looking through the groups finds the group the key finds
    if (byKey) g = byKey.get(key!);
    else
      g = groups.find(
        (g) =>
          g.author === r.author &&
          g.outOfScope === out &&
          g.intent === r.intent &&
          g.model === r.model &&
          g.person === r.person &&
          g.confidence === r.confidence,
      );
    if (g) g.lines += n;
    else {
      g = {
        author: r.author,
        outOfScope: out,
        ...(r.intent !== undefined ? { intent: r.intent } : {}),
        ...(r.model !== undefined ? { model: r.model } : {}),
        ...(r.person !== undefined ? { person: r.person } : {}),
        ...(r.confidence !== undefined ? { confidence: r.confidence } : {}),
        lines: n,
      };
      groups.push(g);
      // Stryker disable ConditionalExpression,LogicalOperator,EqualityOperator: `key` is defined exactly when `byKey` is, and a new group left out of `byKey` is put in by the map made again; when to look up by key is a cost bound (lookup by key and looking through the groups find the same group, at any number of groups)
      if (byKey && key !== undefined) byKey.set(key, g);
      else if (groups.length > MANY_GROUPS)
        byKey = new Map(groups.map((g) => [JSON.stringify([g.author, g.outOfScope, g.intent, g.model, g.person, g.confidence]), g]));
    }
  }
  // Stryker restore ConditionalExpression,LogicalOperator,EqualityOperator
  return { groups, outOfScope: blocksOf(runs).filter((b) => b.outOfScope) };
}

/** No attributed line yet, at any level. */
export function emptyConfidence(): ConfidenceCounts {
  const levels = () => ({ exact: 0, replayed: 0, moved: 0, inferred: 0 });
  return { ai: levels(), human: levels(), mixed: levels(), unknown: levels() };
}

/** The runs of a file's blame rows (every line, in order). */
export function runsOf(rows: readonly BlameLine[]): Run[] {
  const runs: Run[] = [];
  let run: Run | undefined;
  for (const r of rows) {
    const author = r.author ?? "untraced";
    const out = r.outOfScope === true;
    const confidence = r.kind === "traced" ? r.confidence : undefined;
    if (
      run &&
      run.end === r.line - 1 &&
      run.author === author &&
      run.traceId === r.traceId &&
      run.intent === r.intent &&
      run.model === r.model &&
      run.person === r.person &&
      run.timestamp === r.timestamp &&
      run.confidence === confidence &&
      (run.outOfScope === true) === out
    ) {
      run.end = r.line;
      continue;
    }
    run = {
      start: r.line,
      end: r.line,
      author,
      ...(r.intent !== undefined ? { intent: r.intent } : {}),
      ...(r.model !== undefined ? { model: r.model } : {}),
      ...(r.person !== undefined ? { person: r.person } : {}),
      ...(r.traceId !== undefined ? { traceId: r.traceId } : {}),
      ...(r.timestamp !== undefined ? { timestamp: r.timestamp } : {}),
      ...(out ? { outOfScope: true } : {}),
      ...(confidence !== undefined ? { confidence } : {}),
    };
    runs.push(run);
  }
  return runs;
}

/** The ranges of a file's lines no record explains (untraced or before adoption): what git is asked to date. */
export function untracedRanges(runs: readonly Run[]): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (const r of runs) {
    if (!isUnexplained(r.author)) continue;
    const last = out.at(-1);
    if (last && last.end === r.start - 1) last.end = r.end;
    else out.push({ start: r.start, end: r.end });
  }
  return out;
}

/** ISO times of the few commit times a workspace has, made once each (every file's runs are dated with them). */
const isoTimes = new Map<number, string>();
const MAX_ISO_TIMES = 100_000;

function isoOf(ms: number): string {
  let iso = isoTimes.get(ms);
  // Stryker disable next-line ConditionalExpression: a cache; a time made into ISO again is the same text
  if (iso === undefined) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a memory bound; the cache made again gives the same texts
    if (isoTimes.size >= MAX_ISO_TIMES) isoTimes.clear();
    iso = new Date(ms).toISOString();
    isoTimes.set(ms, iso);
  }
  return iso;
}

/**
 * A file's runs with its untraced runs split by the time git says their lines were committed (`committed`;
 * a line not committed yet is of `now`). Lines git gives no time stay without one: undated, never guessed.
 */
export function datedRuns(runs: readonly Run[], dates: UntracedDates, now: number): Run[] {
  const sorted = sortedDates(dates);
  if (!sorted) return [...runs];
  const out: Run[] = [];
  const push = (run: Run, start: number, end: number, ms: number | null | undefined) => {
    const committed = ms === undefined ? undefined : isoOf(ms ?? now);
    const uncommitted = ms === null ? true : undefined;
    const last = out.at(-1);
    if (
      last &&
      last.author === run.author &&
      isUnexplained(last.author) &&
      last.end === start - 1 &&
      last.committed === committed &&
      last.uncommitted === uncommitted
    )
      last.end = end;
    // one shape for every piece (absent fields undefined, which no output writes): a report makes one per commit time of each file
    else
      out.push({
        start,
        end,
        author: run.author,
        intent: run.intent,
        model: run.model,
        person: run.person,
        traceId: run.traceId,
        timestamp: run.timestamp,
        outOfScope: run.outOfScope,
        committed,
        uncommitted,
      });
  };
  let from = 0;
  for (const run of runs) {
    if (!isUnexplained(run.author)) out.push(run);
    else from = splitByDates(run.start, run.end, sorted, from, (start, end, ms) => push(run, start, end, ms));
  }
  return out;
}

/** The commit dates `dates` gives, by their first line; undefined when it gives none. */
function sortedDates(dates: UntracedDates | undefined): readonly CommitDate[] | undefined {
  const known = dates === undefined ? undefined : Array.isArray(dates) ? (dates as readonly CommitDate[]) : (dates as { dates?: readonly CommitDate[] }).dates;
  return known && [...known].sort((a, b) => a.start - b.start);
}

/**
 * Untraced lines `start`..`end` split by the commit dates over them (`sorted` by first line, looked at from
 * index `from`): `piece(start, end, ms)` for each part in order, `ms` null for lines not committed yet and
 * undefined for lines git gives no time. Returns the index the next run's lines (further down) start from.
 */
function splitByDates(
  start: number,
  end: number,
  sorted: readonly CommitDate[],
  from: number,
  piece: (start: number, end: number, ms: number | null | undefined) => void,
): number {
  let i = from;
  // Stryker disable next-line ConditionalExpression: a fast path; the loop below passes over dates that end before the lines too (`d.end < at`)
  while (i < sorted.length && sorted[i]!.end < start) i++;
  let at = start;
  for (let j = i; j < sorted.length && sorted[j]!.start <= end && at <= end; j++) {
    const d = sorted[j]!;
    if (d.end < at) continue;
    if (d.start > at) piece(at, d.start - 1, undefined);
    const last = Math.min(d.end, end);
    piece(Math.max(d.start, at), last, d.ms);
    at = last + 1;
  }
  if (at <= end) piece(at, end, undefined);
  return i;
}

/** What one ledger entry wrote, as the history counts it. */
export interface Written {
  /** The record's time, epoch ms. */
  ms: number;
  author: Author;
  lines: number;
  outOfScope: boolean;
}

/**
 * The lines an entry's record wrote. A record that claims lines without changing the file (a
 * re-attribution: `pre_hash` = `post_hash`) wrote nothing; nor did one with no readable time.
 */
export function writtenBy(entry: TraceEntry): Written | undefined {
  if (entry.preHash && entry.preHash === entry.postHash) return undefined;
  const ms = isoMs(entry.timestamp);
  if (Number.isNaN(ms)) return undefined;
  return { ms, author: authorOfEntry(entry), lines: entry.endLine - entry.startLine + 1, outOfScope: isOutOfScopeEntry(entry) };
}

/** What a path's entries wrote (the history's rows for that path), in ledger order. */
export function writtenRows(entries: readonly TraceEntry[]): Written[] {
  const rows: Written[] = [];
  for (const e of entries) {
    const w = writtenBy(e);
    if (w) rows.push(w);
  }
  return rows;
}

/** A changed file of a check: its checked text and the 1-based lines that changed since the base. */
export interface ChangedText {
  path: string;
  text: string;
  changed: readonly number[];
}

/** The changed lines' counts, and (with a window) how many changed lines were written outside it. */
export interface ChangedInsight extends Insight {
  window?: {
    since?: string;
    until?: string;
    /** Changed lines left out: written outside the window, or of no known time. */
    leftOut: number;
    /** Of those, untraced lines git gives no time. */
    undated: Undated;
  };
}

/**
 * The counts of a check's changed lines (the pull request summary): each changed line counted by who
 * wrote it, as `intent blame` shows it, reading only as many of a file's records as those lines need.
 * `entryBatches`: a file's entries and those of the paths its content came from, as blame reads them.
 * With `since`/`until`, only the changed lines written in that window count, with the meaning of the
 * history of `intent stats`: a traced line at its record's time, an untraced one at its commit time
 * (`dateUntraced`, asked only then and with `by`); `by` adds the per-period series (`history`).
 */
export function changedLinesInsight(
  files: readonly ChangedText[],
  entryBatches: (path: string, lines: readonly string[]) => Iterable<readonly TraceEntry[]>,
  opts: InsightOptions = {},
  dateUntraced?: (path: string, text: string, ranges: { start: number; end: number }[]) => UntracedDates,
): ChangedInsight {
  const windowed = opts.since !== undefined || opts.until !== undefined;
  const now = opts.now ?? 0;
  const builder = new InsightBuilder({
    ...(opts.path ? { path: opts.path } : {}),
    // Stryker disable next-line ConditionalExpression: History reads a `since` set to undefined as an absent one
    ...(opts.since !== undefined ? { since: opts.since } : {}),
    // Stryker disable next-line ConditionalExpression: History reads an `until` set to undefined as an absent one
    ...(opts.until !== undefined ? { until: opts.until } : {}),
    ...(opts.by ? { by: opts.by } : {}),
  });
  const left: NonNullable<ChangedInsight["window"]> = { leftOut: 0, undated: { lines: 0, reasons: [] } };
  for (const f of files) {
    if (!f.changed.length || !builder.matches(f.path)) continue;
    const lines = splitLines(f.text);
    const attributions = attributeChanged(lines, f.changed, entryBatches(f.path, lines));
    const rows = blameByOwner(f.text, (i) => {
      const attribution = attributions[i];
      if (attribution) return { kind: "traced", attribution };
      // Stryker disable next-line ObjectLiteral,StringLiteral: a row of an owner of no or another kind has no author, and runsOf counts a row with no author as untraced
      return { kind: "untraced" };
    });
    const wanted = new Set(f.changed);
    let runs = runsOf(rows.filter((r) => wanted.has(r.line)));
    if ((windowed || opts.by) && dateUntraced && runs.some((r) => r.author === "untraced")) {
      const dates = dateUntraced(f.path, f.text, untracedRanges(runs));
      if ("undated" in dates) {
        const reason = (dates as { undated: string }).undated;
        builder.undatedBecause(reason);
        if (windowed && !left.undated.reasons.includes(reason)) left.undated.reasons.push(reason);
      }
      runs = datedRuns(runs, dates, now);
    }
    if (windowed) {
      const kept: Run[] = [];
      for (const r of runs) {
        if (builder.runInWindow(r)) kept.push(r);
        else {
          left.leftOut += r.end - r.start + 1;
          if (r.author === "untraced" && r.committed === undefined) left.undated.lines += r.end - r.start + 1;
        }
      }
      runs = kept;
      if (!runs.length) continue;
    }
    builder.addRuns(f.path, runs);
  }
  const result: ChangedInsight = builder.result();
  if (windowed)
    result.window = {
      ...(opts.since !== undefined ? { since: new Date(opts.since).toISOString() } : {}),
      ...(opts.until !== undefined ? { until: new Date(opts.until).toISOString() } : {}),
      ...left,
    };
  return result;
}

/**
 * A result kept from a run with the same inputs (`InsightBuilder.nowKey` the same), given at `now`: the
 * lines not committed yet are of `now`. Changes `insight` in place.
 */
export function resultAt(insight: Insight, now: number): Insight {
  const b = insight.blocks;
  if (b?.now !== undefined) b.strings[b.now] = isoOf(now);
  return insight;
}
