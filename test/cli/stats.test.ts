import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LspClient } from "../support/lspClient";
import type { TempWorkspace } from "../support/workspace";
import { claudeEdit, ensureBuilt, git, gitWorkspace, ledgerRecords, runCli, runHook, writeTranscript } from "./support";

/**
 * `intent stats` counted against a workspace built the way real work builds it: an agent writes through its
 * hooks, a person saves through the language server (once outside the selected intent's scope), committed
 * lines nobody recorded, an untracked file, an ignored one. Every number is known from the steps taken.
 */

beforeAll(ensureBuilt);

const AI_LINES = ["  city: string; // the city asked for", "  country?: string;", "  fetchedAt: Date;"];
const MODEL = "anthropic/claude-sonnet-4-5-20250929";
const PERSON = "Ada Lovelace";

/** Lines of each counted file once the steps below are done (the example workspace's files as they are). */
const FILE_LINES: Record<string, number> = {
  "src/api/weather.ts": 18 + 2, // the agent replaced one line with three
  "src/api/forecast.ts": 10 + 2, // the person inserted two
  "docs/notes.md": 12, // the person changed one, out of INT-001's scope
  "src/auth/middleware.ts": 4,
  "src/billing/export.ts": 3,
  "README.md": 3,
  ".gitattributes": 1,
  ".gitignore": 1,
  "scratch/untracked.txt": 2, // never committed, never recorded
};
const TOTAL = Object.values(FILE_LINES).reduce((a, b) => a + b, 0);

const counts = (c: Partial<Record<"total" | "ai" | "human" | "mixed" | "unknown" | "untraced" | "outOfScope", number>>) => ({ total: 0, ai: 0, human: 0, mixed: 0, unknown: 0, untraced: 0, outOfScope: 0, ...c });

describe("intent stats", () => {
  let ws: TempWorkspace;
  let client: LspClient | undefined;

  beforeAll(async () => {
    ws = gitWorkspace();
    git(ws.root, "config", "user.name", PERSON);
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");

    // the agent, through its hooks
    const weather = "src/api/weather.ts";
    const before = "  city: string;";
    const after = AI_LINES.join("\n");
    expect(runHook("claude-code", claudeEdit(ws, "PreToolUse", weather, before, after), { cwd: ws.root }).status).toBe(0);
    ws.write(weather, ws.read(weather).replace(before, after));
    expect(runHook("claude-code", claudeEdit(ws, "PostToolUse", weather, before, after), { cwd: ws.root }).status).toBe(0);

    // the person, through the editor: two lines in scope, one out of scope
    client = await LspClient.start({ root: ws.root });
    await client.open("src/api/forecast.ts");
    await client.insertLines("src/api/forecast.ts", 4, ["", "export const HOURS = 24;"]);
    await client.save("src/api/forecast.ts");
    await client.open("docs/notes.md");
    await client.setLine("docs/notes.md", 10, "- Write the onboarding guide this week.");
    await client.save("docs/notes.md");
    await client.stop();
    client = undefined;

    ws.write("scratch/untracked.txt", "one\ntwo\n");
    ws.write("dist/bundle.js", "ignored\nby\ngit\n");
    ws.write(".orchestration/notes.txt", "exempt\n");
  }, 60_000);

  afterAll(async () => {
    await client?.stop();
    ws?.dispose();
  });

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
    expect(s.outOfScope.blocks).toEqual([expect.objectContaining({ path: "docs/notes.md", start: 11, end: 11, author: "human", intent: "INT-001", person: PERSON })]);
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

  it("restricts to --path and prints a readable table that says how much is untraced", () => {
    const s = JSON.parse(runCli(["stats", "--json", "--path", "src/api"], { cwd: ws.root }).stdout);
    expect(s.lines).toEqual(counts({ total: 32, ai: 3, human: 2, untraced: 27 }));
    const text = runCli(["stats", "--path", "src/api"], { cwd: ws.root });
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("AI wrote 9% of 32 lines in 2 files matching src/api.\n");
    expect(text.stdout).toContain("ai 3 · human 2 · mixed 0 · unknown 0 · untraced 27 (84%: no record explains them)\n");
    expect(text.stdout).toMatch(/^INT-001 +5 +60% +3 +2 +0 +0 +0$/m);
    expect(text.stdout).toMatch(/^anthropic\/claude-sonnet-4-5-20250929 +3 +100% +3 +0 +0 +0 +0$/m);
  });

  it("gives the history per period with the durability of the AI's lines", () => {
    const day = ledgerRecords(ws)[0]!.timestamp.slice(0, 10);
    const s = JSON.parse(runCli(["stats", "--json", "--by", "day", "--since", day], { cwd: ws.root }).stdout);
    expect(s.history.periods).toEqual([
      { period: day, written: { ai: 3, human: 3, mixed: 0, unknown: 0 }, writtenOutOfScope: 1, surviving: { ai: 3, human: 3, mixed: 0, unknown: 0 }, durability: 1 },
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
