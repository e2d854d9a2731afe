import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { git } from "../support/gitRepository";

/**
 * `intent init` changes nothing a plain `git fetch` or `git pull` does, whatever shape the remote has: two
 * identical clones of a real local remote, `intent init` run in one, then the same fetch and pull in both,
 * compared (refs, FETCH_HEAD, the pull's outcome and where HEAD ends). Only the sealed ledger's own refs
 * (refs/intent/…) may differ.
 */

beforeAll(ensureBuilt);

const SEALED = "refs/intent/ledger";
const REFSPEC = "+refs/intent/*:refs/intent/remotes/origin/*";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function tempDir(name: string): string {
  const d = mkdtempSync(join(tmpdir(), `intent-lsp-${name}-`));
  dirs.push(d);
  return d;
}

/** A bare remote with main (two commits), a tag, and a sealed ledger ref; and a clone at its first commit. */
function remoteAndClone(): { remote: string; clone: string; first: string; second: string } {
  const remote = tempDir("remote");
  git(remote, "init", "-q", "--bare", "-b", "main");
  const work = tempDir("work");
  git(work, "init", "-q", "-b", "main");
  writeFileSync(join(work, "a.txt"), "one\n");
  git(work, "add", "a.txt");
  git(work, "commit", "-q", "-m", "one");
  const first = git(work, "rev-parse", "HEAD").trim();
  git(work, "push", "-q", remote, "main", `HEAD:${SEALED}`);
  const clone = tempDir("clone");
  git(clone, "init", "-q", "-b", "main");
  git(clone, "fetch", "-q", remote, "main");
  git(clone, "reset", "-q", "--hard", "FETCH_HEAD");
  git(clone, "update-ref", "-d", "FETCH_HEAD");
  writeFileSync(join(work, "b.txt"), "two\n");
  git(work, "add", "b.txt");
  git(work, "commit", "-q", "-m", "two");
  git(work, "tag", "v2");
  const second = git(work, "rev-parse", "HEAD").trim();
  git(work, "push", "-q", remote, "main", "v2");
  return { remote, clone, first, second };
}

/** What a plain fetch, then a plain pull, do in a repository; the sealed ledger's refs left out. */
function fetchAndPull(repo: string, fetch: string[], pull: string[]) {
  const run = (args: string[]) => {
    try {
      git(repo, ...args);
      return "ok";
    } catch (e) {
      return (e as Error).message.replace(/^.*failed: /s, "").trim();
    }
  };
  const notSealed = (text: string) =>
    text
      .split("\n")
      .filter((l) => l && !l.includes("refs/intent/"))
      .join("\n");
  const refs = () => notSealed(git(repo, "for-each-ref", "--format=%(refname) %(objectname)"));
  const fetched = run(fetch);
  const fetchHead = (() => {
    try {
      return notSealed(readFileSync(join(repo, ".git/FETCH_HEAD"), "utf8"));
    } catch {
      return "(none)";
    }
  })();
  const afterFetch = refs();
  const pulled = run(pull);
  return { fetched, fetchHead, afterFetch, pulled, head: git(repo, "rev-parse", "HEAD").trim(), afterPull: refs() };
}

/** Two copies of `clone` with its remote shaped by `shape`; `intent init` in the second. */
function beforeAndAfterInit(clone: string, shape: (repo: string) => void) {
  shape(clone);
  const initialized = tempDir("initialized");
  cpSync(clone, initialized, { recursive: true });
  const init = runCli(["init"], { cwd: initialized });
  return { plain: clone, initialized, init };
}

const fetchSpecs = (repo: string) => git(repo, "config", "--get-all", "remote.origin.fetch").trim().split("\n");

