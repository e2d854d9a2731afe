import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync } from "node:fs";
import { execFileSync, spawn } from "node:child_process";
import { connect, createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CACHE_DIR } from "../../server/src/io/cacheDir";
import { decodeIndex, indexFileName } from "../../server/src/io/ledger/indexFile";
import { WorkspaceLedger } from "../../server/src/io/ledger/workspaceLedger";
import { ensureBuilt } from "../support/builtDist";
import { CLI_JS, runHook, type CliResult } from "../support/cliRunner";
import { claudeEdit } from "../support/hookPayloads";
import { TempWorkspace } from "../support/workspace";
import { LEDGER } from "../support/ledgerFile";

/**
 * The hook service (docs/ARCHITECTURE.md "Hook service") seen from outside: `node dist/cli.js hook …` as an
 * agent runs it, with a cache folder of the test's own. INTENT_LSP_HOOK_SERVICE=require makes a call that
 * no service answers block, which is how a test knows the service answered.
 */

beforeAll(ensureBuilt);

const API = "src/api/weather.ts";
const BLOCKED = "src/auth/middleware.ts";
const GREETING = "intent-hook-service 1\n";

let xdg: string;
const spaces: TempWorkspace[] = [];
const fakes: Server[] = [];
beforeEach(() => {
  // a short path: a socket's path has at most ~108 bytes
  xdg = mkdtempSync("/tmp/ihs-");
});
afterEach(async () => {
  for (const f of fakes.splice(0)) await new Promise((r) => f.close(r));
  for (const ws of spaces.splice(0)) ws.dispose();
  rmSync(xdg, { recursive: true, force: true });
});

function workspace(): TempWorkspace {
  const ws = new TempWorkspace();
  spaces.push(ws);
  return ws;
}

const env = (mode?: "off" | "require", extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  XDG_CACHE_HOME: xdg,
  XDG_RUNTIME_DIR: xdg,
  INTENT_LSP_HOOK_SERVICE_IDLE_MS: "3000",
  ...(mode ? { INTENT_LSP_HOOK_SERVICE: mode } : {}),
  ...extra,
});

function sockets(): string[] {
  try {
    return readdirSync(join(xdg, "intent-lsp"))
      .filter((f) => f.endsWith(".sock"))
      .map((f) => join(xdg, "intent-lsp", f));
  } catch {
    return [];
  }
}

/** Whether a service greets on the socket. */
function greets(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(socket);
    c.once("error", () => resolve(false));
    c.once("data", (d) => {
      c.destroy();
      resolve(d.toString("latin1").startsWith(GREETING));
    });
  });
}

/** Waits until `count` services greet in the test's cache folder; their sockets. */
async function services(count = 1): Promise<string[]> {
  for (;;) {
    const found = sockets();
    const live = (await Promise.all(found.map(async (s) => ((await greets(s)) ? s : undefined)))).filter((s): s is string => !!s);
    if (live.length >= count) return live;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A stand-in at the service's socket: greets and drops each call, or drops it at once. */
async function fakeService(socket: string, greet: boolean): Promise<void> {
  unlinkSync(socket);
  const server = createServer((conn) => {
    if (!greet) {
      conn.destroy();
      return;
    }
    conn.write(GREETING);
    conn.once("data", () => conn.destroy());
  });
  fakes.push(server);
  await new Promise<void>((r) => server.listen(socket, r));
}

/** runHook without blocking this process, where a stand-in service must answer meanwhile. */
function runHookAsync(payload: unknown, opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_JS, "hook", "claude-code"], { cwd: opts.cwd, env: { ...process.env, ...opts.env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => resolve({ stdout, stderr, status: code ?? -1 }));
    child.stdin.end(JSON.stringify(payload));
  });
}

/** The calls of one short agent session: allowed and denied writes, and the record of an edit. */
function session(ws: TempWorkspace) {
  return [
    () => claudeEdit(ws, "PreToolUse", API, "interface Weather", "interface WeatherReport"),
    () => claudeEdit(ws, "PreToolUse", BLOCKED, "export", "export"),
    () => {
      ws.write(API, ws.read(API).replace("interface Weather", "interface WeatherReport"));
      return claudeEdit(ws, "PostToolUse", API, "interface Weather", "interface WeatherReport");
    },
    () => claudeEdit(ws, "PreToolUse", "src/api/new.ts", "", "x"),
  ];
}

const normalize = (ws: TempWorkspace, text: string) => text.split(ws.root).join("<ws>");
const recordsOf = (ws: TempWorkspace) =>
  readFileSync(ws.path(LEDGER), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      const { id: _id, timestamp: _t, ...rest } = JSON.parse(l);
      delete rest.metadata?.["dev.intent-lsp"]?.prev;
      return rest;
    });

