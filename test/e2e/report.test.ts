// `intent report`'s page opened in real Chromium (Debian's, headless, as the VS Code test drives it): no
// script error, no request beyond the file itself, every chart drawn, the lines behind a number listed when
// its row is clicked; light and dark. Screenshots go to .cache/artifacts/report/.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { beforeAll, expect, it } from "vitest";
import { artifactsDir, BrowserRun, Screenshots } from "./browserRun";
import { insightWorkspace, TOTAL } from "../cli/insightWorkspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { gitWorkspace } from "../support/gitRepository";
import type { TempWorkspace } from "../support/workspace";

let ws: TempWorkspace | undefined;
const run = new BrowserRun("report", () => {
  ws?.dispose();
  ws = undefined;
});

beforeAll(ensureBuilt);

/** Pixels of a canvas that are not transparent: a drawn chart has many. */
const CANVAS_INK = `(() => Object.fromEntries([...document.querySelectorAll("canvas")].map((c) => {
  const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
  let ink = 0;
  for (let i = 3; i < d.length; i += 4) if (d[i] > 0) ink++;
  return [c.id, { width: c.width, height: c.height, ink }];
})))()`;

it("the report opens offline in Chromium: no script error, no request, charts drawn, the lines behind a number listed", async () => {
  run.start();
  ws = await insightWorkspace();
  const r = runCli(["report", "--out", "insight.html"], { cwd: ws.root });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  expect(r.stdout).toBe(
    `Wrote ${ws.path("insight.html")}: AI wrote 5% of ${TOTAL} lines; ${TOTAL - 6} untraced (${Math.round((100 * (TOTAL - 6)) / TOTAL)}%).\n`,
  );
  const html = readFileSync(ws.path("insight.html"), "utf8");
  expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i); // everything inline

  const shots = new Screenshots(artifactsDir("report"));
  const browser = await run.chromium();
  for (const scheme of ["light", "dark"] as const) {
    const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("request", (q) => requests.push(q.url()));
    const url = pathToFileURL(ws.path("insight.html")).href;
    await page.goto(url);
    await page.locator("body[data-ready=true]").waitFor();
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);

    const ink = (await page.evaluate(CANVAS_INK)) as Record<string, { width: number; height: number; ink: number }>;
    expect(Object.keys(ink).sort()).toEqual(["chart-folder", "chart-history", "chart-intent", "chart-model", "chart-person", "chart-untraced"]);
    for (const [id, c] of Object.entries(ink)) {
      expect(c.width, id).toBeGreaterThan(100);
      expect(c.ink, id).toBeGreaterThan(500);
    }
    expect(await page.locator(".card.ai b").textContent()).toBe("5%");
    expect(await page.locator(".card.untraced span").textContent()).toBe(`untraced (${TOTAL - 6} lines no record explains)`);
    await page.screenshot({ path: shots.path(`report-${scheme}.png`), fullPage: true });
    // every table fits its card: no header or number cut at the card's right edge
    const overflowing = await page.evaluate(
      `[...document.querySelectorAll("section")].filter((s) => s.scrollWidth > s.clientWidth).map((s) => s.querySelector("h2").textContent)`,
    );
    expect(overflowing).toEqual([]);

    // a number's row lists exactly its lines: INT-001's six traced lines, with file, range and record
    await page.locator('tr[data-filter="intent:INT-001"]').click();
    expect(await page.locator("#lines-summary").textContent()).toBe("6 lines in 3 runs.");
    const rows = await page
      .locator("#lines-table tbody tr")
      .evaluateAll((trs) => trs.map((tr) => [...(tr as unknown as { cells: { textContent: string }[] }).cells].slice(0, 5).map((c) => c.textContent)));
    expect(rows.sort()).toEqual([
      ["docs/notes.md", "11", "1", "people · out of scope", "INT-001"],
      ["src/api/forecast.ts", "5–6", "2", "people", "INT-001"],
      ["src/api/weather.ts", "4–6", "3", "AI", "INT-001"],
    ]);
    await page.locator('tr[data-filter="out:INT-001"]').click();
    expect(await page.locator("#lines-summary").textContent()).toBe("1 line in 1 run.");
    // this week's row of the lines in the code today: every line, the untraced ones by their commit time
    await page.locator('tr[data-filter^="inCode:"]').first().click();
    expect(await page.locator("#lines-summary").textContent()).toMatch(new RegExp(`^${TOTAL} lines in \\d+ runs`));
    await page.screenshot({ path: shots.path(`report-${scheme}-lines.png`), fullPage: false });
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    await context.close();
  }
  run.passed();
}, 300_000);

it("the organisation's report (`intent org report`) opens offline in Chromium: a chart per repository among the others, no script error", async () => {
  run.start();
  ws = await insightWorkspace();
  const other = gitWorkspace();
  try {
    const out = ws.path("exports");
    for (const [repo, root] of [
      ["acme/weather", ws.root],
      ["acme/empty", other.root],
    ])
      expect(runCli(["export", "--format", "parquet", "--out", out, "--repo", repo], { cwd: root }).status).toBe(0);
    const r = runCli(["org", "report", "--from", out, "--out", "org.html"], { cwd: ws.root });
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^Wrote .*org\.html: 2 repositories, AI wrote \d+% of [\d,]+ lines\.\n$/);
    const browser = await run.chromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("request", (q) => requests.push(q.url()));
    const url = pathToFileURL(ws.path("org.html")).href;
    await page.goto(url);
    await page.locator("body[data-ready=true]").waitFor();
    const ink = (await page.evaluate(CANVAS_INK)) as Record<string, { ink: number }>;
    expect(Object.keys(ink).sort()).toEqual(["chart-folder", "chart-intent", "chart-model", "chart-person", "chart-repo"]);
    for (const [id, c] of Object.entries(ink)) expect(c.ink, id).toBeGreaterThan(500);
    expect(await page.locator("h1").textContent()).toBe("How much of 2 repositories in exports AI wrote");
    await page.screenshot({ path: new Screenshots(artifactsDir("report")).path("org-report.png"), fullPage: true });
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
  } finally {
    other.dispose();
  }
  run.passed();
}, 300_000);
