import { existsSync, readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { boundedGitAsync } from "../../server/src/io/boundedGit";
import { GitSourcesCache, gitSourcesOfPath, gitSourcesOfPathInBackground } from "../../server/src/io/gitSources";
import { git, gitWorkspace } from "../support/gitRepository";
import type { TempWorkspace } from "../support/workspace";

/**
 * The editor's cache of what git names for a path (io/gitSources.ts `GitSourcesCache`): an answer a git
 * call could not give (too slow on a busy machine, git not run) is not remembered until HEAD moves; git is
 * asked again, and the path's document hears of it (`onLearnt`) once git names its sources.
 */

let ws: TempWorkspace;
afterEach(() => ws.dispose());

const ENGINE = Array.from({ length: 12 }, (_, i) => `export function step${i}(value: number): number { return value * ${i + 2}; }`);

/** A repository where src/parser.ts was split from src/engine.ts in one commit. */
function splitRepository(): void {
  ws = gitWorkspace();
  ws.write("src/engine.ts", `${ENGINE.join("\n")}\n`);
  git(ws.root, "add", "-A");
  git(ws.root, "commit", "-q", "-m", "engine");
  ws.write("src/parser.ts", `${ENGINE.slice(0, 8).join("\n")}\n`);
  ws.write("src/engine.ts", `${ENGINE.slice(8).join("\n")}\n`);
  git(ws.root, "add", "-A");
  git(ws.root, "commit", "-q", "-m", "split the parser out");
}

/** A cache over the split repository with `git` as its runner, and the first path it hears git name. */
function cacheWith(git: typeof boundedGitAsync): { cache: GitSourcesCache; learnt: Promise<string> } {
  const cache = new GitSourcesCache(ws.root, { git, retryMs: 20 });
  const learnt = new Promise<string>((resolve) => {
    cache.onLearnt = resolve;
  });
  return { cache, learnt };
}

/** A git runner whose first `failures` calls get no answer (as a call stopped at its time bound does). */
function flakyGit(failures: number): { run: typeof boundedGitAsync; calls: () => number } {
  let calls = 0;
  return {
    run: (cwd, args, opts) => (++calls <= failures ? Promise.resolve(undefined) : boundedGitAsync(cwd, args, opts)),
    calls: () => calls,
  };
}

it("a git call that could not answer is asked again, and the path's document hears what git names", async () => {
  splitRepository();
  const flaky = flakyGit(1);
  const { cache, learnt } = cacheWith(flaky.run);
  expect(cache.names("src/parser.ts")).toEqual({ renamed: [], split: [] });
  expect(await learnt).toBe("src/parser.ts");
  const named = cache.names("src/parser.ts");
  expect([...named.renamed, ...named.split]).toContain("src/engine.ts");
  expect(flaky.calls()).toBeGreaterThan(1);
});

it("an answer git gave in full is remembered: the path is not asked again while HEAD stays", async () => {
  splitRepository();
  const counted = flakyGit(0);
  const { cache, learnt } = cacheWith(counted.run);
  cache.names("src/parser.ts");
  await learnt;
  const calls = counted.calls();
  const named = cache.names("src/parser.ts");
  expect([...named.renamed, ...named.split]).toContain("src/engine.ts");
  expect(counted.calls()).toBe(calls);
});

it("HEAD moving while git is asked at the earlier HEAD: the path is asked again at the new one, and a wait for it ends with its answer", async () => {
  ws = gitWorkspace();
  ws.write("src/engine.ts", `${ENGINE.join("\n")}\n`);
  git(ws.root, "add", "-A");
  git(ws.root, "commit", "-q", "-m", "engine");
  // git's calls wait while `held`: the question asked at the first HEAD is still under way when HEAD moves
  let held = true;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const { cache, learnt } = cacheWith(async (cwd, args, opts) => {
    if (held) await gate;
    return boundedGitAsync(cwd, args, opts);
  });
  try {
    expect(cache.names("src/parser.ts")).toEqual({ renamed: [], split: [] });
    ws.write("src/parser.ts", `${ENGINE.slice(0, 8).join("\n")}\n`);
    ws.write("src/engine.ts", `${ENGINE.slice(8).join("\n")}\n`);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "split the parser out");
    held = false;
    await cache.settled("src/parser.ts", 20_000);
    const named = cache.names("src/parser.ts");
    expect([...named.renamed, ...named.split]).toContain("src/engine.ts");
    expect(await learnt).toBe("src/parser.ts");
  } finally {
    release();
  }
});

it("asked in the background, git's answer for a path is the blocking call's: split, renamed, and unknown to git", async () => {
  splitRepository();
  git(ws.root, "mv", "src/parser.ts", "src/tokens.ts");
  git(ws.root, "commit", "-q", "-m", "rename the parser");
  ws.write("src/untracked.ts", `${ENGINE.slice(0, 3).join("\n")}\n`);
  const answers = [];
  for (const path of ["src/tokens.ts", "src/engine.ts", "src/untracked.ts"]) {
    const blocking = gitSourcesOfPath(ws.root, path);
    expect(await gitSourcesOfPathInBackground(ws.root, path), path).toEqual(blocking);
    answers.push(blocking);
  }
  // the renamed file names its old path, and the file the parser was split from (which git sees as a copy)
  expect(answers[0]!.renamed).toContain("src/parser.ts");
  expect([...answers[0]!.renamed, ...answers[0]!.split]).toContain("src/engine.ts");
  // git's content of each rename it followed (two: the rename, and the copy the split looks like to git)
  expect(answers[0]!.versions?.length).toBe(2);
  expect(answers[2]).toEqual({ renamed: [], split: [] });
});

it("asked in the background with its answer no longer needed, git is not run", async () => {
  splitRepository();
  const trace = ws.path(".git-trace.log");
  const stop = new AbortController();
  stop.abort();
  process.env["GIT_TRACE"] = trace;
  try {
    expect(await gitSourcesOfPathInBackground(ws.root, "src/parser.ts", stop.signal)).toEqual({ renamed: [], split: [] });
    // the same call not stopped runs git, which traces it: the trace is where a run would show
    expect(existsSync(trace)).toBe(false);
    const named = await gitSourcesOfPathInBackground(ws.root, "src/parser.ts");
    expect([...named.renamed, ...named.split]).toContain("src/engine.ts");
    expect(readFileSync(trace, "utf8")).toContain("--follow");
  } finally {
    delete process.env["GIT_TRACE"];
  }
});
