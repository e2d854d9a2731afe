import { spawnSync } from "node:child_process";
import { rewriteCache } from "../support/cacheDamage";
import { gitAt } from "../support/gitRepository";
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { writeTranscript } from "../support/hookPayloads";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";
import { reportPageData } from "../support/reportPageData";
import { agentEditsWeather } from "./insightWorkspace";

/**
 * The lines in the code today per period they were written in, untraced ones included (docs/INSIGHT.md):
 * a traced line at its owning record's time, an untraced line at the time of the commit that brought it onto
 * the current branch, an uncommitted one today. The workspace has committed lines nobody recorded at two commit dates, an
 * agent's write through its hook, a person's lines saved through the language server, and untraced lines not
 * committed yet; `intent stats`, `intent report` and the summary of `intent check` count it alike.
 */

beforeAll(ensureBuilt);

const JANUARY = "2026-01-05T10:00:00Z";
const FEBRUARY = "2026-02-10T10:00:00Z";
const MARCH = "2026-03-02T10:00:00Z";
const APRIL = "2026-04-06T10:00:00Z";

/** Lines of the example workspace's counted files, as committed in January. */
const JANUARY_LINES = 18 + 10 + 12 + 4 + 3 + 3 + 1 + 1;

async function datedWorkspace(): Promise<TempWorkspace> {
  const ws = new TempWorkspace();
  ws.write(".orchestration/agent_trace.jsonl", "");
  gitAt(ws.root, undefined, "init", "-q");
  gitAt(ws.root, undefined, "add", "-A");
  gitAt(ws.root, JANUARY, "commit", "-q", "-m", "january");
  gitAt(ws.root, undefined, "tag", "january");
  // committed in February, recorded by nobody: two lines appended, a new file of four
  ws.write("README.md", `${ws.read("README.md")}Second section.\nMore text.\n`);
  ws.write("src/billing/tax.ts", "export const RATE = 0.2;\nexport function tax(x: number) {\n  return x * RATE;\n}\n");
  gitAt(ws.root, undefined, "add", "-A");
  gitAt(ws.root, FEBRUARY, "commit", "-q", "-m", "february");

  ws.select("INT-001");
  writeTranscript(ws, "claude-sonnet-4-5-20250929");
  // the agent replaces one line with three, through its hooks
  agentEditsWeather(ws);
  // the person inserts two lines, through the editor
  const client = await LspClient.start({ root: ws.root });
  try {
    await client.open("src/api/forecast.ts");
    await client.insertLines("src/api/forecast.ts", 4, ["export const HOURS = 24;", "export const DAYS = 7;"]);
    await client.save("src/api/forecast.ts");
  } finally {
    await client.stop();
  }
  // not committed, recorded by nobody: one changed line of a committed file, an untracked file of two
  const middleware = ws.read("src/auth/middleware.ts").split("\n");
  middleware[0] = `${middleware[0]} // changed by hand`;
  ws.write("src/auth/middleware.ts", middleware.join("\n"));
  ws.write("scratch/untracked.txt", "one\ntwo\n");
  return ws;
}

const month = (iso: string) => iso.slice(0, 7);

function statsJson(ws: TempWorkspace, args: string[], env?: NodeJS.ProcessEnv) {
  const r = runCli(["stats", "--json", ...args], { cwd: ws.root, ...(env ? { env } : {}) });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  const s = JSON.parse(r.stdout);
  delete s.outOfScope.blocks;
  // what a report page carries: every number but the per-file list, which it never shows
  delete s.byFile;
  return s;
}

/**
 * A git that writes down what it is asked, ahead of the real one on PATH; `walked`: the ranges of history
 * whose patches it showed since `clear` (the walk that dates untraced lines); `blamed`: the paths it blamed.
 */
