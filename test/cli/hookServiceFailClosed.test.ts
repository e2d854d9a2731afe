import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acquireLedgerLock } from "../../server/src/io/ledger/append";
import { ensureBuilt } from "../support/builtDist";
import { runHook, type CliResult } from "../support/cliRunner";
import { ALL_AGENTS, agentNamed, internalError, relativeTo } from "../support/gatedAgents";
import { HookServiceHarness, spawnHook } from "../support/hookServiceHarness";
import { INTENTS_BY_STATUS } from "../support/intentsByStatus";
import { LEDGER } from "../support/ledgerFile";
import { TempWorkspace } from "../support/workspace";

/**
 * The hook service fails closed (docs/ARCHITECTURE.md "Hook service"): whatever breaks between the agent's
 * launcher and the service, every agent gets the answer its own process gives, or its protocol's denial;
 * never an exit code alone, never the service's view of a folder that is not the agent's.
 */

beforeAll(ensureBuilt);

/** A write into a COMPLETE intent's folder with no intent selected: denied (no-active-intent). */
const FINISHED = { path: "c/done.ts", from: "export const done = 1;", to: "export const done = 2;" };
const reply = (r: CliResult): CliResult => ({ stdout: r.stdout, stderr: r.stderr, status: r.status });

let h: HookServiceHarness;
let ws: TempWorkspace;
beforeEach(() => {
  h = new HookServiceHarness();
  ws = new TempWorkspace({ withLedger: false });
  ws.write(".orchestration/active_intents.yaml", INTENTS_BY_STATUS);
  ws.write(FINISHED.path, `${FINISHED.from}\n`);
  ws.write("b/work.ts", "export const work = 1;\n");
});
afterEach(async () => {
  await h.dispose();
  ws.dispose();
});

/** Makes the workspace a git repository with everything committed (a shell command's changes are told by git). */
function commitAll(root: string): void {
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args], { cwd: root, stdio: "pipe" });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "start");
}

/** A live service for the harness's environment, started by one call; its socket. */
async function liveService(): Promise<string> {
  runHook("claude-code", agentNamed("claude-code").write(ws, "pre", { path: "b/work.ts", from: "1", to: "2" }), { cwd: ws.root, env: h.env() });
  const [socket] = await h.services(1);
  return socket!;
}

describe("the service judges a call as the caller's own process does", () => {
  it.each(ALL_AGENTS.map((f) => [f.agent, f] as const))("%s: a relative working folder is the agent's, not the service's", async (_n, f) => {
    const payload = relativeTo(ws, f.write(ws, "pre", FINISHED));
    const own = reply(runHook(f.agent, payload, { cwd: ws.root, env: h.env("off") }));
    expect(own.stdout + own.stderr).toContain("[intent-lsp: no-active-intent] No intent selected for c/done.ts.");
    await liveService();
    expect(reply(await spawnHook(f.agent, payload, { cwd: ws.root, env: h.env("require") }))).toEqual(own);
  });

  it("a working folder below the workspace, given relatively, finds the workspace above it", async () => {
    const f = agentNamed("claude-code");
    const payload = { ...(f.write(ws, "pre", FINISHED) as object), cwd: "c" };
    const own = reply(runHook(f.agent, payload, { cwd: ws.root, env: h.env("off") }));
    expect(own.stdout).toContain("[intent-lsp: no-active-intent]");
    await liveService();
    expect(reply(await spawnHook(f.agent, payload, { cwd: ws.root, env: h.env("require") }))).toEqual(own);
  });
});

