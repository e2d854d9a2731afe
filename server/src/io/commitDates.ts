/**
 * When git says lines were last committed (`git blame --porcelain`): the time of the untraced lines in the
 * history of `intent stats` / `intent report` and in the window of `intent check`'s summary. A line not
 * committed yet (changed in the working tree, or in a file HEAD does not have) is of today.
 *
 * Git is asked only about the files that have untraced lines, and only about those lines; each call is
 * bounded in time. When git cannot answer (missing, failed, too slow) or its answer stops at a shallow
 * clone's boundary, the lines are undated, with the reason: never given a guessed time.
 */
import type { spawnSync as SpawnSync } from "node:child_process";
import type { CommitDate, UntracedDates } from "../engine/insight";
import { STABLE_CONFIG } from "./git";

/** How long one git call may take before its answer is dropped (the lines stay undated). */
export const BLAME_TIMEOUT_MS = 10_000;
/**
 * How long one run of `intent stats` / `intent report` spends asking git, at most: a first run over a
 * large workspace dates what it can in that time, and the cache keeps it, so later runs date the rest.
 */
export const BLAME_BUDGET_MS = 20_000;
/** Ranges asked with `-L` at most; more, and the whole file is blamed (one call either way). */
const MAX_RANGES = 64;
const NOT_COMMITTED = /^0{40}$/;

interface GitAnswer {
  ok: boolean;
  out: string;
}

/** Runs git with a time bound; undefined when git could not run, was killed or took too long. */
function boundedGit(cwd: string, args: readonly string[], input?: string): GitAnswer | undefined {
  // required here, as io/git.ts does: loading this module must not cost a hook anything
  const spawnSync = (require("node:child_process") as { spawnSync: typeof SpawnSync }).spawnSync;
  const r = spawnSync("git", [...STABLE_CONFIG, ...args], {
    cwd,
    encoding: "utf8",
    timeout: BLAME_TIMEOUT_MS,
    maxBuffer: 256 * 1024 * 1024,
    ...(input !== undefined ? { input } : {}),
  });
  // git that exits before reading all of `input` (a path HEAD lacks) leaves an EPIPE, yet answered
  if (r.signal || r.status === null) return undefined;
  return { ok: r.status === 0 && !r.error, out: r.stdout };
}

