import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  addToSealedRef,
  checkRemoteName,
  configuredSealedRefspec,
  configureSealedFetch,
  fetchSealedRef,
  inGitWorkTree,
  pushSealedRef,
  readBlob,
  remoteSealedRef,
  SEALED_REF,
  SealedRefError,
  writeBlob,
} from "../../server/src/io/ledger/sealedRef";
import { git } from "../support/gitRepository";

/**
 * The ref that keeps sealed segments alive (docs/LEDGER.md "Segments"), on fresh repositories in process:
 * what it holds after each addition, how two clones' refs merge, and what fetch, push and the configured
 * refspec do with a remote that is a folder on this machine.
 */

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), "sealed-ref-"));
  roots.push(d);
  return d;
}

function repo(...initArgs: string[]): string {
  const root = dir();
  git(root, "init", "-q", ...initArgs);
  return root;
}

const NAMES = ["a", "b", "c", "d", "e"].map((c) => c.repeat(64));
const A = NAMES[0]!;
const B = NAMES[1]!;
const C = NAMES[2]!;

/** A blob per name, holding the name's first letter and `tag`. */
function blobs(root: string, names: string[], tag = ""): Map<string, string> {
  return new Map(names.map((n) => [n, writeBlob(root, Buffer.from(`${n[0]}${tag}`))]));
}

const head = (root: string, ref = SEALED_REF) => git(root, "rev-parse", "--verify", "--quiet", ref).trim();
/** The ref's tree as name → blob. */
function held(root: string, ref = SEALED_REF): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of git(root, "ls-tree", ref).split("\n").filter(Boolean)) {
    const [meta, file] = line.split("\t");
    out[file!] = meta!.split(" ")[2]!;
  }
  return out;
}
const parents = (root: string, commit: string) => git(root, "rev-list", "--parents", "-n", "1", commit).trim().split(" ").slice(1);
const asTree = (m: Map<string, string>) => Object.fromEntries([...m].map(([n, b]) => [`${n}.seg`, b]));

/** A commit whose tree lists these lines (mode, type, id, name), parented on `parent`. */
function commitOf(root: string, entries: string[], parent?: string): string {
  const id = spawnSync("git", ["mktree"], { cwd: root, input: entries.map((e) => `${e}\n`).join(""), encoding: "utf8" }).stdout.trim();
  return git(root, "commit-tree", id, ...(parent ? ["-p", parent] : []), "-m", "other").trim();
}

/** Runs `fn` with PATH holding only a `git` that is this script (or a file that cannot be run). */
function withFakeGit<T>(script: string | undefined, fn: () => T): T {
  const bin = dir();
  writeFileSync(join(bin, "git"), script ?? "not a program");
  chmodSync(join(bin, "git"), script === undefined ? 0o644 : 0o755);
  const path = process.env["PATH"];
  process.env["PATH"] = bin;
  try {
    return fn();
  } finally {
    process.env["PATH"] = path;
  }
}

const REAL_GIT = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();

/**
 * Runs `fn` with a `git` on PATH that notes each `update-ref` and `push` it is asked for in a log (one line
 * each) and runs the real git; `before` (shell) runs ahead of the first `update-ref`, as another writer would.
 */
function withCountingGit<T>(fn: (calls: () => string[]) => T, before = ""): T {
  const bin = dir();
  const log = join(bin, "log");
  const once = join(bin, "once");
  writeFileSync(
    join(bin, "git"),
    `#!/bin/sh
for a in "$@"; do case "$a" in update-ref|push) echo "$a" >> '${log}';; esac; done
case " $* " in *" update-ref "*) if [ ! -e '${once}' ]; then touch '${once}'; ${before || ":"}; fi;; esac
exec '${REAL_GIT}' "$@"
`,
  );
  chmodSync(join(bin, "git"), 0o755);
  writeFileSync(log, "");
  const path = process.env["PATH"];
  process.env["PATH"] = `${bin}:${path}`;
  try {
    return fn(() => readFileSync(log, "utf8").split("\n").filter(Boolean));
  } finally {
    process.env["PATH"] = path;
  }
}

