// The ledger as a dataset (docs/EXPORT.md): three repositories built as real work builds them export their
// facts as Parquet; `intent org stats` over the exports gives each repository exactly its own `intent stats`
// (an independent oracle: the numbers come once from the working tree, once from Parquet through DuckDB),
// the organisation's totals are their sums, a second export writes nothing, and the SQL shipped in docs/sql/
// answers the organisation's questions with the same numbers.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOrgSql } from "../../server/src/io/org";
import { ensureBuilt } from "../support/builtDist";
import { spawn } from "node:child_process";
import { CLI_JS, runCli, runHook } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import type { TempWorkspace } from "../support/workspace";
import { agentEditsWeather, insightWorkspace, PERSON } from "./insightWorkspace";
import { claudeEdit, writeTranscript } from "../support/hookPayloads";

const REPOS = ["acme/weather", "acme/billing", "solo"] as const;
/** The folder the exports go to, as a CI job's artifact folder: empty at first. */
let out: { root: string; path: (p: string) => string; write: (p: string, text: string) => void };
const repos = new Map<string, TempWorkspace>();

const cli = (ws: TempWorkspace, args: string[]) => {
  const r = runCli(args, { cwd: ws.root });
  if (r.status !== 0) throw new Error(`intent ${args.join(" ")} exited ${r.status}: ${r.stderr}${r.stdout}`);
  return r.stdout;
};
const statsOf = (ws: TempWorkspace) => JSON.parse(cli(ws, ["stats", "--json"]));
const inOut = () => ({ root: out.root }) as TempWorkspace;
const org = (...args: string[]) => JSON.parse(cli(inOut(), ["org", "stats", "--from", out.root, "--json", ...args]));
const exportTo = (ws: TempWorkspace, repo: string) => cli(ws, ["export", "--format", "parquet", "--out", out.root, "--repo", repo]);

/** Every file under `dir` with its size and modification time: what a second export must leave as it was. */
function files(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else found[p.slice(dir.length + 1)] = `${st.size}@${st.mtimeMs}`;
    }
  };
  walk(dir);
  return found;
}

beforeAll(async () => {
  await ensureBuilt();
  const root = mkdtempSync(join(tmpdir(), "intent-org-"));
  out = { root, path: (p) => join(root, p), write: (p, text) => writeFileSync(join(root, p), text) };
  // 1. an agent, a person, a line out of scope, untraced lines; INT-001 then completed with its criteria confirmed
  const weather = await insightWorkspace();
  git(weather.root, "add", "-A");
  git(weather.root, "commit", "-q", "-m", "work");
  cli(weather, ["complete", "INT-001", "--yes"]);
  repos.set("acme/weather", weather);
  // 2. only the agent's write, in a repository of its own
  const billing = gitWorkspace();
  billing.select("INT-001");
  writeTranscript(billing, "claude-sonnet-4-5-20250929");
  agentEditsWeather(billing);
  repos.set("acme/billing", billing);
  // 3. nothing recorded: every line untraced
  repos.set("solo", gitWorkspace());
  for (const [name, ws] of repos) exportTo(ws, name);
}, 240_000);

afterAll(() => {
  for (const ws of repos.values()) ws.dispose();
  if (out) rmSync(out.root, { recursive: true, force: true });
});

