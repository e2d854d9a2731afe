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
 * A copy score (alphanumeric characters, git blame's -C<n>) below git's default of 40, which intent-lsp also
 * asks of a block moved between files (engine/lineage.ts `MIN_BLOCK_SCORE`): git scores the run of lines it
 * is blaming, and in a commit that changes much around a moved block that run can score less than the block.
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
  private readonly commitOf = new Map<number, string>();
  private readonly judged = new Map<string, Map<number, number[]>>();

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
    const sha = git(this.dir, ["rev-parse", "HEAD"]).trim();
    this.stepOf.set(sha, step);
    this.commitOf.set(step, sha);
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
   *   the copy (git finds a copy of a single line of 40 letters and digits, where intent-lsp needs a block
   *   of two lines). A block of two or more lines taken from one file has no such reading: it keeps its owner.
   * - for a line `git blame -C<n> -C<n>` finds moved from another of the files at a lower copy score
   *   (`MOVED_BLOCK_SCORE`), the step that wrote it there. git's default score misses blocks moved in a
   *   commit that changes much around them: Flask's split of
   *   `register_error_handler` from app.py into scaffold.py (b146a13f) is the commit's own to
   *   `git blame -C -C`, Armin Ronacher's of 2011 to `git blame -C10 -C10`.
   * - for a line of a step that `git blame -C -C` (or at that score) found moved or copied from another file
   *   when blamed at that step, the step that wrote it there: git judges a copy by the score of the run of
   *   lines it is blaming, so a later edit inside a moved block cuts it into runs too short to be found
   *   (Flask's `return f` and blank lines between decorators moved into scaffold.py at b146a13f), and the
   *   same line then reads as the mover's although nothing about its origin changed.
   * - for a line whose last change `git blame -w` skips as whitespace only, the step `git blame` without -w
   *   gives it: when lines change places and indentation at once, which of them is the re-indented old line
   *   and which the new one depends on whether the diff pairs lines by their whitespace-free forms or their
   *   exact text, and both are git's own readings (Flask's bda295d3 puts a `# namespace package` comment
   *   under the `if` it stood above and re-indents the `if`: `git blame -w` keeps the `if`, `git blame` and
   *   intent-lsp, which prefers exact pairs, keep the comment).
   */
  blameWithCopies(path: string, ignoreWhitespace: boolean): { steps: number[]; alternatives: number[][] } {
    const ws = ignoreWhitespace ? ["-w"] : [];
    const plain = this.blameLines(path, ws);
    const atStep = plain.map((p) => this.judgedAtStep(p.step, p.file, ws).get(p.orig) ?? []);
    // without -w: the step git credits when whitespace counts (see below)
    const exact = ignoreWhitespace ? this.blameLines(path, []) : plain;
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
        for (const s of atStep[i]!) if (s !== steps[i] && !out.includes(s)) out.push(s);
        const e = exact[i]?.step;
        if (e !== undefined && e !== p.step && e !== steps[i] && !out.includes(e)) out.push(e);
        return out;
      }),
    };
  }

  /**
   * The lines `step` wrote in `path` (numbered in that step's version) that `git blame -C -C`, or the same at
   * `MOVED_BLOCK_SCORE`, found moved or copied from another file when blamed at that step: the steps that
   * wrote them there.
   */
  private judgedAtStep(step: number, path: string, ws: string[]): Map<number, number[]> {
    const key = `${step}\0${path}\0${ws.join(" ")}`;
    let found = this.judged.get(key);
    if (found) return found;
    found = new Map();
    const rev = this.commitOf.get(step);
    if (rev !== undefined) {
      const plain = this.blameLines(path, ws, rev);
      const copies = [this.blameLines(path, ["-C", "-C", ...ws], rev), this.blameLines(path, [`-C${MOVED_BLOCK_SCORE}`, `-C${MOVED_BLOCK_SCORE}`, ...ws], rev)];
      plain.forEach((p, i) => {
        if (p.step !== step) return;
        const steps = copies.flatMap((c) => (c[i] && c[i]!.file !== path && c[i]!.step !== step ? [c[i]!.step] : []));
        if (steps.length) found!.set(i + 1, [...new Set(steps)]);
      });
    }
    this.judged.set(key, found);
    return found;
  }

  private blameLines(path: string, args: string[], rev = "HEAD"): { step: number; file: string; orig: number }[] {
    const out = git(this.dir, ["blame", "--line-porcelain", ...args, rev, "--", path]);
    const lines: { step: number; file: string; orig: number }[] = [];
    let step = -1;
    let orig = 0;
    for (const line of out.split("\n")) {
      const m = /^([0-9a-f]{40}) (\d+) \d+/.exec(line);
      if (m) {
        const s = this.stepOf.get(m[1]!);
        if (s === undefined) throw new Error(`shadow blame names an unknown commit ${m[1]}`);
        step = s;
        orig = Number(m[2]);
      } else if (line.startsWith("filename ")) lines.push({ step, file: line.slice("filename ".length), orig });
    }
    return lines;
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
