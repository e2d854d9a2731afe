import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempWorkspace } from "../support/workspace";
import { reportPageData } from "../support/reportPageData";
import { counts, FILE_LINES, insightWorkspace, TOTAL } from "./insightWorkspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { ledgerRecords } from "../support/ledgerFile";

/**
 * `--path`, `--since`, `--until` and `--by` mean the same in `intent stats`, `intent report` and (`--path`) the
 * pull request summary of `intent check`, on a workspace built as real work builds it (./insightWorkspace.ts).
 */

beforeAll(ensureBuilt);

function statsJson(ws: TempWorkspace, args: string[]) {
  const r = runCli(["stats", "--json", ...args], { cwd: ws.root });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  const s = JSON.parse(r.stdout);
  delete s.outOfScope.blocks;
  // the page carries every number but the per-file list, which it never shows
  delete s.byFile;
  return s;
}

/** The numbers a report page carries (its data element), for the same arguments. */
function reportJson(ws: TempWorkspace, args: string[]) {
  const r = runCli(["report", "--out", "-", ...args], { cwd: ws.root });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return reportPageData(r.stdout).insight;
}

describe("the insight filters", () => {
  let ws: TempWorkspace;
  let day: string;

  beforeAll(async () => {
    ws = await insightWorkspace();
    day = ledgerRecords(ws)[0]!.timestamp.slice(0, 10);
  }, 60_000);

  afterAll(() => ws?.dispose());

  it("intent report counts what intent stats counts for the same --path, --since, --until and --by", () => {
    const cases = [
      ["--by", "week"],
      ["--path", "src/api", "--by", "day", "--since", day],
      ["--path", "docs", "--by", "month", "--until", day],
      ["--path", "*.md", "--by", "day"],
      ["--by", "day", "--since", "HEAD"],
      ["--by", "day", "--until", "2000-01-01"],
    ];
    for (const args of cases) expect(reportJson(ws, args), args.join(" ")).toEqual(statsJson(ws, args));
    // a report without --by is per week, as stats --by week
    expect(reportJson(ws, [])).toEqual(statsJson(ws, ["--by", "week"]));
    // the lines in the code today per period, untraced ones by their commit time: the same in both
    expect(reportJson(ws, ["--by", "day"]).history.periods[0].inCode).toEqual(statsJson(ws, ["--by", "day"]).history.periods[0].inCode);
    expect(reportJson(ws, ["--by", "day"]).history.periods[0].inCode.untraced).toBe(TOTAL - 6);
  }, 120_000); // six report and stats runs, each its own process: minutes on a loaded runner

  it("--since and --until take a git revision: its commit's time", () => {
    // the records were all written after the workspace's one commit
    const sinceHead = statsJson(ws, ["--by", "day", "--since", "HEAD"]);
    expect(sinceHead.history.periods).toEqual(statsJson(ws, ["--by", "day", "--since", day]).history.periods);
    expect(sinceHead.history.periods).toEqual([
      {
        period: day,
        written: { ai: 3, human: 3, mixed: 0, unknown: 0 },
        writtenOutOfScope: 1,
        surviving: { ai: 3, human: 3, mixed: 0, unknown: 0 },
        durability: 1,
        // the untraced lines were committed at HEAD, or are uncommitted: today
        inCode: { ai: 3, human: 3, mixed: 0, unknown: 0, untraced: TOTAL - 6, beforeAdoption: 0, total: TOTAL, untracedShare: (TOTAL - 6) / TOTAL },
      },
    ]);
    const commitTime = runCli(["stats", "--json", "--by", "day", "--until", "HEAD"], { cwd: ws.root });
    // up to HEAD's time: no record, and the untraced lines committed at HEAD (not the untracked file's two)
    const atHead = TOTAL - 6 - FILE_LINES["scratch/untracked.txt"]!;
    expect(JSON.parse(commitTime.stdout).history.periods).toEqual([
      {
        period: day,
        written: { ai: 0, human: 0, mixed: 0, unknown: 0 },
        writtenOutOfScope: 0,
        surviving: { ai: 0, human: 0, mixed: 0, unknown: 0 },
        durability: null,
        inCode: { ai: 0, human: 0, mixed: 0, unknown: 0, untraced: atHead, beforeAdoption: 0, total: atHead, untracedShare: 1 },
      },
    ]);
    expect(JSON.parse(commitTime.stdout).history.until).toBe(new Date(sinceHead.history.since).toISOString());
    // the present is not filtered by time: every line as it is now
    expect(sinceHead.lines).toEqual(statsJson(ws, []).lines);
  });

  it("--path restricts the present, the history and the pull request summary alike", () => {
    const s = statsJson(ws, ["--path", "docs", "--by", "day"]);
    expect(s.lines).toEqual(counts({ total: 12, human: 1, untraced: 11, outOfScope: 1 }));
    expect(s.history.periods).toEqual([
      {
        period: day,
        written: { ai: 0, human: 1, mixed: 0, unknown: 0 },
        writtenOutOfScope: 1,
        surviving: { ai: 0, human: 1, mixed: 0, unknown: 0 },
        durability: null,
        inCode: { ai: 0, human: 1, mixed: 0, unknown: 0, untraced: 11, beforeAdoption: 0, total: 12, untracedShare: 11 / 12 },
      },
    ]);
    const md = runCli(["check", "--format", "markdown", "--base", "HEAD", "--path", "src/api"], { cwd: ws.root });
    expect(md.stderr).toBe("");
    expect(md.stdout).toBe(readFileSync(join(__dirname, "fixtures", "check-summary-src-api.md"), "utf8"));
  });
});
