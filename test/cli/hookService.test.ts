import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { forgetCacheKey } from "../../server/src/io/cacheKey";
import { CACHE_DIR } from "../../server/src/io/cacheDir";
import { decodeIndex, indexFileName } from "../../server/src/io/ledger/indexFile";
import { WorkspaceLedger } from "../../server/src/io/ledger/workspaceLedger";
import { ensureBuilt } from "../support/builtDist";
import { runHook } from "../support/cliRunner";
import { greets, HookServiceHarness, spawnHook } from "../support/hookServiceHarness";
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
let h: HookServiceHarness;
const spaces: TempWorkspace[] = [];
beforeEach(() => {
  h = new HookServiceHarness();
});
afterEach(async () => {
  for (const ws of spaces.splice(0)) ws.dispose();
  await h.dispose();
});

function workspace(): TempWorkspace {
  const ws = new TempWorkspace();
  spaces.push(ws);
  return ws;
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
    const expected = session(alone).map((call) => runHook("claude-code", call(), { cwd: alone.root, env: h.env("off") }));
    expect(h.sockets()).toEqual([]);
    expect(expected.map((r) => r.status)).toEqual([0, 0, 0, 0]);
    expect(expected[1]!.stdout).toContain('"permissionDecision":"deny"');

    const calls = session(served);
    const first = runHook("claude-code", calls[0]!(), { cwd: served.root, env: h.env() });
    await h.services(1);
    const rest = calls.slice(1).map((call) => runHook("claude-code", call(), { cwd: served.root, env: h.env("require") }));
    for (const [i, r] of [first, ...rest].entries()) {
      expect({ stdout: normalize(served, r.stdout), stderr: r.stderr, status: r.status }, `call ${i}`).toEqual({
        stdout: normalize(alone, expected[i]!.stdout),
        stderr: expected[i]!.stderr,
        status: expected[i]!.status,
      });
    }
    expect(JSON.parse(normalize(served, JSON.stringify(recordsOf(served))))).toEqual(JSON.parse(normalize(alone, JSON.stringify(recordsOf(alone)))));

    // a caller whose git would behave differently gets a service of its own
    const other = runHook("claude-code", session(served)[0]!(), { cwd: served.root, env: h.env(undefined, { GIT_CEILING_DIRECTORIES: "/nonexistent" }) });
    expect(other.status).toBe(0);
    expect(await h.services(2)).toHaveLength(2);
  });

  it("what a service keeps between calls follows the files: an intent blocked, a ledger emptied", async () => {
    const ws = workspace();
    runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: h.env() });
    await h.services(1);
    const ask = () => runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: h.env("require") });
    expect(ask().stdout).toContain('"permissionDecision":"allow"');
    const yaml = ".orchestration/active_intents.yaml";
    ws.write(yaml, ws.read(yaml).replace("name: Build Weather API\n    status: IN_PROGRESS", "name: Build Weather API\n    status: BLOCKED"));
    const blocked = ask();
    expect(blocked.stdout).toContain('"permissionDecision":"deny"');
    expect(blocked.stdout).toContain("BLOCKED");
    // the catalogue as it was, and every other rule file followed too: the settings
    ws.write(yaml, ws.read(yaml).replace("name: Build Weather API\n    status: BLOCKED", "name: Build Weather API\n    status: IN_PROGRESS"));
    expect(ask().stdout).toContain('"permissionDecision":"allow"');
    const config = ".orchestration/config.jsonc";
    const settings = ws.read(config);
    ws.write(config, settings.replace('"autoSelect": true', '"autoSelect": false'));
    const unselected = ask();
    expect(unselected.stdout).toContain('"permissionDecision":"deny"');
    expect(unselected.stdout).toContain("[intent-lsp: no-active-intent] No intent selected for src/api/weather.ts");
    ws.write(config, settings);
    expect(ask().stdout).toContain('"permissionDecision":"allow"');

    // the post hook's record, then the same content again after the ledger was emptied: recorded again,
    // as a fresh process would, not taken for a duplicate of a record that is gone
    const post = session(ws)[2]!();
    const before = recordsOf(ws).length;
    expect(runHook("claude-code", post, { cwd: ws.root, env: h.env("require") }).status).toBe(0);
    expect(recordsOf(ws)).toHaveLength(before + 1);
    expect(runHook("claude-code", post, { cwd: ws.root, env: h.env("require") }).status).toBe(0);
    expect(recordsOf(ws)).toHaveLength(before + 1); // the newest record pins this content: a duplicate
    ws.write(LEDGER, "");
    expect(runHook("claude-code", post, { cwd: ws.root, env: h.env("require") }).status).toBe(0);
    expect(recordsOf(ws).map((r) => r.files[0].path)).toEqual([API]);
  });

  it("the service saves the ledger index it keeps once it is quiet, and the next process resumes from it", async () => {
    const ws = workspace();
    const index = ws.path(`${CACHE_DIR}/${indexFileName(LEDGER)}`);
    runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: h.env() });
    await h.services(1);
    rmSync(index, { force: true });
    expect(runHook("claude-code", session(ws)[2]!(), { cwd: ws.root, env: h.env("require") }).status).toBe(0);
    const size = statSync(ws.path(LEDGER)).size;
    // this process reads the index as the user's next process does: with the cache key of the service's environment
    const ownCache = process.env["XDG_CACHE_HOME"];
    process.env["XDG_CACHE_HOME"] = h.env()["XDG_CACHE_HOME"];
    forgetCacheKey();
    onTestFinished(() => {
      if (ownCache === undefined) delete process.env["XDG_CACHE_HOME"];
      else process.env["XDG_CACHE_HOME"] = ownCache;
      forgetCacheKey();
    });
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

  it("a service that takes a call and stops before answering: the call's own process answers it, and records it once", async () => {
    const ws = workspace();
    runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: h.env() });
    const [socket] = await h.services(1);
    await h.fake(socket!, "drop");
    const before = recordsOf(ws).length;

    const post = session(ws)[2]!();
    const r = await spawnHook("claude-code", post, { cwd: ws.root, env: h.env() });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
    expect(recordsOf(ws)).toHaveLength(before + 1);
    // the call again (an agent that retries it): the ledger already holds its record
    expect((await spawnHook("claude-code", post, { cwd: ws.root, env: h.env() })).status).toBe(0);
    expect(recordsOf(ws)).toHaveLength(before + 1);
  });

  it("a call that reaches no greeting is answered in its own process", async () => {
    const ws = workspace();
    runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: h.env() });
    const [socket] = await h.services(1);
    await h.fake(socket!, "refuse");
    const before = recordsOf(ws).length;
    const post = await spawnHook("claude-code", session(ws)[2]!(), { cwd: ws.root, env: h.env() });
    expect(post.status).toBe(0);
    expect(post.stderr).toBe("");
    expect(recordsOf(ws)).toHaveLength(before + 1);
  });

  it("a killed service leaves its socket behind: the next call answers itself, and a new service takes the socket over", async () => {
    const ws = workspace();
    runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: h.env() });
    const [socket] = await h.services(1);
    const pid = Number(execFileSync("pgrep", ["-f", socket!], { encoding: "utf8" }).trim());
    process.kill(pid, "SIGKILL");
    while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
    expect(h.sockets()).toEqual([socket]);
    expect(await greets(socket!)).toBe(false);

    expect(runHook("claude-code", session(ws)[3]!(), { cwd: ws.root, env: h.env("require") }).stdout).toContain(
      '"permissionDecision":"deny","permissionDecisionReason":"[intent-lsp: internal-error] intent-lsp\'s hook failed (INTENT_LSP_HOOK_SERVICE=require, and no hook service is listening)',
    );
    expect(runHook("claude-code", session(ws)[3]!(), { cwd: ws.root, env: h.env() }).status).toBe(0);
    expect(await h.services(1)).toEqual([socket]);
    const served = runHook("claude-code", session(ws)[0]!(), { cwd: ws.root, env: h.env("require") });
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
