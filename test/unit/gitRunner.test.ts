import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { gitExecFile, gitInvocation, gitSpawn, gitSync } from "../../server/src/io/gitRunner";

/** What the runner starts: the options that turn programs off, where git reads them, for each kind of call. */

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A repository git itself reads (`git init`), its configuration followed by `config`. */
function gitRepoWithConfig(config: string): string {
  dir = mkdtempSync(join(tmpdir(), "intent-lsp-runner-"));
  execFileSync("git", ["init", "-q", dir]);
  writeFileSync(join(dir, ".git", "config"), `${readFileSync(join(dir, ".git", "config"), "utf8")}${config}`);
  return dir;
}

/** A folder with a `.git` holding only a config, enough for the runner to find the repository's configuration. */
function repoWithConfig(config: string): string {
  dir = mkdtempSync(join(tmpdir(), "intent-lsp-runner-"));
  mkdirSync(join(dir, ".git"));
  writeFileSync(join(dir, ".git", "config"), config);
  return dir;
}

describe("gitInvocation", () => {
  it("puts the subcommand's own switches right after it, past the caller's leading -c settings", () => {
    const { argv } = gitInvocation(repoWithConfig(""), ["-c", "log.showRoot=true", "log", "-p", "HEAD"]);
    const at = argv.indexOf("log");
    expect(argv.slice(at - 2, at + 5)).toEqual(["-c", "log.showRoot=true", "log", "--no-ext-diff", "--no-textconv", "-p", "HEAD"]);
    expect(argv.slice(0, at)).toContain("core.hooksPath=/dev/null");
  });

  it("turns off each filter driver the repository's configuration defines, a name with = included", () => {
    const { argv, env } = gitInvocation(repoWithConfig('[filter "lfs"]\n\tclean = x\n[filter "a=b"]\n\tprocess = y\n'), ["status"]);
    expect(argv.filter((a) => a.startsWith("--config-env=filter."))).toEqual([
      "--config-env=filter.lfs.clean=INTENT_LSP_GIT_EMPTY",
      "--config-env=filter.lfs.smudge=INTENT_LSP_GIT_EMPTY",
      "--config-env=filter.lfs.process=INTENT_LSP_GIT_EMPTY",
      "--config-env=filter.lfs.required=INTENT_LSP_GIT_FALSE",
      "--config-env=filter.a=b.clean=INTENT_LSP_GIT_EMPTY",
      "--config-env=filter.a=b.smudge=INTENT_LSP_GIT_EMPTY",
      "--config-env=filter.a=b.process=INTENT_LSP_GIT_EMPTY",
      "--config-env=filter.a=b.required=INTENT_LSP_GIT_FALSE",
    ]);
    expect([env["INTENT_LSP_GIT_EMPTY"], env["INTENT_LSP_GIT_FALSE"]]).toEqual(["", "false"]);
  });

  it("follows includes, `~/` from HOME and relative from the including file, whatever their condition", () => {
    const root = repoWithConfig('[include]\n\tpath = ~/home.gitconfig\n[includeIf "onbranch:none"]\n\tpath = ../more.gitconfig\n');
    writeFileSync(join(root, "home.gitconfig"), '[filter "fromhome"]\n\tclean = x\n');
    writeFileSync(join(root, "more.gitconfig"), '[filter "fromrelative"]\n\tsmudge = y\n');
    const { argv } = gitInvocation(root, ["status"], { HOME: root });
    const names = argv.filter((a) => a.endsWith(".required=INTENT_LSP_GIT_FALSE")).map((a) => a.split(".")[1]);
    expect(names).toEqual(["fromhome", "fromrelative"]);
  });

  it("follows `~user/` for this user from this user's home; another user's, which only git resolves, is listed by git", () => {
    const me = userInfo();
    const root = repoWithConfig("");
    const up = relative(me.homedir, "/");
    writeFileSync(join(root, "mine.gitconfig"), '[filter "frommine"]\n\tclean = x\n');
    writeFileSync(join(root, ".git", "config"), `[include]\n\tpath = ~${me.username}/${up}${root}/mine.gitconfig\n`);
    const names = (argv: string[]) => argv.filter((a) => a.endsWith(".required=INTENT_LSP_GIT_FALSE")).map((a) => a.split(".")[1]);
    expect(names(gitInvocation(root, ["status"]).argv)).toEqual(["frommine"]);
    // an include git cannot expand either: git fails to read its configuration, and no call is started
    rmSync(root, { recursive: true, force: true });
    const other = gitRepoWithConfig("[include]\n\tpath = ~no-such-user-here/x.gitconfig\n");
    expect(() => gitInvocation(other, ["status"])).toThrow(/filter drivers git would run are not known: git is not started/);
    const r = gitSync(other, ["status"], { encoding: "utf8" });
    expect([r.status, r.stdout, r.error?.message]).toEqual([null, "", expect.stringMatching(/includes "~no-such-user-here\/x.gitconfig"/)]);
  });

  it("gitSpawn and gitExecFile fail a refused call as a git that cannot start does, with nothing run", async () => {
    const root = gitRepoWithConfig("[include]\n\tpath = ~no-such-user-here/x.gitconfig\n");
    const child = gitSpawn(root, ["status"], { stdio: ["ignore", "pipe", "ignore"] });
    const events: string[] = [];
    await new Promise<void>((done) => {
      child.on("error", (e) => events.push(`error: ${e.message.slice(0, 40)}`));
      child.stdout!.on("data", () => events.push("data"));
      child.on("close", (code) => {
        events.push(`close ${code}`);
        done();
      });
    });
    expect(events).toEqual(["error: git's configuration here could not be re", "close null"]);
    const answer = await new Promise<[string, string]>((done) =>
      gitExecFile(root, ["status"], { timeoutMs: 5000, maxBuffer: 1024 }, (e, out) => done([e?.message.slice(0, 40) ?? "", out])),
    );
    expect(answer).toEqual(["git's configuration here could not be re", ""]);
  });

  it("a local call reaches no transport and no helper; a push keeps the person's transport but not the remote's receive-pack", () => {
    const root = repoWithConfig("");
    process.env["GIT_SSH_COMMAND"] = "ssh -i key";
    try {
      const local = gitInvocation(root, ["cat-file", "blob", "abc"]);
      expect(local.argv).toContain("protocol.allow=never");
      expect(local.argv).toContain("credential.helper=");
      expect(local.env["GIT_SSH_COMMAND"]).toBeUndefined();
      const push = gitInvocation(root, ["push", "origin", "x"]);
      expect(push.argv).not.toContain("protocol.allow=never");
      expect(push.argv).toContain("protocol.ext.allow=never");
      expect(push.argv.slice(push.argv.indexOf("push"))).toEqual(["push", "--receive-pack=git-receive-pack", "origin", "x"]);
      expect(push.env["GIT_SSH_COMMAND"]).toBe("ssh -i key");
    } finally {
      delete process.env["GIT_SSH_COMMAND"];
    }
  });

  it("a diff reads submodules' commits, not their working trees, unless the caller says otherwise", () => {
    const root = repoWithConfig("");
    const fromSubcommand = (args: string[]) => {
      const { argv } = gitInvocation(root, args);
      return argv.slice(argv.indexOf(args[0]!));
    };
    expect(fromSubcommand(["diff", "HEAD"])).toEqual(["diff", "--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty", "HEAD"]);
    expect(fromSubcommand(["diff", "--ignore-submodules=all", "HEAD"])).toEqual(["diff", "--no-ext-diff", "--no-textconv", "--ignore-submodules=all", "HEAD"]);
    expect(fromSubcommand(["status", "--porcelain"])).toEqual(["status", "--porcelain"]);
  });

  it("a local call never prompts and never fetches a missing object; a network call keeps the person's prompt", () => {
    const root = repoWithConfig("");
    const local = gitInvocation(root, ["cat-file", "--batch"]);
    expect([local.env["GIT_TERMINAL_PROMPT"], local.env["GIT_NO_LAZY_FETCH"]]).toEqual(["0", "1"]);
    const fetch = gitInvocation(root, ["fetch", "origin"], { GIT_TERMINAL_PROMPT: "1" });
    expect(fetch.env["GIT_TERMINAL_PROMPT"]).toBe("1");
    expect(fetch.argv.slice(fetch.argv.indexOf("fetch"))).toEqual(["fetch", "--upload-pack=git-upload-pack", "origin"]);
    expect(fetch.argv).not.toContain("credential.helper=");
  });

  it("refuses an option before the subcommand other than -c: its value could stand where the subcommand is looked for", () => {
    const root = repoWithConfig("");
    expect(() => gitInvocation(root, ["-C", "elsewhere", "diff"])).toThrow(
      new Error("git -C elsewhere diff: only -c settings may come before the subcommand (the git runner adds its own options)"),
    );
    expect(() => gitInvocation(root, ["--git-dir", "x", "log"])).toThrow("only -c settings may come before the subcommand");
  });
});

