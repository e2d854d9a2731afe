/**
 * The launcher's side of the hook service (cli/hookService.ts, docs/ARCHITECTURE.md "Hook service"): an
 * `intent hook` call is handed to the service listening on this user's socket for this very build and
 * environment, and its answer (standard output, standard error, exit code) is this process's. When no
 * service listens there, the launcher starts one for the next calls and answers this call itself. A service
 * that took the call and whose connection then ended without an answer no longer runs it: the launcher
 * answers it in its own process from the input it already read (every hook is idempotent). One that gives
 * no answer in time may still be running it: the call is answered as failed, in the agent's protocol (a
 * denial before a tool call), and never run a second time (`CallResult`).
 *
 * The socket lives in a folder private to the user (`socketDirs`, each checked as the code cache's folder
 * is), so only this user's processes can reach it: a call through it can do exactly what running
 * `intent hook` can. Its name is a hash of the bundle's identity (a new build gets a new service), Node,
 * the umask and every environment variable that changes what the command or the git it runs does (PATH,
 * HOME, GIT_*, XDG_*, …): a service only ever answers callers whose process would behave as its own.
 * `INTENT_LSP_HOOK_SERVICE=off` answers every call in its own process; `=require` (for tests) blocks a call
 * no service answers.
 */
import { lstatSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { GREETING, SERVE_HOOKS, type HookReply, type HookRequest } from "../io/hookServiceProtocol";
import { readAllStdin, stdinIsTerminal } from "../io/stdio";
import { fnv1a64 } from "../engine/fnv1a64";
import { fileIdentity, userCacheDir } from "./codeCache";

/** Variables that change what a hook or the git it runs does; a service serves one set of their values. */
const FINGERPRINTED =
  /^(?:PATH|HOME|USER|LOGNAME|SHELL|EMAIL|TMPDIR|TMP|TEMP|TZ|LANG|LANGUAGE|LC_\w+|GIT_\w+|XDG_\w+|NODE_\w+|INTENT_LSP_\w+|SSH_AUTH_SOCK|GNUPGHOME)$/;
/** Unix sockets' paths are limited to ~108 bytes; a longer one gets no service. */
const MAX_SOCKET_PATH = 100;
/** The longest a call waits for the service's greeting before it answers itself. */
const GREETING_MS = 2_000;
/** The longest a call waits for the service's answer, once greeted, before it denies (see replyDeadline). */
const REPLY_MS = 20_000;
/** After a service could not listen in the folder, launchers stop starting one for this long. */
const FAILED_BACKOFF_MS = 60 * 60 * 1000;

export type ServiceMode = "on" | "off" | "require";

export function serviceMode(env: NodeJS.ProcessEnv): ServiceMode {
  const v = env["INTENT_LSP_HOOK_SERVICE"];
  return v === "off" || v === "require" ? v : "on";
}

/** The socket of the service for this bundle and environment; undefined when there can be none. */
export function serviceSocket(bundle: string, env: NodeJS.ProcessEnv): string | undefined {
  const identity = fileIdentity(bundle);
  if (identity === undefined) return undefined;
  const vars = Object.keys(env)
    .filter((k) => FINGERPRINTED.test(k) && !k.startsWith("INTENT_LSP_HOOK_SERVICE"))
    .sort()
    .map((k) => `${k}=${env[k]}`);
  const name = `${fnv1a64([identity, process.execPath, process.umask(), ...vars].join("\0"))}.sock`;
  for (const dir of socketDirs(env)) {
    const socket = join(dir, name);
    if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) continue;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (isSocketDir(dir)) return socket;
    } catch {
      /* the next place */
    }
  }
  return undefined;
}

/**
 * Whether `dir` may hold this user's sockets: a real folder (not a link), this user's, that nobody else may
 * enter (whatever the umask it was made under), in a folder nobody else can rename it out of (only its owner
 * can, or the folder is sticky as /tmp is). A call through a socket there can do whatever `intent hook` can.
 * `uid`: the user (this process's; null where the system has no user ids, as on Windows).
 */
