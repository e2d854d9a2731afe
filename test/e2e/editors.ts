// Real editors for end-to-end tests: installed on demand into a cache (tools/ensure-editor.sh), run in
// isolation (temp XDG dirs, no user config), with deadlines instead of sleeps. A test that needs an
// editor must fail, never skip, when the editor cannot be had: a skipped e2e test looks like a pass in CI.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import * as path from "node:path";

export const repoRoot = path.resolve(__dirname, "../..");
export type EditorName = "nvim-0.10" | "nvim-sid" | "helix" | "helix-sid" | "emacs" | "code-server" | "chromium";

const ensureScript = path.join(__dirname, "tools", "ensure-editor.sh");
// A first install downloads ~15 MB of packages; it took 7-14 s here, so this leaves room for slow mirrors.
const INSTALL_TIMEOUT_MS = 300_000;
const installs = new Map<EditorName, Promise<string>>();

/** Installs the editor if needed (concurrent calls from other test files wait on a lock) and returns its binary. */
export function ensureEditor(name: EditorName): Promise<string> {
  let pending = installs.get(name);
  if (!pending) {
    pending = new Promise<string>((resolve, reject) => {
      execFile(ensureScript, [name], { timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        const bin = stdout.trim().split("\n").pop() ?? "";
        if (error || !bin || !existsSync(bin)) {
          reject(
            new Error(
              `cannot install editor ${name} with ${path.relative(repoRoot, ensureScript)} ${name}` +
                ` (${error ? error.message.split("\n")[0] : `no binary at '${bin}'`}).\n` +
                "It needs a Debian/Ubuntu host with apt-get, dpkg-deb and flock, and access to a Debian mirror.\n" +
                `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`,
            ),
          );
          return;
        }
        resolve(bin);
      });
    });
    // a failed attempt should not poison later calls in the same worker
    pending.catch(() => installs.delete(name));
    installs.set(name, pending);
  }
  return pending;
}

const TAG = "INTENT_LSP_E2E_TAG";

/**
 * Environment with private XDG dirs under tmpDir, so no user config, plugin, log or shada leaks in or out.
 * It also carries INTENT_LSP_E2E_TAG=tmpDir, which every process the editor starts inherits (the language
 * server included), so killTagged(tmpDir) can end exactly the processes of this run.
 */
export function isolatedXdg(tmpDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, [TAG]: tmpDir };
  // an outer Neovim (tests run from a :terminal) or a user's init would change what the editor does
  for (const key of ["NVIM", "NVIM_LISTEN_ADDRESS", "NVIM_APPNAME", "NVIM_LOG_FILE", "VIMINIT", "MYVIMRC", "VIMRUNTIME"]) {
    delete env[key];
  }
  for (const [key, dir] of [
    ["XDG_CONFIG_HOME", "config"],
    ["XDG_DATA_HOME", "data"],
    ["XDG_STATE_HOME", "state"],
    ["XDG_CACHE_HOME", "cache"],
  ] as const) {
    const full = path.join(tmpDir, "xdg", dir);
    mkdirSync(full, { recursive: true });
    env[key] = full;
  }
  return env;
}