describe("a service that breaks during a call", () => {
  it.each(ALL_AGENTS.map((f) => [f.agent, f] as const))("%s: dies after taking the call: the call's own process answers it", async (_n, f) => {
    const payload = f.write(ws, "pre", FINISHED);
    const own = reply(runHook(f.agent, payload, { cwd: ws.root, env: h.env("off") }));
    await h.fake(await liveService(), "drop");
    expect(reply(await spawnHook(f.agent, payload, { cwd: ws.root, env: h.env() }))).toEqual(own);
  });

  it("dies after taking a write's record: the write is recorded once, and once only when the call comes again", async () => {
    const f = agentNamed("claude-code");
    const edit = { path: "b/work.ts", from: "export const work = 1;", to: "export const work = 2;" };
    ws.select("INT-002");
    const socket = await liveService();
    runHook(f.agent, f.write(ws, "pre", edit), { cwd: ws.root, env: h.env("off") });
    ws.write(edit.path, `${edit.to}\n`);
    await h.fake(socket, "drop");
    const first = await spawnHook(f.agent, f.write(ws, "post", edit), { cwd: ws.root, env: h.env() });
    expect(reply(first)).toEqual({ stdout: "{}\n", stderr: "", status: 0 });
    const records = () => readFileSync(ws.path(LEDGER), "utf8").split("\n").filter(Boolean);
    expect(records()).toHaveLength(1);
    expect(JSON.parse(records()[0]!).files[0].path).toBe("b/work.ts");
    await spawnHook(f.agent, f.write(ws, "post", edit), { cwd: ws.root, env: h.env() });
    expect(records()).toHaveLength(1);
  });

  // The service is killed while it waits for the ledger's lock, which the test holds: past reading the call's
  // stash or snapshot, before appending. No outside sign shows the service reached the lock, so the kill
  // comes after a wait; the assertions hold wherever the kill lands, only the window they probe needs it.
  it.each(
    ALL_AGENTS.flatMap(
      (f) =>
        [
          [f.agent, "a write's stash", "write", f],
          [f.agent, "a shell command's snapshot", "shell", f],
        ] as const,
    ),
  )("%s: killed after reading %s and before appending: the call's own process records it, once", async (_n, _what, door, f) => {
    const edit = { path: "b/work.ts", from: "export const work = 1;", to: "export const work = 2;" };
    const command = `sed -i s/1/2/ ${edit.path}`;
    ws.select("INT-002");
    if (door === "shell") commitAll(ws.root);
    await liveService();
    const pre = door === "write" ? f.write(ws, "pre", edit) : f.shell(ws, "pre", command);
    runHook(f.agent, pre, { cwd: ws.root, env: h.env("off") });
    ws.write(edit.path, `${edit.to}\n`);
    const release = await acquireLedgerLock(ws.path(LEDGER));
    const post = door === "write" ? f.write(ws, "post", edit) : f.shell(ws, "post", command);
    const answered = spawnHook(f.agent, post, { cwd: ws.root, env: h.env() });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(h.signalServices("SIGKILL")).toBe(1);
    await release();
    const first = reply(await answered);
    expect(first.status).toBe(0);
    expect(first.stdout + first.stderr).not.toContain("did not record");
    const records = () => readFileSync(ws.path(LEDGER), "utf8").split("\n").filter(Boolean);
    expect(records().map((r) => JSON.parse(r).files.map((x: { path: string }) => x.path))).toEqual([[edit.path]]);
    await spawnHook(f.agent, post, { cwd: ws.root, env: h.env() });
    expect(records()).toHaveLength(1);
  });

  it.each(ALL_AGENTS.map((f) => [f.agent, f] as const))("%s: gives no answer in time: denied in the agent's protocol", async (_n, f) => {
    await h.fake(await liveService(), "hang");
    const r = await spawnHook(f.agent, f.write(ws, "pre", { path: "b/work.ts", from: "1", to: "2" }), {
      cwd: ws.root,
      env: h.env(undefined, { INTENT_LSP_HOOK_SERVICE_REPLY_MS: "300" }),
    });
    expect(reply(r)).toEqual(f.deny(internalError("the hook service took the call and gave no answer (no answer within 0.3 s)")));
  });

  it.each(ALL_AGENTS.map((f) => [f.agent, f] as const))(
    "%s: a hook started in a folder that no longer exists is denied in the agent's protocol",
    async (_n, f) => {
      const gone = mkdtempSync(join(h.xdg, "gone-"));
      const r = await spawnHook(f.agent, f.write(ws, "pre", { path: "b/work.ts", from: "1", to: "2" }), { cwd: gone, env: h.env(), shell: 'rmdir "$PWD"' });
      expect(reply(r)).toEqual(
        f.deny(internalError("the folder this hook was started in cannot be read (ENOENT: no such file or directory, uv_cwd); it may have been removed")),
      );
    },
  );
});

