/**
 * Gathers `intent stats` / `intent report` (docs/INSIGHT.md): the working tree's files as they are now
 * (tracked and untracked, not ignored; exempt paths and intent-lsp's own files left out, as nothing of
 * them is recorded), each blamed as `intent blame` blames it, and the ledger's entries for the history;
 * with a history, the untraced lines dated by the commit that brought them onto the current branch
 * (io/commitDates.ts).
 */
import { lstatSync } from "node:fs";
import { resolve } from "node:path";
import { unexplainedRuns } from "../engine/adoption";
import { blameNewestFirst } from "../engine/blame";
import { fileHash, splitLines } from "../engine/hashing";
import {
  datedRuns,
  hasUntraced,
  resultAt,
  InsightBuilder,
  pathMatcher,
  runsOf,
  tallyOf,
  untracedRanges,
  writtenRows,
  type Insight,
  type InsightOptions,
  type FileTally,
  type Run,
  type UntracedDates,
  type Written,
} from "../engine/insight";
import type { UnreadableLine } from "../engine/ledger/read";
import { countTextLines } from "../engine/lines";
import { shouldRecord } from "../engine/recordPolicy";
import type { Rules } from "../engine/rules";
import { AdoptionTexts, adoptionOf } from "./adoption";
import { headCommit, lineDating, type LineDating, pathsChangedSince } from "./commitDates";
import { GitError, runGit } from "./git";
import type { WorkspaceLedger } from "./ledger/workspaceLedger";
import {
  bytesKey,
  type CachedFile,
  type FileStat,
  ledgerStamp,
  loadInsightCache,
  loadInsightResult,
  RACY_MS,
  removeInsightResult,
  ResultKey,
  sameStat,
  saveInsightCache,
  saveInsightResult,
  statOf,
} from "./insightCache";
import { hasInsightRuns, type InsightRuns, type KeptRuns, keptHasUntraced, keptRunsOf, loadInsightRuns, saveInsightRuns } from "./insightRuns";
import { readRegularBytes } from "./regularFiles";
import { doInWorkers, indexSaved, ledgerPosition, threadsFor, type WorkerJob, type WorkersDone } from "./runsWorkers";
import { THREADS_VARIABLE } from "./workerThreads";

/** Bytes looked at for a NUL: git's own test for a binary file. */
const BINARY_SNIFF = 8000;

export interface GatheredInsight extends Insight {
  /** Files left out because their content is binary (no lines to count). */
  binaryFiles: number;
}

/** Workspace paths of the working tree's files: tracked and untracked, not ignored by git. */
export function workingTreeFiles(root: string): string[] {
  return runGit(root, ["ls-files", "--cached", "--others", "--exclude-standard", "--deduplicate", "-z"]).split("\0").filter(Boolean);
}

/**
 * A time given as `--since` / `--until`: an ISO date or date-time, or a git revision (its committer
 * date). A bare date as `--until` means the end of that day.
 */
export function parseWhen(root: string, given: string, end: boolean): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(given)) return Date.parse(`${given}T00:00:00.000Z`) + (end ? 86_400_000 - 1 : 0);
  if (/^\d{4}-\d{2}-\d{2}T/.test(given)) {
    const ms = Date.parse(given);
    if (!Number.isNaN(ms)) return ms;
  }
  try {
    const iso = runGit(root, ["log", "-1", "--format=%cI", `${given}^{commit}`, "--"]).trim();
    const ms = Date.parse(iso);
    if (!Number.isNaN(ms)) return ms;
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
  }
  throw new Error(`"${given}" is neither a date (YYYY-MM-DD or an ISO date-time) nor a git revision in ${root}`);
}

/** Files `gatherInsightCached` reads or counts between two pauses while git walks the history. */
const PAUSE_EVERY = 16;

/** A turn of the event loop: what is due meanwhile (git's output) is handled. */
const pause = () => new Promise<void>((done) => setImmediate(done));

/** Files read between two pauses of `insightSteps`. */
const FILES_PER_STEP = 64;

/** A working-tree file's bytes, or why it has no lines to count. */
function readCounted(root: string, path: string): Buffer | "gone" | "binary" {
  let bytes: Buffer;
  try {
    bytes = readRegularBytes(resolve(root, path));
  } catch (e) {
    // listed by git but gone (deleted, not staged) or not a regular file (a link, a submodule): no lines of its own
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR" || (e as Error).name === "NotRegularFileError") return "gone";
    throw e;
  }
  return bytes.subarray(0, BINARY_SNIFF).includes(0) ? "binary" : bytes;
}

