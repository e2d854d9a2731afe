import { spawnSync } from "node:child_process";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { selects } from "../../server/src/engine/revert";
import { WorkspaceLedger } from "../../server/src/io/ledger/workspaceLedger";
import { revertCandidates } from "../../server/src/io/revert";
import { ensureBuilt } from "../support/builtDist";
import { DEW_POINT } from "../support/codeBlocks";
import { runCli, runCliInProcess } from "../support/cliRunner";
import { claudeWritesInProcess } from "../support/agentWrites";
import { gitWorkspace } from "../support/gitRepository";
import { prng } from "../support/protocolFuzz";
import { writeTranscript } from "../support/hookPayloads";
import {
  AFTER_BOTH,
  ALERTS,
  claudeEdits,
  codexShell,
  mixedWorkspace,
  PERSON_LINE,
  SONNET,
  text,
  UNITS,
  WEATHER,
  WITHOUT_CLAUDE,
} from "../support/revertWorkspace";
import type { TempWorkspace } from "../support/workspace";

/**
 * `intent revert` (docs/CLI.md): what one model, intent or session wrote is taken back from workspaces built
 * by real hook calls and editor saves, and nothing else is touched. The hooks, the editor and the commands
 * run in this process (what they decide is the subject); the patch is checked with `git apply`.
 */

beforeAll(ensureBuilt);

type BlameRow = { line: number; kind: string; model?: string; contributor?: string; person?: string; text: string };

async function blame(ws: TempWorkspace, path: string): Promise<BlameRow[]> {
  const r = await runCliInProcess(["blame", path, "--json"], { cwd: ws.root });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout).lines;
}

const ownerOf = (r: BlameRow) => (r.kind === "traced" ? (r.model ?? r.person ?? r.contributor!) : r.kind);

async function revert(ws: TempWorkspace, ...args: string[]) {
  const r = await runCliInProcess(["revert", ...args], { cwd: ws.root });
  return { ...r, json: args.includes("--json") && r.status === 0 ? JSON.parse(r.stdout) : undefined };
}

