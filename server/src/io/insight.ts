/**
 * Gathers `intent stats` / `intent report` (README "Insight"): the working tree's files as they are now
 * (tracked and untracked, not ignored; exempt paths and intent-lsp's own files left out, as nothing of
 * them is recorded), each blamed as `intent blame` blames it, and the ledger's entries for the history;
 * with a history, the untraced lines dated by the commit git says last changed them (io/commitDates.ts).
 */
import { lstatSync } from "node:fs";
import { resolve } from "node:path";
import { blameNewestFirst } from "../engine/blame";
import { fileHash, splitLines } from "../engine/hashing";
import { datedRuns, InsightBuilder, runsOf, untracedRanges, writtenBy, type Insight, type InsightOptions, type Run, type Written } from "../engine/insight";
import type { UnreadableLine } from "../engine/ledger/read";
import { countTextLines } from "../engine/lines";
import { shouldRecord } from "../engine/recordPolicy";
import type { Rules } from "../engine/rules";
import { BLAME_BUDGET_MS, commitDatesOf, headCommit, singleCommitTimes } from "./commitDates";
import { GitError, runGit } from "./git";
import type { WorkspaceLedger } from "./ledger/workspaceLedger";
import { bytesKey, type InsightCache, ledgerStamp, loadInsightCache, RACY_MS, saveInsightCache, statKey } from "./insightCache";
import { readRegularBytes } from "./regularFiles";

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
 * came from (engine/lineage.ts). A file that no record names and whose content no record pins is all
 * untraced: its lines are counted without being made.
 */
export function countedRuns(ledger: WorkspaceLedger, path: string, text: string): Run[] {
  if (!ledger.hasFile(path) && (text === "" || ledger.pathsPinning(fileHash(text)).length === 0))
    return [{ start: 1, end: countTextLines(text), author: "untraced" }];
  return runsOf(blameNewestFirst(ledger.attributionBatches(path, splitLines(text)), text));
}

/** What each of the ledgers' entries wrote, per path (the history's input). */
function writtenOf(ledger: WorkspaceLedger): Map<string, Written[]> {
  const out = new Map<string, Written[]>();
  for (const path of ledger.files()) {
    const rows: Written[] = [];
    for (const e of ledger.entriesFor(path)) {
      const w = writtenBy(e);
      if (w) rows.push(w);
    }
    if (rows.length) out.set(path, rows);
  }
  return out;
}