/**
 * A file's runs of lines as `intent blame` blames it: its own records and those of the paths its content
 * came from (engine/lineage.ts), and the lines no record explains split by the adoption point (`adoption`:
 * the files at its commit; engine/adoption.ts). A file that no record names and whose content no record pins
 * has no traced line: its lines are counted without being made.
 */
export function countedRuns(ledger: WorkspaceLedger, path: string, text: string, adoption?: AdoptionTexts): Run[] {
  const adopted = adoption?.keptOf(path, text);
  if (!ledger.hasFile(path) && (text === "" || ledger.pathsPinning(fileHash(text)).length === 0)) {
    const count = countTextLines(text);
    return adopted?.length ? unexplainedRuns(1, count, adopted) : [{ start: 1, end: count, author: "untraced" }];
  }
  return runsOf(blameNewestFirst(ledger.attributionBatches(path, splitLines(text)), text, {}, undefined, adopted));
}

/**
 * What each of the ledgers' entries wrote, per path of `paths` (the ledger's), in their order: the history's
 * input. The rows of a path `given` holds (made by a worker thread) are taken as they are.
 */
async function writtenOf(
  ledger: WorkspaceLedger,
  paths: readonly string[],
  given: ReadonlyMap<string, Written[]> | undefined,
  due: () => boolean,
): Promise<Map<string, Written[]>> {
  const out = new Map<string, Written[]>();
  for (const path of paths) {
    let rows = given?.get(path);
    if (!rows) {
      if (due()) await pause();
      rows = writtenRows(ledger.entriesFor(path));
    }
    if (rows.length) out.set(path, rows);
  }
  return out;
}

