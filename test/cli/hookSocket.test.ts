import { chmodSync, existsSync, lstatSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { serveSocket } from "../../server/src/io/hookSocket";

/**
 * The hook service's socket server in process (io/hookSocket.ts): what a launcher meets on the socket, and
 * when the service leaves. `process.exit` is intercepted: leaving is asserted, not done.
 */

const GREETING = "intent-hook-service 1\n";
let dir: string;
let exits: number[];
const others: Server[] = [];
beforeEach(() => {
  dir = mkdtempSync("/tmp/ihk-");
  chmodSync(dir, 0o700);
  exits = [];
  vi.spyOn(process, "exit").mockImplementation(((code?: number) => {
    exits.push(code ?? 0);
  }) as never);
});
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of others.splice(0)) await new Promise((r) => s.close(r));
  rmSync(dir, { recursive: true, force: true });
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

describe("serveSocket", () => {
  it("greets, reads one request line, answers one line and closes; the socket is private", async () => {
    const socket = join(dir, "s.sock");
    const seen: string[] = [];
    serveSocket(socket, 60_000, 1024, async (line) => {
      seen.push(line);
      return `answer to ${line}`;
    });
    await until(() => existsSync(socket));
    expect(await exchange(socket, "first\n")).toBe(`${GREETING}answer to first\n`);
    expect(await exchange(socket, "second\nignored\n")).toBe(`${GREETING}answer to second\n`);
    expect(seen).toEqual(["first", "second"]);
    expect(lstatSync(socket).mode & 0o077).toBe(0);
  });

  it("a request over the limit is dropped unanswered and never handled", async () => {
    const socket = join(dir, "s.sock");
    let handled = 0;
    serveSocket(socket, 60_000, 1024, async () => {
      handled++;
      return "x";
    });
    await until(() => existsSync(socket));
    expect(await exchange(socket, "y".repeat(4096))).toBe(GREETING);
    expect(handled).toBe(0);
  });

  it("a request handled with an error is dropped: the launcher then answers the call itself", async () => {
    const socket = join(dir, "s.sock");
    serveSocket(socket, 60_000, 1024, async () => {
      throw new Error("broken");
    });
    await until(() => existsSync(socket));
    expect(await exchange(socket, "call\n")).toBe(GREETING);
  });

  it("leaves at once when another service answers on the socket, and leaves that socket alone", async () => {
    const socket = join(dir, "s.sock");
    const other = createServer((c) => c.end());
    others.push(other);
    await new Promise<void>((r) => other.listen(socket, r));
    const inode = lstatSync(socket).ino;
    serveSocket(socket, 60_000, 1024, async () => "x");
    await until(() => exits.length > 0);
    expect(exits).toEqual([0]);
    expect(lstatSync(socket).ino).toBe(inode);
  });

  it("takes over a socket file nobody answers on (a service that was killed)", async () => {
    const socket = join(dir, "s.sock");
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(socket, r));
    // a killed service leaves its file behind: close the listener without removing the file
    renameSync(socket, `${socket}.keep`);
    await new Promise((r) => dead.close(r));
    renameSync(`${socket}.keep`, socket);
    serveSocket(socket, 60_000, 1024, async (line) => `got ${line}`);
    await until(() => exits.length > 0 || lstatSync(socket).ino !== 0);
    await new Promise((r) => setTimeout(r, 50));
    expect(await exchange(socket, "call\n")).toBe(`${GREETING}got call\n`);
    expect(exits).toEqual([]);
  });

  it("when idle, removes its socket and leaves", async () => {
    const socket = join(dir, "s.sock");
    serveSocket(socket, 150, 1024, async () => "x");
    await until(() => existsSync(socket));
    await until(() => exits.length > 0);
    expect(exits).toEqual([0]);
    expect(existsSync(socket)).toBe(false);
  });

  it("when idle, leaves a socket that is no longer its own (another service took the path) in place", async () => {
    const socket = join(dir, "s.sock");
    serveSocket(socket, 300, 1024, async () => "x");
    await until(() => existsSync(socket));
    const other = createServer((c) => c.end());
    others.push(other);
    rmSync(socket);
    await new Promise<void>((r) => other.listen(socket, r));
    const inode = lstatSync(socket).ino;
    await until(() => exits.length > 0);
    expect(lstatSync(socket).ino).toBe(inode);
  });

  it("a call in progress is answered before the service leaves", async () => {
    const socket = join(dir, "s.sock");
    let release: () => void = () => {};
    serveSocket(socket, 100, 1024, () => new Promise((r) => (release = () => r("late answer"))));
    await until(() => existsSync(socket));
    const said = exchange(socket, "slow\n");
    await new Promise((r) => setTimeout(r, 400));
    expect(exits).toEqual([]);
    release();
    expect(await said).toBe(`${GREETING}late answer\n`);
    await until(() => exits.length > 0);
    expect(exits).toEqual([0]);
  });
});
