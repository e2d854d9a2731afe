import { readFileSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { runCliInProcess, runHookInProcess } from "../support/cliRunner";
import { git, gitAt } from "../support/gitRepository";
import { claudeEdit } from "../support/hookPayloads";
import { startInProcess } from "../support/inProcessServer";
import type { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";

/**
 * A repository with a history and no ledger takes up intent-lsp (docs/ATTRIBUTION.md "Before adoption"):
 * `intent init` records the adoption point; the lines still as they were there count as "before adoption",
 * with the author git names, in stats, the report, blame and hover; "untraced" counts only the lines changed
 * since that no record explains.
 */

beforeAll(ensureBuilt);

const ADA = "Ada Lovelace <ada@example.com>";
const GRACE = "Grace Hopper <grace@example.com>";
const WEATHER = "src/api/weather.ts";
const NOTES = "docs/notes.md";
const AGENT_LINE = "// the forecast is cached for ten minutes";

let ws: TempWorkspace;
let client: LspClient | undefined;
afterEach(async () => {
  await client?.stop();
  client = undefined;
  ws?.dispose();
});

/**
 * The example workspace as a repository two people built before intent-lsp: Ada committed it all in 2024,
 * Grace changed a line of the notes in 2025; no ledger.
 */
function legacyRepository(): TempWorkspace {
  const w = new TempWorkspace({ withLedger: false });
  git(w.root, "init", "-q");
  git(w.root, "add", "-A");
  gitAt(w.root, "2024-05-01T10:00:00Z", "commit", "-q", `--author=${ADA}`, "-m", "the weather service");
  const notes = w.read(NOTES).split("\n");
  notes[0] = "# Notes on the weather service";
  w.write(NOTES, notes.join("\n"));
  gitAt(w.root, "2025-03-02T10:00:00Z", "commit", "-q", "-a", `--author=${GRACE}`, "-m", "a title");
  return w;
}

/** Each file's lines as they are now and as they were at `rev`. */
function linesAt(rev: string, path: string): string[] {
  return git(ws.root, "show", `${rev}:${path}`).replace(/\n$/, "").split("\n");
}
const linesNow = (path: string) => ws.read(path).replace(/\n$/, "").split("\n");

describe("before adoption", () => {
  it("init records the adoption point; stats, report, blame and hover count the lines kept since apart from the untraced", async () => {
    ws = legacyRepository();
    const head = git(ws.root, "rev-parse", "HEAD").trim();

    // 1. init records HEAD as the adoption point, and says so
    const init = await runCliInProcess(["init"], { cwd: ws.root });
    expect(init.status).toBe(0);
    expect(init.stdout).toContain(
      `recorded the adoption point in .orchestration/adoption.json: commit ${head.slice(0, 12)} (HEAD: no commit holds the ledger yet)`,
    );
    expect(JSON.parse(ws.read(".orchestration/adoption.json"))).toEqual({ commit: head, date: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    // a second run keeps it
    const again = await runCliInProcess(["init"], { cwd: ws.root });
    expect(again.stdout).not.toContain("adoption point");
    expect((await runCliInProcess(["doctor"], { cwd: ws.root })).stdout).toMatch(
      new RegExp(`^ok {7}adoption point: commit ${head.slice(0, 12)}, recorded \\d{4}-\\d\\d-\\d\\d$`, "m"),
    );

    // 2. after adoption: an agent changes a line of weather.ts (recorded); a person changes a line of the notes (no record)
    ws.select("INT-001");
    const weatherOld = linesNow(WEATHER)[2]!;
    const pre = await runHookInProcess("claude-code", claudeEdit(ws, "PreToolUse", WEATHER, weatherOld, AGENT_LINE), { cwd: ws.root });
    expect(pre.status).toBe(0);
    ws.write(WEATHER, ws.read(WEATHER).replace(weatherOld, AGENT_LINE));
    expect((await runHookInProcess("claude-code", claudeEdit(ws, "PostToolUse", WEATHER, weatherOld, AGENT_LINE), { cwd: ws.root })).status).toBe(0);
    const notes = linesNow(NOTES);
    notes[2] = "A line a person wrote after adoption, with no record.";
    ws.write(NOTES, `${notes.join("\n")}\n`);

    // 3. the oracle: every counted file's lines compared with the adoption commit's, line by line (the edits
    //    replace lines in place; init appends its lines to .gitignore and .gitattributes, unrecorded)
    const stats = await runCliInProcess(["stats", "--json"], { cwd: ws.root });
    expect(stats.stderr).toBe("");
    const s = JSON.parse(stats.stdout);
    const files = s.byFile as { path: string; lines: Record<string, number> }[];
    expect(files.map((f) => f.path).sort()).toEqual([
      ".gitattributes",
      ".gitignore",
      "README.md",
      NOTES,
      "src/api/forecast.ts",
      "src/api/weather.ts",
      "src/auth/middleware.ts",
      "src/billing/export.ts",
    ]);
    let kept = 0;
    let changed = 0;
    for (const f of files) {
      const then = linesAt(head, f.path);
      const now = linesNow(f.path);
      expect(now.length, f.path).toBeGreaterThanOrEqual(then.length);
      const same = now.filter((l, i) => l === then[i]).length;
      kept += same;
      changed += now.length - same;
      expect(f.lines.beforeAdoption, f.path).toBe(same);
    }
    const byInit =
      linesNow(".gitignore").length - linesAt(head, ".gitignore").length + linesNow(".gitattributes").length - linesAt(head, ".gitattributes").length;
    expect(byInit).toBeGreaterThan(0);
    expect(changed).toBe(2 + byInit);
    expect(s.lines).toEqual({ total: kept + changed, ai: 1, human: 0, mixed: 0, unknown: 0, untraced: 1 + byInit, beforeAdoption: kept, outOfScope: 0 });

    // one verdict: each file's counts are the sum of its `intent blame` rows
    for (const f of files) {
      const rows = JSON.parse((await runCliInProcess(["blame", f.path, "--json"], { cwd: ws.root })).stdout).lines as { author: string }[];
      const byAuthor: Record<string, number> = {};
      for (const r of rows) byAuthor[r.author] = (byAuthor[r.author] ?? 0) + 1;
      expect({ ai: f.lines.ai, untraced: f.lines.untraced, beforeAdoption: f.lines.beforeAdoption }, f.path).toEqual({
        ai: byAuthor["ai"] ?? 0,
        untraced: byAuthor["untraced"] ?? 0,
        beforeAdoption: byAuthor["beforeAdoption"] ?? 0,
      });
    }

    // the text says both, untraced meaning "changed since"
    const text = (await runCliInProcess(["stats"], { cwd: ws.root })).stdout;
    expect(text).toContain(`before adoption ${kept.toLocaleString("en")} (`);
    expect(text).toContain(`untraced ${1 + byInit} (`);
    expect(text).toContain("changed since, no record explains them");
    // the folder table's columns add up to its lines: before adoption has its own
    const src = text.split("\n").find((l) => l.startsWith("src/ "))!;
    const folderHead = text.split("\n").find((l) => l.startsWith("folder "))!;
    expect(folderHead).toMatch(/unknown {2}out of scope {2}before adoption {2}untraced$/);
    const cells = src.split(/\s{2,}/);
    const srcLines = files.filter((f) => f.path.startsWith("src/")).reduce((a, f) => a + f.lines.beforeAdoption, 0);
    expect(cells.slice(-2)).toEqual([String(srcLines), "0"]);

    // 4. the report shows both
    const out = ws.path("report.html");
    expect((await runCliInProcess(["report", "--out", out], { cwd: ws.root })).status).toBe(0);
    const html = readFileSync(out, "utf8");
    expect(html).toContain(`before adoption (${kept.toLocaleString("en")} lines as they were when intent-lsp was taken up)`);
    expect(html).toContain(`untraced (${1 + byInit} lines no record explains, changed since adoption)`);
    expect(html).toContain("<th>unknown</th><th>before adoption</th><th>untraced</th><th>out of scope</th>");

    // 5. blame: git's authors on the lines kept, marked as git's; the person's new line untraced; the agent's traced
    const blame = JSON.parse((await runCliInProcess(["blame", NOTES, "--json"], { cwd: ws.root })).stdout).lines as {
      kind: string;
      author: string;
      git?: { name: string; date: string };
    }[];
    expect(blame.slice(0, 4).map((r) => [r.kind, r.author, r.git?.name, r.git?.date.slice(0, 10)])).toEqual([
      ["beforeAdoption", "beforeAdoption", "Grace Hopper", "2025-03-02"],
      ["beforeAdoption", "beforeAdoption", "Ada Lovelace", "2024-05-01"],
      ["untraced", "untraced", undefined, undefined],
      ["beforeAdoption", "beforeAdoption", "Ada Lovelace", "2024-05-01"],
    ]);
    const blameText = (await runCliInProcess(["blame", `${NOTES}:1-3`], { cwd: ws.root })).stdout;
    expect(blameText.split("\n")[0]).toMatch(
      /^1 {2}before adoption {2}Grace Hopper \(git\) {2}2025-03-02 10:00 {2}[0-9a-f]{8} │ # Notes on the weather service$/,
    );
    expect(blameText.split("\n")[2]).toMatch(/^3 {2}untraced/);
    const weather = JSON.parse((await runCliInProcess(["blame", `${WEATHER}:3`, "--json"], { cwd: ws.root })).stdout).lines;
    expect(weather).toEqual([expect.objectContaining({ kind: "traced", author: "ai", intent: "INT-001" })]);

    // 6. hover says what blame says
    client = await startInProcess({ root: ws.root });
    await client.open(NOTES);
    const first = await hoverOnceKnown(client, NOTES, 0);
    expect(first).toContain("**Before adoption:** no ledger record covers this line; it is as it was when the repository took up intent-lsp.");
    expect(first).toContain("Grace Hopper (git) · 2025-03-02 (commit ");
    expect(await client.hoverText(NOTES, 1)).toContain("Ada Lovelace (git) · 2024-05-01");
    expect(await client.hoverText(NOTES, 2)).toContain("**Untraced:** no ledger record covers this line.");
    // the editor's blame command says what `intent blame` says, for an open file and a closed one
    for (const path of [NOTES, "README.md"]) {
      const cli = JSON.parse((await runCliInProcess(["blame", path, "--json"], { cwd: ws.root })).stdout).lines;
      const editor = (await client.executeCommand("intent.blame", { path })) as { lines: unknown[] };
      expect(editor.lines, path).toEqual(cli);
    }
  });

  it("a repository whose ledger is already committed: the adoption point is the commit before the one that added it", async () => {
    ws = legacyRepository();
    const before = git(ws.root, "rev-parse", "HEAD").trim();
    ws.write(".orchestration/agent_trace.jsonl", "");
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "the ledger");
    ws.write("src/api/weather.ts", `${ws.read("src/api/weather.ts")}// a line after the ledger, no record\n`);
    git(ws.root, "commit", "-q", "-am", "after");
    const init = await runCliInProcess(["init"], { cwd: ws.root });
    expect(init.stdout).toContain(`commit ${before.slice(0, 12)} (the commit before `);
    expect(JSON.parse(ws.read(".orchestration/adoption.json")).commit).toBe(before);
    const s = JSON.parse((await runCliInProcess(["stats", "--json", "--path", "src/api/weather.ts"], { cwd: ws.root })).stdout);
    expect(s.lines).toMatchObject({ untraced: 1, beforeAdoption: s.lines.total - 1 });
  });

  it("a file renamed since the adoption point keeps its lines from before it", async () => {
    ws = legacyRepository();
    await runCliInProcess(["init"], { cwd: ws.root });
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "intent-lsp set up");
    git(ws.root, "mv", "src/billing/export.ts", "src/billing/exporter.ts");
    git(ws.root, "commit", "-q", "-m", "renamed");
    const rows = JSON.parse((await runCliInProcess(["blame", "src/billing/exporter.ts", "--json"], { cwd: ws.root })).stdout).lines as {
      kind: string;
      git?: { name: string };
    }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.kind === "beforeAdoption" && r.git?.name === "Ada Lovelace")).toBe(true);
    // the editor follows the rename as blame does
    client = await startInProcess({ root: ws.root });
    await client.open("src/billing/exporter.ts");
    expect(await hoverOnceKnown(client, "src/billing/exporter.ts", 0)).toContain("Ada Lovelace (git) · 2024-05-01");
  });

  it("an adoption file that is not one counts no line as before adoption: every unexplained line stays untraced", async () => {
    ws = legacyRepository();
    ws.write(".orchestration/adoption.json", "{ not json");
    const s = JSON.parse((await runCliInProcess(["stats", "--json"], { cwd: ws.root })).stdout);
    expect(s.lines.beforeAdoption).toBe(0);
    expect(s.lines.untraced).toBe(s.lines.total);
    // intent doctor says so, with the fix
    const doctor = (await runCliInProcess(["doctor"], { cwd: ws.root })).stdout;
    expect(doctor).toMatch(
      /^warning {2}adoption point: \.orchestration\/adoption\.json: it is not JSON .+: no line counts as before adoption, every line no record explains is untraced$/m,
    );
    expect(doctor).toContain("fix: remove .orchestration/adoption.json and run `intent init` to record it again");
  });
});

/** The hover of `line` once the editor has heard git's answer (it asks in the background; until then it says so). */
async function hoverOnceKnown(client: LspClient, path: string, line: number): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const text = await client.hoverText(path, line);
    if (!/Indexing/.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`the editor never heard git's answer for ${path}: ${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
