/**
 * The hook service: one long-lived process per user, build and environment that answers agents' hook calls
 * (docs/ARCHITECTURE.md "Hook service"). An agent runs `intent hook` on every tool call; a fresh process
 * spends most of its time loading the CLI (its code, Node's crypto and streams, the schema validator) before
 * it judges anything. The launcher (launch/hookClient.ts) hands the call to this process over a Unix socket
 * in a folder private to the user instead, and this process runs the very same command (`main`) with the
 * caller's arguments, folder, environment and standard input, and returns its standard output, standard
 * error and exit code. What the command reads and writes is the same files either way. Between calls the
 * service keeps only what a fresh process would find in its caches on disk, checked against the same files:
 * each workspace's ledger index (following the ledger) and parsed catalogue (under the intents file's text).
 *
 * Only `intent hook` is answered. The service leaves when idle, when another service already answers on
 * its socket, and when anything goes wrong with it: the launcher then answers the call itself.
 */
import { isAbsolute } from "node:path";
import type { Io } from "./args";
import { serveSocket } from "../io/hookSocket";
import type { HookReply, HookRequest } from "../io/hookServiceProtocol";
import { serveManyHookCalls } from "../io/hookProcess";
import { saveKeptLedgers } from "../io/ledger/hookLedgers";
import { main } from "./main";

/** How long the service waits for a call before it leaves; `INTENT_LSP_HOOK_SERVICE_IDLE_MS` changes it. */
const IDLE_MS = 10 * 60 * 1000;
/** Quiet time after a call before the kept ledgers' indexes are saved for other processes. */
const SAVE_AFTER_QUIET_MS = 2_000;
/** A request larger than this (a hook payload is a tool call's input) is refused. */
export const MAX_REQUEST_BYTES = 256 * 1024 * 1024;

/** Runs one call as the command would run in its own process; `run`: the program (main, or a stand-in in tests). */
export async function answerHookRequest(req: HookRequest, run: typeof main = main): Promise<HookReply> {
  let stdout = "";
  let stderr = "";
  if (req.argv[0] !== "hook") return { stdout, stderr: "intent: the hook service answers `intent hook` only (blocking the call)\n", code: 2 };
  const io: Io = {
    out: (text) => {
      stdout += text;
    },
    write: async (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    cwd: req.cwd,
    env: req.env,
    readStdin: async () => {
      if (req.stdin === null) throw new Error("nothing on standard input: an agent pipes its hook event (JSON) into this command");
      return req.stdin;
    },
  };
  try {
    const code = await run(req.argv, io);
    return { stdout, stderr, code };
  } catch (err) {
    // what the program prints and exits with when a hook fails outside its own handling (main answers every
    // command's failure itself; a command whose module cannot be loaded, a broken install, throws)
    return { stdout, stderr: `${stderr}intent: ${(err as Error)?.message ?? String(err)} (blocking the call)\n`, code: 2 };
  }
}

/** Parses a request line; undefined when it is not one. */
export function parseHookRequest(text: string): HookRequest | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (/* Stryker disable next-line BlockStatement: v stays undefined after an empty block, which the checks below refuse */ _) {
    return undefined;
  }
  const r = v as Partial<HookRequest> | null;
  const strings = (a: unknown): a is string[] => Array.isArray(a) && a.every((s) => typeof s === "string");
  // Stryker disable next-line ConditionalExpression: a number, string or boolean has no argv array either, so !strings(r.argv) refuses it
  if (!r || typeof r !== "object" || !strings(r.argv) || typeof r.cwd !== "string" || !r.env || typeof r.env !== "object") return undefined;
  // the caller's folder, against which everything relative in the call is read: never this service's own
  if (!isAbsolute(r.cwd)) return undefined;
  if (!Object.values(r.env).every((s) => typeof s === "string") || (r.stdin !== null && typeof r.stdin !== "string")) return undefined;
  return r as HookRequest;
}

/** Listens on `socket` until idle (io/hookSocket.ts); leaves at once when another service already answers there. */
export function serveHooks(socket: string, env: NodeJS.ProcessEnv = process.env): void {
  serveManyHookCalls();
  const idleMs = Number(env["INTENT_LSP_HOOK_SERVICE_IDLE_MS"]) > 0 ? Number(env["INTENT_LSP_HOOK_SERVICE_IDLE_MS"]) : IDLE_MS;
  let saving: NodeJS.Timeout | undefined;
  serveSocket(socket, idleMs, MAX_REQUEST_BYTES, async (line) => {
    const req = parseHookRequest(line);
    const reply: HookReply = req
      ? await answerHookRequest(req)
      : { stdout: "", stderr: "intent: a malformed call to the hook service (blocking the call)\n", code: 2 };
    clearTimeout(saving);
    saving = setTimeout(() => void saveKeptLedgers(), SAVE_AFTER_QUIET_MS);
    return JSON.stringify(reply);
  });
}
