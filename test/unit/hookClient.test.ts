import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
// the CLI loads its commands with Node's require, which this lets read the TypeScript source
import "../support/sourceRequire";
import { outsideRead } from "../support/hookPayloads";
import { parseHookRequest } from "../../server/src/cli/hookService";
import { handOverStdin } from "../../server/src/io/stdio";
import {
  backingOff,
  callService,
  isPrivateSocket,
  isSocketDir,
  replyDeadline,
  serviceMode,
  serviceSocket,
  startService,
} from "../../server/src/launch/hookClient";

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
    // a socket file left by a service that is gone: the connection is refused
    const left = join(dir, "left.sock");
    linkSync(await stand(() => {}, "d.sock"), left);
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    expect(await call(left, "x")).toEqual({ kind: "absent" });
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

  it("answered: a greeting that arrives in pieces is still the service's", async () => {
    const socket = await stand((conn) => {
      conn.write(GREETING.slice(0, 7), () => setTimeout(() => conn.write(GREETING.slice(7)), 20));
      conn.on("data", () => conn.end(`${JSON.stringify({ stdout: "", stderr: "", code: 0 })}\n`));
    });
    expect(await call(socket, "x")).toEqual({ kind: "answered", reply: { stdout: "", stderr: "", code: 0 } });
  });

  const EIO = () => Promise.reject(new Error("EIO: i/o error, read"));
  const UNREADABLE = { kind: "unreadable", why: "standard input could not be read (EIO: i/o error, read)" };
  it("unreadable: the call's input cannot be read once the service took the call, and nothing is sent", async () => {
    let sent = "";
    const socket = await stand((conn) => {
      conn.write(GREETING);
      conn.on("data", (d) => {
        sent += d;
      });
    });
    // told at once: the reply's deadline is longer than the test may take
    expect(await callService(socket, ["hook", "cursor"], {}, "/w", 600_000, EIO)).toEqual(UNREADABLE);
    expect(sent).toBe("");
  });

  it("unreadable: the service dropped the call while its input was being read, and the read then failed", async () => {
    const socket = await stand((conn) => conn.write(GREETING, () => conn.end()));
    const late = () => new Promise<string>((_resolve, reject) => setTimeout(() => reject(new Error("EIO: i/o error, read")), 200));
    expect(await callService(socket, ["hook", "cursor"], {}, "/w", 5_000, late)).toEqual(UNREADABLE);
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

  // as user 4242, through the checks' `uid`: a folder's owner is told apart from root's, which a test run as root cannot do otherwise
  it.runIf(process.getuid?.() === 0)("as another user: its own folder, in a parent of its own or root's; never in another user's", () => {
    const me = 4242;
    const parent = join(dir, "parent");
    const mine = join(parent, "mine");
    mkdirSync(mine, { recursive: true, mode: 0o700 });
    chmodSync(parent, 0o755);
    chownSync(mine, me, me);
    expect(isSocketDir(mine, me)).toBe(true); // the parent is root's
    chownSync(parent, me, me);
    expect(isSocketDir(mine, me)).toBe(true); // the parent is this user's
    chownSync(parent, 5151, 5151);
    expect(isSocketDir(mine, me)).toBe(false); // another user could rename the folder out of it
    chmodSync(parent, 0o1777);
    expect(isSocketDir(mine, me)).toBe(false); // sticky, but still another user's
    chownSync(parent, 0, 0);
    chownSync(mine, 0, 0);
    expect(isSocketDir(mine, me)).toBe(false); // root's folder is not this user's
  });

  it.runIf(process.getuid?.() === 0)("with no user ids (as on Windows): any owner, the modes still checked", async () => {
    const theirs = join(dir, "theirs");
    mkdirSync(theirs, { mode: 0o700 });
    chownSync(theirs, 5151, 5151);
    chownSync(dir, 5151, 5151);
    chmodSync(dir, 0o755);
    expect(isSocketDir(theirs, null)).toBe(true);
    chmodSync(theirs, 0o750);
    expect(isSocketDir(theirs, null)).toBe(false);
    chownSync(dir, 0, 0);
    chmodSync(dir, 0o700);
    const socket = await stand(() => {});
    chownSync(socket, 5151, 5151);
    expect(isPrivateSocket(socket, null)).toBe(true);
    expect(isPrivateSocket(socket)).toBe(false);
  });

  it("a folder reached through a linked parent is not trusted: the link could be pointed elsewhere", () => {
    mkdirSync(join(dir, "real", "inner"), { recursive: true, mode: 0o700 });
    symlinkSync(join(dir, "real"), join(dir, "linked"));
    expect(isSocketDir(join(dir, "real", "inner"))).toBe(true);
    expect(isSocketDir(join(dir, "linked", "inner"))).toBe(false);
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

  it("the order variables come in changes nothing; where one's value ends and the next begins does", () => {
    expect(at({ PATH: "/bin", HOME: "/h", LANG: "C" })).toBe(at({ LANG: "C", HOME: "/h", PATH: "/bin" }));
    expect(at({ GIT_A: "1", GIT_B: "2" })).not.toBe(at({ GIT_A: "1GIT_B=2" }));
  });

  // a socket's path is `<folder>/intent-lsp/<16 hex>.sock`: 33 bytes after the folder
  const folderOf = (length: number) => {
    const f = join(dir, "x".repeat(length - dir.length - 1));
    mkdirSync(f, { mode: 0o755 });
    return f;
  };
  it("a socket path of 100 bytes is taken; one longer goes to the next place, and past the others to a folder of this user's in /tmp", () => {
    const exact = serviceSocket(bundle, { XDG_RUNTIME_DIR: folderOf(67), XDG_CACHE_HOME: dir });
    expect(exact).toHaveLength(100);
    expect(exact!.startsWith(join(dir, "x"))).toBe(true);
    const over = serviceSocket(bundle, { XDG_RUNTIME_DIR: folderOf(68), XDG_CACHE_HOME: dir });
    expect(over).toMatch(new RegExp(`^${dir}/intent-lsp/hooks/[0-9a-f]{16}\\.sock$`));
    const long = folderOf(90);
    expect(serviceSocket(bundle, { XDG_RUNTIME_DIR: long, XDG_CACHE_HOME: long })).toMatch(
      new RegExp(`^/tmp/intent-lsp-${process.getuid!()}/[0-9a-f]{16}\\.sock$`),
    );
  });

  it("with no runtime folder, the user's cache folder", () => {
    expect(serviceSocket(bundle, { XDG_CACHE_HOME: dir })).toMatch(new RegExp(`^${dir}/intent-lsp/hooks/[0-9a-f]{16}\\.sock$`));
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
    ["an environment given as text", { ...valid, env: "A=b" }],
    ["an environment with one variable that is not text among others that are", { ...valid, env: { A: "b", B: 2 } }],
    ["a folder that is not text", { ...valid, cwd: 5 }],
    ["no folder", { ...valid, cwd: undefined }],
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
    const r = await answerHookRequest(request(["hook", "claude-code"], outsideRead(dir)));
    expect(r).toEqual({ stdout: "{}\n", stderr: "", code: 0 });
  });
  it("a program that fails outside its own handling: what it printed, then the failure, blocking the call", async () => {
    const failing = (thrown: unknown) => async (_argv: string[], io: { out(t: string): void; err(t: string): void }) => {
      io.out("partial");
      io.err("note\n");
      throw thrown;
    };
    expect(await answerHookRequest(request(["hook", "cursor"], "{}"), failing(new Error("module not found")))).toEqual({
      stdout: "partial",
      stderr: "note\nintent: module not found (blocking the call)\n",
      code: 2,
    });
    expect((await answerHookRequest(request(["hook", "cursor"], "{}"), failing(null))).stderr).toBe("note\nintent: null (blocking the call)\n");
    expect((await answerHookRequest(request(["hook", "cursor"], "{}"), failing("text"))).stderr).toBe("note\nintent: text (blocking the call)\n");
  });
  it("what the command prints through either of its outputs is the answer's", async () => {
    const r = await answerHookRequest(request(["hook", "--help"], null));
    expect(r.stdout).toMatch(/^Usage: intent hook /);
    expect(r).toMatchObject({ stderr: "", code: 0 });
  });
});

describe("starting a service", () => {
  it("the reply's deadline: INTENT_LSP_HOOK_SERVICE_REPLY_MS when a positive number, else 20 s", () => {
    const at = (v: string | undefined) => replyDeadline(v === undefined ? {} : { INTENT_LSP_HOOK_SERVICE_REPLY_MS: v });
    expect([at("250"), at(undefined), at("0"), at("-3"), at("soon")]).toEqual([250, 20_000, 20_000, 20_000, 20_000]);
  });

  it("launchers hold back for an hour after a service could not listen on the socket", () => {
    const socket = join(dir, "s.sock");
    const now = Date.now();
    expect(backingOff(socket, now)).toBe(false);
    writeFileSync(`${socket}.failed`, "");
    expect(backingOff(socket, now)).toBe(true);
    const hourAgo = (now - 60 * 60 * 1000 - 1000) / 1000;
    utimesSync(`${socket}.failed`, hourAgo, hourAgo);
    expect(backingOff(socket, now)).toBe(false);
    expect(backingOff(socket, now - 2000)).toBe(true);
    const at = statSync(`${socket}.failed`).mtimeMs;
    expect(backingOff(socket, at + 60 * 60 * 1000 - 1)).toBe(true);
    expect(backingOff(socket, at + 60 * 60 * 1000)).toBe(false);
  });

  /** A launcher that notes how it was started: its arguments, folder, an environment variable, and whether it leads its own process group. */
  function noting(name: string): { launcher: string; note: string } {
    const note = join(dir, `${name}.json`);
    const launcher = join(dir, `${name}.js`);
    writeFileSync(
      launcher,
      `const stat = require("node:fs").readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
const quiet = require("node:fs").fstatSync(1).isCharacterDevice();
require("node:fs").writeFileSync(${JSON.stringify(note)}, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), mark: process.env.MARK, leads: stat[2] === String(process.pid), quiet }));
`,
    );
    return { launcher, note };
  }

  it("starts the service detached, in the user's home, with the caller's environment, its output going nowhere", async () => {
    const started = noting("started");
    const socket = join(dir, "s.sock");
    expect(startService(socket, started.launcher, { ...process.env, MARK: "caller" })).toBe(true);
    while (!existsSync(started.note)) await new Promise((r) => setTimeout(r, 20));
    expect(JSON.parse(readFileSync(started.note, "utf8"))).toEqual({
      argv: ["__serve-hooks", socket],
      cwd: homedir(),
      mark: "caller",
      leads: true,
      quiet: true,
    });
  });

  it("a service that cannot be started is no failure of the call: the call is answered in its own process", () => {
    // a variable with a NUL byte cannot be handed to a process: spawn throws before anything starts
    expect(startService(join(dir, "s.sock"), noting("never").launcher, { PATH: process.env["PATH"], BROKEN: "a\u0000b" })).toBe(false);
  });

  it("starts none while backing off", () => {
    const socket = join(dir, "held.sock");
    writeFileSync(`${socket}.failed`, "");
    expect(startService(socket, noting("held").launcher, process.env)).toBe(false);
  });
});
