import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { AGENT_NAMES } from "../../server/src/cli/hook";
import { ensureBuilt } from "../support/builtDist";
import { type HookAgent, runCli } from "../support/cliRunner";
import { ALL_AGENTS } from "../support/gatedAgents";
import { git, gitWorkspace } from "../support/gitRepository";
import { LspClient } from "../support/lspClient";
import type { TempWorkspace } from "../support/workspace";

/**
 * Git runs nothing the repository, its configuration or the environment names, through any door: every
 * program git could start (hooks, fsmonitor, filters, textconv, external diff, pagers, editors, credential
 * and ssh helpers, signature checks, alternate refs, a remote's upload-pack and receive-pack) is planted
 * as a script that leaves a sentinel file, and every door is driven: each agent's hooks, the editor, and
 * every CLI command. No sentinel may appear.
 */

beforeAll(ensureBuilt);

const API = "src/api/weather.ts";
const HOOK_NAMES = [
  "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit", "prepare-commit-msg", "commit-msg",
  "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive", "update", "proc-receive", "post-receive",
  "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
  "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit", "post-index-change",
]; // biome-ignore format: one list

interface Planted {
  /** Where the scripts leave their sentinels. */
  sentinels: string;
  env: NodeJS.ProcessEnv;
  dispose(): void;
}

