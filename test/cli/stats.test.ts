import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempWorkspace } from "../support/workspace";
import { AI_LINES, counts, FILE_LINES, insightWorkspace, MODEL, PERSON, TOTAL } from "./insightWorkspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { ledgerRecords } from "../support/ledgerFile";
import { reportPageData } from "../support/reportPageData";

/** `intent stats` counted against a workspace built as real work builds it (./insightWorkspace.ts). */

beforeAll(ensureBuilt);

describe("intent stats", () => {
  let ws: TempWorkspace;

  beforeAll(async () => {
    ws = await insightWorkspace();
  }, 60_000);

  afterAll(() => ws?.dispose());

  it("counts every line once: AI, human, untraced, out of scope, by intent, model, person and file", () => {
    expect(ledgerRecords(ws)).toHaveLength(3);
    const r = runCli(["stats", "--json"], { cwd: ws.root });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.lines).toEqual(counts({ total: TOTAL, ai: 3, human: 3, untraced: TOTAL - 6, outOfScope: 1 }));
    expect(s.byIntent).toEqual([{ id: "INT-001", lines: counts({ total: 6, ai: 3, human: 3, outOfScope: 1 }) }]);
    expect(s.byModel).toEqual([{ model: MODEL, lines: counts({ total: 3, ai: 3 }) }]);
    expect(s.byPerson).toEqual([{ person: PERSON, lines: counts({ total: 3, human: 3, outOfScope: 1 }) }]);
    expect(Object.fromEntries(s.byFile.map((f: { path: string; lines: { total: number } }) => [f.path, f.lines.total]))).toEqual(FILE_LINES);
    expect(s.byFile.find((f: { path: string }) => f.path === "docs/notes.md").lines).toEqual(counts({ total: 12, human: 1, untraced: 11, outOfScope: 1 }));
    expect(s.outOfScope.lines).toBe(1);
    expect(s.outOfScope.blocks).toEqual([
      expect.objectContaining({ path: "docs/notes.md", start: 11, end: 11, author: "human", intent: "INT-001", person: PERSON }),
    ]);
    expect(s.outOfScope.blocks[0].traceId).toBe(ledgerRecords(ws)[2]!.id);
  });

  it("is the sum of `intent blame` over the same files", () => {
    const s = JSON.parse(runCli(["stats", "--json"], { cwd: ws.root }).stdout);
    for (const f of s.byFile as { path: string; lines: Record<string, number> }[]) {
      const rows = JSON.parse(runCli(["blame", f.path, "--json"], { cwd: ws.root }).stdout).lines as { author: string; outOfScope?: boolean }[];
      const sum = counts({ total: rows.length });
      for (const row of rows) {
        sum[row.author as "ai"]++;
        if (row.outOfScope) sum.outOfScope++;
      }
      expect(f.lines, f.path).toEqual(sum);
    }
  });

  it("sums each folder two levels deep: src/api apart from src, in stats --json, its table and the report page", () => {
    const byFolder = [
      { path: "src", lines: counts({ total: 39, ai: 3, human: 2, untraced: 34 }) },
      { path: "src/api", lines: counts({ total: 32, ai: 3, human: 2, untraced: 27 }) },
      { path: "docs", lines: counts({ total: 12, human: 1, untraced: 11, outOfScope: 1 }) },
      { path: "src/auth", lines: counts({ total: 4, untraced: 4 }) },
      { path: "src/billing", lines: counts({ total: 3, untraced: 3 }) },
      { path: "scratch", lines: counts({ total: 2, untraced: 2 }) },
    ];
    expect(JSON.parse(runCli(["stats", "--json"], { cwd: ws.root }).stdout).byFolder).toEqual(byFolder);

    const text = runCli(["stats"], { cwd: ws.root }).stdout;
    expect(text).toContain(
      [
        "",
        "folder        lines  AI  ai  human  mixed  unknown  out of scope  untraced",
        "src/             39  8%   3      2      0        0             0        34",
        "src/api/         32  9%   3      2      0        0             0        27",
        "docs/            12  0%   0      1      0        0             1        11",
        "src/auth/         4  0%   0      0      0        0             0         4",
        "src/billing/      3  0%   0      0      0        0             0         3",
        "scratch/          2  0%   0      0      0        0             0         2",
        "",
      ].join("\n"),
    );

    const page = runCli(["report", "--out", "-"], { cwd: ws.root }).stdout;
    expect(reportPageData(page).insight.byFolder).toEqual(byFolder);
    const rows = [...page.matchAll(/<tr data-filter="folder:([^"]*)"[^>]*><td>([^<]*)<\/td><td>([^<]*)<\/td>/g)].map((m) => m.slice(1));
    expect(rows).toEqual(byFolder.map((f) => [f.path, `${f.path}/`, String(f.lines.total)]));
  });

  it("restricts to --path and prints a readable table that says how much is untraced", () => {
    const s = JSON.parse(runCli(["stats", "--json", "--path", "src/api"], { cwd: ws.root }).stdout);
    expect(s.lines).toEqual(counts({ total: 32, ai: 3, human: 2, untraced: 27 }));
    // how sure: every attributed line once, by the confidence `intent blame --json` gives it
    const blamed = ["src/api/weather.ts", "src/api/forecast.ts"].flatMap(
      (f) => JSON.parse(runCli(["blame", f, "--json"], { cwd: ws.root }).stdout).lines as { contributor?: string; confidence?: string }[],
    );
    const level = (who: string, c: string) => blamed.filter((l) => l.contributor === who && l.confidence === c).length;
    expect(s.confidence.ai).toEqual({
      exact: level("ai", "exact"),
      replayed: level("ai", "replayed"),
      moved: level("ai", "moved"),
      inferred: level("ai", "inferred"),
    });
    expect(s.confidence.ai.exact + s.confidence.ai.replayed + s.confidence.ai.moved + s.confidence.ai.inferred).toBe(3);
    expect(s.confidence.human.exact + s.confidence.human.replayed + s.confidence.human.moved + s.confidence.human.inferred).toBe(2);
    const text = runCli(["stats", "--path", "src/api"], { cwd: ws.root });
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("AI wrote 9% of 32 lines in 2 files matching src/api: 9% exact.\n");
    const page = runCli(["report", "--out", "-", "--path", "src/api"], { cwd: ws.root }).stdout;
    expect(page).toContain('<p class="sub sure">AI wrote 9%: 9% exact · how sure');
    expect(reportPageData(page).insight.confidence).toEqual(s.confidence);
    expect(text.stdout).toContain("ai 3 · human 2 · mixed 0 · unknown 0 · untraced 27 (84%: no record explains them)\n");
    expect(text.stdout).toMatch(/^INT-001 +5 +60% +3 +2 +0 +0 +0$/m);
    expect(text.stdout).toMatch(/^anthropic\/claude-sonnet-4-5-20250929 +3 +100% +3 +0 +0 +0 +0$/m);
  });

  it("gives the history per period with the durability of the AI's lines", () => {
    const day = ledgerRecords(ws)[0]!.timestamp.slice(0, 10);
    const s = JSON.parse(runCli(["stats", "--json", "--by", "day", "--since", day], { cwd: ws.root }).stdout);
    expect(s.history.periods).toEqual([
      {
        period: day,
        written: { ai: 3, human: 3, mixed: 0, unknown: 0 },
        writtenOutOfScope: 1,
        surviving: { ai: 3, human: 3, mixed: 0, unknown: 0 },
        durability: 1,
        // the untraced lines were committed (or are still uncommitted) today
        inCode: { ai: 3, human: 3, mixed: 0, unknown: 0, untraced: TOTAL - 6, beforeAdoption: 0, total: TOTAL, untracedShare: (TOTAL - 6) / TOTAL },
      },
    ]);
    // the AI's lines rewritten by hand: still written in that period, no longer in the code
    ws.write("src/api/weather.ts", ws.read("src/api/weather.ts").replace(AI_LINES[1]!, "  region?: string;"));
    const after = JSON.parse(runCli(["stats", "--json", "--by", "month"], { cwd: ws.root }).stdout);
    expect(after.history.periods[0].written.ai).toBe(3);
    expect(after.history.periods[0].surviving.ai).toBe(2);
    expect(after.history.periods[0].durability).toBeCloseTo(2 / 3);
    expect(JSON.parse(runCli(["stats", "--json", "--until", "2000-01-01"], { cwd: ws.root }).stdout).history.periods).toEqual([]);
    expect(runCli(["stats", "--since", "no-such-ref"], { cwd: ws.root })).toMatchObject({ status: 2, stderr: expect.stringContaining("neither a date") });
  });
});