/** `insightSteps` at once; the files at the adoption point are read here when `then` is not given. */
export function gatherInsight(
  root: string,
  rules: Rules,
  ledger: WorkspaceLedger,
  opts: InsightOptions,
  dating?: LineDating,
  then?: AdoptionTexts,
): GatheredInsight {
  const adoption = then ? undefined : adoptionOf(root);
  const read = adoption && AdoptionTexts.read(root, adoption, countedPaths(root, rules, opts));
  const steps = insightSteps(root, rules, ledger, opts, dating, then ?? read);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Why untraced lines are undated when git was not asked (`insightSteps` without a dating). */
const NOT_ASKED = "git was not asked when these lines were committed";

/** A file's runs with its untraced lines dated by `dating` (or undated, with the reason told to `builder`). */
function datedBy(builder: InsightBuilder, dating: LineDating | undefined, path: string, runs: readonly Run[], now: number): readonly Run[] {
  if (!dating) {
    builder.undatedBecause(NOT_ASKED);
    return runs;
  }
  const dates = dating.datesOf(path, untracedRanges(runs));
  if ("undated" in dates) builder.undatedBecause(dates.undated);
  return datedRuns(runs, dates, now);
}

/**
 * `gatherInsight` in steps: the language server pauses between them, so a report asked for in the editor
 * never holds up typing or other requests. With a history, untraced lines are dated by `dating` (asked of
 * git in the background before the steps start: io/commitDates.ts `lineDating`); with an adoption point,
 * `then` holds the files as they were there (`adoptionTextsFor`, also asked before).
 */
export function* insightSteps(
  root: string,
  rules: Rules,
  ledger: WorkspaceLedger,
  opts: InsightOptions,
  dating?: LineDating,
  then?: AdoptionTexts,
): Generator<void, GatheredInsight> {
  const builder = new InsightBuilder(opts);
  const now = opts.now ?? Date.now();
  let binaryFiles = 0;
  let read = 0;
  for (const file of countedFiles(root, rules, ledger, opts, then)) {
    if (++read % FILES_PER_STEP === 0) yield;
    if ("binary" in file) binaryFiles++;
    else builder.addRuns(file.path, opts.by && hasUntraced(file.runs) ? datedBy(builder, dating, file.path, file.runs, now) : file.runs);
  }
  if (opts.by) {
    for (const path of ledger.files()) {
      if (!builder.matches(path) || !shouldRecord(path, rules)) continue;
      for (const e of ledger.entriesFor(path)) builder.addWritten(e);
      if (++read % FILES_PER_STEP === 0) yield;
    }
  }
  return { ...builder.result(), binaryFiles };
}

/**
 * The working tree's counted files (`countedPaths`) one by one, each as its runs of lines as `intent blame`
 * blames it (`countedRuns`), or as a binary file (no lines): what `insightSteps` counts.
 */
export function* countedFiles(
  root: string,
  rules: Rules,
  ledger: WorkspaceLedger,
  opts: InsightOptions,
  then?: AdoptionTexts,
): Generator<{ path: string; runs: Run[] } | { path: string; binary: true }> {
  for (const f of countedTexts(root, rules, opts)) yield "binary" in f ? f : { path: f.path, runs: countedRuns(ledger, f.path, f.text, then) };
}

/**
 * The working tree's counted files (`countedPaths`) one by one, each as its text, or as a binary file (no
 * lines): what `countedFiles` and `intent export --format parquet` count, so both
 * read the files the same way.
 */
export function* countedTexts(root: string, rules: Rules, opts: InsightOptions): Generator<{ path: string; text: string } | { path: string; binary: true }> {
  for (const path of countedPaths(root, rules, opts)) {
    const bytes = readCounted(root, path);
    if (bytes === "binary") yield { path, binary: true };
    if (typeof bytes === "string") continue;
    yield { path, text: bytes.toString("utf8") };
  }
}

/** A file's runs with its untraced lines dated by git (`dating`), as the history dates them; undated: as they are. */
export function datedFileRuns(dating: LineDating, path: string, runs: readonly Run[], now: number): readonly Run[] {
  if (!hasUntraced(runs)) return runs;
  const dates = dating.datesOf(path, untracedRanges(runs));
  return datedRuns(runs, dates, now);
}

/** The files `insightSteps` counts, as they were at the adoption point (in the background); undefined without one. */
export async function adoptionTextsFor(root: string, rules: Rules, opts: InsightOptions): Promise<AdoptionTexts | undefined> {
  const adoption = adoptionOf(root);
  if (!adoption) return undefined;
  return AdoptionTexts.readAsync(root, adoption, countedPaths(root, rules, opts));
}

/** The working tree's files the numbers count: those intent-lsp records (not exempt), under `--path`. */
export function countedPaths(root: string, rules: Rules, opts: InsightOptions): string[] {
  const matches = pathMatcher(opts.path);
  return workingTreeFiles(root).filter((path) => shouldRecord(path, rules) && matches(path));
}

/** What the CLI gathers: the numbers, and the ledgers' unreadable lines (warned about). */
export interface CachedInsight {
  insight: GatheredInsight;
  unreadable: { path: string; lines: readonly UnreadableLine[] }[];
}

/** A file of the working tree as a cached run sees it: what was kept of it, or its text to count again. */
interface Counted {
  path: string;
  key: string;
  stat?: FileStat;
  kept?: CachedFile;
  text?: string;
}

/**
 * `gatherInsight` for a command line: what the previous run learnt (io/insightCache.ts) is used for every
 * file whose bytes and ledgers are unchanged, and the ledgers (`openLedger`) are read only when something
 * must be counted again. A plain run reads only the files' tallies; the history and the report's tables
 * also their runs. The numbers are the same as `gatherInsight`'s. `progress` is told what the work is doing.
 */
export async function gatherInsightCached(
  root: string,
  rules: Rules,
  opts: InsightOptions,
  openLedger: () => Promise<WorkspaceLedger>,
  progress: (text: string) => void = () => {},
  warn: (text: string) => void = () => {},
): Promise<CachedInsight> {
  const stamp = ledgerStamp(root, rules.settings.ledgerPath);
  const builder = new InsightBuilder(opts);
  const cache = loadInsightCache(root, stamp);
  // when the working tree's lines entered the code: one walk of git's history, asked once. With nothing
  // kept every file's untraced lines are to be dated: git walks meanwhile, in the background
  let asked: Promise<LineDating> | undefined = opts.by && !cache ? lineDating(root, "worktree") : undefined;
  const paths = workingTreeFiles(root);
  // a path kept from the last run was chosen under the same exempt rules, if they are the same (the ledger's path is in the stamp)
  const chosen = cache !== undefined && cache.exempt === rules.ignore.key;
  // a file changed after this is not proven unchanged by its times next time (see FileStat)
  const now = opts.now ?? Date.now();
  const trustBefore = now - RACY_MS;
  let binaryFiles = 0;
  // each file's tally, in the working tree's order; a file to count again holds its text meanwhile
  const counted: Counted[] = [];
  // while git walks the history, its output is read only when this pauses: every few files it does, so
  // that git never waits on a full pipe (its diffs are most of the walk's time, on another processor)
  let steps = 0;
  const due = () => asked !== undefined && ++steps % PAUSE_EVERY === 0;
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i]!;
    progress(`looking at the files: ${i + 1} of ${paths.length}`);
    if (due()) await pause();
    const known = cache?.files.get(path);
    if (!((known && chosen) || shouldRecord(path, rules)) || !builder.matches(path)) continue;
    // git lists normalized workspace paths: joined, not resolved (tens of thousands of them)
    const st = lstatSync(`${root}/${path}`, { throwIfNoEntry: false });
    const trusted = st?.isFile() === true && Math.max(st.mtimeMs, st.ctimeMs) < trustBefore;
    if (known?.stat && trusted && sameStat(known.stat, st!)) {
      counted.push({ path, key: known.key, stat: known.stat, kept: known });
      continue;
    }
    const bytes = readCounted(root, path);
    if (bytes === "binary") binaryFiles++;
    if (typeof bytes === "string") continue;
    const key = bytesKey(bytes);
    const stat = trusted ? statOf(st!) : undefined;
    counted.push(known?.key === key ? { path, key, stat, kept: known } : { path, key, stat, text: bytes.toString("utf8") });
  }
  // the history and the report's tables: a run again with the same inputs as the last gives its result
  // (HEAD dates the untraced lines; "now", the lines not committed yet). Else the files' runs are read
  const head = builder.needsRuns ? headCommit(root) : undefined;
  const inputs = builder.needsRuns ? resultInputs(stamp, rules, opts, head, builder.nowKey(now), counted) : undefined;
  // (only beside the tallies and runs it was made with: a run that finds them gone counts and keeps them again)
  const given = inputs && cache && hasInsightRuns(root) ? loadInsightResult(root, inputs) : undefined;
  if (given) {
    // files proven unchanged by their times since the tallies were kept: proven so next time without a read
    if (counted.some((c) => c.kept && c.stat !== c.kept.stat)) {
      const files = new Map(cache!.files);
      for (const c of counted) if (c.kept && c.stat !== c.kept.stat) files.set(c.path, { ...c.kept, stat: c.stat });
      saveInsightCache(root, stamp, { ...cache!, files });
    }
    return { insight: { ...resultAt(given.insight, now), binaryFiles }, unreadable: given.unreadable };
  }
  const kept = builder.needsRuns && cache ? loadInsightRuns(root, stamp) : undefined;
  if (builder.needsRuns) binaryFiles += withRuns(root, counted, kept);
  asked ??= opts.by && !kept ? lineDating(root, "worktree") : undefined;
  const missing = !cache || counted.some((c) => c.kept === undefined) || (opts.by !== undefined && !kept?.written);
  if (missing) progress("reading the ledger");
  const ledger = missing ? await openLedger() : undefined;
  // the files' runs (with their untraced lines' commit times), for the history and the report's tables, and
  // to keep when any changed; when none were kept, those of the files counted now (a file without them is
  // counted again when they are needed)
  const loaded = kept ?? (missing && cache ? loadInsightRuns(root, stamp) : undefined);
  const runs: InsightRuns = loaded ?? { runs: new Map() };
  const files = new Map<string, CachedFile>();
  let changed = missing || !chosen;
  let redated = false;
  // whether some lines were left undated for a reason git may not give next time: such a result is not kept
  let undatedFor = false;
  // per HEAD the kept dates were asked at: the paths the commits since changed (io/commitDates.ts), asked once
  const changedAt = new Map<string, Promise<Set<string> | undefined>>();
  const changedSince = (from: string, to: string) => {
    let since = changedAt.get(from);
    if (!since) {
      since = pathsChangedSince(root, from, to);
      changedAt.set(from, since);
    }
    return since;
  };
  // each file's runs in the working tree's order; those whose untraced lines git is to date wait for its walk,
  // which goes on meanwhile (the runs of every file are made first)
  const toAdd: { path: string; known: KeptRuns; tally: FileTally; dated: boolean }[] = [];
  // the files counted again, as they were at the adoption point: read at once, when there is one
  const adoption = adoptionOf(root);
  const recount = counted.filter((c) => !c.kept).map((c) => c.path);
  const then = adoption && recount.length ? AdoptionTexts.read(root, adoption, recount) : undefined;
  // the history's rows: read from every record, so only when the history is asked for
  const writtenPaths = opts.by && !runs.written ? ledger!.files() : [];
  // the files to count and the history's rows, in worker threads when there are many (io/runsWorkers.ts);
  // whatever a worker left undone is done here, in this thread
  const toCount = counted.flatMap((c) => (c.kept ? [] : [{ path: c.path, text: c.text! }]));
  const inWorkers =
    ledger && (toCount.length || writtenPaths.length)
      ? await runsInWorkerThreads(root, rules.settings.ledgerPath, ledger, toCount, writtenPaths, then, progress, warn)
      : undefined;
  if (opts.by && !runs.written) runs.written = await writtenOf(ledger!, writtenPaths, inWorkers?.written, due);
  for (let i = 0; i < counted.length; i++) {
    const c = counted[i]!;
    let file = c.kept;
    if (!file) {
      progress(`counting lines: file ${i + 1} of ${counted.length}`);
      if (due()) await pause();
      const fileRuns = inWorkers?.runs.get(c.path) ?? countedRuns(ledger!, c.path, c.text!, then);
      runs.runs.set(c.path, { key: c.key, runs: fileRuns });
      file = { key: c.key, stat: c.stat, tally: tallyOf(fileRuns) };
    } else if (c.stat !== file.stat) {
      // a file proven by its bytes that its times will prove next time: worth saving
      file = { ...file, stat: c.stat };
      changed = true;
    }
    files.set(c.path, file);
    if (!builder.needsRuns) {
      // the tally: no runs, and no commit times (they date lines only for the history)
      builder.addTally(c.path, file.tally);
      continue;
    }
    const known = runs.runs.get(c.path)!;
    toAdd.push({ path: c.path, known, tally: file.tally, dated: opts.by !== undefined && keptHasUntraced(known) });
  }
  // a file's runs as counted now, or as kept (their numbers added as they are: hundreds of thousands of runs)
  const add = (path: string, file: KeptRuns, dates: UntracedDates | undefined, tally: FileTally) => {
    if (file.runs) builder.addRuns(path, dates ? datedRuns(file.runs, dates, now) : file.runs, tally);
    else builder.addRunRows(path, file.stored!, runs.strings!, dates, now, tally);
  };
  for (const { path, known, tally, dated } of toAdd) {
    if (!dated) {
      add(path, known, undefined, tally);
      continue;
    }
    // commit times hold for the same bytes (the runs' key) at the same HEAD
    let dates = known.dates;
    let partial: UntracedDates | undefined;
    if (head === undefined || dates?.head !== head) {
      // dates asked at an earlier HEAD hold at this one when no commit since changed the file
      const since = head && dates?.head ? await changedSince(dates.head, head) : undefined;
      if (since && !since.has(path)) dates = { head: head!, dates: dates!.dates };
      else {
        progress("dating untraced lines by git's history");
        asked ??= lineDating(root, "worktree");
        const told = (await asked).datesOf(path, untracedRanges(keptRunsOf(runs, known)));
        // dates with a reason for some lines are not kept: the reason must be told again next run
        if (Array.isArray(told)) dates = { head: head!, dates: [...told] };
        else {
          dates = undefined;
          partial = told;
          undatedFor = true;
          builder.undatedBecause((told as { undated: string }).undated);
        }
      }
      if (dates !== known.dates) {
        runs.runs.set(path, { ...known, dates });
        redated = true;
      }
    }
    add(path, known, dates ? dates.dates : partial, tally);
  }
  if (opts.by) {
    // a file counted above is one intent-lsp records (so judged, or kept from a run under the same exempt
    // rules): only the ledger's other paths, files gone from the working tree, are judged here
    for (const [path, rows] of runs.written!) if (files.has(path) || shouldRecord(path, rules)) for (const w of rows) builder.addWrittenLines(path, w);
  }
  const unreadable = cache?.unreadable ?? ledger!.unreadable().map((u) => ({ ...u, lines: [...u.lines] }));
  if (changed || missing || redated) {
    // files not counted this time (another --path) keep what was learnt of them, unless they are no longer in
    // the working tree or the exempt rules changed and now leave them out
    const present = new Set(paths);
    if (cache) for (const [path, f] of cache.files) if (!files.has(path) && present.has(path) && (chosen || shouldRecord(path, rules))) files.set(path, f);
    if (missing || redated) {
      for (const path of runs.runs.keys()) if (!files.has(path)) runs.runs.delete(path);
      saveInsightRuns(root, stamp, runs);
    }
    if (changed) saveInsightCache(root, stamp, { files, exempt: rules.ignore.key, unreadable });
    // a kept result goes with the tallies and runs it was made with: a plain run that changed them drops it
    if (!inputs) removeInsightResult(root);
  }
  const result = builder.result();
  // kept under what it was made of: the files read again since the key was made are counted by their bytes read
  if (inputs && !undatedFor) saveInsightResult(root, resultInputs(stamp, rules, opts, head, builder.nowKey(now), counted), result, unreadable);
  return { insight: { ...result, binaryFiles }, unreadable };
}

