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