export function isSocketDir(dir: string, uid: number | null = thisUser()): boolean {
  const ownedBy = (st: { uid: number }) => uid === null || st.uid === uid || st.uid === 0;
  const st = lstatSync(dir);
  if (!st.isDirectory() || (uid !== null && st.uid !== uid) || (st.mode & 0o077) !== 0) return false;
  const parent = lstatSync(dirname(dir));
  return parent.isDirectory() && ownedBy(parent) && ((parent.mode & 0o022) === 0 || (parent.mode & 0o1000) !== 0);
}

/**
 * Whether a connection to `socket` reaches this user's own service, checked before every connect: its folder
 * as `isSocketDir` requires, and the socket (if any) a socket of this user's that nobody else can use.
 * `uid`: the user (this process's; null where the system has no user ids, as on Windows).
 */
export function isPrivateSocket(socket: string, uid: number | null = thisUser()): boolean {
  try {
    if (!isSocketDir(dirname(socket), uid)) return false;
    const st = lstatSync(socket);
    return st.isSocket() && (uid === null || st.uid === uid) && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** This process's user id; null where the system has none (Windows). */
function thisUser(): number | null {
  // Stryker disable next-line ConditionalExpression: every system the tests run on has user ids; the test is for those without
  return typeof process.getuid === "function" ? process.getuid() : null;
}

/**
 * Where this user's sockets may go, best first: the runtime folder the session manager made for them, the
 * user's cache folder, and a folder of this user's own in /tmp (as tmux and ssh-agent do) when the others'
 * paths are too long for a socket. Each is used only when it is private (isPrivateDir).
 */
function socketDirs(env: NodeJS.ProcessEnv): string[] {
  const dirs = env["XDG_RUNTIME_DIR"] ? [join(env["XDG_RUNTIME_DIR"], "intent-lsp")] : [];
  dirs.push(join(userCacheDir(env), "hooks"));
  const uid = thisUser();
  // Stryker disable next-line ConditionalExpression: every system the tests run on has user ids (see thisUser)
  if (uid !== null) dirs.push(join("/tmp", `intent-lsp-${uid}`));
  return dirs;
}

/**
 * How a call to the service ended. "absent": nothing greeted, nothing ran, standard input is untouched.
 * "dropped": the service greeted, then the connection ended without an answer (the service died, or refused
 * the request): it no longer runs the call, which the launcher answers itself from `input` (each hook is
 * idempotent: a stash or snapshot taken again, a record the ledger already holds skipped). "silent": no
 * answer within the deadline from a service that may still be running the call: answered as a failure,
 * never run a second time. "unreadable": standard input could not be read.
 */
export type CallResult =
  | { kind: "answered"; reply: HookReply }
  | { kind: "absent" }
  | { kind: "dropped"; why: string; input: string | null }
  | { kind: "silent"; why: string; input: string | null }
  | { kind: "unreadable"; why: string };

/** This process's standard input, as a call hands it over: null from a terminal, where an agent pipes nothing. */
const standardInput = (): Promise<string | null> => (stdinIsTerminal() ? Promise.resolve(null) : readAllStdin());

/**
 * Hands the call to the service (see CallResult); `replyMs`: how long an answer may take once greeted;
 * `readInput`: the call's standard input, read only once the service took the call.
 */
export function callService(
  socket: string,
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  replyMs = replyDeadline(env),
  readInput = standardInput,
): Promise<CallResult> {
  const { connect } = require("node:net") as typeof import("node:net");
  return new Promise((resolve) => {
    if (!isPrivateSocket(socket)) return resolve({ kind: "absent" });
    const conn = connect(socket);
    // the call is the service's once it greeted: before that, nothing ran and standard input is untouched
    let greeted = false;
    let input: Promise<string | null> | undefined;
    let received = Buffer.alloc(0);
    let timer = setTimeout(() => {
      conn.destroy();
      done({ kind: "absent" });
    }, GREETING_MS);
    let settled = false;
    // Stryker disable ConditionalExpression,BooleanLiteral: a promise keeps its first settlement, and each path
    // has ended the connection before it settles, so a second settlement changes nothing; the flag only saves work
    const done = (r: CallResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    // what the caller gets back once the service took the call and did not answer: the input, read in full
    const unanswered = (kind: "dropped" | "silent", why: string) => {
      conn.destroy();
      if (settled) return;
      settled = true;
      // Stryker restore ConditionalExpression,BooleanLiteral
      clearTimeout(timer);
      (input ?? Promise.resolve(null)).then(
        (text) => resolve({ kind, why, input: text }),
        (e: Error) => resolve({ kind: "unreadable", why: `standard input could not be read (${e.message})` }),
      );
    };
    const send = () => {
      input = readInput();
      input.then(
        (stdin) => {
          const request: HookRequest = { argv, cwd, env: stringsOnly(env), stdin };
          conn.write(`${JSON.stringify(request)}\n`);
        },
        (e: Error) => {
          conn.destroy();
          done({ kind: "unreadable", why: `standard input could not be read (${e.message})` });
        },
      );
    };
    conn.once("error", (e) => (greeted ? unanswered("dropped", e.message) : done({ kind: "absent" })));
    conn.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (greeted) return;
      const nl = received.indexOf(0x0a);
      if (nl === -1) return;
      if (received.subarray(0, nl + 1).toString("latin1") !== GREETING) {
        conn.destroy();
        return done({ kind: "absent" });
      }
      greeted = true;
      received = received.subarray(nl + 1);
      clearTimeout(timer);
      timer = setTimeout(() => unanswered("silent", `no answer within ${replyMs / 1000} s`), replyMs);
      send();
    });
    conn.once("end", () => {
      if (!greeted) return done({ kind: "absent" });
      const reply = parseReply(received.toString("utf8"));
      if (reply) done({ kind: "answered", reply });
      else unanswered("dropped", "the service stopped before it answered");
    });
  });
}

/**
 * How long a greeted call waits for its answer: well under the 30 s the agents' hook configurations allow,
 * since an agent that times a hook out runs the call (most of them do). A service that is stopped or stuck
 * thus costs a denial, never an allow.
 */
export function replyDeadline(env: NodeJS.ProcessEnv): number {
  const given = Number(env["INTENT_LSP_HOOK_SERVICE_REPLY_MS"]);
  return given > 0 ? given : REPLY_MS;
}

function parseReply(text: string): HookReply | undefined {
  try {
    const r = JSON.parse(text) as HookReply;
    return typeof r.stdout === "string" && typeof r.stderr === "string" && Number.isInteger(r.code) ? r : undefined;
  } catch (/* Stryker disable next-line BlockStatement: the function returns undefined after an empty block too */ _) {
    return undefined;
  }
}

function stringsOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  // Stryker disable next-line ConditionalExpression: a variable without a value is dropped by JSON.stringify when the request is sent, kept or not
  for (const [k, v] of Object.entries(env)) if (typeof v === "string") out[k] = v;
  return out;
}

/**
 * Starts a service on `socket` for the next calls, detached from this one; it leaves by itself when idle.
 * Whether one was started.
 */
export function startService(socket: string, launcher: string, env: NodeJS.ProcessEnv): boolean {
  if (backingOff(socket, Date.now())) return false;
  try {
    const { spawn } = require("node:child_process") as typeof import("node:child_process");
    // away from the caller's folder, which the service must not keep busy
    spawn(process.execPath, [launcher, SERVE_HOOKS, socket], { detached: true, stdio: "ignore", cwd: homedir(), env }).unref();
    return true;
  } catch {
    return false; // the next call tries again; this one is answered in its own process anyway
  }
}

/** Whether launchers hold back from starting a service on `socket` at `now`: one failed to listen there lately. */
export function backingOff(socket: string, now: number): boolean {
  try {
    return now - statSync(`${socket}.failed`).mtimeMs < FAILED_BACKOFF_MS;
  } catch {
    return false; // no marker: no failure seen
  }
}