/** A script that leaves the sentinel `name`, then does `then` (a shell line; default: exit 0). */
function script(dir: string, sentinels: string, name: string, then = "exit 0"): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\ntouch '${join(sentinels, name)}'\n${then}\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * A long-running filter (git's process protocol, version 2) that leaves its sentinel and hands content back
 * unchanged: one that broke the protocol would make git stop, and hide what else it would have run.
 */
function processFilter(dir: string, sentinels: string): string {
  const path = join(dir, "filter-process");
  const program = `
const fs = require("node:fs");
fs.writeFileSync(${JSON.stringify(join(sentinels, "filter-process"))}, "");
const pkt = (s) => { const b = Buffer.from(s); const n = (b.length + 4).toString(16).padStart(4, "0"); fs.writeSync(1, Buffer.concat([Buffer.from(n), b])); };
const flush = () => fs.writeSync(1, "0000");
let buf = Buffer.alloc(0);
let packets = [];
let phase = 0;
let headers = null;
function onFlush() {
  if (phase === 0) { pkt("git-filter-server\\n"); pkt("version=2\\n"); flush(); phase = 1; }
  else if (phase === 1) { pkt("capability=clean\\n"); pkt("capability=smudge\\n"); flush(); phase = 2; }
  else if (headers === null) { headers = packets; }
  else {
    pkt("status=success\\n"); flush();
    const content = Buffer.concat(packets);
    for (let at = 0; at < content.length; at += 65000) { const part = content.subarray(at, at + 65000); const n = (part.length + 4).toString(16).padStart(4, "0"); fs.writeSync(1, Buffer.concat([Buffer.from(n), part])); }
    flush(); flush(); headers = null;
  }
  packets = [];
}
process.stdin.on("data", (d) => {
  buf = Buffer.concat([buf, d]);
  while (buf.length >= 4) {
    const len = parseInt(buf.subarray(0, 4).toString(), 16);
    if (len === 0) { buf = buf.subarray(4); onFlush(); continue; }
    if (buf.length < len) break;
    packets.push(buf.subarray(4, len));
    buf = buf.subarray(len);
  }
});
`;
  writeFileSync(path, `#!${process.execPath}\n${program}`);
  chmodSync(path, 0o755);
  return path;
}

/** Every program git can be told to run, planted in the repository's configuration and the environment. */
function plant(ws: TempWorkspace, remote: string): Planted {
  const base = mkdtempSync(join(tmpdir(), "intent-lsp-sentinels-"));
  const sentinels = join(base, "ran");
  const bin = join(base, "bin");
  const hooks = join(base, "hooks");
  for (const d of [sentinels, bin, hooks]) mkdirSync(d);
  for (const name of HOOK_NAMES) script(hooks, sentinels, name);
  const run = (name: string, then?: string) => script(bin, sentinels, name, then);
  const config: [string, string][] = [
    ["core.hooksPath", hooks],
    ["core.fsmonitor", run("fsmonitor", "exit 1")],
    ["core.pager", run("core-pager", "cat")],
    ["pager.status", run("pager-status", "cat")],
    ["pager.diff", run("pager-diff", "cat")],
    ["pager.log", run("pager-log", "cat")],
    ["pager.show", run("pager-show", "cat")],
    ["core.editor", run("core-editor")],
    ["sequence.editor", run("sequence-editor")],
    ["diff.external", run("diff-external")],
    ["diff.evil.textconv", run("textconv", 'cat "$1"')],
    ["diff.evil.command", run("diff-driver")],
    ["filter.evil.clean", run("filter-clean", "cat")],
    ["filter.evil.smudge", run("filter-smudge", "cat")],
    ["filter.evil.required", "true"],
    ["filter.evilproc.process", processFilter(bin, sentinels)],
    ["include.path", join(base, "included.gitconfig")],
    ["credential.helper", `!${run("credential-helper")}`],
    ["core.sshCommand", run("ssh-command")],
    ["core.askPass", run("askpass")],
    ["core.gitProxy", run("git-proxy")],
    ["log.showSignature", "true"],
    ["gpg.program", run("gpg")],
    ["gpg.ssh.program", run("gpg-ssh")],
    ["gpg.x509.program", run("gpg-x509")],
    ["core.alternateRefsCommand", run("alternate-refs", "exit 0")],
    ["remote.origin.uploadpack", run("upload-pack", 'exec git-upload-pack "$@"')],
    ["remote.origin.receivepack", run("receive-pack", 'exec git-receive-pack "$@"')],
  ];
  // a driver defined only in an included file, for a file type of its own
  writeFileSync(join(base, "included.gitconfig"), `[filter "evilinc"]\n\tclean = ${run("filter-included", "cat")}\n\trequired = true\n`);
  for (const [key, value] of config) git(ws.root, "config", "--add", key, value);
  // drivers git reads where a reader of the text could miss them: a CRLF section, a U+2028 in a comment
  // after the header, a file included through `~user/`
  const me = userInfo();
  writeFileSync(join(base, "tilde.gitconfig"), `[filter "eviltilde"] # \u2028\n\tclean = ${run("filter-tilde", "cat")}\n\trequired = true\n`);
  appendFileSync(
    ws.path(".git/config"),
    `[filter "evilcrlf"]\r\n\tclean = ${run("filter-crlf", "cat")}\r\n\trequired = true\r\n[include]\n\tpath = ~${me.username}/${relative(me.homedir, base)}/tilde.gitconfig\n`,
  );
  writeFileSync(
    ws.path(".git/info/attributes"),
    "* filter=evil diff=evil\n*.md filter=evilproc\n*.jsonc filter=evilinc\n*.yaml filter=evilcrlf\nsrc/billing/* filter=eviltilde\n",
  );
  // alternates make a fetch ask core.alternateRefsCommand for the refs they hold
  writeFileSync(ws.path(".git/objects/info/alternates"), `${join(remote, "objects")}\n`);
  const env: NodeJS.ProcessEnv = {
    GIT_EXTERNAL_DIFF: run("env-external-diff"),
    GIT_PAGER: run("env-git-pager", "cat"),
    PAGER: run("env-pager", "cat"),
    GIT_EDITOR: run("env-editor"),
    GIT_SSH: run("env-ssh"),
    GIT_SSH_COMMAND: run("env-ssh-command"),
    GIT_ASKPASS: run("env-askpass"),
    SSH_ASKPASS: run("env-ssh-askpass"),
    GIT_PROXY_COMMAND: run("env-proxy"),
    INTENT_LSP_MODEL: "openai/gpt-5",
  };
  return { sentinels, env, dispose: () => rmSync(base, { recursive: true, force: true }) };
}

let stirs = 0;
/** Gives tracked files (one per filter) a new modification time, so that git reads them again (through their filters). */
function stir(ws: TempWorkspace): void {
  const when = new Date(Date.UTC(2031, 0, 1) + ++stirs * 1000);
  for (const f of ["README.md", "src/auth/middleware.ts", "src/billing/export.ts", ".orchestration/config.jsonc", ".orchestration/active_intents.yaml"])
    utimesSync(ws.path(f), when, when);
}

/** The edit each agent makes: the line declaring Weather gets a comment naming the agent. */
function nextEdit(ws: TempWorkspace, agent: string) {
  const from = ws
    .read(API)
    .split("\n")
    .find((l) => l.startsWith("export interface Weather {"))!;
  return { path: API, from, to: `${from} // ${agent}` };
}

function applyEdit(ws: TempWorkspace, e: { path: string; from: string; to: string }): void {
  ws.write(e.path, ws.read(e.path).replace(e.from, e.to));
}

describe("git runs nothing the repository or the environment names", () => {
  let ws: TempWorkspace | undefined;
  let planted: Planted | undefined;
  let remote: string | undefined;
  afterEach(() => {
    ws?.dispose();
    planted?.dispose();
    if (remote) rmSync(remote, { recursive: true, force: true });
  });

  it("the agents driven are every agent `intent hook` answers", () => {
    expect(ALL_AGENTS.map((a) => a.agent).sort()).toEqual([...AGENT_NAMES].sort());
  });

  it("through every agent's hooks, the editor and every CLI command, no planted program runs", { timeout: 240_000 }, async () => {
    ws = gitWorkspace();
    remote = mkdtempSync(join(tmpdir(), "intent-lsp-remote-"));
    git(remote, "init", "-q", "--bare");
    git(ws.root, "remote", "add", "origin", remote);
    git(ws.root, "push", "-q", "origin", "main");
    ws.select("INT-001");
    planted = plant(ws, remote);
    const p = planted;
    const w = ws;
    const ran: Record<string, string[]> = {};
    const door = async (name: string, action: () => unknown) => {
      stir(w);
      await action();
      ran[name] = readdirSync(p.sentinels).sort();
      for (const f of ran[name]) rmSync(join(p.sentinels, f));
    };
    const cli = (...args: string[]) => runCli(args, { cwd: w.root, env: p.env });
    const hook = (agent: HookAgent, payload: unknown) => runCli(["hook", agent], { cwd: w.root, env: p.env, input: JSON.stringify(payload) });

    for (const d of ALL_AGENTS) {
      const e = nextEdit(w, d.agent);
      await door(`hook ${d.agent}: before a write`, () => hook(d.agent, d.write(w, "pre", e)));
      applyEdit(w, e);
      await door(`hook ${d.agent}: after a write`, () => hook(d.agent, d.write(w, "post", e)));
      await door(`hook ${d.agent}: before ls`, () => hook(d.agent, d.shell(w, "pre", "ls")));
      await door(`hook ${d.agent}: after ls`, () => hook(d.agent, d.shell(w, "post", "ls")));
    }

    await door("editor: open, change, save, hover", async () => {
      const client = await LspClient.start({ root: w.root, env: p.env });
      try {
        await client.open(API, "typescript");
        await client.waitForPublishOfCurrentVersion(API);
        await client.setLine(API, 0, `${client.text(API).split("\n")[0]} // editor`);
        await client.waitForPublishOfCurrentVersion(API);
        await client.save(API);
        await client.waitForPublishOfCurrentVersion(API);
        await client.hoverText(API, 0, 1);
      } finally {
        await client.stop();
      }
    });

    const commands: string[][] = [
      ["init"],
      ["doctor"],
      ["check"],
      ["check", "--staged"],
      ["blame", API],
      ["stats"],
      ["report", "--out", "-"],
      ["status"],
      ["context", "INT-001"],
      ["verify"],
      ["select", "INT-001"],
      ["map"],
      ["ledger", "compact", "--before", "2100-01-01"],
      ["ledger", "push"],
      ["ledger", "fetch"],
      ["export"],
    ];
    const status: Record<string, number> = {};
    for (const args of commands) await door(`intent ${args.join(" ")}`, () => void (status[args.join(" ")] = cli(...args).status));

    const expected = Object.fromEntries(Object.keys(ran).map((k) => [k, []]));
    expect(ran).toEqual(expected);
    // every agent's write landed, so each agent's hooks saw a change to record
    const declaration = readFileSync(w.path(API), "utf8")
      .split("\n")
      .find((l) => l.startsWith("export interface Weather {"));
    expect(declaration).toBe(`export interface Weather { ${ALL_AGENTS.map((a) => `// ${a.agent}`).join(" ")}`);
    // the doors did their work with the programs turned off: the ledger was sealed, pushed and fetched
    expect([status["ledger compact --before 2100-01-01"], status["ledger push"], status["ledger fetch"], status["verify"]]).toEqual([0, 0, 0, 0]);
    expect(git(remote, "for-each-ref", "--format=%(refname)", "refs/intent/")).toBe("refs/intent/ledger\n");
  });
});