describe("intent export --format parquet and intent org stats", () => {
  it("writes Hive-partitioned tables, one partition per repository", () => {
    for (const table of ["lines", "repos"])
      expect(readdirSync(join(out.root, table)).sort(), table).toEqual(REPOS.map((r) => `repo=${encodeURIComponent(r)}`).sort());
    // a repository with no record has no records yet
    expect(readdirSync(join(out.root, "records")).sort()).toEqual(["repo=acme%2Fbilling", "repo=acme%2Fweather"]);
    expect(readdirSync(join(out.root, "lifecycle"))).toEqual(["repo=acme%2Fweather"]);
  });

  it.each(REPOS)("gives %s exactly its own `intent stats --json`", (name) => {
    const { byRepo, repos: count, ...numbers } = org("--repo", name);
    expect(numbers).toEqual(statsOf(repos.get(name)!));
    expect(count).toBe(1);
    expect(byRepo).toEqual([{ repo: name, lines: numbers.lines }]);
  });

  it("sums the repositories for the organisation, each file under its repository's name", () => {
    const all = org();
    const each = REPOS.map((r) => statsOf(repos.get(r)!));
    const sum = (k: string) => each.reduce((a, s) => a + s.lines[k], 0);
    for (const k of ["total", "ai", "human", "untraced", "outOfScope"]) expect(all.lines[k], k).toBe(sum(k));
    expect(all.files).toBe(each.reduce((a, s) => a + s.files, 0));
    expect(all.byRepo.map((r: { repo: string }) => r.repo).sort()).toEqual([...REPOS].sort());
    for (const r of all.byRepo) expect(r.lines).toEqual(statsOf(repos.get(r.repo)!).lines);
    expect(all.byFile.map((f: { path: string }) => f.path)).toContain("acme/weather/docs/notes.md");
    expect(all.outOfScope.blocks.map((b: { path: string; start: number; end: number }) => `${b.path}:${b.start}-${b.end}`)).toEqual([
      "acme/weather/docs/notes.md:11-11",
    ]);
  });

  it("with a team mapping, adds the team dimension; the text says the repositories", () => {
    out.write("teams.json", JSON.stringify({ platform: ["acme/weather", "acme/billing"] }));
    const all = org("--teams", out.path("teams.json"));
    expect(all.byTeam.map((t: { team: string; lines: { total: number } }) => [t.team, t.lines.total])).toEqual(
      [
        ["platform", statsOf(repos.get("acme/weather")!).lines.total + statsOf(repos.get("acme/billing")!).lines.total],
        ["(no team)", statsOf(repos.get("solo")!).lines.total],
      ].sort((a, b) => (b[1] as number) - (a[1] as number)),
    );
    const text = cli(inOut(), ["org", "stats", "--from", out.root]);
    expect(text).toMatch(/^AI wrote \d+% of [\d,]+ lines in \d+ files: /);
    expect(text).toContain("\nrepositories (3)\n");
  });

  it("records and lifecycle hold the ledger: every record's files, the completion with its verification", async () => {
    const weather = repos.get("acme/weather")!;
    const ledger = readFileSync(weather.path(".orchestration/agent_trace.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const rows = await runOrgSql(
      out.root,
      "SELECT record_id, path, contributor, person, lines FROM records WHERE repo = 'acme/weather' ORDER BY ledger_line, path",
    );
    const expected = ledger.flatMap((r) => (r.files ?? []).map((f: { path: string }) => [r.id, f.path]));
    expect(rows.map((r) => [r["record_id"], r["path"]])).toEqual(expected);
    expect(rows.find((r) => r["path"] === "src/api/forecast.ts")).toMatchObject({ contributor: "human", person: PERSON, lines: 2 });
    const completed = await runOrgSql(out.root, readFileSync("docs/sql/completed_intents.sql", "utf8"));
    expect(completed).toEqual([expect.objectContaining({ repo: "acme/weather", intent: "INT-001", verification: "passed", confirmed_by: PERSON })]);
  });

  it("the SQL in docs/sql answers with the numbers `intent stats` gives", async () => {
    const share = await runOrgSql(out.root, readFileSync("docs/sql/org_share.sql", "utf8"));
    expect(share.map((r) => r["repo"])).toEqual([...REPOS].sort());
    for (const row of share) {
      const s = statsOf(repos.get(String(row["repo"]))!);
      expect(row).toMatchObject({ total: s.lines.total, ai: s.lines.ai, human: s.lines.human, untraced: s.lines.untraced, out_of_scope: s.lines.outOfScope });
      expect(row["ai_exact"]).toBe(s.confidence.ai.exact);
    }
    const models = await runOrgSql(out.root, readFileSync("docs/sql/models_by_repo.sql", "utf8"));
    expect(models).toEqual(
      ["acme/billing", "acme/weather"].map((repo) => ({ repo, model: "anthropic/claude-sonnet-4-5-20250929", lines: statsOf(repos.get(repo)!).lines.ai })),
    );
  });

  it("a second export writes nothing; after new work it appends the new records and writes the lines again", () => {
    const before = files(out.root);
    const weather = repos.get("acme/weather")!;
    expect(exportTo(weather, "acme/weather")).toBe(
      `Exported acme/weather to ${relative(weather.root, out.root)}: records nothing new, lifecycle nothing new, lines unchanged, repos unchanged.\n`,
    );
    expect(files(out.root)).toEqual(before);
    agentEditsWeatherAgain(weather);
    exportTo(weather, "acme/weather");
    const after = files(out.root);
    const changed = Object.keys(after).filter((f) => after[f] !== before[f]);
    expect(changed.sort()).toEqual(
      [
        "_state/acme%2Fweather.json",
        "lines/repo=acme%2Fweather/part-000001.parquet",
        "records/repo=acme%2Fweather/part-000002.parquet",
        "repos/repo=acme%2Fweather/part-000001.parquet",
      ].sort(),
    );
    const { byRepo: _b, repos: _r, ...numbers } = org("--repo", "acme/weather");
    expect(numbers).toEqual(statsOf(weather));
  });
});

/** The agent writes one more line of the weather API (a new record). */
function agentEditsWeatherAgain(ws: TempWorkspace): void {
  const file = "src/api/weather.ts";
  const before = "  fetchedAt: Date;";
  const after = "  fetchedAt: Date;\n  source: string;";
  runHook("claude-code", claudeEdit(ws, "PreToolUse", file, before, after), { cwd: ws.root });
  ws.write(file, ws.read(file).replace(before, after));
  const post = runHook("claude-code", claudeEdit(ws, "PostToolUse", file, before, after), { cwd: ws.root });
  if (post.status !== 0) throw new Error(post.stderr);
}

/**
 * A git workspace where an agent (Claude Sonnet, through its hooks, under INT-001) edited weather.ts once, and
 * a fresh folder for each name in `folders`; all of them removed once `body` is done.
 */
async function withAgentEdit(folders: string[], body: (ws: TempWorkspace, dirs: string[]) => Promise<void>): Promise<void> {
  const ws = gitWorkspace();
  const dirs = folders.map((name) => mkdtempSync(join(tmpdir(), `intent-org-${name}-`)));
  try {
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    agentEditsWeather(ws);
    await body(ws, dirs);
  } finally {
    ws.dispose();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

describe("the export's folder", () => {
  it("inside the repository ignores itself: `intent stats` does not count it, and a second export finds nothing new", () => {
    const ws = gitWorkspace();
    try {
      const before = statsOf(ws);
      cli(ws, ["export", "--format", "parquet", "--out", "intent-export", "--repo", "inside"]);
      expect(readFileSync(ws.path("intent-export/.gitignore"), "utf8")).toContain("\n*\n");
      expect(statsOf(ws)).toEqual(before);
      expect(cli(ws, ["export", "--format", "parquet", "--out", "intent-export", "--repo", "inside"])).toContain("lines unchanged, repos unchanged");
    } finally {
      ws.dispose();
    }
  });

  it("two exports of one repository at once both finish: every record is written once, and a third finds nothing new", async () => {
    await withAgentEdit(["race"], async (ws, [dir]) => {
      const exportOnce = () =>
        new Promise<number | null>((done) => {
          const child = spawn(process.execPath, [CLI_JS, "export", "--format", "parquet", "--out", dir, "--repo", "race"], { cwd: ws.root, stdio: "ignore" });
          child.on("exit", (code) => done(code));
        });
      expect(await Promise.all([exportOnce(), exportOnce()])).toEqual([0, 0]);
      const rows = await runOrgSql(dir, "SELECT record_id FROM records");
      expect(rows).toHaveLength(1);
      expect(cli(ws, ["export", "--format", "parquet", "--out", dir, "--repo", "race"])).toContain("records nothing new");
    });
  });
});

describe("a ledger that is not the one last exported", () => {
  it("is exported again from its start, its old parts removed; a line with no time is left out, as `intent export` leaves it", async () => {
    await withAgentEdit(["rewritten"], async (ws, [dir]) => {
      agentEditsWeatherAgain(ws);
      const exportIt = () => cli(ws, ["export", "--format", "parquet", "--out", dir, "--repo", "rewritten"]);
      exportIt();
      expect(readdirSync(join(dir, "records/repo=rewritten"))).toEqual(["part-000001.parquet"]);
      // history rewritten: the first record dropped, and a line whose time is not a time added
      const ledger = ws.path(".orchestration/agent_trace.jsonl");
      const records = readFileSync(ledger, "utf8").trim().split("\n");
      const copy = (id: string, timestamp?: string) => JSON.stringify({ ...JSON.parse(records[1]!), id, ...(timestamp ? { timestamp } : {}) });
      // as many lines as were exported, the second another: only the watermark's hash tells
      writeFileSync(ledger, `${[records[1], copy("another"), copy("odd-time", "the day after tomorrow"), copy("third")].join("\n")}\n`);
      expect(exportIt()).toContain("(the ledger is not the one last exported: written again from its start)");
      expect(readdirSync(join(dir, "records/repo=rewritten"))).toEqual(["part-000001.parquet"]);
      const rows = await runOrgSql(dir, "SELECT record_id, timestamp FROM records ORDER BY ledger_line");
      expect(rows.map((r) => r["record_id"])).toEqual([JSON.parse(records[1]!).id, "another", "third"]);
    });
  });
});

describe("the export's shortcut when nothing changed", () => {
  it("is taken only when the lines would come out the same: a file changed in the working tree alone is counted again, and equals a full export", async () => {
    await withAgentEdit(["kept", "fresh"], async (ws, [kept, fresh]) => {
      const exportTo = (dir: string) => cli(ws, ["export", "--format", "parquet", "--out", dir, "--repo", "r"]);
      exportTo(kept);
      // a person's change nobody records: the ledger and HEAD are as they were, the working tree is not
      ws.write("src/api/forecast.ts", `${ws.read("src/api/forecast.ts")}// typed in a terminal\n`);
      expect(exportTo(kept)).toMatch(/lines \d+ rows/);
      exportTo(fresh);
      const lines = async (dir: string) => runOrgSql(dir, "SELECT * FROM lines ORDER BY path, start_line");
      // the plain path (an export with nothing kept) and the kept one agree, and both are `intent stats`'s
      expect(await lines(kept)).toEqual(await lines(fresh));
      const { byRepo: _b, repos: _r, ...numbers } = JSON.parse(cli(ws, ["org", "stats", "--from", kept, "--json"]));
      expect(numbers).toEqual(statsOf(ws));
    });
  });
});