describe("intent revert", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.dispose());

  it("--dry-run lists exactly the lines it takes out and every line of the model's it leaves alone, with the reason", async () => {
    ws = await mixedWorkspace();
    expect(ws.read(WEATHER)).toBe(text(AFTER_BOTH));
    const r = await revert(ws, "--model", SONNET, "--json");
    expect(r.status, r.stderr).toBe(0);
    expect(r.json.reverted).toEqual([{ path: WEATHER, lines: [7, 8, 11, 17, 19] }]);
    expect(r.json.leftAlone.map((l: { path: string; line: number; reason: string; why: string }) => [l.path, l.line, l.reason, l.why])).toEqual([
      ...ALERTS.map((_, i) => ["src/api/alerts-v2.ts", i + 1, "moved", "renamed or copied here from src/api/alerts.ts, as git shows it (not recorded)"]),
      ...UNITS.map((_, i) => ["src/api/v2/units.ts", i + 1, "moved", "moved here from src/api/units.ts"]),
      [WEATHER, 18, "edited", "since edited by Ada (human)"],
    ]);
    expect(r.json.notes.map((n: { path: string; line: number }) => [n.path, n.line])).toEqual([
      [WEATHER, 17],
      [WEATHER, 19],
    ]);
    expect(r.json.applied).toBe(false);
    // a dry run writes nothing
    expect(ws.read(WEATHER)).toBe(text(AFTER_BOTH));
  });

  it("answers the same when the records' clocks disagree with the order they were written in", async () => {
    ws = await mixedWorkspace();
    const plain = await revert(ws, "--model", SONNET, "--json");
    // and so do blame, check and stats, which read the same chains: every line's blame of the files the records name (the times they say are the stamps, which differ)
    const owners = async () => {
      const rows: string[] = [];
      for (const path of [WEATHER, "src/api/alerts-v2.ts", "src/api/v2/units.ts"])
        for (const row of await blame(ws, path)) rows.push(JSON.stringify(row, (k, v) => (k === "timestamp" ? undefined : v)));
      return rows;
    };
    const output = async (...args: string[]) => (await runCliInProcess(args, { cwd: ws.root })).stdout;
    const [plainCheck, plainStats] = [await output("check", "--format", "json"), await output("stats", "--json")];
    expect(JSON.parse(plainStats).lines.ai).toBeGreaterThan(0);
    const plainOwners = await owners();
    // every record stamped up to two hours off (agents' sandboxes and people's machines keep their own
    // clocks): the stamps out of order, the records and their order unchanged; four ways
    const ledger = ".orchestration/agent_trace.jsonl";
    const written = ws.read(ledger);
    for (const seed of [20261130, 20261201, 7, 42]) {
      const rand = prng(seed);
      const skewed = written.split("\n").map((line) => {
        if (!line.trim()) return line;
        const r = JSON.parse(line) as { timestamp?: string };
        if (typeof r.timestamp === "string") r.timestamp = new Date(Date.parse(r.timestamp) + Math.floor((rand() * 2 - 1) * 7_200_000)).toISOString();
        return JSON.stringify(r);
      });
      ws.write(ledger, skewed.join("\n"));
      const again = await revert(ws, "--model", SONNET, "--json");
      expect(again.status, again.stderr).toBe(0);
      expect(again.json, `seed ${seed}`).toEqual(plain.json);
      expect(await owners(), `seed ${seed}`).toEqual(plainOwners);
      expect(await output("check", "--format", "json"), `seed ${seed}`).toBe(plainCheck);
      expect(await output("stats", "--json"), `seed ${seed}`).toBe(plainStats);
    }
  });

  it("the dry run's text output is a patch git applies, giving the file without the model's work", async () => {
    ws = await mixedWorkspace();
    const r = await revert(ws, "--model", "claude-sonnet-4-5-20250929");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${WEATHER}: reverts line(s) 7-8, 11, 17, 19\n`);
    expect(r.stdout).toContain(`${WEATHER}:18: left alone (edited): since edited by Ada (human) │ ${PERSON_LINE}\n`);
    expect(r.stdout).toContain("src/api/v2/units.ts:1: left alone (moved): moved here from src/api/units.ts │ ");
    const apply = spawnSync("git", ["apply", "-"], { cwd: ws.root, input: r.stdout, encoding: "utf8" });
    expect(apply.status, apply.stderr).toBe(0);
    expect(ws.read(WEATHER)).toBe(text(WITHOUT_CLAUDE));
  });

  it("--apply writes the file without the model's work; blame names the model on no line there, and every other line keeps its owner", async () => {
    ws = await mixedWorkspace();
    const before = await blame(ws, WEATHER);
    const r = await revert(ws, "--model", SONNET, "--apply");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`wrote ${WEATHER}\n`);
    expect(ws.read(WEATHER)).toBe(text(WITHOUT_CLAUDE));
    const after = await blame(ws, WEATHER);
    expect(after.filter((row) => row.model === SONNET)).toEqual([]);
    // the lines kept, in order, with the owners they had; the restored comment is nobody's on record now
    const kept = before.filter((row) => ![7, 8, 11, 17, 19].includes(row.line));
    const restoredAt = 9;
    expect(after.filter((row) => row.line !== restoredAt).map((row) => [row.text, ownerOf(row)])).toEqual(kept.map((row) => [row.text, ownerOf(row)]));
    expect(ownerOf(after.find((row) => row.line === restoredAt)!)).not.toBe(SONNET);
    expect(ownerOf(after.find((row) => row.text === PERSON_LINE)!)).toBe("Ada");
    // the moved and renamed files are left as they are
    expect(ws.read("src/api/alerts-v2.ts")).toBe(text(ALERTS));
    expect(ws.read("src/api/v2/units.ts")).toBe(text(UNITS));
    // nothing of the model's is left to revert
    const again = await revert(ws, "--model", SONNET, "--json");
    expect(again.json.reverted).toEqual([]);
    expect(again.json.patch).toBe("");
  });

  it("a file the agent created and then edited is taken back whole: its own earlier lines are not put back", async () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    await claudeWritesInProcess(ws, "src/api/dew.ts", text(["export const DEW = 1;", "export const FROST = 0;"]));
    await claudeEdits(ws, "src/api/dew.ts", "export const DEW = 1;", "export const DEW = 2;");
    const r = await revert(ws, "--intent", "INT-001", "--apply", "--json");
    expect(r.status, r.stderr).toBe(0);
    expect(r.json.reverted).toEqual([{ path: "src/api/dew.ts", lines: [1, 2] }]);
    expect(r.json.notes).toEqual([]);
    expect(ws.read("src/api/dew.ts")).toBe("");
  });

  it("a line the agent rewrote twice is taken out, and the note says the line its first rewrite replaced is not put back", async () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    await claudeEdits(ws, WEATHER, "  celsius: number;\n", "  celsius: number; // rounded\n");
    await claudeEdits(ws, WEATHER, "  celsius: number; // rounded\n", "  celsius: number; // rounded to a degree\n");
    const r = await revert(ws, "--model", SONNET, "--json");
    expect(r.json.reverted).toEqual([{ path: WEATHER, lines: [5] }]);
    expect(r.json.notes).toHaveLength(1);
    expect(r.json.notes[0].line).toBe(5);
    expect(r.json.notes[0].note).toMatch(
      /^the lines record \w{8} replaced here were the same contributor's own \(record \w{8}\); what that earlier change replaced is not put back$/,
    );
    expect(r.json.patch).toContain("\n-  celsius: number; // rounded to a degree\n");
  });

  it("--session and --since choose records: a session's id or url, and only records from that time on", async () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    await claudeEdits(ws, WEATHER, "  summary: string;\n", "  summary: string;\n  fahrenheit: number;\n");
    const bySession = await revert(ws, "--session", "claude-7f3a2c1e-0b5d-4c7e-9a41-2f6d8e9b1c30", "--json");
    expect(bySession.json.reverted).toEqual([{ path: WEATHER, lines: [7] }]);
    const byUrl = await revert(ws, "--session", "urn:intent-lsp:session:claude-7f3a2c1e-0b5d-4c7e-9a41-2f6d8e9b1c30", "--json");
    expect(byUrl.json.reverted).toEqual([{ path: WEATHER, lines: [7] }]);
    const later = await revert(ws, "--model", SONNET, "--since", "2999-01-01");
    expect([later.status, later.stderr]).toEqual([
      1,
      `intent revert: no record of model ${SONNET} since 2999-01-01 in the ledger of ${ws.root}; \`intent stats\` lists the intents, models and people on record\n`,
    ]);
  });

  it("usage mistakes exit 2 with what to do; a contributor with no record exits 1", async () => {
    ws = gitWorkspace();
    expect(await revert(ws)).toMatchObject({
      status: 2,
      stderr: "intent revert: name whose work to take back: --intent ID, --model MODEL or --session SESSION (see `intent revert --help`)\n",
    });
    expect(await revert(ws, "--intent", "INT-001", "--model", "x")).toMatchObject({
      status: 2,
      stderr: "intent revert: --intent and --model both given; name one contributor per revert (see `intent revert --help`)\n",
    });
    expect(await revert(ws, "--intent", "INT-001", "--apply", "--dry-run")).toMatchObject({
      status: 2,
      stderr: "intent revert: --dry-run and --apply both given; pick one (--dry-run is the default)\n",
    });
    expect(await revert(ws, "--intent", "INT-001", "--since", "yesterday")).toMatchObject({
      status: 2,
      stderr: 'intent revert: --since "yesterday" is not a date or time; give an ISO date like 2026-01-31 or 2026-01-31T14:00Z\n',
    });
    expect(await revert(ws, "--intent", "INT-009")).toMatchObject({ status: 1 });
  });

  it("is a command of the CLI: listed in intent --help, and its process answers as the in-process run does", async () => {
    ws = gitWorkspace();
    const help = runCli(["--help"], { cwd: ws.root });
    expect(help.stdout).toMatch(/\n {2}revert +take back what one intent, model or session wrote/);
    expect(runCli(["revert", "--intent", "INT-009"], { cwd: ws.root }).status).toBe(1);
  });
});

