/**
 * The earlier paths git's history names for a path's content (docs/LEDGER.md "Renames, moves and copies"):
 * the renames `git log --follow -M` follows, and the files changed by the commit that added the path (a
 * block cut from them into it). These are the `namedSources` of engine/lineage.ts; the rule of which of their
 * lines a path keeps stays there.
 *
 * Git's answer only adds paths to read: when git is missing, slow, or the repository shallow, the answer is
 * fewer paths (what the records alone chain), never a wrong one. Each question is a few git calls (the log,
 * the commit that added the path, the content each of the newest renames left), each bounded in time.
 */
import { fileHash, lineHash } from "../engine/hashing";
import { GitHistory, namedByGit, type GitCommit, type GitNamed, type GitRename, type RenamedVersion } from "../engine/lineage";
import { textLines } from "../engine/lines";
import { boundedGit as askGit, boundedGitAsync } from "./boundedGit";
import { headRevision, type FileDiff } from "./git";

/** How long one git call may take before its answer is dropped (a huge history: no sources from git). */
export const GIT_SOURCES_TIMEOUT_MS = 3000;
/** The most commits of a path's history read (renames further back are cut, never guessed). */
const MAX_COMMITS = 500;

const BOUNDS = { timeoutMs: GIT_SOURCES_TIMEOUT_MS, maxBytes: 64 * 1024 * 1024 };

/** Git's output; undefined when it cannot answer (missing, failed, too slow). */
function boundedGit(cwd: string, args: readonly string[]): string | undefined {
  const r = askGit(cwd, args, BOUNDS);
  return r?.ok ? r.out : undefined;
}

const COMMIT_MARK = "\u0001";
/** Between a commit's hash and its parents' in a header (`--format=%x01%H%x02%P`). */
const PARENTS_MARK = "\u0002";

/**
 * Parses `git log -z --name-status --format=%x01%H` output (newest first): each commit's changed files,
 * renames and copies with the path they came from, and with `--format=%x01%H%x02%P` its number of parents. A field that does not parse ends the list there.
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
      const [sha, parents] = (nl < 0 ? f.slice(1) : f.slice(1, nl)).split(PARENTS_MARK);
      current = { sha: sha!.trim(), ...(parents !== undefined ? { parents: parents.split(" ").filter(Boolean).length } : {}), changes: [] };
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
  return sourcesOfPath(path, (args) => boundedGit(root, args));
}

/**
 * `gitSourcesOfPath`, asked in the background: a caller that will most likely need the answer starts it
 * before its other work, and git runs meanwhile. The same questions, read the same way. Once `signal` is
 * aborted (the answer is not needed after all), the git call under way is stopped and no other is started.
 */
export function gitSourcesOfPathInBackground(root: string, path: string, signal?: AbortSignal): Promise<GitNamed> {
  return sourcesOfPath(path, async (args) => {
    if (signal?.aborted) return undefined;
    const r = await boundedGitAsync(root, args, signal ? { ...BOUNDS, signal } : BOUNDS);
    return r?.ok ? r.out : undefined;
  });
}

