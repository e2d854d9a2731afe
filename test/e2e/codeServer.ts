// VS Code 1.100.3 as code-server 4.100.3, shown in Debian's headless Chromium (browserRun.ts): the workbench
// users see, with our .vsix installed into a clean extensions folder. Processes are started in a group of
// their own and carry the run's INTENT_LSP_E2E_TAG (editors.ts), so the end of a run kills all of them.
import { spawn, execFile, execFileSync, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { isolatedXdg, repoRoot, waitFor } from "./editors";

export interface CodeServerRun {
  url: string;
  process: ChildProcess;
  userDataDir: string;
  extensionsDir: string;
  log: () => string;
}

export interface CodeServerDirs {
  codeServer: string;
  tmp: string;
}

/** Runs `code-server` to completion (for --install-extension), with the run's isolated environment. */
export function codeServerCli(codeServer: string, tmp: string, args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(codeServer, args, { env: isolatedXdg(tmp), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`code-server ${args.join(" ")} failed: ${error.message}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`));
      else resolve(stdout + stderr);
    });
  });
}

/** The extension as users get it: the .vsix `npm run package` builds, installed into a clean extensions folder in `tmp`. */
export async function installVsix(codeServer: string, tmp: string): Promise<{ extensionsDir: string; installed: string }> {
  const vsix = path.join(tmp, "intent-lsp.vsix");
  execFileSync(process.execPath, [path.join(repoRoot, "scripts", "package-vscode.mjs"), "--out", vsix], { cwd: repoRoot, stdio: "pipe" });
  const extensionsDir = path.join(tmp, "extensions");
  const userDataDir = path.join(tmp, "user-data");
  const installed = await codeServerCli(codeServer, tmp, ["--install-extension", vsix, "--extensions-dir", extensionsDir, "--user-data-dir", userDataDir]);
  swapServer(extensionsDir);
  return { extensionsDir, installed };
}

let shared: Promise<{ extensionsDir: string; installed: string }> | undefined;

/**
 * installVsix once per test process, into a folder of its own (removed when the process ends): the runs of
 * one file open their workbenches, each with its own user data, on the same installed extension, as a user
 * does after one install. Packaging and installing cost each run seconds of CPU.
 */
export function installVsixOnce(codeServer: string): Promise<{ extensionsDir: string; installed: string }> {
  if (!shared) {
    const dir = mkdtempSync(path.join(tmpdir(), "intent-lsp-vsix-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    shared = installVsix(codeServer, dir);
    shared.catch(() => (shared = undefined)); // a failed install is tried again by the next run
  }
  return shared;
}

let agent: Promise<void> | undefined;

/**
 * The stand-in AI extension (test/e2e/vscode-agent/: an inline completion and a background edit, through VS
 * Code's public API only), packaged and installed beside the .vsix once per test process.
 */
export function installAgentExtensionOnce(codeServer: string): Promise<void> {
  if (!agent) {
    agent = installVsixOnce(codeServer).then(async ({ extensionsDir }) => {
      const tmp = path.dirname(extensionsDir);
      const vsix = path.join(tmp, "e2e-agent.vsix");
      execFileSync(
        process.execPath,
        [path.join(repoRoot, "node_modules", "@vscode", "vsce", "vsce"), "package", "--no-dependencies", "--allow-missing-repository", "--out", vsix],
        { cwd: path.join(repoRoot, "test", "e2e", "vscode-agent"), stdio: "pipe" },
      );
      await codeServerCli(codeServer, tmp, ["--install-extension", vsix, "--extensions-dir", extensionsDir, "--user-data-dir", path.join(tmp, "user-data")]);
    });
    agent.catch(() => (agent = undefined));
  }
  return agent;
}

/** INTENT_LSP_SERVER_JS: replace (or, for a path that does not exist, remove) the installed extension's server. */
function swapServer(extensionsDir: string): void {
  const swap = process.env.INTENT_LSP_SERVER_JS;
  if (!swap) return;
  const installed = readdirSync(extensionsDir).find((d) => d.startsWith("intent-lsp.intent-lsp-"));
  if (!installed) throw new Error(`no intent-lsp extension in ${extensionsDir}`);
  const target = path.join(extensionsDir, installed, "dist", "server.js");
  if (!existsSync(swap)) {
    rmSync(target);
    return;
  }
  copyFileSync(swap, target);
  // a build whose server.js is a launcher runs the bundle beside it
  const bundle = path.join(path.dirname(swap), "intent-server.js");
  if (existsSync(bundle)) copyFileSync(bundle, path.join(path.dirname(target), "intent-server.js"));
}

/** User settings for a clean workbench that opens the folder straight away and shows nothing else. */
export const WORKBENCH_SETTINGS = {
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "chat.commandCenter.enabled": false,
  "git.enabled": false,
  "files.autoSave": "off",
  "editor.minimap.enabled": false,
  "workbench.editor.enablePreview": false,
};

/** Starts code-server on a free port and waits until it listens; `settings` go over the workbench's. */
export async function startCodeServer(
  codeServer: string,
  tmp: string,
  userDataDir: string,
  extensionsDir: string,
  folder: string,
  settings: Record<string, unknown> = {},
): Promise<CodeServerRun> {
  mkdirSync(path.join(userDataDir, "User"), { recursive: true });
  writeFileSync(path.join(userDataDir, "User", "settings.json"), JSON.stringify({ ...WORKBENCH_SETTINGS, ...settings }, null, 2));
  const args = [
    "--auth",
    "none",
    "--bind-addr",
    "127.0.0.1:0",
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-workspace-trust",
    "--extensions-dir",
    extensionsDir,
    "--user-data-dir",
    userDataDir,
    folder,
  ];
  const child = spawn(codeServer, args, { env: isolatedXdg(tmp), stdio: ["ignore", "pipe", "pipe"], detached: true });
  let log = "";
  child.stdout!.setEncoding("utf8").on("data", (s: string) => (log += s));
  child.stderr!.setEncoding("utf8").on("data", (s: string) => (log += s));
  let exited = "";
  child.on("exit", (code, signal) => (exited = `code-server exited (${code ?? signal})`));
  const url = await waitFor(
    "code-server to listen",
    () => {
      if (exited) throw new Error(`${exited} before listening:\n${log}`);
      return /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(log)?.[1];
    },
    60_000,
    () => log,
  );
  return { url, process: child, userDataDir, extensionsDir, log: () => log };
}

/** The files under `dir` whose name ends with `suffix` (code-server writes each output channel to a log file). */
export function findFiles(dir: string, suffix: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const full = path.join(d, name);
      try {
        if (statSync(full).isDirectory()) walk(full);
        else if (name.endsWith(suffix)) found.push(full);
      } catch {
        // gone meanwhile
      }
    }
  };
  walk(dir);
  return found;
}

/** Ends code-server's whole process group; what left the group is found by the run's tag (editorRun.ts). */
export async function stopCodeServer(run: CodeServerRun | undefined): Promise<void> {
  const child = run?.process;
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      process.kill(-child.pid, "SIGKILL");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    } catch {
      // already gone
    }
  }
}