/** Whether everything before the subcommand is a setting: `-c name=value` pairs, `--config-env=` switches and `--no-pager`. */
function onlySettingsBefore(argv: readonly string[], sub: string): boolean {
  const at = argv.indexOf(sub);
  for (let i = 0; i < at; i++) {
    if (argv[i] === "-c" && argv[i + 1]?.includes("=")) i++;
    else if (argv[i] !== "--no-pager" && !argv[i]!.startsWith("--config-env=")) return false;
  }
  return true;
}

describe("what the runner starts", () => {
  it.each([["status"], ["fetch", "origin"], ["push", "origin", "x"], ["-c", "a.b=c", "log"]])("only settings before the subcommand: git %s", (...args) => {
    const sub = args.find((a, i) => !a.startsWith("-") && args[i - 1] !== "-c")!;
    expect(onlySettingsBefore(gitInvocation(repoWithConfig('[filter "f"]\n\tclean = x\n'), args).argv, sub)).toBe(true);
  });

  it("leading -c settings and no subcommand: passed on as given (git then prints its usage)", () => {
    const { argv } = gitInvocation(repoWithConfig(""), ["-c", "a.b=c"]);
    expect(argv.slice(-2)).toEqual(["-c", "a.b=c"]);
  });
});

describe("running git", () => {
  /** A real repository: what git answers depends on the folder it runs in. */
  function repository(): string {
    dir = mkdtempSync(join(tmpdir(), "intent-lsp-runner-"));
    execFileSync("git", ["init", "-q"], { cwd: dir, env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" } });
    return dir;
  }
  const EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
  const X_BLOB = "c1b0730e0133447badcfd47fd144e254807b06e1";

  it("gitSync: in the folder given, as text or bytes, with the input given", () => {
    const root = repository();
    expect(gitSync(root, ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).stdout).toBe(`${root}\n`);
    expect(gitSync(root, ["rev-parse", "--show-toplevel"]).stdout).toEqual(Buffer.from(`${root}\n`));
    expect(gitSync(root, ["hash-object", "--stdin"], { encoding: "utf8", input: "x" }).stdout).toBe(`${X_BLOB}\n`);
    expect(gitSync(root, ["hash-object", "--stdin"], { encoding: "utf8" }).stdout).toBe(`${EMPTY_BLOB}\n`);
  });

  it("gitSync: a call past its time is stopped, and output past the buffer is an error", () => {
    const root = repository();
    expect(gitSync(root, ["rev-parse", "--show-toplevel"], { timeoutMs: 1 }).error).toMatchObject({ code: "ETIMEDOUT" });
    expect(gitSync(root, ["rev-parse", "--show-toplevel"], { maxBuffer: 3 }).error).toMatchObject({ code: "ENOBUFS" });
    expect(gitSync(root, ["rev-parse", "--show-toplevel"], { timeoutMs: 60_000 }).error).toBeUndefined();
  });

  it("gitSync: output of any size a blob can have by default (a 1 MiB file here)", () => {
    const root = repository();
    const big = "x".repeat(1024 * 1024);
    const blob = gitSync(root, ["hash-object", "-w", "--stdin"], { encoding: "utf8", input: big }).stdout.trim();
    const r = gitSync(root, ["cat-file", "blob", blob], { encoding: "utf8" });
    expect(r.error).toBeUndefined();
    expect(r.stdout).toBe(big);
  });

  it("gitExecFile: the whole output as text, in the folder given", async () => {
    const root = repository();
    const out = await new Promise<[unknown, string]>((resolve) =>
      gitExecFile(root, ["rev-parse", "--show-toplevel"], { timeoutMs: 60_000, maxBuffer: 1024 }, (err, stdout) => resolve([err, stdout])),
    );
    expect(out).toEqual([null, `${root}\n`]);
  });

  it("gitSpawn: output as it comes, from the folder given", async () => {
    const root = repository();
    const child = gitSpawn(root, ["rev-parse", "--show-toplevel"], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    await new Promise((r) => child.on("close", r));
    expect(out).toBe(`${root}\n`);
  });
});
