/**
 * The launcher's side of the hook service (cli/hookService.ts, docs/ARCHITECTURE.md "Hook service"): an
 * `intent hook` call is handed to the service listening on this user's socket for this very build and
 * environment, and its answer (standard output, standard error, exit code) is this process's. When no
 * service listens there, the launcher starts one for the next calls and answers this call itself, as it
 * always did. A service that takes the call and stops before answering blocks the call (exit 2): the call
 * may have been half done, so it is never run a second time.
 *
 * The socket lives in a folder private to the user (`socketDirs`, each checked as the code cache's folder
 * is), so only this user's processes can reach it: a call through it can do exactly what running
 * `intent hook` can. Its name is a hash of the bundle's identity (a new build gets a new service), Node,
 * the umask and every environment variable that changes what the command or the git it runs does (PATH,
 * HOME, GIT_*, XDG_*, …): a service only ever answers callers whose process would behave as its own.
 * `INTENT_LSP_HOOK_SERVICE=off` answers every call in its own process; `=require` (for tests) blocks a call
 * no service answers.
 */
import { mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { GREETING, SERVE_HOOKS, type HookReply, type HookRequest } from "../io/hookServiceProtocol";
import { readAllStdin, stdinIsTerminal } from "../io/stdio";
import { fnv1a64 } from "../engine/fnv1a64";
import { fileIdentity, isPrivateDir, userCacheDir } from "./codeCache";

/** Variables that change what a hook or the git it runs does; a service serves one set of their values. */
const FINGERPRINTED =
  /^(?:PATH|HOME|USER|LOGNAME|SHELL|EMAIL|TMPDIR|TMP|TEMP|TZ|LANG|LANGUAGE|LC_\w+|GIT_\w+|XDG_\w+|NODE_\w+|INTENT_LSP_\w+|SSH_AUTH_SOCK|GNUPGHOME)$/;
/** Unix sockets' paths are limited to ~108 bytes; a longer one gets no service. */
const MAX_SOCKET_PATH = 100;
/** The longest a call waits for the service's greeting before it answers itself. */
const GREETING_MS = 2_000;
/** The longest a call waits for the service's answer, once greeted, before it blocks. */
const REPLY_MS = 120_000;
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
      if (isPrivateDir(dir)) return socket;
    } catch {
      /* the next place */
    }
  }
  return undefined;
}

/**
 * Where this user's sockets may go, best first: the runtime folder the session manager made for them, the
 * user's cache folder, and a folder of this user's own in /tmp (as tmux and ssh-agent do) when the others'
 * paths are too long for a socket. Each is used only when it is private (isPrivateDir).
 */
function socketDirs(env: NodeJS.ProcessEnv): string[] {
  const dirs = env["XDG_RUNTIME_DIR"] ? [join(env["XDG_RUNTIME_DIR"], "intent-lsp")] : [];
  dirs.push(join(userCacheDir(env), "hooks"));
  const uid = process.getuid?.();
  if (uid !== undefined) dirs.push(join("/tmp", `intent-lsp-${uid}`));
  return dirs;
}

export type CallResult = { kind: "answered"; reply: HookReply } | { kind: "absent" } | { kind: "broken"; why: string };

/**
 * Hands the call to the service: "absent" when nothing listens (standard input is then untouched, for the
 * launcher to answer itself), "broken" when the service took the call and gave no answer.
 */
export function callService(socket: string, argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CallResult> {
  const { connect } = require("node:net") as typeof import("node:net");
  return new Promise((resolve) => {
    const conn = connect(socket);
    // the call is the service's once it greeted: before that, nothing ran and standard input is untouched
    let greeted = false;
    let received = Buffer.alloc(0);
    let timer = setTimeout(() => {
      conn.destroy();
      done({ kind: "absent" });
    }, GREETING_MS);
    let settled = false;
    const done = (r: CallResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const send = async () => {
      try {
        const stdin = stdinIsTerminal() ? null : await readAllStdin();
        const request: HookRequest = { argv, cwd, env: stringsOnly(env), stdin };
        conn.write(`${JSON.stringify(request)}\n`);
      } catch (e) {
        conn.destroy();
        done({ kind: "broken", why: `standard input could not be read (${(e as Error).message})` });
      }
    };
    conn.once("error", (e) => done(greeted ? { kind: "broken", why: e.message } : { kind: "absent" }));
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
      timer = setTimeout(() => {
        conn.destroy();
        done({ kind: "broken", why: `no answer within ${REPLY_MS / 1000} s` });
      }, REPLY_MS);
      void send();
    });
    conn.once("end", () => {
      if (!greeted) return done({ kind: "absent" });
      const reply = parseReply(received.toString("utf8"));
      done(reply ? { kind: "answered", reply } : { kind: "broken", why: "the service stopped before it answered" });
    });
  });
}

function parseReply(text: string): HookReply | undefined {
  try {
    const r = JSON.parse(text) as HookReply;
    return typeof r.stdout === "string" && typeof r.stderr === "string" && Number.isInteger(r.code) ? r : undefined;
  } catch {
    return undefined;
  }
}

function stringsOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === "string") out[k] = v;
  return out;
}

/** Starts a service on `socket` for the next calls, detached from this one; it leaves by itself when idle. */
export function startService(socket: string, launcher: string, env: NodeJS.ProcessEnv): void {
  try {
    if (Date.now() - statSync(`${socket}.failed`).mtimeMs < FAILED_BACKOFF_MS) return;
  } catch {
    /* no marker: no failure seen */
  }
  try {
    const { spawn } = require("node:child_process") as typeof import("node:child_process");
    // away from the caller's folder, which the service must not keep busy
    spawn(process.execPath, [launcher, SERVE_HOOKS, socket], { detached: true, stdio: "ignore", cwd: homedir(), env }).unref();
  } catch {
    /* the next call tries again; this one is answered in its own process anyway */
  }
}
