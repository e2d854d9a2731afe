import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/**
 * Git for the history replay: a real repository's versions of a file, and a "shadow" repository holding
 * exactly the versions replayed, one commit per step, whose `git blame` is the truth.
 */

function git(cwd: string, args: string[], input?: string): string {
  const r = spawnSync("git", ["-c", "core.autocrlf=false", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    ...(input !== undefined ? { input } : {}),
  });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} in ${cwd} failed: ${r.stderr}`);
  return r.stdout;
}

export interface FileVersion {
  commit: string;
  author: string;
  /** The file's path at that commit (it may have been renamed since). */
  path: string;
  text: string;
}

/**
 * Every version of `path` (as named at HEAD) in the history, oldest first, following renames; commits
 * where the file does not exist, or where its content did not change, are left out.
 */
export function fileVersions(repo: string, path: string): FileVersion[] {
  const log = git(repo, ["log", "--follow", "--format=%x00%H%x09%an", "--name-only", "--", path]);
  const entries: { commit: string; author: string; path: string }[] = [];
  for (const chunk of log.split("\u0000").slice(1)) {
    const [head, ...rest] = chunk.split("\n");
    const [commit, author] = head!.split("\t");
    const at = rest.find((l) => l.trim());
    if (commit && at) entries.push({ commit, author: author ?? "", path: at.trim() });
  }
  const out: FileVersion[] = [];
  for (const e of entries.reverse()) {
    const r = spawnSync("git", ["show", `${e.commit}:${e.path}`], { cwd: repo, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    if (r.status !== 0) continue; // deleted in this commit
    if (out.length && out[out.length - 1]!.text === r.stdout) continue;
    out.push({ ...e, text: r.stdout });
  }
  return out;
}

/** The paths most often changed in `repo` among `candidates` (workspace-relative, existing at HEAD). */
export function mostChanged(repo: string, under: string, count: number): string[] {
  const log = git(repo, ["log", "--format=", "--name-only", "--", under]);
  const counts = new Map<string, number>();
  for (const l of log.split("\n")) if (l.trim()) counts.set(l.trim(), (counts.get(l.trim()) ?? 0) + 1);
  const atHead = new Set(git(repo, ["ls-tree", "-r", "--name-only", "HEAD", "--", under]).split("\n").filter(Boolean));
  return [...counts.entries()]
    .filter(([p]) => atHead.has(p))
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([p]) => p);
}

/** The replayed versions, one commit each: `blame` gives each line's step. */
export class ShadowRepo {
  readonly dir: string;
  private readonly stepOf = new Map<string, number>();

  constructor(private readonly path: string) {
    this.dir = mkdtempSync(join(tmpdir(), "intent-lsp-oracle-shadow-"));
    git(this.dir, ["init", "-q"]);
  }

  commit(step: number, text: string): void {
    const file = join(this.dir, this.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    git(this.dir, ["add", "-A"]);
    git(this.dir, ["-c", "user.name=oracle", "-c", "user.email=oracle@intent-lsp.local", "commit", "-q", "--allow-empty", "-m", `step ${step}`]);
    this.stepOf.set(git(this.dir, ["rev-parse", "HEAD"]).trim(), step);
  }

  /**
   * How git's own diff turns the previous version into the last one: [at, remove, insertFrom, insertCount]
   * per hunk (0-based lines), bottom-up, so each applies to the text the previous ones left.
   */
  lastHunks(): { at: number; remove: number; from: number; count: number }[] {
    if (this.stepOf.size < 2) return [];
    const out = git(this.dir, ["diff", "-U0", "--no-color", "--no-ext-diff", "HEAD~1", "HEAD", "--", this.path]);
    const hunks: { at: number; remove: number; from: number; count: number }[] = [];
    for (const m of out.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)) {
      const [a, b, c, d] = [Number(m[1]), m[2] === undefined ? 1 : Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])];
      hunks.push({ at: b === 0 ? a : a - 1, remove: b, from: d === 0 ? c : c - 1, count: d });
    }
    return hunks.reverse();
  }

  /**
   * The step that last changed each line (in order). `ignoreWhitespace` (-w) keeps a line with its earlier
   * step when a later one changed only whitespace: the truth for ownership. Without it, the lines a step
   * touched at all: the truth for what its record may claim.
   */
  blame(ignoreWhitespace: boolean): number[] {
    const out = git(this.dir, ["blame", "--porcelain", ...(ignoreWhitespace ? ["-w"] : []), "HEAD", "--", this.path]);
    const steps: number[] = [];
    for (const line of out.split("\n")) {
      const m = /^([0-9a-f]{40}) \d+ \d+/.exec(line);
      if (m) {
        const step = this.stepOf.get(m[1]!);
        if (step === undefined) throw new Error(`shadow blame names an unknown commit ${m[1]}`);
        steps.push(step);
      }
    }
    return steps;
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** One commit of a group of files replayed together: the content of each group file it changed (null: deleted). */
export interface GroupCommit {
  commit: string;
  author: string;
  changes: Map<string, string | null>;
}

/**
 * The history of several files together, as `git log` lists it (merges left out, as `git log --follow` does
 * for one file): the newest `maxCommits` commits that changed any of `files` (paths at `rev`), oldest
 * first, and each file's content before the first of them (absent files left out). A file that did not
 * exist yet appears at the commit that made it, from whatever it was split or copied from.
 */
export function groupHistory(
  repo: string,
  files: readonly string[],
  rev: string,
  maxCommits: number,
): { start: Map<string, string>; startAuthor: string; commits: GroupCommit[] } {
  const log = git(repo, ["log", "--format=%x00%H%x09%an", "--name-only", rev, "--", ...files]);
  const wanted = new Set(files);
  const entries: { commit: string; author: string; paths: string[] }[] = [];
  for (const chunk of log.split("\u0000").slice(1)) {
    const [head, ...rest] = chunk.split("\n");
    const [commit, author] = head!.split("\t");
    const paths = rest.map((l) => l.trim()).filter((l) => wanted.has(l));
    if (commit && paths.length) entries.push({ commit, author: author ?? "", paths });
  }
  const taken = entries.slice(0, maxCommits).reverse();
  const show = (commit: string, path: string): string | null => {
    const r = spawnSync("git", ["show", `${commit}:${path}`], { cwd: repo, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    return r.status === 0 ? r.stdout : null;
  };
  const start = new Map<string, string>();
  let startAuthor = "";
  const first = taken[0];
  if (first) {
    const parent = spawnSync("git", ["rev-parse", "--verify", "-q", `${first.commit}^1`], { cwd: repo, encoding: "utf8" }).stdout.trim();
    if (parent) {
      startAuthor = git(repo, ["log", "-1", "--format=%an", parent]).trim();
      for (const f of files) {
        const text = show(parent, f);
        if (text !== null) start.set(f, text);
      }
    }
  }
  const state = new Map(start);
  const commits: GroupCommit[] = [];
  for (const e of taken) {
    const changes = new Map<string, string | null>();
    for (const p of e.paths) {
      const text = show(e.commit, p);
      if ((state.get(p) ?? null) === text) continue;
      changes.set(p, text);
      if (text === null) state.delete(p);
      else state.set(p, text);
    }
    if (changes.size) commits.push({ commit: e.commit, author: e.author, changes });
  }
  return { start, startAuthor, commits };
}

/**
 * The copy score (alphanumeric characters, git blame's -C<n>) of the smallest block intent-lsp takes as moved
 * between files: two lines, one of them with 8 characters besides blanks (engine/lineage.ts).
 */
const MOVED_BLOCK_SCORE = 8;

/**
 * The replayed states of several files, one commit per step. Its `git blame -w -C -C` is the truth for
 * lines moved or copied between the files: they keep the step that wrote them, as `git blame -C` credits
 * the original author (see `blame`).
 */
export class ShadowTree {
  readonly dir: string;
  private readonly stepOf = new Map<string, number>();

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), "intent-lsp-oracle-shadow-"));
    git(this.dir, ["init", "-q"]);
  }

  commit(step: number, changes: ReadonlyMap<string, string | null>): void {
    for (const [path, text] of changes) {
      const file = join(this.dir, path);
      if (text === null) rmSync(file, { force: true });
      else {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, text);
      }
    }
    git(this.dir, ["add", "-A"]);
    git(this.dir, ["-c", "user.name=oracle", "-c", "user.email=oracle@intent-lsp.local", "commit", "-q", "--allow-empty", "-m", `step ${step}`]);
    this.stepOf.set(git(this.dir, ["rev-parse", "HEAD"]).trim(), step);
  }

  /** git's own diff of `path` by the last step (see ShadowRepo.lastHunks); a file the step made is one hunk. */
  lastHunks(path: string): { at: number; remove: number; from: number; count: number }[] {
    const out = git(this.dir, ["diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames", "HEAD~1", "HEAD", "--", path]);
    const hunks: { at: number; remove: number; from: number; count: number }[] = [];
    for (const m of out.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)) {
      const [a, b, c, d] = [Number(m[1]), m[2] === undefined ? 1 : Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])];
      hunks.push({ at: b === 0 ? a : a - 1, remove: b, from: d === 0 ? c : c - 1, count: d });
    }
    return hunks.reverse();
  }

  /**
   * The step that wrote each line of `path`. A line `git blame -C -C` finds moved or copied from another of
   * the files keeps the step that wrote it there; a block moved within the file is the mover's, as in the
   * seeded oracle (test/oracle/truth.ts), so for those lines `git blame` without -C is the truth.
   */
  blame(path: string, ignoreWhitespace: boolean): number[] {
    return this.blameWithCopies(path, ignoreWhitespace).steps;
  }

  /**
   * `blame`, and each line's equally valid other owners (steps):
   * - for a single line taken from another file, the step `git blame` without -C gives it: the writer of
   *   the copy (git finds a copy by its own threshold, 40 characters, where intent-lsp needs a block of two
   *   lines). A block of two or more lines taken from one file has no such reading: it keeps its owner.
   * - for a line `git blame -C<n> -C<n>` finds moved from another of the files at the copy score of the
   *   smallest block intent-lsp takes as moved (`MOVED_BLOCK_SCORE`), the step that wrote it there. git's
   *   default score misses blocks moved in a commit that changes much around them: Flask's split of
   *   `register_error_handler` from app.py into scaffold.py (b146a13f) is the commit's own to
   *   `git blame -C -C`, Armin Ronacher's of 2011 to `git blame -C10 -C10`.
   */
  blameWithCopies(path: string, ignoreWhitespace: boolean): { steps: number[]; alternatives: number[][] } {
    const ws = ignoreWhitespace ? ["-w"] : [];
    const plain = this.blameLines(path, ws);
    const copies = this.blameLines(path, ["-C", "-C", ...ws]);
    const moved = this.blameLines(path, [`-C${MOVED_BLOCK_SCORE}`, `-C${MOVED_BLOCK_SCORE}`, ...ws]);
    const copied = (i: number) => copies[i] !== undefined && copies[i]!.file !== path && copies[i]!.step !== plain[i]!.step;
    // a line copied alone: a run of two or more from the same file is a moved block, whose owner it keeps
    const alone = (i: number) => !(copied(i - 1) && copies[i - 1]!.file === copies[i]!.file) && !(copied(i + 1) && copies[i + 1]!.file === copies[i]!.file);
    const steps = plain.map((p, i) => (copied(i) ? copies[i]!.step : p.step));
    return {
      steps,
      alternatives: plain.map((p, i) => {
        const out: number[] = [];
        if (copied(i) && alone(i)) out.push(p.step);
        const m = moved[i];
        if (m && m.file !== path && m.step !== steps[i]) out.push(m.step);
        return out;
      }),
    };
  }

  private blameLines(path: string, args: string[]): { step: number; file: string }[] {
    const out = git(this.dir, ["blame", "--line-porcelain", ...args, "HEAD", "--", path]);
    const lines: { step: number; file: string }[] = [];
    let step = -1;
    for (const line of out.split("\n")) {
      const m = /^([0-9a-f]{40}) \d+ \d+/.exec(line);
      if (m) {
        const s = this.stepOf.get(m[1]!);
        if (s === undefined) throw new Error(`shadow blame names an unknown commit ${m[1]}`);
        step = s;
      } else if (line.startsWith("filename ")) lines.push({ step, file: line.slice("filename ".length) });
    }
    return lines;
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