/** HEAD's commit; null when the repository has no commit yet; undefined when git cannot say. */
export function headCommit(root: string): string | null | undefined {
  const head = boundedGit(root, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
  if (head === undefined) return undefined;
  if (head.ok) return head.out.trim();
  const repo = boundedGit(root, ["rev-parse", "--git-dir"]);
  return repo?.ok ? null : undefined;
}

/**
 * Parses `git blame --porcelain`: each final line's commit time (epoch ms; null: not committed yet). Lines
 * of a boundary commit (a shallow clone's cut: `--root` keeps root commits from being one) get no entry.
 */
export function parseBlamePorcelain(output: string): CommitDate[] {
  const times = new Map<string, number | null>();
  const out: CommitDate[] = [];
  let sha: string | undefined;
  let line = 0;
  const lines = output.split("\n");
  const entries: { sha: string; line: number }[] = [];
  for (const l of lines) {
    if (l.startsWith("\t")) {
      if (sha !== undefined) entries.push({ sha, line });
      sha = undefined;
      continue;
    }
    const header = /^([0-9a-f]{40}) \d+ (\d+)(?: \d+)?$/.exec(l);
    if (header) {
      sha = header[1]!;
      line = Number(header[2]);
      if (!times.has(sha)) times.set(sha, NOT_COMMITTED.test(sha) ? null : Number.NaN);
      continue;
    }
    if (sha === undefined) continue;
    if (l.startsWith("committer-time ") && !NOT_COMMITTED.test(sha)) times.set(sha, Number(l.slice("committer-time ".length)) * 1000);
    else if (l === "boundary") times.set(sha, Number.NaN);
  }
  for (const e of entries) {
    const ms = times.get(e.sha);
    if (ms === undefined || (ms !== null && Number.isNaN(ms))) continue;
    const last = out.at(-1);
    if (last && last.end === e.line - 1 && last.ms === ms) last.end = e.line;
    else out.push({ start: e.line, end: e.line, ms });
  }
  return out;
}

/**
 * When the lines `ranges` of `path` (workspace-relative) were last committed: of the working tree's file,
 * or of `contents` when given (what `intent check` checks: the working tree's or the index's text).
 * `head`: `headCommit(root)`.
 */
export function commitDatesOf(
  root: string,
  head: string | null | undefined,
  path: string,
  ranges: readonly { start: number; end: number }[],
  contents?: string,
): UntracedDates {
  if (head === undefined) return { undated: "git cannot be asked when lines were committed here" };
  const uncommitted = () => ranges.map((r) => ({ start: r.start, end: r.end, ms: null }));
  if (head === null) return uncommitted();
  const args = [
    "blame",
    "--porcelain",
    "--root",
    ...(ranges.length <= MAX_RANGES ? ranges.map((r) => `-L${r.start},${r.end}`) : []),
    ...(contents !== undefined ? ["--contents", "-"] : []),
    "--",
    path,
  ];
  const blamed = boundedGit(root, args, contents);
  if (blamed?.ok) return parseBlamePorcelain(blamed.out);
  // a file HEAD does not have (untracked, or only added to the index) is not committed at all
  const inHead = blamed === undefined ? undefined : boundedGit(root, ["cat-file", "-e", `${head}:./${path}`]);
  if (inHead && !inHead.ok) return uncommitted();
  return { undated: `git blame did not answer within ${BLAME_TIMEOUT_MS / 1000} s or failed (${path})` };
}

/** Commits `singleCommitTimes` reads at most; a longer history is not read (every file is blamed). */
const MAX_LOG_COMMITS = 20_000;
const COMMIT_MARK = "\u0001";

/**
 * The paths whose lines all come from one commit, with its time: the paths HEAD's history (merges against
 * each parent, renames and copies followed) names in exactly one commit, as added, and that the working
 * tree and index leave as HEAD has them. Git blame would give each of their lines that commit, so they
 * need no blame. Any doubt (a rename, a merge, a change since HEAD, a history too long or too slow to
 * read) leaves a path out: it is blamed.
 */
export function singleCommitTimes(root: string): Map<string, number> {
  const out = new Map<string, number>();
  const log = boundedGit(root, [
    "log",
    "-m",
    "-M",
    "--name-status",
    "-z",
    "--relative",
    `--max-count=${MAX_LOG_COMMITS}`,
    `--format=${COMMIT_MARK}%ct`,
    "HEAD",
    "--",
  ]);
  const changed = boundedGit(root, ["diff", "--name-only", "-z", "--relative", "HEAD", "--"]);
  if (!log?.ok || !changed?.ok) return out;
  const seen = new Map<string, number | null>();
  const fields = log.out.split("\0");
  let commits = 0;
  let time: number | undefined;
  const many = (path: string) => seen.set(path, null);
  for (let i = 0; i < fields.length; i++) {
    let f = fields[i]!.replace(/^\n+/, "");
    if (f.startsWith(COMMIT_MARK)) {
      commits++;
      const nl = f.indexOf("\n");
      time = Number((nl < 0 ? f.slice(1) : f.slice(1, nl)).trim()) * 1000;
      if (nl < 0) continue;
      f = f.slice(nl + 1).replace(/^\n+/, "");
    }
    if (f === "") continue;
    const status = f[0]!;
    if (status === "R" || status === "C") {
      many(fields[++i] ?? "");
      many(fields[++i] ?? "");
      continue;
    }
    const path = fields[++i];
    if (path === undefined || time === undefined || Number.isNaN(time)) return out;
    seen.set(path, status === "A" && !seen.has(path) ? time : null);
  }
  // the whole history was read, else a path's one commit in it proves nothing
  if (commits >= MAX_LOG_COMMITS) return out;
  const differs = new Set(changed.out.split("\0").filter(Boolean));
  for (const [path, ms] of seen) if (ms !== null && !differs.has(path)) out.set(path, ms);
  return out;
}
