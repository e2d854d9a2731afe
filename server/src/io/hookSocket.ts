/**
 * The hook service's socket (cli/hookService.ts): a Unix socket server that greets each connection, reads one
 * request line, and writes back one reply line. See docs/ARCHITECTURE.md "The hook service".
 */
import { chmodSync, lstatSync, unlinkSync, writeFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { GREETING } from "./hookServiceProtocol";

/**
 * Serves `handle` on `socket` until `idleMs` pass without a call; leaves at once when another service
 * already answers there, and removes a socket file nobody answers on (a service that was killed) first.
 */
export function serveSocket(socket: string, idleMs: number, maxRequestBytes: number, handle: (line: string) => Promise<string>): void {
  const probe = connect(socket);
  probe.once("connect", () => {
    probe.destroy();
    process.exit(0);
  });
  probe.once("error", () => {
    // nobody answers there: a socket file left by a service that died goes; anything else is not ours
    try {
      if (lstatSync(socket).isSocket()) unlinkSync(socket);
    } catch {
      /* absent */
    }
    listen(socket, idleMs, maxRequestBytes, handle);
  });
}

/**
 * Leaving when idle: the socket file goes first (only while it is still this service's: a service that
 * replaced a stuck one owns the path now), then calls already greeted are finished, and a connection that
 * arrives meanwhile is dropped ungreeted, so its caller answers itself. The server is never closed: closing
 * it would remove whatever socket file is at the path by then.
 */
function listen(socket: string, idleMs: number, maxRequestBytes: number, handle: (line: string) => Promise<string>): void {
  let open = 0;
  let leaving = false;
  let timer: NodeJS.Timeout | undefined;
  let ours: { dev: number; ino: number } | undefined;
  const leave = () => {
    leaving = true;
    try {
      const st = lstatSync(socket);
      // Stryker disable next-line ConditionalExpression,LogicalOperator: comparing the inode alone decides alike for every file a test can place: a file on another file system with our inode number cannot be made (the file system assigns the number); the device counts where one happens to reuse it
      if (ours && st.dev === ours.dev && st.ino === ours.ino) unlinkSync(socket);
    } catch {
      /* gone already */
    }
    // Stryker disable next-line ConditionalExpression: equivalent when true: `leave` runs only with no call open (the idle timer calls it only then, and the listen callback before any connection is taken)
    if (open === 0) process.exit(0);
  };
  const idle = () => {
    clearTimeout(timer);
    timer = setTimeout(() => (open === 0 ? leave() : idle()), idleMs);
  };
  const server = createServer((conn) => {
    if (leaving) {
      conn.destroy();
      return;
    }
    open++;
    idle();
    conn.once("close", () => {
      open--;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: unreachable when leaving: `leave` runs with no call open and no connection is counted after it, so `leaving` is false whenever a counted connection closes (test "greets, …" shows no call's close makes the service leave)
      if (leaving && open === 0) process.exit(0);
    });
    conn.write(GREETING);
    receive(conn, maxRequestBytes, async (line) => {
      conn.end(`${await handle(line)}\n`);
      idle();
    });
  });
  server.once("error", (e) => {
    // a socket this folder cannot hold: say so, so that launchers stop starting services for it
    if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") writeFailedMarker(socket);
    process.exit(0);
  });
  // the socket is made private whatever the umask this service inherited: the kernel gives a socket file
  // the mode the umask leaves, and Node binds while listen() runs (a worker thread, as in tests, cannot set
  // the umask: the socket is then made private before its first connection is taken)
  let umask: number | undefined;
  try {
    umask = process.umask(0o077);
  } catch {
    /* a worker thread cannot set it: the socket is made private below */
  }
  try {
    server.listen(socket, () => {
      let st = lstatSync(socket);
      ours = { dev: st.dev, ino: st.ino };
      // Stryker disable next-line ConditionalExpression: equivalent when true: a chmod of a socket already private keeps it private (0o600 for 0o700), and only the group and other bits are checked, here and by launchers
      if ((st.mode & 0o077) !== 0) {
        try {
          chmodSync(socket, 0o600);
          st = lstatSync(socket);
        } catch {
          /* checked below */
        }
      }
      // a socket others could use is never served (launchers refuse to connect to it anyway)
      if ((st.mode & 0o077) !== 0) return leave();
      idle();
    });
  } finally {
    // Stryker disable next-line ConditionalExpression: equivalent when true: process.umask(undefined) reads the mask without changing it
    if (umask !== undefined) process.umask(umask);
  }
}

/** Reads one newline-terminated request from the connection and hands it over; a larger one is dropped. */
function receive(conn: Socket, maxBytes: number, handle: (line: string) => Promise<void>): void {
  const chunks: Buffer[] = [];
  let size = 0;
  conn.on("data", (chunk: Buffer) => {
    const nl = chunk.indexOf(0x0a);
    if (nl === -1) {
      chunks.push(chunk);
      size += chunk.length;
      // Stryker disable next-line EqualityOperator: a request is measured read by read, and where a read ends is the kernel's and Node's choice, so no test can make the reads before the newline total exactly maxBytes
      if (size > maxBytes) conn.destroy();
      return;
    }
    chunks.push(chunk.subarray(0, nl));
    conn.removeAllListeners("data");
    handle(Buffer.concat(chunks).toString("utf8")).catch(() => conn.destroy());
  });
  // Stryker disable next-line ArrowFunction: equivalent: Node emits "error" on a socket while destroying it, so destroying it again changes nothing; the listener keeps the error from being thrown
  conn.on("error", () => conn.destroy());
}

/** Marks the socket's folder as one no service can listen in (launch/hookClient.ts reads it). */
function writeFailedMarker(socket: string): void {
  try {
    writeFileSync(`${socket}.failed`, "", { mode: 0o600 });
  } catch {
    /* the launcher keeps trying: each try costs a start of a process that leaves */
  }
}