/** The two questions `gitSourcesOfPath` asks, through `run` (blocking for the CLI, in the background for the editor). */
function sourcesOfPath(path: string, run: (args: readonly string[]) => string | undefined): GitNamed;
function sourcesOfPath(path: string, run: (args: readonly string[]) => Promise<string | undefined>): Promise<GitNamed>;
function sourcesOfPath(path: string, run: (args: readonly string[]) => string | undefined | Promise<string | undefined>): GitNamed | Promise<GitNamed> {
  const fromLog = (log: string | undefined): GitNamed | { history: GitCommit[]; addedSha: string } => {
    if (log === undefined) return { renamed: [], split: [] };
    const history = parseNameStatusLog(log);
    const added = history.at(-1);
    // a root commit changed no earlier file: the path has nothing to be split from, and reading every file
    // such a commit added (a repository's first import: tens of thousands) would cost the whole answer
    if (!added?.changes.some((c) => c.status === "A") || added.parents === 0) return namedByGit(path, history);
    return { history, addedSha: added.sha };
  };
  // the commit that added the path: every file it changed (`git log --follow` showed only this path)
  const withAdded = (history: GitCommit[], whole: string | undefined): GitNamed => {
    const commit = whole === undefined ? undefined : parseNameStatusLog(whole)[0];
    return namedByGit(path, commit ? [...history.slice(0, -1), commit] : history);
  };
  const logArgs = [
    "log",
    "--follow",
    "-M",
    "--name-status",
    "-z",
    "--relative",
    `--max-count=${MAX_COMMITS}`,
    `--format=${COMMIT_MARK}%H${PARENTS_MARK}%P`,
    "--",
    path,
  ];
  const showArgs = (sha: string) => ["show", "-M", "--name-status", "-z", "--relative", `--format=${COMMIT_MARK}%H`, sha];
  const renames = (named: GitNamed) => (named.renames ?? []).slice(0, MAX_RENAMED_VERSIONS);
  const log = run(logArgs);
  if (log instanceof Promise) {
    return log.then(async (text) => {
      const first = fromLog(text);
      const named = "history" in first ? withAdded(first.history, await run(showArgs(first.addedSha))) : first;
      const texts: (string | undefined)[] = [];
      for (const r of renames(named)) texts.push(await run(blobArgs(r)));
      return withVersions(named, renames(named), texts);
    });
  }
  const first = fromLog(log);
  const named = "history" in first ? withAdded(first.history, run(showArgs(first.addedSha)) as string | undefined) : first;
  return withVersions(
    named,
    renames(named),
    renames(named).map((r) => run(blobArgs(r)) as string | undefined),
  );
}

/** The most renames of one path whose content git is asked for (the newest; older ones are followed by content). */
const MAX_RENAMED_VERSIONS = 4;
/** A renamed version larger than this is not read: its lines are followed by content, as without git's version. */
const MAX_VERSION_BYTES = 8 * 1024 * 1024;

/** The content a rename commit left (`git show <sha>:./<path>`, the path relative to the workspace). */
function blobArgs(r: GitRename): string[] {
  return ["show", `${r.sha}:./${r.path}`];
}

/** `named` with the content each of `renames` left, as hashes (`texts[i]` for `renames[i]`; undefined: git could not show it). */
function withVersions(named: GitNamed, renames: readonly GitRename[], texts: readonly (string | undefined)[]): GitNamed {
  const versions: RenamedVersion[] = [];
  texts.forEach((text, i) => {
    const r = renames[i]!;
    if (text === undefined || text.length > MAX_VERSION_BYTES) return;
    versions.push({ ...r, hash: fileHash(text), lineHashes: text === "" ? [] : textLines(text).map(lineHash) });
  });
  return versions.length ? { ...named, versions } : named;
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
      // a copy is an added file with the path it came from: followed as a rename is
      status: d.from !== undefined ? "R" : d.status === "deleted" ? "D" : d.status === "added" ? "A" : d.removed.length ? "M" : "T",
      ...(d.from !== undefined ? { from: d.from } : {}),
    })),
  };
  const withWorking = new GitHistory([working, ...history]);
  const committedOnly = new GitHistory(history);
  return (path) => {
    const named = namedByGit(path, withWorking);
    const committed = namedByGit(path, committedOnly);
    const known = (p: string) => named.renamed.includes(p) || named.split.includes(p);
    for (const p of committed.renamed) if (!known(p)) named.renamed.push(p);
    for (const p of committed.split) if (!known(p)) named.split.push(p);
    // the branch's own renames: git's content of each, as blame and the editor read them (one verdict); a
    // rename only in the working tree has no commit to show
    const renames = (committed.renames ?? []).slice(0, MAX_RENAMED_VERSIONS);
    return withVersions(
      named,
      renames,
      renames.map((r) => boundedGit(root, blobArgs(r))),
    );
  };
}

/** Paths whose git answer is remembered; past this the oldest answers are dropped. */
const MAX_REMEMBERED = 2000;

/**
 * `gitSourcesOfPath` for the editor, which never waits for a process: `names` answers from what git said
 * for this path at the current HEAD, or nothing yet, and asks git in the background; `onLearnt` hears of a
 * path whose answer names some path, so that its document can be attributed again. An answer cut short
 * (a git call too slow, or git not run) is not remembered: git is asked again 5 s later, in the background
 * up to three times, then whenever the path is read again, so a busy moment never leaves a path short of
 * what git knows until HEAD moves.
 */