function loggingGit(ws: TempWorkspace) {
  const bin = ws.path(".orchestration/.cache/test-bin");
  const log = ws.path(".orchestration/.cache/git-calls.log");
  const realGit = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
  ws.write(".orchestration/.cache/test-bin/git", `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
  chmodSync(join(bin, "git"), 0o755);
  return {
    env: { PATH: `${bin}:${process.env["PATH"]}` },
    log,
    clear: () => writeFileSync(log, ""),
    blamed: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => / blame /.test(l))
        .map((l) => l.slice(l.lastIndexOf(" -- ") + 4))
        .sort(),
    walked: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => / log .*--first-parent .* -p /.test(l))
        .map((l) => l.split(" ").at(-2)),
  };
}

function report(ws: TempWorkspace, args: string[]) {
  const r = runCli(["report", "--out", "-", ...args], { cwd: ws.root });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  const data = reportPageData(r.stdout);
  return { html: r.stdout, insight: data.insight, blocks: data };
}

const inCode = (c: { ai?: number; human?: number; untraced?: number }) => {
  const full = { ai: 0, human: 0, mixed: 0, unknown: 0, untraced: 0, beforeAdoption: 0, ...c };
  const total = full.ai + full.human + full.untraced;
  return { ...full, total, untracedShare: total ? full.untraced / total : null };
};

describe("untraced share over time", () => {
  let ws: TempWorkspace;
  let today: string;

  beforeAll(async () => {
    ws = await datedWorkspace();
    today = new Date().toISOString();
  }, 60_000);

  afterAll(() => ws?.dispose());

  it("intent stats counts the lines in the code today per month they were written, untraced ones by their commit time", () => {
    const s = statsJson(ws, ["--by", "month"]);
    expect(s.lines.untraced).toBe(JANUARY_LINES - 2 + 6 + 3);
    expect(s.history.periods.map((p: { period: string; inCode: unknown }) => [p.period, p.inCode])).toEqual([
      // January: the agent replaced one committed line, the hand change one more
      ["2026-01", inCode({ untraced: JANUARY_LINES - 2 })],
      ["2026-02", inCode({ untraced: 6 })],
      // today: the agent's three lines, the person's two, the changed line and the untracked file's two
      [month(today), inCode({ ai: 3, human: 2, untraced: 3 })],
    ]);
    expect(s.history.undated).toEqual({ lines: 0, reasons: [] });
    // the existing keys keep their meaning: the ledger's lines, written and surviving
    expect(s.history.periods[2].written).toEqual({ ai: 3, human: 2, mixed: 0, unknown: 0 });
    expect(s.history.periods[0].written).toEqual({ ai: 0, human: 0, mixed: 0, unknown: 0 });

    const text = runCli(["stats", "--by", "month"], { cwd: ws.root }).stdout;
    expect(text).toContain("Lines in the code today by when they were written");
    expect(text).toMatch(/^2026-02 +6 +0 +0 +0 +6 +100%$/m);
    expect(text).toMatch(new RegExp(`^${month(today)} +8 +3 +2 +0 +3 +38%$`, "m"));
  });

  it("--since and --until bound the series as they bound the history; --by day splits it by commit day", () => {
    const since = statsJson(ws, ["--by", "day", "--since", "2026-02-01", "--until", "2026-02-28"]);
    expect(since.history.periods.map((p: { period: string; inCode: unknown }) => [p.period, p.inCode])).toEqual([["2026-02-10", inCode({ untraced: 6 })]]);
    const sinceRev = statsJson(ws, ["--by", "week", "--since", "january", "--until", "2026-01-31"]);
    // 2026-01-05 is a Monday
    expect(sinceRev.history.periods.map((p: { period: string; inCode: unknown }) => [p.period, p.inCode])).toEqual([
      ["2026-01-05", inCode({ untraced: JANUARY_LINES - 2 })],
    ]);
  });

  it("intent report carries the same series as intent stats, charted, with each period's lines behind it", () => {
    for (const args of [["--by", "month"], ["--by", "day", "--since", "2026-02-01"], []]) {
      const r = report(ws, args);
      expect(r.insight, args.join(" ")).toEqual(statsJson(ws, args.length ? args : ["--by", "week"]));
    }
    const r = report(ws, ["--by", "month"]);
    expect(r.insight.history.periods[1].inCode).toEqual(inCode({ untraced: 6 }));
    expect(r.html).toContain('<canvas id="chart-untraced"');
    expect(r.html).toContain(
      '<tr data-filter="inCode:2026-02" tabindex="0" title="Show these lines"><td>2026-02</td><td>6</td><td>0</td><td>0</td><td>0</td><td>6</td><td>100%</td></tr>',
    );
    // the runs behind a period's number: file, range, and (untraced) the commit time
    const S = r.blocks.strings;
    const runs = r.blocks.rows
      .filter((row) => row[3] === 4 && row[10]! >= 0 && S[row[10]!]!.startsWith("2026-02"))
      .map((row) => [S[row[0]!], row[1], row[2], S[row[10]!]]);
    expect(runs).toEqual([
      ["README.md", 4, 5, "2026-02-10T10:00:00.000Z"],
      ["src/billing/tax.ts", 1, 4, "2026-02-10T10:00:00.000Z"],
    ]);
  });

  it("intent check's summary counts only the changed lines written in --since/--until and adds --by's table; the findings stay", () => {
    const args = ["check", "--format", "markdown", "--base", "january"];
    const windowed = runCli([...args, "--since", "2026-02-01", "--until", "2026-06-30", "--by", "month"], { cwd: ws.root });
    expect(windowed.stderr).toBe("");
    const fixture = join(__dirname, "fixtures", "check-summary-window.md");
    if (process.env["UPDATE_FIXTURES"]) writeFileSync(fixture, windowed.stdout);
    expect(windowed.stdout).toBe(readFileSync(fixture, "utf8"));
    // the same findings and exit code as without the flags
    const whole = runCli(args, { cwd: ws.root });
    expect(windowed.status).toBe(whole.status);
    const findings = (md: string) => md.slice(md.indexOf("### Findings"));
    expect(findings(windowed.stdout)).toBe(findings(whole.stdout));
    expect(runCli(["check", "--format", "json", "--base", "january"], { cwd: ws.root }).status).toBe(whole.status);

    // today's window: the agent's, the person's and the uncommitted untraced lines, per day
    const todays = runCli([...args, "--since", today.slice(0, 10), "--by", "day"], { cwd: ws.root });
    expect(todays.stdout).toContain(`Counted: the changed lines written since ${today.slice(0, 10)} (`);
    expect(todays.stdout).toContain("6 changed lines written outside it left out.");
    expect(todays.stdout).toContain(`| ${today.slice(0, 10)} | 8 | 38% | 3 | 2 | 0 | 3 | 38% |`);
  });

  it("intent check refuses --since, --until and --by without a summary to shape (exit 2)", () => {
    for (const format of ["text", "json", "sarif"]) {
      const r = runCli(["check", "--format", format, "--base", "january", "--since", "2026-02-01", "--by", "week"], { cwd: ws.root });
      expect(r.status, format).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`--since, --by only shape the pull request summary (--format markdown, or github), and --format ${format} has none`);
    }
    expect(runCli(["check", "--base", "january", "--until", "2026-02-01"], { cwd: ws.root }).status).toBe(2);
    // with --format github the summary is written where the runner says: accepted
    const github = runCli(["check", "--format", "github", "--base", "january", "--by", "week"], { cwd: ws.root, env: { GITHUB_STEP_SUMMARY: "" } });
    expect(github.stderr).toBe("");
    expect(github.status).toBe(runCli(["check", "--format", "github", "--base", "january"], { cwd: ws.root, env: { GITHUB_STEP_SUMMARY: "" } }).status);
  });

  it("a warm run asks git nothing again for unchanged files, and a new commit is walked alone to date its lines", () => {
    const { env, log, clear, blamed, walked } = loggingGit(ws);
    for (const cache of ["insight.json", "insight-runs.bin", "insight-result.json", "insight-lines.json"])
      rmSync(ws.path(`.orchestration/.cache/${cache}`), { force: true });
    const head = gitAt(ws.root, undefined, "rev-parse", "HEAD").trim();
    const cold = statsJson(ws, ["--by", "month"], env);
    // one walk of HEAD's history dates every file's untraced lines: no blame per file
    expect(walked()).toEqual([head]);
    expect(blamed()).toEqual([]);
    clear();
    expect(statsJson(ws, ["--by", "month"], env)).toEqual(cold);
    expect(readFileSync(log, "utf8")).not.toMatch(/ log | blame /);

    gitAt(ws.root, undefined, "add", "scratch/untracked.txt");
    gitAt(ws.root, MARCH, "commit", "-q", "-m", "march");
    const march = gitAt(ws.root, undefined, "rev-parse", "HEAD").trim();
    const after = statsJson(ws, ["--by", "month"], env);
    // the walk goes on from the commit it knew
    expect(walked()).toEqual([`${head}..${march}`]);
    expect(after.history.periods.map((p: { period: string; inCode: unknown }) => [p.period, p.inCode])).toEqual([
      ["2026-01", inCode({ untraced: JANUARY_LINES - 2 })],
      ["2026-02", inCode({ untraced: 6 })],
      ["2026-03", inCode({ untraced: 2 })],
      [month(today), inCode({ ai: 3, human: 2, untraced: 1 })],
    ]);
    // the last commit made again (git commit --amend): the walk goes on from the commit it went on from
    // before, not from the start of the history
    gitAt(ws.root, MARCH, "commit", "-q", "--amend", "-m", "march, again");
    const amended = gitAt(ws.root, undefined, "rev-parse", "HEAD").trim();
    clear();
    expect(statsJson(ws, ["--by", "month"], env)).toEqual(after);
    expect(walked()).toEqual([`${head}..${amended}`]);
    gitAt(ws.root, undefined, "reset", "-q", "--soft", "HEAD~1");
    gitAt(ws.root, undefined, "reset", "-q", "scratch/untracked.txt");
    // HEAD moved back to that commit: what the walk knew there answers, with no walk
    clear();
    expect(statsJson(ws, ["--by", "month"], env)).toEqual(cold);
    expect(walked()).toEqual([]);
    // a kept walk that is on no line of HEAD's history: walked anew from the start
    for (const cache of ["insight-lines.json", "insight-lines-base.json"])
      rewriteCache(ws.path(`.orchestration/.cache/${cache}`), (kept) => JSON.stringify({ ...JSON.parse(kept), commit: amended }));
    for (const cache of ["insight.json", "insight-runs.bin", "insight-result.json"]) rmSync(ws.path(`.orchestration/.cache/${cache}`), { force: true });
    clear();
    expect(statsJson(ws, ["--by", "month"], env)).toEqual(cold);
    expect(walked()).toEqual([head]);
  });

  it("a plain intent stats asks git nothing, and a file it counts again leaves the other files' commit times kept", () => {
    const { env, log, clear, walked } = loggingGit(ws);
    clear();
    for (const cache of ["insight.json", "insight-runs.bin", "insight-result.json"]) rmSync(ws.path(`.orchestration/.cache/${cache}`), { force: true });
    const plainCold = statsJson(ws, [], env);
    expect(readFileSync(log, "utf8")).not.toMatch(/ log | blame | diff /);
    const dated = statsJson(ws, ["--by", "month"], env);
    // the walk is kept at HEAD: only the changes since HEAD are asked
    expect(walked()).toEqual([]);
    expect(readFileSync(log, "utf8")).toMatch(/ diff .*-U0 /);
    // an edit a plain run counts again: the runs kept beside the tallies are written anew, commit times included
    clear();
    ws.write("scratch/untracked.txt", "one\ntwo\nthree\n");
    try {
      const plain = statsJson(ws, [], env);
      expect(readFileSync(log, "utf8")).not.toMatch(/ log | blame | diff /);
      expect(plain.lines.untraced).toBe(plainCold.lines.untraced + 1);
      const redated = statsJson(ws, ["--by", "month"], env);
      expect(walked()).toEqual([]);
      const untracedToday = (s: typeof dated) => s.history.periods.find((p: { period: string }) => p.period === month(today)).inCode.untraced;
      expect(untracedToday(redated)).toBe(untracedToday(dated) + 1);
    } finally {
      ws.write("scratch/untracked.txt", "one\ntwo\n");
    }
  });

  it("after a commit that changes no file the kept commit times hold with no walk; a line changed and changed back is of the commit that changed it back", () => {
    const { env, clear, walked } = loggingGit(ws);
    const head = gitAt(ws.root, undefined, "rev-parse", "HEAD").trim();
    const before = statsJson(ws, ["--by", "month"], env);
    const readme = ws.read("README.md");
    const untracedIn = (s: typeof before, period: string) => s.history.periods.find((p: { period: string }) => p.period === period)?.inCode.untraced ?? 0;
    try {
      gitAt(ws.root, MARCH, "commit", "-q", "--allow-empty", "-m", "nothing changed");
      clear();
      expect(statsJson(ws, ["--by", "month"], env)).toEqual(before);
      expect(walked()).toEqual([]);
      // README's first line edited in one commit and put back in the next: the file's bytes are as they were,
      // but that line entered the branch again with the second commit
      const [first, ...rest] = readme.split("\n");
      ws.write("README.md", [`${first} (edited)`, ...rest].join("\n"));
      gitAt(ws.root, undefined, "add", "README.md");
      gitAt(ws.root, MARCH, "commit", "-q", "-m", "README edited");
      ws.write("README.md", readme);
      gitAt(ws.root, undefined, "add", "README.md");
      gitAt(ws.root, APRIL, "commit", "-q", "-m", "README as it was");
      const back = gitAt(ws.root, undefined, "rev-parse", "HEAD").trim();
      clear();
      const after = statsJson(ws, ["--by", "month"], env);
      expect(walked()).toEqual([`${head}..${back}`]);
      expect(untracedIn(after, "2026-01")).toBe(untracedIn(before, "2026-01") - 1);
      expect(untracedIn(after, "2026-04")).toBe(1);
      // what a run that kept nothing counts
      for (const cache of ["insight.json", "insight-runs.bin", "insight-result.json", "insight-lines.json", "insight-lines-base.json"]) {
        rmSync(ws.path(`.orchestration/.cache/${cache}`), { force: true });
      }
      expect(statsJson(ws, ["--by", "month"], env)).toEqual(after);
    } finally {
      gitAt(ws.root, undefined, "reset", "-q", "--soft", head);
      ws.write("README.md", readme);
    }
  });
});
