// A terminal editor (Helix) in a private tmux server: keys go in with send-keys / paste-buffer, the screen
// comes out with capture-pane. The server runs in the foreground (-D) as our child, on its own socket,
// with no user tmux.conf, so nothing is shared with a tmux the user may be running.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { waitFor } from "./editors";

function tmuxBin(): string {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, "tmux"))) return path.join(dir, "tmux");
  }
  throw new Error(
    "tmux is not installed, and the Helix end-to-end test drives Helix through it.\n" +
      "Install it with `apt-get install -y tmux` (.ci/run does this on a fresh machine).",
  );
}

export interface TmuxStart {
  /** Working directory of the pane. */
  cwd: string;
  /** Environment of the tmux server, and so of the pane and everything started in it. */
  env: NodeJS.ProcessEnv;
  /** The command run in the pane, as argv (no shell). */
  command: string[];
  /** Directory for the socket and config. */
  dir: string;
  width?: number;
  height?: number;
}

export class Tmux {
  private constructor(
    private readonly bin: string,
    private readonly socket: string,
    private readonly server: ChildProcess,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static async start({ cwd, env, command, dir, width = 120, height = 30 }: TmuxStart): Promise<Tmux> {
    const bin = tmuxBin();
    const socket = path.join(dir, "tmux.sock");
    const conf = path.join(dir, "tmux.conf");
    // keep a crashed editor's last screen for the failure message instead of closing the pane
    writeFileSync(conf, "set -g remain-on-exit on\nset -g status off\n");
    // UTF-8 throughout, or capture-pane would print "_" for the "●" and "·" the editor draws
    const fullEnv: NodeJS.ProcessEnv = { ...env, TERM: env.TERM && env.TERM !== "dumb" ? env.TERM : "xterm-256color", LANG: "C.UTF-8" };
    delete fullEnv.LC_ALL;
    delete fullEnv.LC_CTYPE;
    delete fullEnv.TMUX;
    const server = spawn(bin, ["-u", "-S", socket, "-f", conf, "-D"], { env: fullEnv, stdio: "ignore" });
    const t = new Tmux(bin, socket, server, fullEnv);
    await waitFor("the tmux server's socket", () => existsSync(socket) || server.exitCode !== null, 10_000);
    if (server.exitCode !== null) throw new Error(`tmux -D exited with ${server.exitCode} before it listened`);
    await t.run("new-session", "-d", "-s", "e2e", "-x", String(width), "-y", String(height), "-c", cwd, "--", ...command);
    return t;
  }

  /** Runs a tmux client command against this server; resolves with its stdout. */
  run(...args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(this.bin, ["-u", "-S", this.socket, ...args], { env: this.env, timeout: 10_000 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`tmux ${args.join(" ")}: ${error.message}\n${stderr}`));
        else resolve(stdout);
      });
    });
  }

  /** Named keys (Enter, Escape, C-s) or literal text with literal = true. */
  keys(keys: string[], literal = false): Promise<string> {
    return this.run("send-keys", "-t", "e2e", ...(literal ? ["-l", "--"] : []), ...keys);
  }

  /** Pastes text as one bracketed paste: the editor gets it as a single edit, not a keystroke per character. */
  async paste(text: string): Promise<void> {
    await this.run("set-buffer", "-b", "e2e", "--", text);
    await this.run("paste-buffer", "-p", "-d", "-b", "e2e", "-t", "e2e");
  }

  /** The visible screen, one string per row. */
  async screen(): Promise<string> {
    return this.run("capture-pane", "-p", "-t", "e2e");
  }

  /** Last captured screen, kept for failure messages even after the server is gone. */
  lastScreen = "";

  /** Polls the screen until `check` accepts it. */
  async waitForScreen(what: string, check: (screen: string) => boolean, timeoutMs: number, describe: () => string): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.lastScreen = await this.screen().catch((e: Error) => `<capture-pane failed: ${e.message}>`);
      if (check(this.lastScreen)) return this.lastScreen;
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n--- screen ---\n${this.lastScreen}\n${describe()}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Ends the server (and with it the panes); the caller still sweeps stragglers with killTagged. */
  async kill(): Promise<void> {
    await this.run("kill-server").catch(() => undefined);
    if (this.server.exitCode === null && this.server.signalCode === null) {
      const exited = new Promise((r) => this.server.once("exit", r));
      const timer = setTimeout(() => this.server.kill("SIGKILL"), 2_000);
      await exited;
      clearTimeout(timer);
    }
  }
}
