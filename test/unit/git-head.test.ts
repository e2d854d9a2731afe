import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { headRevision } from "../../server/src/io/git";

/** `headRevision` reads .git by hand; every case is checked against what `git rev-parse` says. */

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync(
    "git",
    ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", ...args],
    { cwd, encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout.trim();
}

function commit(repo: string, file: string, text: string): string {
  writeFileSync(join(repo, file), text);
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", `change ${file}`);
  return git(repo, "rev-parse", "HEAD");
}

describe("headRevision", () => {
  let dir: string;
  let repo: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "intent-lsp-git-")));
    repo = join(dir, "repo");
    mkdirSync(repo);
    git(repo, "init", "-q");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is undefined on an unborn branch and outside any repository", () => {
    expect(headRevision(repo)).toBeUndefined();
    const plain = join(dir, "plain");
    mkdirSync(plain);
    expect(headRevision(plain)).toBeUndefined();
  });

  it("follows HEAD to the branch's loose ref, also from a workspace in a subfolder", () => {
    const head = commit(repo, "a.txt", "1\n");
    expect(headRevision(repo)).toBe(head);
    mkdirSync(join(repo, "apps", "web"), { recursive: true });
    expect(headRevision(join(repo, "apps", "web"))).toBe(head);
  });

  it("reads packed-refs when the branch has no loose ref", () => {
    const head = commit(repo, "a.txt", "1\n");
    git(repo, "tag", "-a", "v1", "-m", "v1"); // an annotated tag adds a peeled ^ line to packed-refs
    git(repo, "pack-refs", "--all");
    expect(existsSync(join(repo, ".git", "refs", "heads", "main"))).toBe(false);
    expect(readFileSync(join(repo, ".git", "packed-refs"), "utf8")).toContain("refs/heads/main");
    expect(headRevision(repo)).toBe(head);
  });

  it("reads a detached HEAD", () => {
    const first = commit(repo, "a.txt", "1\n");
    commit(repo, "a.txt", "2\n");
    git(repo, "checkout", "-q", "--detach", first);
    expect(headRevision(repo)).toBe(first);
  });

  it("follows a worktree's .git file to its git dir, and commondir to the main repository's refs", () => {
    commit(repo, "a.txt", "1\n");
    const wt = join(dir, "wt");
    git(repo, "worktree", "add", "-q", "-b", "feature", wt);
    const feature = commit(wt, "b.txt", "feature\n");
    expect(readFileSync(join(wt, ".git"), "utf8")).toMatch(/^gitdir: /);
    expect(headRevision(wt)).toBe(feature);
    expect(headRevision(wt)).toBe(git(wt, "rev-parse", "HEAD"));
    expect(headRevision(repo)).toBe(git(repo, "rev-parse", "HEAD")); // the main worktree keeps its own HEAD
    expect(headRevision(repo)).not.toBe(feature);
    git(repo, "pack-refs", "--all"); // the worktree's branch now lives only in the common packed-refs
    expect(headRevision(wt)).toBe(feature);
  });

  it("resolves a relative gitdir: against the folder holding the .git file (submodules)", () => {
    const head = commit(repo, "a.txt", "1\n");
    const moved = join(dir, "modules", "repo.git");
    mkdirSync(join(dir, "modules"));
    renameSync(join(repo, ".git"), moved);
    writeFileSync(join(repo, ".git"), "gitdir: ../modules/repo.git\n");
    expect(headRevision(repo)).toBe(head);
    expect(headRevision(repo)).toBe(git(repo, "rev-parse", "HEAD"));
  });
});
