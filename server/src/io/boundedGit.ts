/**
 * Git asked with a bound on time and output, for answers that only add knowledge (when lines were
 * committed, which paths content came from): when git is missing, fails, or is too slow, the answer is
 * "unknown" (undefined), never an error and never a guess. Three ways to ask: blocking (`boundedGit`, for
 * a command line), in the background (`boundedGitAsync`, for the editor), and as a stream of lines
 * (`streamGit`, for output too large to hold).
 */
import { gitSpawn, gitSync } from "./gitRunner";

export interface GitAnswer {
  /** Whether git exited 0. */
  ok: boolean;
  out: string;
}

export interface BoundedOptions {
  timeoutMs: number;
  /** Bytes of output kept at most; more, and git is stopped (no answer). */
  maxBytes?: number;
  /** Written to git's standard input. */
  input?: string;
  /** Stops a call in the background (`boundedGitAsync`) when aborted: it then has no answer. */
  signal?: AbortSignal;
}

const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;

/** Runs git blocking; undefined when it could not run, was killed, or took too long. */
export function boundedGit(cwd: string, args: readonly string[], opts: BoundedOptions): GitAnswer | undefined {
  const r = gitSync(cwd, args, {
    encoding: "utf8",
    timeoutMs: opts.timeoutMs,
    maxBuffer: opts.maxBytes ?? DEFAULT_MAX_BYTES,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  });
  // git that exits before reading all of `input` leaves an EPIPE, yet answered
  if (r.signal || r.status === null || (r.error && (r.error as NodeJS.ErrnoException).code !== "EPIPE")) return undefined;
  return { ok: r.status === 0, out: r.stdout };
}

/** `boundedGit` without blocking: the editor never waits for a process. */
export function boundedGitAsync(cwd: string, args: readonly string[], opts: BoundedOptions): Promise<GitAnswer | undefined> {
  let out = "";
  return streamGit(cwd, args, { ...opts, maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES }, (chunk) => {
    out += chunk;
    return true;
  }).then((end) => (end.kind === "exited" ? { ok: end.code === 0, out } : undefined));
}

/** How a streamed git ended. */
export type StreamEnd = { kind: "exited"; code: number } | { kind: "stopped"; why: "time" | "size" | "reader" } | { kind: "failed"; message: string };

export interface StreamOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Stops git when aborted (it ends as stopped by the reader). */
  signal?: AbortSignal;
}

/**
 * Runs git in the background and hands its output on in chunks of text as it comes (`onChunk` returning
 * false stops git). Git is stopped when it runs past `timeoutMs` or writes more than `maxBytes`.
 */
export function streamGit(cwd: string, args: readonly string[], opts: StreamOptions, onChunk: (text: string) => boolean): Promise<StreamEnd> {
  const { StringDecoder } = require("node:string_decoder") as typeof import("node:string_decoder");
  return new Promise((done) => {
    let ended: StreamEnd | undefined;
    const child = gitSpawn(cwd, args, { stdio: ["ignore", "pipe", "ignore"] });
    const stop = (why: "time" | "size" | "reader") => {
      ended ??= { kind: "stopped", why };
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => stop("time"), opts.timeoutMs);
    const abort = () => stop("reader");
    if (opts.signal?.aborted) abort();
    opts.signal?.addEventListener("abort", abort, { once: true });
    const decoder = new StringDecoder("utf8");
    let bytes = 0;
    child.stdout!.on("data", (chunk: Buffer) => {
      if (ended) return;
      bytes += chunk.length;
      if (bytes > opts.maxBytes) return stop("size");
      if (onChunk(decoder.write(chunk)) === false) stop("reader");
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", abort);
      ended ??= { kind: "failed", message: e.message };
      done(ended);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", abort);
      if (!ended) {
        const rest = decoder.end();
        if (rest) onChunk(rest);
      }
      done(ended ?? { kind: "exited", code: code ?? -1 });
    });
  });
}

/**
 * Runs several git commands at once and hands their outputs on in order (`onChunk(text, part)`), as
 * `streamGit` hands one on: the first streams, and each of the others holds its output until those before
 * it have ended, then streams. One holding more than `heldBytes` (characters) is stopped, and run again once
 * its turn comes. Each is bounded by `deadline` (epoch ms) and `maxBytes`. Ends at the first command that
 * does not exit 0 (the others are stopped), or when `onChunk` returns false.
 */
export async function streamGitInOrder(
  cwd: string,
  commands: readonly (readonly string[])[],
  opts: { deadline: number; maxBytes: number; heldBytes: number },
  onChunk: (text: string, part: number) => boolean,
): Promise<StreamEnd> {
  const stopAll = new AbortController();
  const run = (args: readonly string[], hand: (text: string) => boolean) =>
    streamGit(cwd, args, { timeoutMs: Math.max(1, opts.deadline - Date.now()), maxBytes: opts.maxBytes, signal: stopAll.signal }, hand);
  const parts = commands.map((args, k) => {
    const part = { held: [] as string[], heldBytes: 0, live: k === 0, overflow: false, end: undefined as unknown as Promise<StreamEnd> };
    part.end = run(args, (text) => {
      if (part.live) return onChunk(text, k);
      part.heldBytes += text.length;
      if (part.heldBytes > opts.heldBytes) {
        part.overflow = true;
        part.held = [];
        return false;
      }
      part.held.push(text);
      return true;
    });
    return part;
  });
  let end: StreamEnd = { kind: "exited", code: 0 };
  for (const [k, part] of parts.entries()) {
    if (part.overflow) part.end = run(commands[k]!, (text) => onChunk(text, k));
    else if (k > 0) {
      // its turn: what it held, then the rest as it comes (no output arrives between the two)
      const held = part.held;
      part.held = [];
      part.live = true;
      if (!held.every((text) => onChunk(text, k))) end = { kind: "stopped", why: "reader" };
    }
    if (end.kind === "exited") end = await part.end;
    if (end.kind !== "exited" || end.code !== 0) break;
  }
  stopAll.abort();
  return end;
}

/** Splits streamed text into lines (without their `\n`), holding a partial line until the rest comes. */
export function lineSplitter(onLine: (line: string) => void): { push(text: string): void; end(): void } {
  let partial = "";
  return {
    push(text) {
      let start = 0;
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
        onLine(partial + text.slice(start, nl));
        partial = "";
        start = nl + 1;
      }
      partial += text.slice(start);
    },
    end() {
      if (partial) onLine(partial);
      partial = "";
    },
  };
}