describe("the blobs segments are stored in", () => {
  it("reads back the bytes it stored, and nothing for a blob this clone lacks", () => {
    const root = repo();
    const bytes = Buffer.from([0, 1, 2, 0x0a, 0xff, 0x0a]);
    const id = writeBlob(root, bytes);
    expect(id).toMatch(/^[0-9a-f]{40}$/);
    expect(readBlob(root, id)).toEqual(bytes);
    expect(readBlob(root, "1".repeat(40))).toBeUndefined();
  });

  it("says where git failed and what it said", () => {
    const root = dir();
    expect(() => writeBlob(root, Buffer.from("x"))).toThrow(`git hash-object -w --stdin failed in ${root}: fatal: not a git repository (or any `);
    expect(() => withFakeGit("#!/bin/sh\nwhile read -r _; do :; done\nexit 3\n", () => writeBlob(root, Buffer.from("x")))).toThrow(
      new SealedRefError(`git hash-object -w --stdin failed in ${root}: exit code 3`),
    );
    expect(() =>
      withFakeGit("#!/bin/sh\nwhile read -r _; do :; done\nprintf '  first\\nsecond\\n' >&2\nexit 1\n", () => writeBlob(root, Buffer.from("x"))),
    ).toThrow(new SealedRefError(`git hash-object -w --stdin failed in ${root}: first`));
    expect(withFakeGit("#!/bin/sh\nwhile read -r _; do :; done\nprintf '  id\\n\\n'\n", () => writeBlob(root, Buffer.from("x")))).toBe("id");
  });

  it("says what git said when it exits before reading what it was given (the EPIPE it leaves is no failure to run)", () => {
    // 32 MiB: git stops reading at once outside a repository, so writing the rest always fails with EPIPE
    expect(() => writeBlob(dir(), Buffer.alloc(32 * 1024 * 1024, 120))).toThrow(/git hash-object -w --stdin failed in .*: fatal: not a git repository/);
  });

  it("says when git cannot be run at all", () => {
    const root = repo();
    expect(() => withFakeGit(undefined, () => writeBlob(root, Buffer.from("x")))).toThrow(
      new SealedRefError(`could not run git hash-object in ${root}: spawnSync git EACCES`),
    );
    const empty = dir();
    const path = process.env["PATH"];
    process.env["PATH"] = empty;
    try {
      expect(() => writeBlob(root, Buffer.from("x"))).toThrow(
        new SealedRefError(`could not run git hash-object in ${root}: git is not installed or not on PATH`),
      );
      expect(inGitWorkTree(root)).toBe(false);
    } finally {
      process.env["PATH"] = path;
    }
  });

  it("knows a git work tree from a folder outside one", () => {
    expect(inGitWorkTree(repo())).toBe(true);
    expect(inGitWorkTree(dir())).toBe(false);
    const bare = repo("--bare");
    expect(inGitWorkTree(bare)).toBe(false);
  });
});

