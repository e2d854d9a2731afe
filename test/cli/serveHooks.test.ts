import { existsSync, readdirSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import "../support/sourceRequire";
import { serviceScene } from "../support/serviceScene";
import { claudeEdit, outsideRead } from "../support/hookPayloads";
import { TempWorkspace } from "../support/workspace";
import { LEDGER } from "../support/ledgerFile";

/**
 * The hook service's loop in process (cli/hookService.ts serveHooks), met by the launcher's own client
 * (launch/hookClient.ts callService) as an agent's hook call meets it: the answer a call gets through the
 * socket is the command's own, a malformed call is refused in words, the kept ledgers' indexes are saved
 * once calls stop, and the service leaves after the idle time it is given. `process.exit` is intercepted:
 * leaving is asserted, not done. The same flow with spawned processes is test/cli/hookService*.test.ts.
 */

// loaded by Node's require, as the commands the service runs are: one copy of each module
const { serveHooks, answerHookRequest } = require("../../server/src/cli/hookService.ts") as typeof import("../../server/src/cli/hookService");
const { callService } = require("../../server/src/launch/hookClient.ts") as typeof import("../../server/src/launch/hookClient");

const scene = serviceScene("/tmp/isv-");
const GREETING = "intent-hook-service 1\n";
const workspaces: TempWorkspace[] = [];
afterEach(() => {
  for (const ws of workspaces.splice(0)) ws.dispose();
});

const until = async (fact: () => boolean) => {
  while (!fact()) await new Promise((r) => setTimeout(r, 10));
};

/** A service on a socket of the test's folder, listening once the call returns. */
async function service(idle: string | undefined): Promise<string> {
  const socket = join(scene.dir, "s.sock");
  serveHooks(socket, idle === undefined ? {} : { INTENT_LSP_HOOK_SERVICE_IDLE_MS: idle });
  await until(() => existsSync(socket));
  return socket;
}

const env = { PATH: process.env["PATH"] ?? "" };
const call = (socket: string, argv: string[], input: string, cwd = scene.dir) => callService(socket, argv, env, cwd, 20_000, async () => input);

describe("serveHooks: the service's loop, in process", () => {
  it("answers a call through its socket as the command answers it in this process", async () => {
    const socket = await service("60000");
    const mine = await answerHookRequest({ argv: ["hook", "claude-code"], cwd: scene.dir, env, stdin: outsideRead(scene.dir) });
    expect(mine).toEqual({ stdout: "{}\n", stderr: "", code: 0 });
    expect(await call(socket, ["hook", "claude-code"], outsideRead(scene.dir))).toEqual({ kind: "answered", reply: mine });
    expect(scene.exits).toEqual([]);
  });

  it("refuses a line that is not a call, in words, blocking it", async () => {
    const socket = await service("60000");
    const said = await new Promise<string>((resolve) => {
      const c = connect(socket);
      let text = "";
      c.on("data", (d) => {
        text += d;
        if (text === GREETING) c.write("not a call\n");
      });
      c.on("close", () => resolve(text));
    });
    expect(said).toBe(`${GREETING}${JSON.stringify({ stdout: "", stderr: "intent: a malformed call to the hook service (blocking the call)\n", code: 2 })}\n`);
  });

  it("leaves once idle for INTENT_LSP_HOOK_SERVICE_IDLE_MS after its last call, taking its socket with it", async () => {
    const socket = await service("100");
    expect(await call(socket, ["hook", "claude-code"], outsideRead(scene.dir))).toMatchObject({ kind: "answered" });
    await until(() => scene.exits.length > 0);
    expect(scene.exits).toEqual([0]);
    expect(existsSync(socket)).toBe(false);
  });

  // a wait that is not a positive number of milliseconds would make the service leave before its first call
  it.each([
    ["unset", undefined],
    ["zero", "0"],
    ["not a number", "soon"],
    ["negative", "-5"],
  ])("an idle time %s is the default wait: call after call is answered", async (_what, idle) => {
    const socket = await service(idle);
    for (let i = 0; i < 3; i++) expect(await call(socket, ["hook", "claude-code"], outsideRead(scene.dir))).toMatchObject({ kind: "answered" });
    expect(scene.exits).toEqual([]);
  });

  it("saves the index of each ledger it keeps once calls stop, for the next process to resume from", async () => {
    const ws = new TempWorkspace();
    workspaces.push(ws);
    const socket = await service("60000");
    const cache = ws.path(".orchestration/.cache");
    const indexes = () => (existsSync(cache) ? readdirSync(cache).filter((n) => n.endsWith(".idx")) : []);
    rmSync(cache, { recursive: true, force: true });
    const records = () => ws.read(LEDGER).split("\n").filter(Boolean).length;
    const before = records();
    const path = "src/api/weather.ts";
    const old = ws.read(path).split("\n")[0]!;
    const next = `${old} // edited`;
    const hook = (event: "PreToolUse" | "PostToolUse") =>
      call(socket, ["hook", "claude-code"], JSON.stringify(claudeEdit(ws, event, path, old, next)), ws.root);
    expect(await hook("PreToolUse")).toMatchObject({ kind: "answered", reply: { code: 0 } });
    ws.write(path, ws.read(path).replace(old, next));
    expect(await hook("PostToolUse")).toMatchObject({ kind: "answered", reply: { code: 0 } });
    expect(records()).toBe(before + 1);
    await until(() => indexes().length > 0);
    expect(indexes()).toHaveLength(1);
  });
});
