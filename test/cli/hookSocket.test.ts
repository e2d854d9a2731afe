import { existsSync, linkSync, lstatSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect, createServer, Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { serviceScene } from "../support/serviceScene";
import { serveSocket } from "../../server/src/io/hookSocket";

/**
 * The hook service's socket server in process (io/hookSocket.ts): what a launcher meets on the socket, and
 * when the service leaves. `process.exit` is intercepted: leaving is asserted, not done.
 */

/** A chmod the file system refuses, for a test that needs one (root may chmod anything). */
const faults = vi.hoisted(() => ({ chmod: false }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const chmodSync = (...args: Parameters<typeof fs.chmodSync>) => {
    if (faults.chmod) throw Object.assign(new Error(`EPERM: operation not permitted, chmod '${args[0]}'`), { code: "EPERM" });
    fs.chmodSync(...args);
  };
  return { ...fs, chmodSync, default: { ...fs, chmodSync } };
});

const scene = serviceScene("/tmp/ihk-");
const GREETING = "intent-hook-service 1\n";
const others: Server[] = [];
afterEach(async () => {
  faults.chmod = false;
  for (const s of others.splice(0)) await new Promise((r) => s.close(r));
});

/** One exchange as a launcher has it: what the service said, in order, until it closed. */
function exchange(socket: string, request: string): Promise<string> {
  return new Promise((resolve) => {
    const c = connect(socket);
    let said = "";
    c.on("data", (d) => {
      said += d;
      if (said === GREETING) c.write(request);
    });
    c.on("error", () => resolve(said));
    c.on("close", () => resolve(said));
  });
}

const until = async (fact: () => boolean) => {
  while (!fact()) await new Promise((r) => setTimeout(r, 10));
};

/** Waits until the service serves on `socket`, or has left instead (then the test fails at once). */
const serving = async (socket: string) => {
  await until(() => existsSync(socket) || scene.exits.length > 0);
  expect(scene.exits).toEqual([]);
};

describe("serveSocket", () => {
  it("greets, reads one request line, answers one line and closes; the socket is private", async () => {
    const socket = join(scene.dir, "s.sock");
    const seen: string[] = [];
    serveSocket(socket, 60_000, 1024, async (line) => {
      seen.push(line);
      return `answer to ${line}`;
    });
    await serving(socket);
    expect(await exchange(socket, "first\n")).toBe(`${GREETING}answer to first\n`);
    expect(await exchange(socket, "second\nignored\n")).toBe(`${GREETING}answer to second\n`);
    expect(seen).toEqual(["first", "second"]);
    expect(lstatSync(socket).mode & 0o077).toBe(0);
    expect(scene.exits).toEqual([]); // a call's end is not the service's
  });

  it("binds the socket while the umask is 0o077, and gives the umask back", async () => {
    const socket = join(scene.dir, "s.sock");
    let mask = 0o022;
    const calls: [number | undefined, boolean][] = [];
    vi.spyOn(process, "umask").mockImplementation(((m?: number) => {
      calls.push([m, existsSync(socket)]);
      const old = mask;
      if (m !== undefined) mask = m;
      return old;
    }) as typeof process.umask);
    serveSocket(socket, 60_000, 1024, async () => "x");
    await serving(socket);
    expect(calls).toEqual([
      [0o077, false],
      [0o022, true],
    ]);
  });

  it("never serves a socket it cannot make private: the socket goes and the service leaves", async () => {
    const socket = join(scene.dir, "s.sock");
    // the socket is bound under a mask that leaves others' bits, and the chmod that would take them away fails
    try {
      process.umask(0o022);
    } catch {
      /* a worker thread keeps the process's mask */
    }
    vi.spyOn(process, "umask").mockReturnValue(0o022);
    faults.chmod = true;
    serveSocket(socket, 60_000, 1024, async () => "x");
    await until(() => scene.exits.length > 0 || existsSync(socket));
    expect(scene.exits).toEqual([0]);
    expect(existsSync(socket)).toBe(false);
  });

  it("reads a request that arrives in many reads, and only its first line", async () => {
    const socket = join(scene.dir, "s.sock");
    const seen: number[] = [];
    serveSocket(socket, 60_000, 1024 * 1024, async (line) => {
      seen.push(line.length);
      return `${line.length}`;
    });
    await serving(socket);
    const big = "y".repeat(300_000);
    expect(await exchange(socket, `${big}\n`)).toBe(`${GREETING}300000\n`);
    expect(await exchange(socket, `first\n${big}\nsecond\n`)).toBe(`${GREETING}5\n`);
    expect(await exchange(socket, "z\n")).toBe(`${GREETING}1\n`);
    expect(seen).toEqual([300_000, 5, 1]);
  });

  it("a request over the limit is dropped unanswered and never handled", async () => {
    const socket = join(scene.dir, "s.sock");
    let handled = 0;
    serveSocket(socket, 60_000, 1024, async () => {
      handled++;
      return "x";
    });
    await serving(socket);
    expect(await exchange(socket, "y".repeat(4096))).toBe(GREETING);
    expect(handled).toBe(0);
  });

  it("a request handled with an error is dropped: the launcher then answers the call itself", async () => {
    const socket = join(scene.dir, "s.sock");
    serveSocket(socket, 60_000, 1024, async () => {
      throw new Error("broken");
    });
    await serving(socket);
    expect(await exchange(socket, "call\n")).toBe(GREETING);
  });

  it("leaves at once when another service answers on the socket, and leaves that socket alone", async () => {
    const socket = join(scene.dir, "s.sock");
    const other = createServer((c) => c.end());
    others.push(other);
    await new Promise<void>((r) => other.listen(socket, r));
    const inode = lstatSync(socket).ino;
    serveSocket(socket, 60_000, 1024, async () => "x");
    await until(() => scene.exits.length > 0);
    expect(scene.exits).toEqual([0]);
    expect(lstatSync(socket).ino).toBe(inode);
  });

  it("leaves a file at the path that is not a socket alone, and leaves: the path is taken, not unusable", async () => {
    const socket = join(scene.dir, "s.sock");
    writeFileSync(socket, "not a socket\n");
    serveSocket(socket, 60_000, 1024, async () => "x");
    await until(() => scene.exits.length > 0 || lstatSync(socket).isSocket());
    expect(scene.exits).toEqual([0]);
    expect(readFileSync(socket, "utf8")).toBe("not a socket\n");
    expect(existsSync(`${socket}.failed`)).toBe(false);
  });

  it("marks a folder that cannot hold its socket, so that launchers stop starting services for it", async () => {
    const socket = join(scene.dir, "s.sock");
    vi.spyOn(Server.prototype, "listen").mockImplementation(function (this: Server) {
      process.nextTick(() => this.emit("error", Object.assign(new Error(`listen EPERM: operation not permitted ${socket}`), { code: "EPERM" })));
      return this;
    });
    serveSocket(socket, 60_000, 1024, async () => "x");
    await until(() => scene.exits.length > 0);
    expect(scene.exits).toEqual([0]);
    expect(readFileSync(`${socket}.failed`, "utf8")).toBe("");
    expect(statSync(`${socket}.failed`).mode & 0o777).toBe(0o600);
  });

  it("takes over a socket file nobody answers on (a service that was killed)", async () => {
    const socket = join(scene.dir, "s.sock");
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(socket, r));
    // a killed service leaves its file behind: close the listener without removing the file
    renameSync(socket, `${socket}.keep`);
    await new Promise((r) => dead.close(r));
    renameSync(`${socket}.keep`, socket);
    serveSocket(socket, 60_000, 1024, async (line) => `got ${line}`);
    await until(() => scene.exits.length > 0 || lstatSync(socket).ino !== 0);
    await new Promise((r) => setTimeout(r, 50));
    expect(await exchange(socket, "call\n")).toBe(`${GREETING}got call\n`);
    expect(scene.exits).toEqual([]);
  });

  it("when idle, removes its socket and leaves", async () => {
    const socket = join(scene.dir, "s.sock");
    serveSocket(socket, 150, 1024, async () => "x");
    await serving(socket);
    await until(() => scene.exits.length > 0);
    expect(scene.exits).toEqual([0]);
    expect(existsSync(socket)).toBe(false);
  });

  it("when idle, leaves a socket that is no longer its own (another service took the path) in place", async () => {
    const socket = join(scene.dir, "s.sock");
    serveSocket(socket, 300, 1024, async () => "x");
    await serving(socket);
    const other = createServer((c) => c.end());
    others.push(other);
    rmSync(socket);
    await new Promise<void>((r) => other.listen(socket, r));
    const inode = lstatSync(socket).ino;
    await until(() => scene.exits.length > 0);
    expect(lstatSync(socket).ino).toBe(inode);
  });

  it("a call in progress is answered before the service leaves", async () => {
    const socket = join(scene.dir, "s.sock");
    let release: () => void = () => {};
    serveSocket(socket, 100, 1024, () => new Promise((r) => (release = () => r("late answer"))));
    await serving(socket);
    const said = exchange(socket, "slow\n");
    await new Promise((r) => setTimeout(r, 400));
    expect(scene.exits).toEqual([]);
    expect(existsSync(socket)).toBe(true); // still there for the next caller
    release();
    expect(await said).toBe(`${GREETING}late answer\n`);
    await until(() => scene.exits.length > 0);
    expect(scene.exits).toEqual([0]);
  });

  it("once leaving, drops ungreeted a connection that still reaches it (through another name of its socket)", async () => {
    const socket = join(scene.dir, "s.sock");
    serveSocket(socket, 100, 1024, async () => "x");
    await serving(socket);
    linkSync(socket, join(scene.dir, "kept.sock")); // leaving removes the socket's name, not this one
    await until(() => scene.exits.length > 0);
    expect(existsSync(socket)).toBe(false);
    expect(await exchange(join(scene.dir, "kept.sock"), "late\n")).toBe("");
  });

  it("callers that hang up at once cost the service nothing: the next call is answered", async () => {
    const socket = join(scene.dir, "s.sock");
    serveSocket(socket, 60_000, 1024, async (line) => `got ${line}`);
    await serving(socket);
    // the greeting then meets a closed connection: an error on that connection, and only there
    const thrown: unknown[] = [];
    const note = (e: unknown) => thrown.push(e);
    process.on("uncaughtException", note);
    onTestFinished(() => {
      process.off("uncaughtException", note);
    });
    await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise((resolve) => {
            const c = connect(socket);
            c.on("connect", () => c.destroy());
            c.on("close", resolve);
          }),
      ),
    );
    expect(await exchange(socket, "next\n")).toBe(`${GREETING}got next\n`);
    expect(thrown).toEqual([]);
  });
});
