import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
// the CLI loads its commands with Node's require, which this lets read the TypeScript source
import "../support/sourceRequire";
import { parseHookRequest } from "../../server/src/cli/hookService";
import { handOverStdin } from "../../server/src/io/stdio";
import { callService, isPrivateSocket, isSocketDir, serviceMode, serviceSocket } from "../../server/src/launch/hookClient";

/**
 * The launcher's side of the hook service, in process (launch/hookClient.ts): which service a caller may
 * reach, and how each way a call to it can end is told apart. The launcher's whole flow, with real
 * services, is in test/cli/hookService*.test.ts.
 */

const GREETING = "intent-hook-service 1\n";
let dir: string;
const servers: Server[] = [];
beforeEach(() => {
  dir = mkdtempSync("/tmp/ihc-");
});
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** A stand-in service on a private socket in the test's folder; `onConnection` plays its part. */
async function stand(onConnection: (conn: Socket) => void, name = "s.sock"): Promise<string> {
  const socket = join(dir, name);
  const server = createServer((conn) => {
    conn.on("error", () => {});
    onConnection(conn);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(socket, r));
  chmodSync(socket, 0o600);
  return socket;
}

/** Greets, then hands the request line to `then` once it is whole. */
const greetThen = (then: (request: string, conn: Socket) => void) => (conn: Socket) => {
  conn.write(GREETING);
  let text = "";
  conn.on("data", (d) => {
    text += d;
    if (text.endsWith("\n")) then(text, conn);
  });
};

const call = (socket: string, stdin: string, replyMs = 5_000) => {
  handOverStdin(stdin);
  return callService(socket, ["hook", "claude-code"], { PATH: "/bin", N: undefined }, "/work/here", replyMs);
};

describe("callService: how a call ends", () => {
  it("answered: the reply, after a request carrying the caller's arguments, folder, environment and input", async () => {
    let seen = "";
    const socket = await stand(
      greetThen((request, conn) => {
        seen = request;
        conn.end(`${JSON.stringify({ stdout: "{}\n", stderr: "note\n", code: 0 })}\n`);
      }),
    );
    expect(await call(socket, '{"a":1}')).toEqual({ kind: "answered", reply: { stdout: "{}\n", stderr: "note\n", code: 0 } });
    expect(JSON.parse(seen)).toEqual({ argv: ["hook", "claude-code"], cwd: "/work/here", env: { PATH: "/bin" }, stdin: '{"a":1}' });
  });

  it("absent: nothing listens, the connection is dropped before a greeting, or the greeting is another", async () => {
    expect(await call(join(dir, "none.sock"), "x")).toEqual({ kind: "absent" });
    expect(await call(await stand((c) => c.destroy(), "a.sock"), "x")).toEqual({ kind: "absent" });
    expect(await call(await stand((c) => c.end("something else\n"), "b.sock"), "x")).toEqual({ kind: "absent" });
    expect(await call(await stand((c) => c.end(), "c.sock"), "x")).toEqual({ kind: "absent" });
  });

  it("absent: a service that never greets is given up after the greeting's wait", async () => {
    expect(await call(await stand(() => {}), "x")).toEqual({ kind: "absent" });
  });

  const STOPPED = "the service stopped before it answered";
  const BIG = "x".repeat(256 * 1024);
  // a connection broken rather than ended may give the socket's own error as the reason
  it.each<[string, (conn: Socket) => void, string, unknown]>([
    ["the connection is destroyed once the request is read", greetThen((_r, c) => c.destroy()), "in-a", STOPPED],
    ["the reply lacks an answer's fields", greetThen((_r, c) => c.end('{"stdout": 1}\n')), "in-b", STOPPED],
    ["the reply is not JSON", greetThen((_r, c) => c.end("not json\n")), "in-c", STOPPED],
    ["the reply's output is not text", greetThen((_r, c) => c.end(`${JSON.stringify({ stdout: 1, stderr: "", code: 0 })}\n`)), "in-e", STOPPED],
    ["the reply's error output is not text", greetThen((_r, c) => c.end(`${JSON.stringify({ stdout: "", stderr: null, code: 0 })}\n`)), "in-f", STOPPED],
    ["the reply's exit code is not an integer", greetThen((_r, c) => c.end(`${JSON.stringify({ stdout: "", stderr: "", code: 1.5 })}\n`)), "in-d", STOPPED],
    // never taken for an absent service: the greeting was read, so the call was the service's
    ["the connection breaks right after the greeting", (conn) => conn.write(GREETING, () => conn.destroy()), "in", expect.any(String)],
    [
      "the connection is reset after the greeting, the request left unread",
      (conn) => {
        conn.pause();
        conn.write(GREETING);
        setTimeout(() => conn.destroy(), 100);
      },
      BIG,
      expect.any(String),
    ],
  ])("dropped: greeted, then %s; the input comes back for the caller to answer", async (_what, onConnection, input, why) => {
    expect(await call(await stand(onConnection), input)).toEqual({ kind: "dropped", why, input });
  });

  it("silent: greeted and no answer within the deadline", async () => {
    expect(await call(await stand(greetThen(() => {})), "in", 200)).toEqual({ kind: "silent", why: "no answer within 0.2 s", input: "in" });
  });

  it("absent, and never connected to: a socket others could use", async () => {
    let connected = false;
    const socket = await stand(() => {
      connected = true;
    });
    chmodSync(socket, 0o660);
    expect(await call(socket, "x")).toEqual({ kind: "absent" });
    expect(connected).toBe(false);
  });
});

describe("which folders and sockets a caller trusts", () => {
  it("a folder of this user's that nobody else may enter, in a parent nobody else can rename it out of", () => {
    const ok = join(dir, "ok");
    mkdirSync(ok, { mode: 0o700 });
    expect(isSocketDir(ok)).toBe(true);
    chmodSync(ok, 0o750);
    expect(isSocketDir(ok)).toBe(false);
    chmodSync(ok, 0o701);
    expect(isSocketDir(ok)).toBe(false);
    chmodSync(ok, 0o700);
    symlinkSync(ok, join(dir, "link"));
    expect(isSocketDir(join(dir, "link"))).toBe(false);
    writeFileSync(join(dir, "file"), "");
    chmodSync(join(dir, "file"), 0o600);
    expect(isSocketDir(join(dir, "file"))).toBe(false);
    const open = join(dir, "open");
    mkdirSync(join(open, "inner"), { recursive: true });
    chmodSync(join(open, "inner"), 0o700);
    chmodSync(open, 0o777);
    expect(isSocketDir(join(open, "inner"))).toBe(false);
    chmodSync(open, 0o1777);
    expect(isSocketDir(join(open, "inner"))).toBe(true);
  });

  it.runIf(process.getuid?.() === 0)("a folder or socket owned by another user is not trusted", async () => {
    const theirs = join(dir, "theirs");
    mkdirSync(theirs, { mode: 0o700 });
    chownSync(theirs, 12345, 12345);
    expect(isSocketDir(theirs)).toBe(false);
    const socket = await stand(() => {});
    expect(isPrivateSocket(socket)).toBe(true);
    chownSync(socket, 12345, 12345);
    expect(isPrivateSocket(socket)).toBe(false);
  });

  it("a socket: only a socket file, private, in a trusted folder", async () => {
    const socket = await stand(() => {});
    expect(isPrivateSocket(socket)).toBe(true);
    chmodSync(socket, 0o602);
    expect(isPrivateSocket(socket)).toBe(false);
    chmodSync(socket, 0o600);
    chmodSync(dir, 0o755);
    expect(isPrivateSocket(socket)).toBe(false);
    chmodSync(dir, 0o700);
    writeFileSync(join(dir, "plain.sock"), "");
    chmodSync(join(dir, "plain.sock"), 0o600);
    expect(isPrivateSocket(join(dir, "plain.sock"))).toBe(false);
    expect(isPrivateSocket(join(dir, "absent.sock"))).toBe(false);
  });
});

describe("serviceSocket: one service per build and environment", () => {
  // one build for the describe's tests: its file's identity is part of every name
  let bundle: string;
  beforeEach(() => {
    bundle = join(dir, "bundle.js");
    writeFileSync(bundle, "// a build\n");
  });
  const at = (env: NodeJS.ProcessEnv) => serviceSocket(bundle, { XDG_RUNTIME_DIR: dir, XDG_CACHE_HOME: dir, ...env });

  it.each(["PATH", "HOME", "GIT_CONFIG_GLOBAL", "GIT_DIR", "LANG", "LC_ALL", "XDG_CONFIG_HOME", "NODE_OPTIONS", "INTENT_LSP_MODEL", "TZ"])(
    "callers whose %s differs, in its value alone, get another socket",
    (name) => {
      const one = at({ [name]: "one" });
      expect(one).toMatch(new RegExp(`^${dir}/intent-lsp/[0-9a-f]{16}\\.sock$`));
      expect(at({ [name]: "two" })).not.toBe(one);
      expect(at({ [name]: "one" })).toBe(one);
    },
  );

  it("variables that change nothing a hook does, and the service's own settings, share a socket", () => {
    const one = at({ PATH: "/bin" });
    expect(at({ PATH: "/bin", TERM: "xterm", INTENT_LSP_HOOK_SERVICE: "require", INTENT_LSP_HOOK_SERVICE_REPLY_MS: "5" })).toBe(one);
  });

  it("the socket folder is made private, and one that is not is passed over for the next", () => {
    const first = at({});
    expect(first).toMatch(new RegExp(`^${dir}/intent-lsp/`));
    chmodSync(join(dir, "intent-lsp"), 0o755);
    expect(at({})).toMatch(new RegExp(`^${dir}/intent-lsp/hooks/`));
  });

  it("no socket for a bundle that is not there", () => {
    expect(serviceSocket(join(dir, "missing.js"), { XDG_RUNTIME_DIR: dir })).toBeUndefined();
  });

  it("INTENT_LSP_HOOK_SERVICE: off and require are read, anything else is on", () => {
    expect([
      serviceMode({ INTENT_LSP_HOOK_SERVICE: "off" }),
      serviceMode({ INTENT_LSP_HOOK_SERVICE: "require" }),
      serviceMode({}),
      serviceMode({ INTENT_LSP_HOOK_SERVICE: "no" }),
    ]).toEqual(["off", "require", "on", "on"]);
  });
});

describe("parseHookRequest: what the service takes as a call", () => {
  const valid = { argv: ["hook", "cursor"], cwd: "/w", env: { A: "b" }, stdin: "{}" };
  it("a request with the caller's absolute folder", () => {
    expect(parseHookRequest(JSON.stringify(valid))).toEqual(valid);
    expect(parseHookRequest(JSON.stringify({ ...valid, stdin: null }))).toEqual({ ...valid, stdin: null });
  });
  it.each([
    ["a relative folder", { ...valid, cwd: "." }],
    ["an empty folder", { ...valid, cwd: "" }],
    ["a variable that is not text", { ...valid, env: { A: 1 } }],
    ["an argument that is not text", { ...valid, argv: ["hook", 2] }],
    ["input that is neither text nor null", { ...valid, stdin: 3 }],
    ["no environment", { ...valid, env: null }],
  ])("refuses %s", (_what, request) => {
    expect(parseHookRequest(JSON.stringify(request))).toBeUndefined();
  });
  it("refuses text that is not JSON, or not an object", () => {
    expect(parseHookRequest("{")).toBeUndefined();
    expect(parseHookRequest("null")).toBeUndefined();
  });
});

describe("answerHookRequest: the service runs the call as its own process would", () => {
  // loaded by Node's require, as the commands it runs are: one copy of each module (an error's class included)
  const { answerHookRequest } = require("../../server/src/cli/hookService.ts") as typeof import("../../server/src/cli/hookService");
  const request = (argv: string[], stdin: string | null) => ({ argv, cwd: dir, env: { PATH: process.env["PATH"] ?? "" }, stdin });
  it("answers `intent hook` only, blocking anything else", async () => {
    expect(await answerHookRequest(request(["status"], "{}"))).toEqual({
      stdout: "",
      stderr: "intent: the hook service answers `intent hook` only (blocking the call)\n",
      code: 2,
    });
  });
  it("gives the command's own output, error output and exit code: a call naming no agent is a usage error", async () => {
    const r = await answerHookRequest(request(["hook"], "{}"));
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^intent hook: /);
    expect(r.code).toBe(2);
  });
  it("a hook with nothing on standard input is told so, and denied in its agent's protocol", async () => {
    const r = await answerHookRequest(request(["hook", "claude-code"], null));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: "deny" });
    expect(r.stdout).toContain("nothing on standard input: an agent pipes its hook event (JSON) into this command");
  });
  it("a read of a file outside any workspace is answered in the agent's protocol, on standard output", async () => {
    const event = {
      session_id: "s",
      transcript_path: "",
      cwd: dir,
      hook_event_name: "PreToolUse",
      tool_name: "Read",
      tool_input: { file_path: join(dir, "x") },
    };
    const r = await answerHookRequest(request(["hook", "claude-code"], JSON.stringify(event)));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout.endsWith("\n")).toBe(true);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
  });
});