describe("intent report --out, a path the person names", () => {
  let ws: TempWorkspace;
  let outside: string;

  beforeAll(async () => {
    ws = await insightWorkspace();
    outside = realpathSync(mkdtempSync(join(tmpdir(), "intent-report-out-")));
  }, 60_000);

  afterAll(() => {
    ws?.dispose();
    if (outside) rmSync(outside, { recursive: true, force: true });
  });

  it("writes the page to a path outside the workspace, the same page --out - prints", () => {
    const file = join(outside, "report.html");
    const r = runCli(["report", "--out", file], { cwd: ws.root });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout.startsWith(`Wrote ${file}: AI wrote `)).toBe(true);
    const printed = runCli(["report", "--out", "-"], { cwd: ws.root }).stdout;
    expect(reportPageData(readFileSync(file, "utf8")).insight).toEqual(reportPageData(printed).insight);
    // replaced whole: no temporary file left beside it
    expect(readdirSync(outside)).toEqual(["report.html"]);
  });

  it("takes a relative path relative to the current directory, outside the workspace and inside it", () => {
    const r = runCli(["report", "--root", ws.root, "--out", "rel.html"], { cwd: outside });
    expect(r.status).toBe(0);
    expect(readFileSync(join(outside, "rel.html"), "utf8")).toMatch(/^<!doctype html>/i);
    const inside = runCli(["report", "--out", "page.html"], { cwd: join(ws.root, "src") });
    expect(inside.status).toBe(0);
    expect(inside.stdout).toContain(`Wrote ${join(ws.root, "src/page.html")}: `);
    expect(existsSync(join(ws.root, "src/page.html"))).toBe(true);
    expect(existsSync(join(ws.root, "page.html"))).toBe(false);
  });

  it("refuses a directory, a FIFO and a folder that does not exist, writing nothing", () => {
    const dir = join(outside, "folder");
    mkdirSync(dir);
    expect(runCli(["report", "--out", dir], { cwd: ws.root })).toEqual({
      status: 1,
      stdout: "",
      stderr: `intent report: ${dir} is a directory, not a regular file; nothing was written. Name a file (new or regular) instead.\n`,
    });
    expect(readdirSync(dir)).toEqual([]);
    const fifo = join(outside, "pipe");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    expect(runCli(["report", "--out", fifo], { cwd: ws.root })).toMatchObject({
      status: 1,
      stderr: `intent report: ${fifo} is a FIFO (named pipe), not a regular file; nothing was written. Name a file (new or regular) instead.\n`,
    });
    const missing = join(outside, "no-such-folder", "report.html");
    expect(runCli(["report", "--out", missing], { cwd: ws.root })).toMatchObject({
      status: 1,
      stderr: `intent report: the folder ${join(outside, "no-such-folder")} does not exist; nothing was written to ${missing}. Create the folder first, or name a file in an existing one.\n`,
    });
    expect(readdirSync(outside).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});