/**
 * The runs of the files `toCount`, and the history's rows of `writtenPaths`, made by worker threads
 * (io/runsWorkers.ts); undefined when this thread is to do the work. Whatever the answer lacks, the caller
 * does itself (`countedRuns`, `writtenRows`).
 */
export async function runsInWorkerThreads(
  root: string,
  ledgerPath: string,
  ledger: WorkspaceLedger,
  toCount: readonly { path: string; text: string }[],
  writtenPaths: readonly string[],
  then: AdoptionTexts | undefined,
  progress: (text: string) => void,
  warn: (text: string) => void,
): Promise<WorkersDone | undefined> {
  // one job per path: a file counted and read for the history is read once, by one worker
  const byPath = new Map<string, WorkerJob>();
  for (const c of toCount) {
    const old = then?.textOf(c.path);
    byPath.set(c.path, old === undefined ? { path: c.path, text: c.text } : { path: c.path, text: c.text, atAdoption: old });
  }
  for (const path of writtenPaths) byPath.set(path, { ...byPath.get(path), path, written: true });
  const jobs = [...byPath.values()];
  const threads = threadsFor(process.env, jobs.length, ledger.recordCount);
  if (threads.count < 2) return undefined;
  if (!indexSaved(ledger)) {
    // each worker would read the whole ledger again: the work stays here
    if (threads.asked)
      warn(
        `${THREADS_VARIABLE}=${threads.count}: the ledger's index could not be saved for the workers to open (is .orchestration/.cache a folder intent-lsp can write?); counted in one thread`,
      );
    return undefined;
  }
  const setup = { root, ledgerPath, position: ledgerPosition(ledger), adoption: then !== undefined };
  const count = threads.count;
  const done = await doInWorkers(setup, jobs, count, (n) => progress(`reading the ledger's records: ${n} of ${jobs.length} files (${count} threads)`));
  // asked for by a person: why the work was not done as asked (the numbers are the same either way)
  if (done.handedBack && threads.asked)
    warn(`${THREADS_VARIABLE}=${count}: ${done.handedBack}; ${jobs.length - done.finished} of ${jobs.length} files done in one thread`);
  return done;
}

