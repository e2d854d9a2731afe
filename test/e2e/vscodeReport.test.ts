// "Intent: Show Report" in VS Code (code-server 4.100.3 in Debian's headless Chromium, the .vsix that
// `npm run package` builds): run from the command palette, the report opens in a webview with its charts
// drawn and no script error. Screenshots go to .cache/artifacts/vscode-report/.
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { beforeAll, expect, it } from "vitest";
import { artifactsDir, BrowserRun } from "./browserRun";
import { insightWorkspace } from "../cli/insightWorkspace";
import { ensureBuilt } from "../support/builtDist";
import type { TempWorkspace } from "../support/workspace";

const DEADLINE = 60_000;

let ws: TempWorkspace | undefined;
const run = new BrowserRun("vscode-report", () => {
  ws?.dispose();
  ws = undefined;
});

beforeAll(ensureBuilt);

it("VS Code: Intent: Show Report opens the report in a webview, charts drawn, no script error", async () => {
  run.start();
  ws = await insightWorkspace();
  const { page, errors, step } = await run.vscode(ws.root, artifactsDir("vscode-report"), DEADLINE);
  const root = ws.root;
  await step("report-webview", async () => {
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
    expect(await report.locator("h1").textContent()).toBe(`How much of ${path.basename(root)} AI wrote`);
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
    expect(ink.map(([id]) => id).sort()).toEqual(["chart-folder", "chart-history", "chart-intent", "chart-model", "chart-person", "chart-untraced"]);
    for (const [id, n] of ink) expect(n, id).toBeGreaterThan(500);
    expect(errors).toEqual([]);
    expect(readFileSync(path.join(root, ".orchestration/.cache/report.html"), "utf8")).toMatch(/^<!doctype html>/);
  });
  run.passed();
}, 900_000);