describe("the files intent revert looks in", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.dispose());

  it("are the model's files and where their content went, each path's records read once to find them", async () => {
    ws = await mixedWorkspace();
    const ledger = new WorkspaceLedger(ws.root, ".orchestration/agent_trace.jsonl");
    await ledger.poll();
    const asked = new Map<string, number>();
    const entriesFor = ledger.entriesFor.bind(ledger);
    ledger.entriesFor = (path: string) => {
      asked.set(path, (asked.get(path) ?? 0) + 1);
      return entriesFor(path);
    };
    const found = revertCandidates(ws.root, ledger, (e) => selects({ model: SONNET }, e));
    // the recorded move (units) and git's rename nobody recorded (alerts), followed from the model's files
    expect(found).toEqual({ matched: true, paths: ["src/api/alerts-v2.ts", "src/api/v2/units.ts", WEATHER] });
    expect([...asked.keys()].sort()).toEqual(ledger.files().sort());
    expect([...asked.values()].every((n) => n === 1)).toBe(true);
  });
  it("follow a block the model wrote that another agent then cut and pasted into another file (moved_lines)", async () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    const helper = DEW_POINT;
    await claudeWritesInProcess(ws, "src/api/humidity.ts", text(["// humidity", ...helper]));
    await codexShell(ws, "sed -n '2,7p' src/api/humidity.ts > src/api/dew.ts && sed -i '2,7d' src/api/humidity.ts");
    const ledger = new WorkspaceLedger(ws.root, ".orchestration/agent_trace.jsonl");
    await ledger.poll();
    const found = revertCandidates(ws.root, ledger, (e) => selects({ model: SONNET }, e));
    expect(found).toEqual({ matched: true, paths: ["src/api/dew.ts", "src/api/humidity.ts"] });
    const r = await revert(ws, "--model", SONNET, "--json");
    expect(r.json.leftAlone.map((l: { path: string; line: number; reason: string }) => [l.path, l.line, l.reason])).toEqual(
      helper.map((_, i) => ["src/api/dew.ts", i + 1, "moved"]),
    );
  });
});