describe("only this user's own service is ever asked", () => {
  it("the socket and its folder are private whatever the caller's umask", async () => {
    const f = agentNamed("claude-code");
    await spawnHook(f.agent, f.write(ws, "pre", FINISHED), { cwd: ws.root, env: h.env(), shell: "umask 000" });
    const [socket] = await h.services(1);
    expect(lstatSync(socket!).mode & 0o077).toBe(0);
    expect(lstatSync(join(h.xdg, "intent-lsp")).mode & 0o777).toBe(0o700);
  });

  it("a socket folder others may enter is never used: the socket goes to the next private folder", async () => {
    const runtime = join(h.xdg, "run");
    mkdirSync(join(runtime, "intent-lsp"), { recursive: true });
    chmodSync(join(runtime, "intent-lsp"), 0o755);
    const env = h.env(undefined, { XDG_RUNTIME_DIR: runtime });
    const f = agentNamed("claude-code");
    runHook(f.agent, f.write(ws, "pre", FINISHED), { cwd: ws.root, env });
    expect(await h.services(1, join(h.xdg, "intent-lsp", "hooks"))).toHaveLength(1);
    expect(h.sockets(join(runtime, "intent-lsp"))).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)("a socket folder owned by another user is never used", async () => {
    const runtime = join(h.xdg, "run");
    mkdirSync(join(runtime, "intent-lsp"), { recursive: true, mode: 0o700 });
    chownSync(join(runtime, "intent-lsp"), 12345, 12345);
    const env = h.env(undefined, { XDG_RUNTIME_DIR: runtime });
    const f = agentNamed("claude-code");
    runHook(f.agent, f.write(ws, "pre", FINISHED), { cwd: ws.root, env });
    expect(await h.services(1, join(h.xdg, "intent-lsp", "hooks"))).toHaveLength(1);
    expect(h.sockets(join(runtime, "intent-lsp"))).toEqual([]);
  });

  it("a socket that others could connect to is never asked, whatever it answers", async () => {
    const f = agentNamed("claude-code");
    const payload = f.write(ws, "pre", FINISHED);
    const own = reply(runHook(f.agent, payload, { cwd: ws.root, env: h.env("off") }));
    const socket = await liveService();
    const forged = JSON.stringify({ stdout: '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}\n', stderr: "", code: 0 });
    await h.fake(socket, (_req, conn) => conn.end(`${forged}\n`));
    // the stand-in answers a caller that trusts it
    expect(reply(await spawnHook(f.agent, payload, { cwd: ws.root, env: h.env() })).stdout).toContain('"allow"');
    chmodSync(socket, 0o777);
    expect(reply(await spawnHook(f.agent, payload, { cwd: ws.root, env: h.env() }))).toEqual(own);
    expect(reply(await spawnHook(f.agent, payload, { cwd: ws.root, env: h.env("require") }))).toEqual(
      f.deny(internalError("INTENT_LSP_HOOK_SERVICE=require, and no hook service is listening")),
    );
  });

  it.each([
    ["PATH", `${process.env["PATH"]}:/opt/elsewhere/bin`],
    ["HOME", "/nonexistent-home"],
    ["GIT_CONFIG_GLOBAL", "/nonexistent-gitconfig"],
    ["LANG", "C"],
  ])("callers whose %s differs only in its value never share a service", async (name, value) => {
    const f = agentNamed("claude-code");
    const payload = f.write(ws, "pre", FINISHED);
    const base = h.env(undefined, { [name]: process.env[name] ?? "x" });
    runHook(f.agent, payload, { cwd: ws.root, env: base });
    await h.services(1);
    expect(runHook(f.agent, payload, { cwd: ws.root, env: { ...base, INTENT_LSP_HOOK_SERVICE: "require" } }).stdout).toContain("no-active-intent");
    const other = reply(runHook(f.agent, payload, { cwd: ws.root, env: { ...base, [name]: value, INTENT_LSP_HOOK_SERVICE: "require" } }));
    expect(other).toEqual(f.deny(internalError("INTENT_LSP_HOOK_SERVICE=require, and no hook service is listening")));
  });
});
