/**
 * The earlier paths git's history names for a path's content (docs/LEDGER.md "Renames, moves and copies"):
 * the renames `git log --follow -M` follows, and the files changed by the commit that added the path (a
 * block cut from them into it). These are the `namedSources` of engine/lineage.ts; the rule of which of their
 * lines a path keeps stays there.
 *
 * Git's answer only adds paths to read: when git is missing, slow, or the repository shallow, the answer is
 * fewer paths (what the records alone chain), never a wrong one. Each question is one or two git calls,
 * each bounded in time.
 */
import type { spawnSync as SpawnSync } from "node:child_process";
import { namedByGit, type GitCommit, type GitNamed } from "../engine/lineage";
import { STABLE_CONFIG, type FileDiff } from "./git";

/** How long one git call may take before its answer is dropped (a huge history: no sources from git). */
export const GIT_SOURCES_TIMEOUT_MS = 3000;
/** The most commits of a path's history read (renames further back are cut, never guessed). */
const MAX_COMMITS = 500;

/** Runs git with a time bound; undefined when it cannot answer (missing, failed, too slow). */
function boundedGit(cwd: string, args: readonly string[]): string | undefined {
  // required here, as io/git.ts does: loading this module must not cost a hook anything
  const spawnSync = (require("node:child_process") as { spawnSync: typeof SpawnSync }).spawnSync;
  const r = spawnSync("git", [...STABLE_CONFIG, ...args], { cwd, encoding: "utf8", timeout: GIT_SOURCES_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) return undefined;
  return r.stdout;
}

const COMMIT_MARK = "\u0001";

/**
 * Parses `git log -z --name-status --format=%x01%H` output (newest first): each commit's changed files,
 * renames and copies with the path they came from. A field that does not parse ends the list there.
 */
export function parseNameStatusLog(output: string): GitCommit[] {
  const commits: GitCommit[] = [];
  const fields = output.split("\0");
  let current: GitCommit | undefined;
  for (let i = 0; i < fields.length; i++) {
    let f = fields[i]!;
    if (f.startsWith("\n")) f = f.slice(1);
    if (f === "") continue;
    if (f.startsWith(COMMIT_MARK)) {
      // the header line, then (without a NUL) the first status of the commit's files
      const nl = f.indexOf("\n");
      current = { sha: (nl < 0 ? f.slice(1) : f.slice(1, nl)).trim(), changes: [] };
      commits.push(current);
      if (nl < 0) continue;
      f = f.slice(nl + 1).replace(/^\n+/, "");
      if (f === "") continue;
    }
    if (!current) return commits;
    const status = f[0];
    if (status === "R" || status === "C") {
      const from = fields[++i];
      const to = fields[++i];
      if (from === undefined || to === undefined) return commits;
      current.changes.push({ status, path: to, from });
    } else if (status && "AMDT".includes(status)) {
      const path = fields[++i];
      if (path === undefined) return commits;
      current.changes.push({ status: status as "A" | "M" | "D" | "T", path });
    } else return commits;
  }
  return commits;
}

/**
 * The earlier paths git names for `path` (repository-relative, as the ledger's paths are when the workspace
 * is the repository's top): the renames of its history, and the files the commit that added it changed.
 */
export function gitSourcesOfPath(root: string, path: string): GitNamed {
  const log = boundedGit(root, [
    "log",
    "--follow",
    "-M",
    "--name-status",
    "-z",
    "--relative",
    `--max-count=${MAX_COMMITS}`,
    `--format=${COMMIT_MARK}%H`,
    "--",
    path,
  ]);
  if (log === undefined) return { renamed: [], split: [] };
  const history = parseNameStatusLog(log);
  const added = history.at(-1);
  if (added?.changes.some((c) => c.status === "A")) {
    // the commit that added the path: every file it changed (`git log --follow` showed only this path)
    const whole = boundedGit(root, ["show", "-M", "--name-status", "-z", "--relative", `--format=${COMMIT_MARK}%H`, added.sha]);
    const commit = whole === undefined ? undefined : parseNameStatusLog(whole)[0];
    if (commit) history[history.length - 1] = commit;
  }
  return namedByGit(path, history);
}

/**
 * For `intent check`: the earlier paths git names for each changed path, from the check's own diff and one
 * `git log` of `base..HEAD`. The diff names a rename's old path, and for a path it adds, the files it
 * deletes or removes lines from (a split not yet committed, or squashed into the diff); the log names the
 * renames and splits the branch's commits made (an added file renamed again on the branch).
 */
export function gitSourcesOfCheck(root: string, base: string, diffs: readonly FileDiff[]): (path: string) => GitNamed {
  const log = boundedGit(root, [
    "log",
    "-M",
    "--name-status",
    "-z",
    "--relative",
    `--max-count=${MAX_COMMITS}`,
    `--format=${COMMIT_MARK}%H`,
    `${base}..HEAD`,
    "--",
  ]);
  const history = log === undefined ? [] : parseNameStatusLog(log);
  const working: GitCommit = {
    sha: "",
    changes: diffs.map((d) => ({
      path: d.path,
      status: d.status === "renamed" ? "R" : d.status === "deleted" ? "D" : d.status === "added" ? "A" : d.removed.length ? "M" : "T",
      ...(d.from !== undefined ? { from: d.from } : {}),
    })),
  };
  return (path) => {
    const named = namedByGit(path, [working, ...history]);
    const committed = namedByGit(path, history);
    const known = (p: string) => named.renamed.includes(p) || named.split.includes(p);
    for (const p of committed.renamed) if (!known(p)) named.renamed.push(p);
    for (const p of committed.split) if (!known(p)) named.split.push(p);
    return named;
  };
}