export function gatherInsight(root: string, rules: Rules, ledger: WorkspaceLedger, opts: InsightOptions): GatheredInsight {
  const steps = insightSteps(root, rules, ledger, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Why the editor's report leaves untraced lines undated. */
export const EDITOR_UNDATED = "the editor does not run git blame (it would hold up typing); `intent report` in a terminal dates these lines";

const hasUntraced = (runs: readonly Run[]) => runs.some((r) => r.author === "untraced");

/**
 * `gatherInsight` in steps: the language server pauses between them, so a report asked for in the editor
 * never holds up typing or other requests. Untraced lines stay undated here (`EDITOR_UNDATED`).
 */
export function* insightSteps(root: string, rules: Rules, ledger: WorkspaceLedger, opts: InsightOptions): Generator<void, GatheredInsight> {
  const builder = new InsightBuilder(opts);
  let binaryFiles = 0;
  let read = 0;
  for (const path of workingTreeFiles(root)) {
    if (++read % FILES_PER_STEP === 0) yield;
    if (!shouldRecord(path, rules) || !builder.matches(path)) continue;
    const bytes = readCounted(root, path);
    if (bytes === "binary") binaryFiles++;
    if (typeof bytes === "string") continue;
    const runs = countedRuns(ledger, path, bytes.toString("utf8"));
    if (opts.by && hasUntraced(runs)) builder.undatedBecause(EDITOR_UNDATED);
    builder.addRuns(path, runs);
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

/** What the CLI gathers: the numbers, and the ledgers' unreadable lines (warned about). */
export interface CachedInsight {
  insight: GatheredInsight;
  unreadable: { path: string; lines: readonly UnreadableLine[] }[];
}

/**
 * `gatherInsight` for a command line: what the previous run learnt (io/insightCache.ts) is used for every
 * file whose bytes and ledgers are unchanged, and the ledgers (`openLedger`) are read only when something
 * must be counted again. The numbers are the same as `gatherInsight`'s.
 */
export async function gatherInsightCached(
  root: string,
  rules: Rules,
  opts: InsightOptions,
  openLedger: () => Promise<WorkspaceLedger>,
): Promise<CachedInsight> {
  const stamp = ledgerStamp(root, rules.settings.ledgerPath);
  const cache = loadInsightCache(root, stamp);
  const builder = new InsightBuilder(opts);
  const paths = workingTreeFiles(root);
  // a file changed after this is not proven unchanged by its times next time (see statKey)
  const now = opts.now ?? Date.now();
  const trustBefore = now - RACY_MS;
  let binaryFiles = 0;
  // each file's runs, in the working tree's order; a file to count again holds its text meanwhile
  const counted: { path: string; key: string; stat?: string; runs?: Run[]; text?: string }[] = [];
  for (const path of paths) {
    if (!shouldRecord(path, rules) || !builder.matches(path)) continue;
    const known = cache?.files.get(path);
    // git lists normalized workspace paths: joined, not resolved (tens of thousands of them)
    const st = lstatSync(`${root}/${path}`, { throwIfNoEntry: false });
    const stat = st?.isFile() && Math.max(st.mtimeMs, st.ctimeMs) < trustBefore ? statKey(st) : undefined;
    if (known && stat !== undefined && known.stat === stat) {
      counted.push({ path, key: known.key, stat, runs: known.runs });
      continue;
    }
    const bytes = readCounted(root, path);
    if (bytes === "binary") binaryFiles++;
    if (typeof bytes === "string") continue;
    const key = bytesKey(bytes);
    counted.push(
      known?.key === key ? { path, key, ...(stat ? { stat } : {}), runs: known.runs } : { path, key, ...(stat ? { stat } : {}), text: bytes.toString("utf8") },
    );
  }
  const missing = counted.some((c) => c.runs === undefined) || !cache;
  // a file proven by its bytes that its times will prove next time: worth saving
  const restamped = counted.some((c) => c.stat !== undefined && cache?.files.get(c.path)?.stat !== c.stat);
  const ledger = missing ? await openLedger() : undefined;
  const next: InsightCache = cache ?? {
    files: new Map(),
    written: writtenOf(ledger!),
    unreadable: ledger!.unreadable().map((u) => ({ ...u, lines: [...u.lines] })),
  };
  // HEAD, asked once and only when a file's untraced lines are to be dated
  let head: string | null | undefined;
  let headAsked = false;
  let redated = false;
  let blameSpent = 0;
  // the files all of whose lines one commit wrote: dated without a blame each (asked once, when needed)
  let single: Map<string, number> | undefined;
  for (const c of counted) {
    const runs = c.runs ?? countedRuns(ledger!, c.path, c.text!);
    // commit times hold for the same bytes (c.runs known) at the same HEAD
    const prior = c.runs ? next.files.get(c.path)?.dates : undefined;
    let dates = prior;
    if (opts.by && hasUntraced(runs)) {
      if (!headAsked) {
        head = headCommit(root);
        headAsked = true;
      }
      if (head === undefined || dates?.head !== head) {
        const started = Date.now();
        if (head) single ??= singleCommitTimes(root);
        const oneCommit = single?.get(c.path);
        const asked =
          oneCommit !== undefined
            ? untracedRanges(runs).map((r) => ({ ...r, ms: oneCommit }))
            : blameSpent < BLAME_BUDGET_MS
              ? commitDatesOf(root, head, c.path, untracedRanges(runs))
              : { undated: `git blame's time for one run (${BLAME_BUDGET_MS / 1000} s) is spent; the next run dates the rest (what is dated is kept)` };
        blameSpent += Date.now() - started;
        if (Array.isArray(asked)) {
          dates = { head: head!, dates: [...asked] };
          redated = true;
        } else {
          dates = undefined;
          builder.undatedBecause((asked as { undated: string }).undated);
        }
      }
      builder.addRuns(c.path, dates ? datedRuns(runs, dates.dates, now) : runs);
    } else builder.addRuns(c.path, runs);
    if (!c.runs || c.stat !== next.files.get(c.path)?.stat || dates !== prior)
      next.files.set(c.path, { key: c.key, ...(c.stat ? { stat: c.stat } : {}), runs, ...(dates ? { dates } : {}) });
  }
  if (opts.by) for (const [path, rows] of next.written) if (shouldRecord(path, rules)) for (const w of rows) builder.addWrittenLines(path, w);
  if (missing || restamped || redated) {
    // files no longer in the working tree are forgotten
    const present = new Set(paths);
    for (const path of next.files.keys()) if (!present.has(path)) next.files.delete(path);
    saveInsightCache(root, stamp, next);
  }
  return { insight: { ...builder.result(), binaryFiles }, unreadable: next.unreadable };
}