export class GitSourcesCache {
  private readonly known = new Map<string, GitNamed>();
  /**
   * The questions under way, by path, with the HEAD each was asked at: each settles when git has answered (or
   * could not). A question of an earlier HEAD does not stand for the current one (its answer is dropped).
   */
  private readonly asking = new Map<string, { head: string; done: Promise<void> }>();
  /** Paths git could not answer for (too slow, could not run): how many times, and when to ask again. */
  private readonly unanswered = new Map<string, { tries: number; at: number }>();
  private head: string | undefined;
  onLearnt: (path: string) => void = () => undefined;

  private readonly now: () => number;
  private readonly git: typeof boundedGitAsync;
  private readonly retryMs: number;

  /** `opts`: the clock, the git runner and the retry delay, for a test to set. */
  constructor(
    private readonly root: string,
    opts: { now?: () => number; git?: typeof boundedGitAsync; retryMs?: number } = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.git = opts.git ?? boundedGitAsync;
    this.retryMs = opts.retryMs ?? RETRY_UNANSWERED_MS;
  }

  names(path: string): GitNamed {
    const head = headRevision(this.root);
    if (head !== this.head) {
      this.head = head;
      this.known.clear();
      this.unanswered.clear();
    }
    if (head === undefined) return NONE;
    const answer = this.known.get(path);
    if (answer) return answer;
    // HEAD moved while git was asked at the earlier one (a rebase moves it many times): asked again now
    if (this.asking.get(path)?.head !== head && this.now() >= (this.unanswered.get(path)?.at ?? 0)) this.ask(path, head);
    return NONE;
  }

  /**
   * Settles once git has answered for `path` at the current HEAD (asked now if it is due), or after
   * `timeoutMs`; undefined when no question is under way (nothing to wait for): a request that shows a line's owner waits for what `intent blame` would read, so that the
   * hover says what blame says right after HEAD moved.
   */
  settled(path: string, timeoutMs: number): Promise<void> | undefined {
    this.names(path);
    const pending = this.asking.get(path)?.done;
    if (!pending) return undefined;
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      pending,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  }

  private ask(path: string, head: string): void {
    // a question that throws gets no answer, as git that could not run: nothing is remembered
    const done = this.answer(path, head)
      .catch(() => undefined)
      .finally(() => {
        if (this.asking.get(path)?.head === head) this.asking.delete(path);
      });
    this.asking.set(path, { head, done });
  }

  private async answer(path: string, head: string): Promise<void> {
    // a call git could not answer leaves the answer short: it is not remembered, and asked again later
    let short = false;
    const run = async (args: readonly string[]) => {
      const r = await this.git(this.root, args, BOUNDS);
      if (r === undefined) short = true;
      return r?.ok ? r.out : undefined;
    };
    const named = await sourcesOfPath(path, run);
    if (this.head !== head) return;
    if (short) {
      const tries = (this.unanswered.get(path)?.tries ?? 0) + 1;
      if (this.unanswered.size >= MAX_REMEMBERED) this.unanswered.delete(this.unanswered.keys().next().value!);
      this.unanswered.set(path, { tries, at: this.now() + this.retryMs });
      // asked again without waiting for a hover: the document's attribution shows what git adds once it answers
      if (tries < MAX_BACKGROUND_TRIES) {
        setTimeout(() => {
          if (this.head === head && !this.known.has(path) && !this.asking.has(path)) this.ask(path, head);
        }, this.retryMs).unref();
      }
      return;
    }
    this.unanswered.delete(path);
    if (this.known.size >= MAX_REMEMBERED) this.known.delete(this.known.keys().next().value!);
    this.known.set(path, named);
    if (named.renamed.length || named.split.length) this.onLearnt(path);
  }
}

/** How long after git could not answer for a path it is asked again (a busy machine, a huge history). */
export const RETRY_UNANSWERED_MS = 5000;
/** How many times in a row git is asked for a path in the background; after that, only when the path is read again. */
const MAX_BACKGROUND_TRIES = 3;

const NONE: GitNamed = { renamed: [], split: [] };