describe("intent init leaves plain git fetch and git pull as they were", () => {
  it("an origin with a URL and no fetch refspec: left alone (init says how to fetch the ledger); `git pull origin` still merges origin's HEAD", () => {
    const { remote, clone, second } = remoteAndClone();
    const { plain, initialized, init } = beforeAndAfterInit(clone, (r) => git(r, "config", "remote.origin.url", remote));
    const before = fetchAndPull(plain, ["fetch", "origin"], ["pull", "--ff-only", "origin"]);
    const after = fetchAndPull(initialized, ["fetch", "origin"], ["pull", "--ff-only", "origin"]);
    expect(after).toEqual(before);
    expect(after).toMatchObject({ fetched: "ok", pulled: "ok", head: second });
    expect(init.status).toBe(0);
    expect(init.stdout).toContain(
      "left git's fetch from origin as it is (it has no fetch refspec, so `git pull origin` merges origin's HEAD): `intent ledger fetch` brings the sealed ledger (refs/intent/ledger)\n",
    );
    expect(() => git(initialized, "config", "--get-all", "remote.origin.fetch")).toThrow();
  });

  it("the default refspec: the ledger's refspec is added after it; fetch and pull do what they did, and bring the ledger too", () => {
    const { remote, clone, first, second } = remoteAndClone();
    const shape = (r: string) => {
      git(r, "remote", "add", "origin", remote);
      git(r, "config", "branch.main.remote", "origin");
      git(r, "config", "branch.main.merge", "refs/heads/main");
    };
    const { plain, initialized, init } = beforeAndAfterInit(clone, shape);
    expect(init.stdout).toContain("configured git: a fetch from origin also brings the sealed ledger (refs/intent/ledger)\n");
    expect(fetchSpecs(initialized)).toEqual(["+refs/heads/*:refs/remotes/origin/*", REFSPEC]);
    const before = fetchAndPull(plain, ["fetch", "origin"], ["pull", "--ff-only"]);
    const after = fetchAndPull(initialized, ["fetch", "origin"], ["pull", "--ff-only"]);
    expect(after).toEqual(before);
    expect(after).toMatchObject({ fetched: "ok", pulled: "ok", head: second });
    expect(git(initialized, "rev-parse", "refs/intent/remotes/origin/ledger").trim()).toBe(first);
  });

  it("custom refspecs: one that stores a branch gets the ledger's added; one that stores nothing (no tags followed) is left alone", () => {
    const stored = remoteAndClone();
    const shapeStored = (r: string) => {
      git(r, "config", "remote.origin.url", stored.remote);
      git(r, "config", "remote.origin.fetch", "+refs/heads/main:refs/remotes/upstream/main");
    };
    const a = beforeAndAfterInit(stored.clone, shapeStored);
    expect(fetchSpecs(a.initialized)).toEqual(["+refs/heads/main:refs/remotes/upstream/main", REFSPEC]);
    const before = fetchAndPull(a.plain, ["fetch", "origin"], ["pull", "--ff-only", "origin"]);
    expect(fetchAndPull(a.initialized, ["fetch", "origin"], ["pull", "--ff-only", "origin"])).toEqual(before);
    expect(before).toMatchObject({ fetched: "ok", pulled: "ok", head: stored.second });

    const bare = remoteAndClone();
    const shapeBare = (r: string) => {
      git(r, "config", "remote.origin.url", bare.remote);
      git(r, "config", "remote.origin.fetch", "refs/heads/main");
    };
    const b = beforeAndAfterInit(bare.clone, shapeBare);
    const plainRun = fetchAndPull(b.plain, ["fetch", "origin"], ["pull", "--ff-only", "origin"]);
    expect(fetchAndPull(b.initialized, ["fetch", "origin"], ["pull", "--ff-only", "origin"])).toEqual(plainRun);
    expect(plainRun.afterFetch).not.toContain("refs/tags/v2");
    expect(b.init.stdout).toContain("left git's fetch from origin as it is (its refspecs store no ref, so a fetch follows no tags)");
    expect(fetchSpecs(b.initialized)).toEqual(["refs/heads/main"]);
  });

  it("a mirror: left alone, its refspec brings every ref already", () => {
    const { remote, clone } = remoteAndClone();
    const { plain, initialized, init } = beforeAndAfterInit(clone, (r) => {
      git(r, "remote", "add", "--mirror=fetch", "origin", remote);
      git(r, "checkout", "-q", "--detach");
    });
    const before = fetchAndPull(plain, ["fetch", "origin"], ["pull", "--ff-only", "origin", "main"]);
    expect(fetchAndPull(initialized, ["fetch", "origin"], ["pull", "--ff-only", "origin", "main"])).toEqual(before);
    expect(init.stdout).not.toContain("configured git");
    expect(fetchSpecs(initialized)).toEqual(["+refs/*:refs/*"]);
  });

  it("several remotes: only origin gets the ledger's refspec; `git fetch --all` and `git pull` do what they did", () => {
    const { remote, clone, second } = remoteAndClone();
    const other = remoteAndClone();
    const { plain, initialized } = beforeAndAfterInit(clone, (r) => {
      git(r, "remote", "add", "origin", remote);
      git(r, "remote", "add", "other", other.remote);
      git(r, "config", "branch.main.remote", "origin");
      git(r, "config", "branch.main.merge", "refs/heads/main");
    });
    expect(git(initialized, "config", "--get-all", "remote.other.fetch").trim()).toBe("+refs/heads/*:refs/remotes/other/*");
    const before = fetchAndPull(plain, ["fetch", "--all"], ["pull", "--ff-only"]);
    const after = fetchAndPull(initialized, ["fetch", "--all"], ["pull", "--ff-only"]);
    expect(after).toEqual(before);
    expect(after).toMatchObject({ fetched: "ok", pulled: "ok", head: second });
  });
});
