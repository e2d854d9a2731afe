// "Intent: Show Report" in VS Code (code-server 4.100.3 in Debian's headless Chromium, the .vsix that
// `npm run package` builds): run from the command palette, the report opens in a webview with its charts
// drawn and no script error. Screenshots go to .cache/artifacts/vscode-report/.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeAll, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { codeServerCli, findFiles, launchChromium, startCodeServer, stopAll, type CodeServerRun, type Page } from "./codeServer";
import { ensureEditor, isolatedXdg, repoRoot } from "./editors";
import { insightWorkspace } from "../cli/insightWorkspace";
import { ensureBuilt } from "../support/builtDist";
import type { TempWorkspace } from "../support/workspace";

const DEADLINE = 60_000;
const ARTIFACTS = path.join(repoRoot, ".cache", "artifacts", "vscode-report");

let tmp: string | undefined;
let ws: TempWorkspace | undefined;
let browser: Browser | undefined;
let run: CodeServerRun | undefined;

beforeAll(ensureBuilt);
afterEach(async () => {
  if (tmp) {
    const left = await stopAll(browser, run, tmp);
    if (left.length) console.warn(`vscode report e2e: ended processes left behind:\n${left.join("\n")}`);
    rmSync(tmp, { recursive: true, force: true });
  }
  ws?.dispose();
  browser = run = tmp = ws = undefined;
});

it("VS Code: Intent: Show Report opens the report in a webview, charts drawn, no script error", async () => {
  const [codeServer, chromiumBin] = await Promise.all([ensureEditor("code-server"), ensureEditor("chromium")]);
  tmp = mkdtempSync(path.join(tmpdir(), "intent-lsp-vscode-report-"));
  ws = await insightWorkspace();
  const vsix = path.join(tmp, "intent-lsp.vsix");
  execFileSync(process.execPath, [path.join(repoRoot, "scripts", "package-vscode.mjs"), "--out", vsix], { cwd: repoRoot, stdio: "pipe" });
  const extensionsDir = path.join(tmp, "extensions");
  const userDataDir = path.join(tmp, "user-data");
  await codeServerCli(codeServer, tmp, ["--install-extension", vsix, "--extensions-dir", extensionsDir, "--user-data-dir", userDataDir]);

  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  run = await startCodeServer(codeServer, tmp, userDataDir, extensionsDir, ws.root);
  browser = await launchChromium(chromiumBin, isolatedXdg(tmp));
  const page: Page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${run.url}/?folder=${encodeURIComponent(ws.root)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: DEADLINE });
  const describe = () =>
    `--- intent-lsp output ---\n${findFiles(userDataDir, "intent-lsp.log")
      .map((f) => readFileSync(f, "utf8"))
      .join("\n")}\n--- code-server ---\n${run?.log().slice(-5000)}`;
  try {
    // the extension is active once its status bar item shows (workspaceContains:.orchestration/active_intents.yaml)
    await page
      .locator("#workbench\\.parts\\.statusbar .statusbar-item")
      .filter({ hasText: /INT-\d+ · |No intent · / })
      .first()
      .waitFor({ timeout: DEADLINE });
    await page.keyboard.press("F1");
    const quickInput = page.locator(".quick-input-widget");
    await quickInput.locator("input").waitFor({ state: "visible" });
    await page.keyboard.type("Intent: Show Report");
    const row = quickInput.locator(".monaco-list-row", { hasText: "Intent: Show Report" }).first();
    await row.waitFor({ timeout: DEADLINE });
    await row.click();
    await page.locator(".tab", { hasText: "Intent Report" }).waitFor({ timeout: DEADLINE });
    // a webview is an iframe holding the page's own iframe
    const report = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
    await report.locator("body[data-ready=true]").waitFor({ timeout: DEADLINE });
    expect(await report.locator("h1").textContent()).toBe(`How much of ${path.basename(ws.root)} AI wrote`);
    expect(await report.locator(".card.untraced span").textContent()).toBe("untraced (52 lines no record explains)");
    const ink = await report.locator("canvas").evaluateAll((canvases) =>
      canvases.map((c) => {
        const canvas = c as unknown as {
          id: string;
          width: number;
          height: number;
          getContext(k: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
        };
        const d = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
        return [canvas.id, n] as const;
      }),
    );
    expect(ink.map(([id]) => id).sort()).toEqual(["chart-folder", "chart-history", "chart-intent", "chart-model", "chart-person"]);
    for (const [id, n] of ink) expect(n, id).toBeGreaterThan(500);
    await page.screenshot({ path: path.join(ARTIFACTS, "01-report-webview.png") });
    expect(errors).toEqual([]);
    expect(readFileSync(ws.path(".orchestration/.cache/report.html"), "utf8")).toMatch(/^<!doctype html>/);
  } catch (e) {
    await page.screenshot({ path: path.join(ARTIFACTS, "01-report-webview-FAILED.png") }).catch(() => undefined);
    throw new Error(`${(e as Error).message}\n${describe()}`);
  }
}, 900_000);