/**
 * The hash of what a history or report's result is made of (io/insightCache.ts `ResultKey`): the ledgers
 * and this build (`stamp`), the exempt rules, the options, HEAD, what of "now" it depends on, and each file
 * counted with the key of its bytes.
 */
function resultInputs(stamp: string, rules: Rules, opts: InsightOptions, head: string | null | undefined, now: string, counted: readonly Counted[]): string {
  const { path, since, until, by, blocks } = opts;
  const key = new ResultKey([stamp, rules.ignore.key, { path, since, until, by, blocks }, head ?? String(head), now]);
  for (const c of counted) key.file(c.path, c.key);
  return key.digest();
}

/**
 * Files kept without their runs (none kept, or kept for other bytes) are counted again: their text read
 * (each proven unchanged by its times only). How many of them turned out binary.
 */
function withRuns(root: string, counted: Counted[], kept: InsightRuns | undefined): number {
  let binary = 0;
  for (let i = 0; i < counted.length; i++) {
    const c = counted[i]!;
    if (!c.kept || kept?.runs.get(c.path)?.key === c.key) continue;
    const bytes = readCounted(root, c.path);
    if (bytes === "binary") binary++;
    if (typeof bytes === "string") counted.splice(i--, 1);
    else {
      // bytes changed since their times were taken: those times prove nothing of them
      const key = bytesKey(bytes);
      counted[i] = { path: c.path, key, stat: key === c.key ? c.stat : undefined, text: bytes.toString("utf8") };
    }
  }
  return binary;
}