// git started dozens of times per test: well over the default 30 s on a loaded two-core machine
describe("the ref that holds them", { timeout: 120_000 }, () => {
  it("is made with the first segments, one entry each in name order, by a commit of intent-lsp's", () => {
    const root = repo();
    git(root, "config", "core.logAllRefUpdates", "always");
    const segs = blobs(root, [C, A, B]);
    addToSealedRef(root, segs);
    const commit = head(root);
    expect(git(root, "ls-tree", SEALED_REF)).toBe([A, B, C].map((n) => `100644 blob ${segs.get(n)}\t${n}.seg\n`).join(""));
    expect(parents(root, commit)).toEqual([]);
    expect(git(root, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s", SEALED_REF).trim()).toBe(
      "intent-lsp <intent-lsp@localhost>|intent-lsp <intent-lsp@localhost>|intent-lsp: sealed ledger segments",
    );
    expect(git(root, "reflog", "-1", "--format=%gs", SEALED_REF).trim()).toBe("intent-lsp: seal");
  });

  it("is left as it is when it holds every segment given, and grows by a child commit otherwise", () => {
    const root = repo();
    const first = blobs(root, [A, B]);
    addToSealedRef(root, first);
    const before = head(root);
    addToSealedRef(root, new Map([[A, first.get(A)!]]));
    addToSealedRef(root, new Map());
    expect(head(root)).toBe(before);
    const second = blobs(root, [C]);
    addToSealedRef(root, new Map([...second, [A, writeBlob(root, Buffer.from("another A"))]]));
    expect(parents(root, head(root))).toEqual([before]);
    expect(held(root)).toEqual(asTree(new Map([...first, ...second])));
  });

  it("fast-forwards to another clone's ref that holds its own", () => {
    const root = repo();
    addToSealedRef(root, blobs(root, [A]));
    const ours = head(root);
    addToSealedRef(root, blobs(root, [B]));
    const theirs = head(root);
    git(root, "update-ref", SEALED_REF, ours);
    addToSealedRef(root, new Map(), [theirs]);
    expect(head(root)).toBe(theirs);
    // and takes one with no ref of its own as it is
    const fresh = repo();
    git(fresh, "fetch", "-q", root, `${SEALED_REF}:refs/other`);
    addToSealedRef(fresh, new Map(), [head(fresh, "refs/other")]);
    expect(head(fresh)).toBe(theirs);
  });

  it("ignores another ref that it already holds, or that is itself", () => {
    const root = repo();
    addToSealedRef(root, blobs(root, [A]));
    const older = head(root);
    addToSealedRef(root, blobs(root, [B]));
    const now = head(root);
    addToSealedRef(root, new Map(), [older, now]);
    expect(head(root)).toBe(now);
  });

  it("merges with refs that diverged: a commit on all of them holding the union, its own blob kept for a name both hold", () => {
    const root = repo();
    addToSealedRef(root, blobs(root, [A]));
    const base = head(root);
    addToSealedRef(root, blobs(root, [B], "ours"));
    const ours = head(root);
    git(root, "update-ref", SEALED_REF, base);
    const theirBlobs = blobs(root, [B, C], "theirs");
    addToSealedRef(root, theirBlobs);
    const theirs = head(root);
    git(root, "update-ref", SEALED_REF, ours);
    const fresh = blobs(root, [NAMES[3]!, NAMES[4]!], "fresh");
    // a fresh segment the other ref names too: the fresh blob is the one this clone wrote
    fresh.set(C, writeBlob(root, Buffer.from("c fresh")));
    addToSealedRef(root, new Map([...fresh].filter(([n]) => n !== NAMES[4])), [theirs]);
    const merge = head(root);
    expect(parents(root, merge)).toEqual([ours, theirs]);
    expect(held(root)).toEqual(asTree(new Map([...blobs(root, [A]), ...blobs(root, [B], "ours"), [C, fresh.get(C)!], [NAMES[3]!, fresh.get(NAMES[3]!)!]])));
    // a diverged ref merged with nothing fresh to add: a merge commit, not a fast-forward that would lose ours
    git(root, "update-ref", SEALED_REF, ours);
    addToSealedRef(root, new Map(), [theirs]);
    expect(parents(root, head(root))).toEqual([ours, theirs]);
    expect(held(root)).toEqual(asTree(new Map([...blobs(root, [A]), ...blobs(root, [B], "ours"), [C, theirBlobs.get(C)!]])));
    // a ref with no commit of its own merges the others it is given, when no one holds the rest
    git(root, "update-ref", "-d", SEALED_REF);
    addToSealedRef(root, new Map(), [ours, theirs]);
    expect(parents(root, head(root))).toEqual([ours, theirs]);
  });

  it("takes only the segment entries of another ref's tree", () => {
    const root = repo();
    const blob = (s: string) => writeBlob(root, Buffer.from(s));
    const good = blob("good");
    const other = commitOf(root, [
      `100644 blob ${good}\t${A}.seg`,
      `100755 blob ${blob("exec")}\t${B}.seg`,
      `100644 blob ${blob("upper")}\t${"C".repeat(64)}.seg`,
      `100644 blob ${blob("short")}\t${"d".repeat(63)}.seg`,
      `100644 blob ${blob("ext")}\t${"e".repeat(64)}.segx`,
      `100644 blob ${blob("prefix")}\tx${"f".repeat(64)}.seg`,
      `100644 blob ${blob("readme")}\tREADME`,
    ]);
    addToSealedRef(root, blobs(root, [C]));
    addToSealedRef(root, new Map(), [other]);
    expect(Object.keys(held(root)).sort()).toEqual([`${A}.seg`, `${C}.seg`]);
    expect(held(root)[`${A}.seg`]).toBe(good);
  });

  it("gives up, saying so, when the ref cannot be moved", () => {
    const root = repo();
    addToSealedRef(root, blobs(root, [A]));
    const before = head(root);
    mkdirSync(join(root, ".git/refs/intent"), { recursive: true });
    writeFileSync(join(root, ".git/refs/intent/ledger.lock"), "");
    withCountingGit((calls) => {
      expect(() => addToSealedRef(root, blobs(root, [B]))).toThrow(
        new SealedRefError(`${SEALED_REF} kept moving while intent-lsp updated it; run the command again`),
      );
      expect(calls()).toEqual(new Array(6).fill("update-ref"));
    });
    expect(head(root)).toBe(before);
  });

  it("reads the ref again when another writer moved it first, and keeps what that writer added", () => {
    const root = repo();
    const base = blobs(root, [A]);
    addToSealedRef(root, base);
    const old = head(root);
    const theirs = blobs(root, [B], "theirs");
    addToSealedRef(root, theirs);
    const moved = head(root);
    git(root, "update-ref", SEALED_REF, old);
    const ours = blobs(root, [C]);
    withCountingGit((calls) => {
      addToSealedRef(root, ours);
      expect(calls()).toEqual(["update-ref", "update-ref"]);
    }, `'${REAL_GIT}' update-ref ${SEALED_REF} ${moved}`);
    expect(parents(root, head(root))).toEqual([moved]);
    expect(held(root)).toEqual(asTree(new Map([...base, ...theirs, ...ours])));
  });

  it("stores segments in a repository of SHA-256 objects", () => {
    const root = repo("--object-format=sha256");
    const segs = blobs(root, [A]);
    expect(segs.get(A)).toMatch(/^[0-9a-f]{64}$/);
    addToSealedRef(root, segs);
    const ours = head(root);
    git(root, "update-ref", "-d", SEALED_REF);
    addToSealedRef(root, blobs(root, [B]));
    addToSealedRef(root, new Map(), [ours]);
    expect(held(root)).toEqual(asTree(new Map([...segs, ...blobs(root, [B])])));
  });
});

describe("a remote's sealed history", { timeout: 120_000 }, () => {
  /** A clone with a bare remote named origin. */
  function pair(): { local: string; remote: string } {
    const remote = repo("--bare");
    const local = repo();
    git(local, "remote", "add", "origin", remote);
    return { local, remote };
  }

  it.each([["origin"], ["my.remote_2-b"], ["a".repeat(100)], ["0up"]])("takes %s as a remote's name", (name) => {
    expect(() => checkRemoteName(name)).not.toThrow();
  });

  it.each([[""], ["-origin"], [".x"], ["a".repeat(101)], ["a b"], ["x;rm"], [";x"], ["x/y"], ["x:"], ["ünï"]])("refuses %j as a remote's name", (name) => {
    const msg = `"${name}" is not a remote's name (letters, digits, ".", "_", "-"); \`git remote\` lists them`;
    expect(() => checkRemoteName(name)).toThrow(expect.objectContaining({ name: "SealedRefError", message: msg }));
    expect(() => fetchSealedRef(dir(), name)).toThrow(msg);
    expect(() => pushSealedRef(dir(), name)).toThrow(msg);
    expect(() => configureSealedFetch(dir(), name)).toThrow(msg);
  });

  it("names where a remote's ref is fetched to and the refspec init configures", () => {
    expect(remoteSealedRef("up")).toBe("refs/intent/remotes/up/ledger");
    expect(configuredSealedRefspec("up")).toBe("+refs/intent/*:refs/intent/remotes/up/*");
  });

  it("fetches nothing from a remote where nobody sealed, and says when the remote cannot be reached", () => {
    const { local } = pair();
    expect(fetchSealedRef(local, "origin")).toBe(false);
    expect(() => fetchSealedRef(local, "nowhere")).toThrow(/^git ls-remote nowhere failed: fatal: 'nowhere' does not appear to be a git repository$/);
    expect(() => withFakeGit("#!/bin/sh\nexit 5\n", () => fetchSealedRef(local, "origin"))).toThrow(
      new SealedRefError("git ls-remote origin failed: exit code 5"),
    );
    expect(() => withFakeGit("#!/bin/sh\nprintf '\\n  fatal: gone\\nmore\\n' >&2\nexit 128\n", () => fetchSealedRef(local, "origin"))).toThrow(
      new SealedRefError("git ls-remote origin failed: fatal: gone"),
    );
  });

  it("pushes its ref, takes the remote's segments in first, and fetches them into another clone", () => {
    const { local, remote } = pair();
    expect(() => pushSealedRef(local, "origin")).toThrow(
      new SealedRefError(`nothing to push: this clone has no ${SEALED_REF} (\`intent ledger compact\` makes it)`),
    );
    const ours = blobs(local, [A]);
    addToSealedRef(local, ours);
    pushSealedRef(local, "origin");
    expect(head(remote)).toBe(head(local));

    const other = repo();
    git(other, "remote", "add", "origin", remote);
    const theirs = blobs(other, [B], "theirs");
    addToSealedRef(other, theirs);
    expect(fetchSealedRef(other, "origin")).toBe(true);
    expect(head(other, remoteSealedRef("origin"))).toBe(head(remote));
    expect(held(other)).toEqual(asTree(new Map([...ours, ...theirs])));
    pushSealedRef(other, "origin");
    expect(held(remote)).toEqual(asTree(new Map([...ours, ...theirs])));

    // the remote's ref replaced by one that does not descend from what was fetched: fetched all the same
    const replaced = repo();
    const rewritten = blobs(replaced, [NAMES[3]!], "rewritten");
    addToSealedRef(replaced, rewritten);
    git(replaced, "push", "-q", "--force", remote, `${SEALED_REF}:${SEALED_REF}`);
    expect(fetchSealedRef(other, "origin")).toBe(true);
    expect(head(other, remoteSealedRef("origin"))).toBe(head(replaced));
    expect(held(other)).toEqual(asTree(new Map([...ours, ...theirs, ...rewritten])));
    pushSealedRef(other, "origin");

    // the first clone, behind the remote, takes the other's segments before its push
    addToSealedRef(local, blobs(local, [C]));
    pushSealedRef(local, "origin");
    expect(held(remote)).toEqual(asTree(new Map([...ours, ...theirs, ...rewritten, ...blobs(local, [C])])));
  });

  it("says why a push failed after trying again", () => {
    const { local, remote } = pair();
    addToSealedRef(local, blobs(local, [A]));
    pushSealedRef(local, "origin");
    addToSealedRef(local, blobs(local, [B]));
    mkdirSync(join(remote, "refs/intent"), { recursive: true });
    writeFileSync(join(remote, "refs/intent/ledger.lock"), "");
    withCountingGit((calls) => {
      expect(() => pushSealedRef(local, "origin")).toThrow(/^git push origin refs\/intent\/ledger failed: /);
      expect(calls()).toEqual(["push", "push", "push"]);
    });
    expect(() => pushSealedRef(local, "origin")).toThrow(
      /^git push origin refs\/intent\/ledger failed: remote: error: cannot lock ref 'refs\/intent\/ledger': [^\n]*$/,
    );
  });

  it.each([
    ["\n  rejected: no\nmore", "rejected: no"],
    ["", "exit code 1"],
  ])("says what git said when a push fails: %j", (stderr, said) => {
    const { local } = pair();
    addToSealedRef(local, blobs(local, [A]));
    const bin = dir();
    writeFileSync(
      join(bin, "git"),
      `#!/bin/sh\ncase " $* " in *" push "*) printf '${stderr.replace(/\n/g, "\\n")}' >&2; exit 1;; esac\nexec '${REAL_GIT}' "$@"\n`,
    );
    chmodSync(join(bin, "git"), 0o755);
    const path = process.env["PATH"];
    process.env["PATH"] = `${bin}:${path}`;
    try {
      expect(() => pushSealedRef(local, "origin")).toThrow(new SealedRefError(`git push origin ${SEALED_REF} failed: ${said}`));
    } finally {
      process.env["PATH"] = path;
    }
  });

  it("is no remote outside a git work tree, whatever the user's configuration names", () => {
    const home = dir();
    writeFileSync(join(home, "gitconfig"), `[remote "origin"]\n\turl = ${home}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`);
    const before = process.env["GIT_CONFIG_GLOBAL"];
    process.env["GIT_CONFIG_GLOBAL"] = join(home, "gitconfig");
    try {
      expect(configureSealedFetch(dir(), "origin")).toEqual({ kind: "no-remote" });
    } finally {
      if (before === undefined) delete process.env["GIT_CONFIG_GLOBAL"];
      else process.env["GIT_CONFIG_GLOBAL"] = before;
    }
  });

  it("configures a remote that has fetch refspecs but no url", () => {
    const { local } = pair();
    git(local, "config", "--unset", "remote.origin.url");
    expect(configureSealedFetch(local, "origin")).toEqual({ kind: "add" });
  });

  it("configures the fetch refspec on a remote that fetches branches, once", () => {
    const { local } = pair();
    expect(configureSealedFetch(local, "origin")).toEqual({ kind: "add" });
    expect(git(local, "config", "--get-all", "remote.origin.fetch").trim().split("\n")).toEqual([
      "+refs/heads/*:refs/remotes/origin/*",
      configuredSealedRefspec("origin"),
    ]);
    expect(configureSealedFetch(local)).toEqual({ kind: "present" });
  });

  it("leaves a remote whose fetch the refspec would change, and says when there is no remote or no git", () => {
    const { local, remote } = pair();
    git(local, "config", "remote.origin.mirror", "true");
    expect(configureSealedFetch(local, "origin")).toEqual({ kind: "leave", why: "mirror" });
    git(local, "config", "--unset", "remote.origin.mirror");
    git(local, "config", "--unset-all", "remote.origin.fetch");
    expect(configureSealedFetch(local, "origin")).toEqual({ kind: "leave", why: "no fetch refspec" });
    git(local, "config", "--unset", "remote.origin.url");
    expect(configureSealedFetch(local, "origin")).toEqual({ kind: "no-remote" });
    expect(configureSealedFetch(local, "upstream")).toEqual({ kind: "no-remote" });
    expect(configureSealedFetch(remote, "origin")).toEqual({ kind: "no-remote" });
    expect(git(local, "config", "--list")).not.toContain("remote.origin.fetch");
  });
});
