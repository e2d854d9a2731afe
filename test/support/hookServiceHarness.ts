import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, unlinkSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { CLI_JS, type CliResult, type HookAgent } from "./cliRunner";

/** The service's greeting (io/hookServiceProtocol.ts), as a launcher expects it. */
export const GREETING = "intent-hook-service 1\n";

/**
 * The hook service seen from outside, for tests that start real launchers (`node dist/cli.js hook …`): a
 * folder of the test's own for the sockets (as XDG_RUNTIME_DIR and XDG_CACHE_HOME), the services greeting
 * there, and stand-ins that take a service's socket and misbehave in one chosen way.
 */
export class HookServiceHarness {
  /** A short path: a socket's path has at most ~108 bytes. */
  readonly xdg = mkdtempSync("/tmp/ihs-");
  private readonly fakes: Server[] = [];

  /** The environment of a launcher; `mode` as INTENT_LSP_HOOK_SERVICE ("require": a call no service answers is refused). */
  env(mode?: "off" | "require", extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return {
      XDG_CACHE_HOME: this.xdg,
      XDG_RUNTIME_DIR: this.xdg,
      INTENT_LSP_HOOK_SERVICE_IDLE_MS: "3000",
      ...(mode ? { INTENT_LSP_HOOK_SERVICE: mode } : {}),
      ...extra,
    };
  }

  /** The socket files in the runtime folder. */
  sockets(dir = join(this.xdg, "intent-lsp")): string[] {
    try {
      return readdirSync(dir)
        .filter((f) => f.endsWith(".sock"))
        .map((f) => join(dir, f));
    } catch {
      return [];
    }
  }

  /** Waits until `count` services greet in the runtime folder; their sockets. */
  async services(count = 1, dir?: string): Promise<string[]> {
    for (;;) {
      const live = (await Promise.all(this.sockets(dir).map(async (s) => ((await greets(s)) ? s : undefined)))).filter((s): s is string => !!s);
      if (live.length >= count) return live;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * A stand-in at `socket` (the real one's file removed first). "refuse": drops each connection at once;
   * "drop": greets, reads the call, drops it; "hang": greets, reads the call, never answers;
   * `(request, conn)`: greets and hands the call over.
   */
  async fake(socket: string, behaviour: "refuse" | "drop" | "hang" | ((request: string, conn: Socket) => void)): Promise<void> {
    try {
      unlinkSync(socket);
    } catch {
      /* no socket there yet */
    }
    const server = createServer((conn) => {
      conn.on("error", () => {});
      if (behaviour === "refuse") return void conn.destroy();
      conn.write(GREETING);
      let request = "";
      conn.on("data", (d) => {
        request += d;
        if (!request.includes("\n")) return;
        if (behaviour === "drop") conn.destroy();
        else if (typeof behaviour === "function") behaviour(request, conn);
      });
    });
    this.fakes.push(server);
    // private, as a real service's socket is (launchers refuse any other)
    const umask = process.umask(0o077);
    try {
      await new Promise<void>((r) => server.listen(socket, r));
    } finally {
      process.umask(umask);
    }
  }

  /** The pids of the real services started for this harness (their command line names its folder). */
  servicePids(): number[] {
    try {
      return execFileSync("pgrep", ["-f", `__serve-hooks ${this.xdg}`], { encoding: "utf8" })
        .split("\n")
        .filter(Boolean)
        .map(Number);
    } catch {
      return []; // pgrep exits 1 when nothing matches
    }
  }

  /** Sends `signal` to every real service of this harness; how many there were. */
  signalServices(signal: NodeJS.Signals): number {
    const pids = this.servicePids();
    for (const pid of pids)
      try {
        process.kill(pid, signal);
      } catch {
        /* gone already */
      }
    return pids.length;
  }

  async dispose(): Promise<void> {
    for (const f of this.fakes.splice(0)) await new Promise((r) => f.close(r));
    // a launcher that answered a call itself starts a service for the next calls, which may be binding now
    this.signalServices("SIGKILL");
    rmSync(this.xdg, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }
}

/** Whether a service greets on the socket. */
export function greets(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(socket);
    c.once("error", () => resolve(false));
    c.once("data", (d) => {
      c.destroy();
      resolve(d.toString("latin1").startsWith(GREETING));
    });
  });
}

/**
 * A hook run as the agent runs it, without blocking this process (a stand-in service in it must answer
 * meanwhile). `shell`: a command line run by `sh` in `cwd` that ends with `exec "$@"` for the launcher
 * (to set a umask, or remove the folder first).
 */
export function spawnHook(agent: HookAgent, payload: unknown, opts: { cwd: string; env: NodeJS.ProcessEnv; shell?: string }): Promise<CliResult> {
  return new Promise((resolve) => {
    const argv = [process.execPath, CLI_JS, "hook", agent];
    const child = opts.shell
      ? spawn("sh", ["-c", `${opts.shell}; exec "$@"`, "sh", ...argv], { cwd: opts.cwd, env: { ...process.env, ...opts.env } })
      : spawn(argv[0]!, argv.slice(1), { cwd: opts.cwd, env: { ...process.env, ...opts.env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdin.on("error", () => {});
    child.on("close", (code) => resolve({ stdout, stderr, status: code ?? -1 }));
    child.stdin.end(typeof payload === "string" ? payload : JSON.stringify(payload));
  });
}
