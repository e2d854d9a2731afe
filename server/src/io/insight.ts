/**
 * Gathers `intent stats` / `intent report` (README "Insight"): the working tree's files as they are now
 * (tracked and untracked, not ignored; exempt paths and intent-lsp's own files left out, as nothing of
 * them is recorded), each blamed as `intent blame` blames it, and the ledger's entries for the history.
 */
import { resolve } from "node:path";
import { blameNewestFirst } from "../engine/blame";
import { InsightBuilder, type Insight, type InsightOptions } from "../engine/insight";
import { countTextLines } from "../engine/lines";
import { shouldRecord } from "../engine/recordPolicy";
import type { Rules } from "../engine/rules";
import { GitError, runGit } from "./git";
import type { WorkspaceLedger } from "./ledger/workspaceLedger";
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

export function gatherInsight(root: string, rules: Rules, ledger: WorkspaceLedger, opts: InsightOptions): GatheredInsight {
  const steps = insightSteps(root, rules, ledger, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * `gatherInsight` in steps: the language server pauses between them, so a report asked for in the editor
 * never holds up typing or other requests.
 */
export function* insightSteps(root: string, rules: Rules, ledger: WorkspaceLedger, opts: InsightOptions): Generator<void, GatheredInsight> {
  const builder = new InsightBuilder(opts);
  let binaryFiles = 0;
  let read = 0;
  for (const path of workingTreeFiles(root)) {
    if (++read % FILES_PER_STEP === 0) yield;
    if (!shouldRecord(path, rules) || !builder.matches(path)) continue;
    let bytes: Buffer;
    try {
      bytes = readRegularBytes(resolve(root, path));
    } catch (e) {
      // listed by git but gone (deleted, not staged) or not a regular file (a link, a submodule): no lines of its own
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR" || (e as Error).name === "NotRegularFileError") continue;
      throw e;
    }
    if (bytes.subarray(0, BINARY_SNIFF).includes(0)) {
      binaryFiles++;
      continue;
    }
    const text = bytes.toString("utf8");
    if (ledger.hasFile(path)) builder.addFile(path, blameNewestFirst(ledger.entryBatches(path), text));
    // no record names the file: every line is untraced, counted without a row per line
    else builder.addUntracedFile(path, countTextLines(text));
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