/** Live processes whose environment carries INTENT_LSP_E2E_TAG=tag (see isolatedXdg), as pid → command line. */
export function findTagged(tag: string): Map<number, string> {
  const needle = `\0${TAG}=${tag}\0`;
  const found = new Map<number, string>();
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid);
  } catch {
    return found; // no /proc
  }
  for (const pid of pids) {
    try {
      if (!`\0${readFileSync(`/proc/${pid}/environ`, "latin1")}`.includes(needle)) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim();
      if (cmd) found.set(Number(pid), cmd); // a zombie has no command line and nothing left to end
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * SIGKILLs every process of a run (see findTagged): the editor, the language server it started, tmux's
 * server and panes, whatever they forked, found by pid whether or not they were reparented or started
 * their own session. Returns what it ended, as "pid command" lines, so a test can say what was left
 * behind. For afterEach; never throws.
 */
export function killTagged(tag: string): string[] {
  const ended = new Map<number, string>();
  // a process can fork while we look: a few passes until nothing tagged is left
  for (let pass = 0; pass < 5; pass++) {
    const found = findTagged(tag);
    for (const [pid, cmd] of found) {
      try {
        process.kill(pid, "SIGKILL");
        ended.set(pid, cmd);
      } catch {
        // already gone
      }
    }
    if (!found.size) break;
  }
  return [...ended].map(([pid, cmd]) => `${pid} ${cmd}`);
}

/** Polls `check` every 50 ms until it returns something other than undefined/false, or throws `describe()` at the deadline. */
export async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs: number, describe: () => string = () => ""): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${describe()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface NvimRun {
  nvim: string;
  /** Lua file to run; the run exits 0 when it returns, 2 when it raises; it may `cquit` itself. */
  script: string;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
}

/** Runs a Lua script in `nvim --headless -u NONE -i NONE -n`; on timeout the editor and its children are killed. */
export function runNvim({ nvim, script, env, cwd, timeoutMs = 60_000 }: NvimRun): Promise<RunResult> {
  // The path goes through the environment, not the command line, so no escaping is needed. Line
  // buffering keeps what the script printed even when it has to be killed.
  const bootstrap =
    "lua io.stdout:setvbuf('line'); local ok, err = pcall(dofile, vim.env.INTENT_E2E_SCRIPT); " +
    "if not ok then io.stdout:write('LUA ERROR: ', tostring(err), '\\n'); vim.cmd('cquit 2') end; vim.cmd('qall!')";
  return runProcess(nvim, ["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", bootstrap], { env: { ...env, INTENT_E2E_SCRIPT: script }, cwd, timeoutMs });
}

/**
 * Runs a batch editor to completion, collecting its output. On timeout it and every process of the run
 * (its process group, and anything carrying the run's INTENT_LSP_E2E_TAG, such as a language server in a
 * session of its own) are killed.
 */
export function runProcess(
  bin: string,
  args: string[],
  { env, cwd, timeoutMs }: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd,
      env,
      // no stdin: a piped stdin would be read into a buffer (Neovim) or read as answers (Emacs)
      stdio: ["ignore", "pipe", "pipe"],
      // own process group, so a timeout also ends the language server the editor started
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    const timer = setTimeout(() => {
      timedOut = true;
      const tag = env[TAG];
      if (tag) killTagged(tag);
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      }
    }, timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** Everything a failed run left behind, for the assertion message. */
export function describeRun(r: RunResult, logFiles: string[] = []): string {
  const parts = [
    `exit ${r.code ?? "-"}${r.signal ? ` (${r.signal})` : ""}${r.timedOut ? " after TIMEOUT" : ""}`,
    `--- stdout ---\n${r.stdout}`,
    `--- stderr ---\n${r.stderr}`,
  ];
  for (const file of logFiles) {
    if (existsSync(file)) {
      // the LSP log at debug level holds every JSON-RPC message; the tail is what matters
      const text = readFileSync(file, "utf8");
      parts.push(`--- ${file} (last 20000 chars) ---\n${text.slice(-20_000)}`);
    }
  }
  return parts.join("\n");
}

/** The printed lines of a driver that start with `PREFIX `, without the prefix. */
export function linesOf(r: { stdout: string }, prefix: string): string[] {
  return r.stdout
    .split("\n")
    .filter((l) => l.startsWith(`${prefix} `))
    .map((l) => l.slice(prefix.length + 1));
}

/**
 * After a run: ends whatever of it is still alive (a server that outlived its editor), and removes its
 * scratch folder unless the test failed (then the workspace and logs stay for a look; the path is in the
 * failure message).
 */
export function endRun(label: string, tmp: string | undefined, failed: boolean): void {
  if (!tmp) return;
  const left = killTagged(tmp);
  if (left.length) console.warn(`${label} e2e: ended processes left behind:\n${left.join("\n")}`);
  if (!failed) rmSync(tmp, { recursive: true, force: true });
  else console.warn(`${label} e2e: the run's files are kept in ${tmp}`);
}
