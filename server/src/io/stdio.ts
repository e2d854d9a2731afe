/**
 * Standard input and output of a short process (an agent's hook: one payload in, one answer out) read and
 * written with plain system calls. `process.stdin` and `process.stdout` are streams whose first use loads
 * and sets up Node's stream and socket machinery, a few milliseconds of every hook call; the streams remain
 * the way on when a call cannot complete at once (a non-blocking pipe that is empty or full).
 */
import { fstatSync, readSync, writeSync } from "node:fs";

const STDIN = 0;
const STDOUT = 1;
let stdinStream = false;
/**
 * Where a launcher that read standard input already (launch/cli.ts, for the hook service) leaves it for the
 * program it then runs in the same process: a global, since the launcher and the CLI are separate bundles.
 */
const HANDED_OVER = Symbol.for("intent-lsp.stdin");
type WithHandedOver = { [HANDED_OVER]?: string };

/** Leaves `text` as standard input for the program this process runs next (readAllStdin returns it). */
export function handOverStdin(text: string): void {
  (globalThis as WithHandedOver)[HANDED_OVER] = text;
}

/** Whether `process.stdin` was opened here (it then holds the process open until paused). */
export function stdinStreamOpened(): boolean {
  return stdinStream;
}

/**
 * Whether standard input is a terminal (nobody piped anything in). Node's tty module loads its socket
 * machinery, so it is asked only about a character device (a terminal, or /dev/null).
 */
export function stdinIsTerminal(): boolean {
  if (typeof (globalThis as WithHandedOver)[HANDED_OVER] === "string") return false;
  try {
    if (!fstatSync(STDIN).isCharacterDevice()) return false;
  } catch {
    return false; // no standard input at all: reading it says so
  }
  return (require("node:tty") as typeof import("node:tty")).isatty(STDIN);
}

/** All of standard input as UTF-8 text. */
export async function readAllStdin(): Promise<string> {
  const handed = (globalThis as WithHandedOver)[HANDED_OVER];
  if (typeof handed === "string") {
    delete (globalThis as WithHandedOver)[HANDED_OVER];
    return handed;
  }
  const chunks: Buffer[] = [];
  if (!readAvailable(chunks)) {
    stdinStream = true;
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Reads standard input into `chunks` until its end (true), or until it would have to wait (false: the rest,
 * if any, comes through the stream, after what was read here).
 */
function readAvailable(chunks: Buffer[]): boolean {
  for (;;) {
    const buf = Buffer.allocUnsafe(64 * 1024);
    let n: number;
    try {
      n = readSync(STDIN, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EOF") return true; // Windows: the end of a pipe
      if (code === "EAGAIN" || chunks.length === 0) return false;
      throw e;
    }
    if (n === 0) return true;
    chunks.push(buf.subarray(0, n));
  }
}

/**
 * Writes `text` to standard output and resolves once the OS has all of it. `viaStream`: something was
 * written through `process.stdout` already, so this goes after it through the same stream.
 */
export function writeAllStdout(text: string, viaStream: boolean): Promise<void> {
  let rest = Buffer.from(text, "utf8");
  if (!viaStream) {
    try {
      while (rest.length > 0) rest = rest.subarray(writeSync(STDOUT, rest));
      return Promise.resolve();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") return Promise.reject(e);
    }
  }
  return new Promise((resolve, reject) => process.stdout.write(rest, (err) => (err ? reject(err) : resolve())));
}

/** Writes `text` to standard output at once, for a process about to exit; false when it could not. */
export function writeStdoutNow(text: string): boolean {
  try {
    let rest = Buffer.from(text, "utf8");
    while (rest.length > 0) rest = rest.subarray(writeSync(STDOUT, rest));
    return true;
  } catch {
    return false;
  }
}