describe("intent hook through the hook service", () => {
  it("the first call starts the service; the calls it answers are answered exactly as in their own process", async () => {
    const alone = workspace();
    const served = workspace();
    const expected = session(alone).map((call) => runHook("claude-code", call(), { cwd: alone.root, env: env("off") }));
    expect(sockets()).toEqual([]);
    expect(expected.map((r) => r.status)).toEqual([0, 0, 0, 0]);
    expect(expected[1]!.stdout).toContain('"permissionDecision":"deny"');

    const calls = session(served);
    const first = runHook("claude-code", calls[0]!(), { cwd: served.root, env: env() });
    await services(1);
    const rest = calls.slice(1).map((call) => runHook("claude-code", call(), { cwd: served.root, env: env("require") }));
    for (const [i, r] of [first, ...rest].entries()) {
      expect({ stdout: normalize(served, r.stdout), stderr: r.stderr, status: r.status }, `call ${i}`).toEqual({
        stdout: normalize(alone, expected[i]!.stdout),
        stderr: expected[i]!.stderr,
        status: expected[i]!.status,
      });
    }
    expect(JSON.parse(normalize(served, JSON.stringify(recordsOf(served))))).toEqual(JSON.parse(normalize(alone, JSON.stringify(recordsOf(alone)))));

    // a caller whose git would behave differently gets a service of its own
    const other = runHook("claude-code", session(served)[0]!(), { cwd: served.root, env: env(undefined, { GIT_CEILING_DIRECTORIES: "/nonexistent" }) });
    expect(other.status).toBe(0);
    expect(await services(2)).toHaveLength(2);
  });

  it("what a service keeps between calls follows the files: an intent blocked, a ledger emptied", async () => {
    const ws = workspace();
    runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: env() });
    await services(1);
    const ask = () => runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: env("require") });
    expect(ask().stdout).toContain('"permissionDecision":"allow"');
    const yaml = ".orchestration/active_intents.yaml";
    ws.write(yaml, ws.read(yaml).replace("name: Build Weather API\n    status: IN_PROGRESS", "name: Build Weather API\n    status: BLOCKED"));
    const blocked = ask();
    expect(blocked.stdout).toContain('"permissionDecision":"deny"');
    expect(blocked.stdout).toContain("BLOCKED");

    // the post hook's record, then the same content again after the ledger was emptied: recorded again,
    // as a fresh process would, not taken for a duplicate of a record that is gone
    const post = session(ws)[2]!();
    const before = recordsOf(ws).length;
    expect(runHook("claude-code", post, { cwd: ws.root, env: env("require") }).status).toBe(0);
    expect(recordsOf(ws)).toHaveLength(before + 1);
    expect(runHook("claude-code", post, { cwd: ws.root, env: env("require") }).status).toBe(0);
    expect(recordsOf(ws)).toHaveLength(before + 1); // the newest record pins this content: a duplicate
    ws.write(LEDGER, "");
    expect(runHook("claude-code", post, { cwd: ws.root, env: env("require") }).status).toBe(0);
    expect(recordsOf(ws).map((r) => r.files[0].path)).toEqual([API]);
  });

  it("the service saves the ledger index it keeps once it is quiet, and the next process resumes from it", async () => {
    const ws = workspace();
    const index = ws.path(`${CACHE_DIR}/${indexFileName(LEDGER)}`);
    runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: env() });
    await services(1);
    rmSync(index, { force: true });
    expect(runHook("claude-code", session(ws)[2]!(), { cwd: ws.root, env: env("require") }).status).toBe(0);
    const size = statSync(ws.path(LEDGER)).size;
    // saved after the service's quiet time, not during the call
    for (;;) {
      const saved = existsSync(index) ? decodeIndex(readFileSync(index)) : undefined;
      if (saved && !("problem" in saved) && saved.indexed === size) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const warm = new WorkspaceLedger(ws.root, LEDGER);
    expect((await warm.poll()).bytesResumed).toBe(size);
    const cold = new WorkspaceLedger(ws.root, LEDGER, { cache: false });
    await cold.poll();
    expect(warm.entriesFor(API)).toEqual(cold.entriesFor(API));
  });

  it("a service that takes a call and stops before answering blocks it, and the call is not run again", async () => {
    const ws = workspace();
    runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: env() });
    const [socket] = await services(1);
    await fakeService(socket!, true);
    const before = readFileSync(ws.path(LEDGER), "utf8");

    const post = session(ws)[2]!();
    const r = await runHookAsync(post, { cwd: ws.root, env: env() });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("intent: the hook service took the call and gave no answer (the service stopped before it answered) (blocking the call)\n");
    expect(readFileSync(ws.path(LEDGER), "utf8")).toBe(before);
  });

  it("a call that reaches no greeting is answered in its own process", async () => {
    const ws = workspace();
    runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: env() });
    const [socket] = await services(1);
    await fakeService(socket!, false);
    const before = recordsOf(ws).length;
    const post = await runHookAsync(session(ws)[2]!(), { cwd: ws.root, env: env() });
    expect(post.status).toBe(0);
    expect(post.stderr).toBe("");
    expect(recordsOf(ws)).toHaveLength(before + 1);
  });

  it("a killed service leaves its socket behind: the next call answers itself, and a new service takes the socket over", async () => {
    const ws = workspace();
    runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: env() });
    const [socket] = await services(1);
    const pid = Number(execFileSync("pgrep", ["-f", socket!], { encoding: "utf8" }).trim());
    process.kill(pid, "SIGKILL");
    while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
    expect(sockets()).toEqual([socket]);
    expect(await greets(socket!)).toBe(false);

    expect(runHook("claude-code", session(ws)[3]!(), { cwd: ws.root, env: env("require") }).status).toBe(2);
    expect(runHook("claude-code", session(ws)[3]!(), { cwd: ws.root, env: env() }).status).toBe(0);
    expect(await services(1)).toEqual([socket]);
    const served = runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: env("require") });
    expect(served.status).toBe(0);
    expect(served.stdout).toContain('"permissionDecision":"allow"');
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
