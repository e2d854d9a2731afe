import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { LspClient } from "../support/lspClient";
import type { TempWorkspace } from "../support/workspace";
import { codexPayload } from "../support/agentFixtures";
import { ensureBuilt } from "../support/builtDist";
import { DEW_POINT } from "../support/codeBlocks";
import { runCliInProcess, runHookInProcess } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { claudeEdit, claudePayload, writeTranscript } from "../support/hookPayloads";
import { startInProcess } from "../support/inProcessServer";
import { ledgerRecords } from "../support/ledgerFile";

/**
 * An agent's cut and paste across files (docs/LEDGER.md "Renames, moves and copies"): a block this session
 * removed from one file and wrote into another keeps the owners it had there; the agent's own new lines are
 * its own, and text that only looks like another file's is the agent's too. `intent blame` and the hover
 * say the same.
 */

beforeAll(ensureBuilt);

const SONNET = "anthropic/claude-sonnet-4-5-20250929";
const CODEX_MODEL = "openai/gpt-5-codex";
const FORECAST = "src/api/forecast.ts";
const DEW = "src/api/dew.ts";
const HELPER = DEW_POINT;
/** Another block of the person's, left where it is: an agent writing the same text elsewhere wrote it itself. */
const KELVIN = ["export function kelvin(celsius: number): number {", "  return celsius + 273.15;", "}"];
const AGENT_HEAD = ["// Dew point helpers, split out of forecast.ts.", ""];
/** A block of the person's in another file, which no session cuts from. */
const UNITS = "src/api/units.ts";
const LITERS = ["export function liters(gallons: number): number {", "  return gallons * 3.785411784;", "}"];
const AGENT_TAIL = ["", 'export const DEW_UNIT = "°C";'];

type Row = { kind: string; contributor?: string; model?: string; from?: string; movedBy?: { contributor: string; model?: string } };

async function blameRows(ws: TempWorkspace, path: string): Promise<Row[]> {
  const r = await runCliInProcess(["blame", path, "--json"], { cwd: ws.root });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout).lines.map((l: any) => ({
    kind: l.kind,
    ...(l.contributor ? { contributor: l.contributor } : {}),
    ...(l.model ? { model: l.model } : {}),
    ...(l.from ? { from: l.from } : {}),
    ...(l.movedBy ? { movedBy: { contributor: l.movedBy.contributor, ...(l.movedBy.model ? { model: l.movedBy.model } : {}) } } : {}),
  }));
}

const text = (lines: readonly string[]) => `${lines.join("\n")}\n`;
const byAgent: Row = { kind: "traced", contributor: "ai", model: SONNET };
const byPersonMovedByAgent: Row = { kind: "traced", contributor: "human", from: FORECAST, movedBy: { contributor: "ai", model: SONNET } };

/** Claude Code's Edit of `path` through its hooks: `old` replaced by `next` between PreToolUse and PostToolUse. */
async function agentEdits(ws: TempWorkspace, path: string, old: string, next: string, session?: string): Promise<void> {
  const extra = session ? { session_id: session } : {};
  await runHookInProcess("claude-code", { ...claudeEdit(ws, "PreToolUse", path, old, next), ...extra }, { cwd: ws.root });
  const content = ws.read(path);
  expect(content).toContain(old);
  ws.write(path, content.replace(old, next));
  await runHookInProcess("claude-code", { ...claudeEdit(ws, "PostToolUse", path, old, next), ...extra }, { cwd: ws.root });
}

/** Claude Code's Write of `path` through its hooks. */
async function agentWrites(ws: TempWorkspace, path: string, content: string, session?: string): Promise<void> {
  const input = { file_path: ws.path(path), content };
  const extra = session ? { session_id: session } : {};
  const id = `toolu_w_${path}`;
  await runHookInProcess("claude-code", claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: input, tool_use_id: id, ...extra }), {
    cwd: ws.root,
  });
  ws.write(path, content);
  await runHookInProcess(
    "claude-code",
    claudePayload(ws, "PostToolUse", { tool_name: "Write", tool_input: input, tool_use_id: id, tool_response: { type: "create" }, ...extra }),
    { cwd: ws.root },
  );
}

/**
 * One Codex `apply_patch` that adds DEW holding `added` and removes HELPER from FORECAST, through its hooks.
 * The new file comes first: its record is written before the cut file's, and the call's own cut is its source.
 */
async function codexSplits(ws: TempWorkspace, added: readonly string[], callId: string): Promise<void> {
  const patch = [
    "*** Begin Patch",
    `*** Add File: ${DEW}`,
    ...added.map((l) => `+${l}`),
    `*** Update File: ${FORECAST}`,
    "@@",
    ...HELPER.map((l) => `-${l}`),
    "*** End Patch",
    "",
  ].join("\n");
  await runHookInProcess("codex", codexPayload(ws, "pre", "apply_patch", { command: patch }, callId), { cwd: ws.root });
  ws.write(FORECAST, ws.read(FORECAST).replace(text(HELPER), ""));
  ws.write(DEW, text(added));
  await runHookInProcess("codex", codexPayload(ws, "post", "apply_patch", { command: patch }, callId), { cwd: ws.root });
}

/** Claude Code's Bash command through its hooks (the person allowed it). */
async function agentRuns(ws: TempWorkspace, command: string): Promise<void> {
  const input = { command };
  await runHookInProcess("claude-code", claudePayload(ws, "PreToolUse", { tool_name: "Bash", tool_input: input, tool_use_id: "toolu_sh_1" }), { cwd: ws.root });
  const sh = spawnSync("bash", ["-c", command], { cwd: ws.root, encoding: "utf8" });
  if (sh.status !== 0) throw new Error(`the test's command failed: ${sh.stderr}`);
  await runHookInProcess(
    "claude-code",
    claudePayload(ws, "PostToolUse", { tool_name: "Bash", tool_input: input, tool_use_id: "toolu_sh_1", tool_response: { stdout: "", stderr: "" } }),
    { cwd: ws.root },
  );
}

describe("an agent's cut from one file and paste into another keeps the block's owners", () => {
  let ws: TempWorkspace;
  let client: LspClient | undefined;
  afterEach(async () => {
    await client?.stop();
    client = undefined;
    ws.dispose();
  });

  /** The person adds HELPER and KELVIN to forecast.ts in the editor and saves; the editor stays open. */
  async function personWritesHelpers(): Promise<void> {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    client = await startInProcess({ root: ws.root });
    await client.open(FORECAST);
    const end = client.text(FORECAST).split("\n").length - 1;
    await client.insertLines(FORECAST, end, ["", ...HELPER, ...KELVIN]);
    await client.save(FORECAST);
    await client.waitForPublishOfCurrentVersion(FORECAST);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "helpers");
  }

  /** `act` appends exactly one record, naming exactly `paths` (a cut that gives no paste back names its own file). */
  async function expectCutRecordsOnly(act: () => Promise<void>, paths: string[]): Promise<void> {
    const before = ledgerRecords(ws).length;
    await act();
    expect(ledgerRecords(ws).length).toBe(before + 1);
    expect(
      ledgerRecords(ws)
        .at(-1)!
        .files.map((f: { path: string }) => f.path),
    ).toEqual(paths);
  }

  /** Hover over every line of `path` (opened for it unless `open` says it is) names the same owner as `intent blame`. */
  async function expectHoverAsBlame(path: string, rows: readonly Row[], open = false): Promise<void> {
    if (!open) await client!.open(path);
    await client!.executeCommand("intent.blame", { path: "README.md", quiet: true }); // the ledger read to its end
    await client!.waitForPublishOfCurrentVersion(path);
    for (let k = 0; k < rows.length; k++) {
      const hover = await client!.hoverText(path, k);
      const row = rows[k]!;
      if (row.contributor === "human") {
        expect(hover, `line ${k + 1}`).toMatch(/human|Test/);
        expect(hover, `line ${k + 1}`).toContain(`moved by ai · ${SONNET} from \`${row.from ?? FORECAST}\``);
      } else if (row.contributor === "ai") {
        expect(hover, `line ${k + 1}`).toContain(`ai · ${SONNET}`);
        expect(hover, `line ${k + 1}`).not.toContain("moved by");
      }
    }
  }

  it("an Edit cuts the person's block and a Write makes a new file of it: blame and hover credit the block to the person, the new lines to the agent", async () => {
    await personWritesHelpers();
    await agentEdits(ws, FORECAST, text(HELPER), "");
    await agentWrites(ws, DEW, text([...AGENT_HEAD, ...HELPER, ...AGENT_TAIL]));
    const record = ledgerRecords(ws).at(-1)!;
    expect(record.files[0].path).toBe(DEW);
    // the record claims only the agent's own lines; the block is in moved_lines, from the content before the cut
    expect(record.files[0].conversations[0].ranges.map((r: any) => [r.start_line, r.end_line])).toEqual([
      [1, 2],
      [9, 10],
    ]);
    expect(record.metadata["dev.intent-lsp"].moved_lines).toEqual([{ from: FORECAST, pre_hash: expect.stringMatching(/^sha256:/), carried: [[12, 3, 6]] }]);
    const rows = await blameRows(ws, DEW);
    const expected = [...AGENT_HEAD.map(() => byAgent), ...HELPER.map(() => byPersonMovedByAgent), ...AGENT_TAIL.map(() => byAgent)];
    expect(rows).toEqual(expected);
    await expectHoverAsBlame(DEW, rows);
    // the session's cuts are out of git's view; they outlive the session for their hour (an agent restarted
    // between its cut and its paste), and a later session's end removes them once older than that
    const cuts = readdirSync(ws.path(".orchestration/.sessions/cuts"));
    expect(cuts).toHaveLength(1);
    expect(git(ws.root, "status", "--porcelain", "--", ".orchestration/.sessions")).toBe("");
    await runHookInProcess("claude-code", claudePayload(ws, "SessionEnd", { reason: "exit" }), { cwd: ws.root });
    expect(readdirSync(ws.path(".orchestration/.sessions/cuts"))).toEqual(cuts);
    const hourAgo = new Date(Date.now() - 61 * 60 * 1000);
    utimesSync(ws.path(`.orchestration/.sessions/cuts/${cuts[0]}`), hourAgo, hourAgo);
    await runHookInProcess("claude-code", claudePayload(ws, "SessionEnd", { session_id: "a-later-session", reason: "exit" }), { cwd: ws.root });
    expect(readdirSync(ws.path(".orchestration/.sessions/cuts"))).toEqual([]);
  });

  it("a block the agent changed a line of on the way: the changed line is the agent's, the rest keep the person while a piece is still a block", async () => {
    await personWritesHelpers();
    await agentEdits(ws, FORECAST, text(HELPER), "");
    const changed = [...HELPER.slice(0, 3), "  const g = (a * celsius) / (b + celsius) + Math.log(Math.max(humidity, 1) / 100);", ...HELPER.slice(4)];
    await agentWrites(ws, DEW, text(changed));
    // the two lines after the changed one hold 10 letters and digits: too few for git's copy score, so they
    // are new text where they land, as `git blame -C` reads them
    expect(await blameRows(ws, DEW)).toEqual([byPersonMovedByAgent, byPersonMovedByAgent, byPersonMovedByAgent, byAgent, byAgent, byAgent]);
  });

  it("text that only looks like another file's: a block found in a file the session took no cut from is the agent's", async () => {
    await personWritesHelpers();
    // the person's other file holds LITERS; the session never removes anything from it
    ws.write(UNITS, "");
    await client!.open(UNITS);
    await client!.insertLines(UNITS, 0, LITERS);
    await client!.save(UNITS);
    await client!.waitForPublishOfCurrentVersion(UNITS);
    await agentEdits(ws, FORECAST, text(HELPER), "");
    await agentWrites(ws, DEW, text([...HELPER, "", ...LITERS]));
    expect(await blameRows(ws, DEW)).toEqual([...HELPER.map(() => byPersonMovedByAgent), byAgent, ...LITERS.map(() => byAgent)]);
  });

  it("a block copied from the file the same write took a cut from keeps its owners, as git blame -C credits it: the cut first", async () => {
    await personWritesHelpers();
    // the agent changes forecast.ts elsewhere too, and leaves KELVIN where it is
    await agentEdits(ws, FORECAST, text(HELPER), "");
    await agentEdits(ws, FORECAST, "export interface Hour {", "export interface HourlyForecast {");
    await agentWrites(ws, DEW, text([...AGENT_HEAD, ...HELPER, "", ...KELVIN]));
    const record = ledgerRecords(ws).at(-1)!;
    // only the agent's own lines are claimed; the copy is in moved_lines with the cut block, both numbered in
    // forecast.ts before the cut (as git compares a commit with its parent)
    expect(record.files[0].conversations[0].ranges.map((r: any) => [r.start_line, r.end_line])).toEqual([
      [1, 2],
      [9, 9],
    ]);
    expect(record.metadata["dev.intent-lsp"].moved_lines).toEqual([
      {
        from: FORECAST,
        pre_hash: expect.stringMatching(/^sha256:/),
        carried: [
          [12, 3, 6],
          [18, 10, 3],
        ],
      },
    ]);
    const rows = await blameRows(ws, DEW);
    expect(rows).toEqual([...AGENT_HEAD.map(() => byAgent), ...HELPER.map(() => byPersonMovedByAgent), byAgent, ...KELVIN.map(() => byPersonMovedByAgent)]);
    await expectHoverAsBlame(DEW, rows);
    // forecast.ts still holds KELVIN as the person's
    const kelvinAt = ws.read(FORECAST).split("\n").indexOf(KELVIN[0]!);
    expect((await blameRows(ws, FORECAST)).slice(kelvinAt, kelvinAt + KELVIN.length)).toEqual(KELVIN.map(() => ({ kind: "traced", contributor: "human" })));
  });

  it("a block copied from the file a later cut comes from keeps its owners: the paste first, both blocks given back in the cut's record", async () => {
    await personWritesHelpers();
    await agentWrites(ws, DEW, text([...HELPER, "", ...KELVIN]));
    expect(await blameRows(ws, DEW)).toEqual([...HELPER, "", ...KELVIN].map(() => byAgent));
    await agentEdits(ws, FORECAST, text(HELPER), "");
    const dew = ledgerRecords(ws).at(-1)!.metadata["dev.intent-lsp"].other_files[0];
    expect(dew.moved_lines).toEqual([
      {
        from: FORECAST,
        pre_hash: expect.stringMatching(/^sha256:/),
        carried: [
          [12, 1, 6],
          [18, 8, 3],
        ],
      },
    ]);
    const rows = await blameRows(ws, DEW);
    expect(rows).toEqual([...HELPER.map(() => byPersonMovedByAgent), byAgent, ...KELVIN.map(() => byPersonMovedByAgent)]);
    await expectHoverAsBlame(DEW, rows);
  });

  it("a copy with no cut from its file is the agent's: the paste first, then an edit of the other file that removes nothing", async () => {
    await personWritesHelpers();
    await agentWrites(ws, DEW, text(KELVIN));
    await expectCutRecordsOnly(() => agentEdits(ws, FORECAST, "export interface Hour {", "export interface HourlyForecast {"), [FORECAST]);
    expect(await blameRows(ws, DEW)).toEqual(KELVIN.map(() => byAgent));
  });

  it("another session's paste of the block keeps its owners (the agent restarted after its cut), and so does the cutting session's", async () => {
    await personWritesHelpers();
    await agentEdits(ws, FORECAST, text(HELPER), "");
    await agentWrites(ws, "src/api/other.ts", text(HELPER), "another-session-1");
    expect(await blameRows(ws, "src/api/other.ts")).toEqual(HELPER.map(() => byPersonMovedByAgent));
    await agentWrites(ws, DEW, text(HELPER));
    expect(await blameRows(ws, DEW)).toEqual(HELPER.map(() => byPersonMovedByAgent));
  });

  /**
   * The agent moves HELPER to dew.ts (the cut first), the person changes its last line but one there (a line
   * too short to be a block of its own), then the agent folds dew.ts into units.ts, the paste first, and
   * removes dew.ts. The forecast.ts cut still offers the block's other lines as they were, but dew.ts is
   * where they live now: its cut gives every line back from there, the person's line with them.
   */
  async function mergeMovedBlock(head: readonly string[]): Promise<Row[]> {
    await personWritesHelpers();
    await agentEdits(ws, FORECAST, text(HELPER), "");
    await agentWrites(ws, DEW, text(HELPER));
    await client!.open(DEW);
    await client!.setLine(DEW, 4, ROUNDED);
    await client!.save(DEW);
    await client!.waitForPublishOfCurrentVersion(DEW);
    await agentWrites(ws, UNITS, text([...head, ...ROUNDED_HELPER]));
    await agentRuns(ws, `rm ${DEW}`);
    // the block's lines came from forecast.ts, through dew.ts; the person's line from dew.ts
    const rows = [...head.map(() => byAgent), ...ROUNDED_HELPER.map((l) => (l === ROUNDED ? fromDew : byPersonMovedByAgent))];
    expect(await blameRows(ws, UNITS)).toEqual(rows);
    return rows;
  }
  const ROUNDED = "  return Math.round(((b * g) / (a - g)) * 10) / 10;";
  const ROUNDED_HELPER = [...HELPER.slice(0, 4), ROUNDED, HELPER[5]!];
  const fromDew: Row = { kind: "traced", contributor: "human", from: DEW, movedBy: { contributor: "ai", model: SONNET } };

  it("a moved block merged on, the paste first, from the file it moved to and was changed in since: the later cut gives every line back from there", async () => {
    const rows = await mergeMovedBlock(AGENT_HEAD);
    await expectHoverAsBlame(UNITS, rows);
  });

  it("the same merge into a new file of exactly the moved file's content: the lines come from that file's records, not from the new file's own", async () => {
    const rows = await mergeMovedBlock([]);
    await expectHoverAsBlame(UNITS, rows);
  });

  it("one Codex patch removes the block from one file and adds a file holding it: the block keeps the person, the new line is Codex's", async () => {
    await personWritesHelpers();
    const added = ["// moved out of forecast.ts", ...HELPER];
    await codexSplits(ws, added, "call-split-1");
    const movedByCodex = { ...byPersonMovedByAgent, movedBy: { contributor: "ai", model: CODEX_MODEL } };
    expect(await blameRows(ws, DEW)).toEqual([{ kind: "traced", contributor: "ai", model: CODEX_MODEL }, ...HELPER.map(() => movedByCodex)]);
  });

  it("one Codex patch moves a block into a new file and copies another from the same file: both keep the person", async () => {
    await personWritesHelpers();
    const added = [...HELPER, "", ...KELVIN];
    await codexSplits(ws, added, "call-split-2");
    const movedByCodex = { ...byPersonMovedByAgent, movedBy: { contributor: "ai", model: CODEX_MODEL } };
    expect(await blameRows(ws, DEW)).toEqual([
      ...HELPER.map(() => movedByCodex),
      { kind: "traced", contributor: "ai", model: CODEX_MODEL },
      ...KELVIN.map(() => movedByCodex),
    ]);
  });

  it("one shell command cuts the block from one file into a new one: the block keeps the person, in the command's one record", async () => {
    await personWritesHelpers();
    const lines = ws.read(FORECAST).split("\n");
    const first = lines.indexOf(HELPER[0]!) + 1;
    const last = first + HELPER.length - 1;
    await agentRuns(ws, `sed -n '${first},${last}p' ${FORECAST} > ${DEW} && sed -i '${first},${last}d' ${FORECAST}`);
    const record = ledgerRecords(ws).at(-1)!;
    expect(record.files.map((f: any) => f.path).sort()).toEqual([DEW, FORECAST].sort());
    expect(await blameRows(ws, DEW)).toEqual(HELPER.map(() => byPersonMovedByAgent));
    // what stays in forecast.ts keeps its owner
    const kelvinAt = ws.read(FORECAST).split("\n").indexOf(KELVIN[0]!);
    expect((await blameRows(ws, FORECAST)).slice(kelvinAt, kelvinAt + KELVIN.length)).toEqual(KELVIN.map(() => ({ kind: "traced", contributor: "human" })));
  });
  it("the paste comes first: a Write makes the new file, a later Edit cuts the block; the block's lines go back to the person in the cut's record", async () => {
    await personWritesHelpers();
    await agentWrites(ws, DEW, text([...AGENT_HEAD, ...HELPER, ...AGENT_TAIL]));
    // at the paste nothing shows that a cut will follow: the agent's lines, as a copy would be
    expect(await blameRows(ws, DEW)).toEqual([...AGENT_HEAD, ...HELPER, ...AGENT_TAIL].map(() => byAgent));
    await agentEdits(ws, FORECAST, text(HELPER), "");
    const record = ledgerRecords(ws).at(-1)!;
    expect(record.files.map((f: any) => f.path)).toEqual([FORECAST, DEW]);
    // the pasted file is named unchanged, claiming no line, its moved block in moved_lines
    expect(record.files[1].conversations[0].ranges).toEqual([]);
    const dew = record.metadata["dev.intent-lsp"].other_files[0];
    expect(dew.pre_hash).toBe(dew.post_hash);
    expect(dew.moved_lines).toEqual([{ from: FORECAST, pre_hash: expect.stringMatching(/^sha256:/), carried: [[12, 3, 6]] }]);
    const rows = await blameRows(ws, DEW);
    expect(rows).toEqual([...AGENT_HEAD.map(() => byAgent), ...HELPER.map(() => byPersonMovedByAgent), ...AGENT_TAIL.map(() => byAgent)]);
    await expectHoverAsBlame(DEW, rows);
    // claimed once: cutting the same text again elsewhere claims nothing more
    await expectCutRecordsOnly(() => agentEdits(ws, FORECAST, text(KELVIN), ""), [FORECAST]);
  });

  it("the paste comes first, the new file open in the editor: when the cut's record lands the hover of the open document changes as blame does", async () => {
    await personWritesHelpers();
    await agentWrites(ws, DEW, text(HELPER));
    await client!.open(DEW);
    await client!.executeCommand("intent.blame", { path: "README.md", quiet: true }); // the paste's record read
    await client!.waitForPublishOfCurrentVersion(DEW);
    expect(await client!.hoverText(DEW, 1)).toContain(`ai · ${SONNET}`);
    await agentEdits(ws, FORECAST, text(HELPER), "");
    const rows = await blameRows(ws, DEW);
    expect(rows).toEqual(HELPER.map(() => byPersonMovedByAgent));
    await expectHoverAsBlame(DEW, rows, true);
  });

  it("the paste comes first over two writes of the new file: the lines of the first are carried to where the second left them", async () => {
    await personWritesHelpers();
    await agentWrites(ws, DEW, text(HELPER));
    await agentEdits(ws, DEW, HELPER[0]!, `${AGENT_HEAD.join("\n")}\n${HELPER[0]}`);
    await agentEdits(ws, FORECAST, text(HELPER), "");
    expect(await blameRows(ws, DEW)).toEqual([...AGENT_HEAD.map(() => byAgent), ...HELPER.map(() => byPersonMovedByAgent)]);
  });

  it("a pasted file changed since the paste by a writer no hook saw is not matched: its lines stay the agent's", async () => {
    await personWritesHelpers();
    await agentWrites(ws, DEW, text(HELPER));
    ws.write(DEW, text([...HELPER, "// touched"]));
    await expectCutRecordsOnly(() => agentEdits(ws, FORECAST, text(HELPER), ""), [FORECAST]);
    expect((await blameRows(ws, DEW)).slice(0, HELPER.length)).toEqual(HELPER.map(() => byAgent));
  });

  it("a pasted file replaced by a link to a file outside the workspace holding the same text is never read: the cut claims nothing", async () => {
    await personWritesHelpers();
    await agentWrites(ws, DEW, text(HELPER));
    const outside = mkdtempSync(join(tmpdir(), "intent-lsp-outside-"));
    try {
      writeFileSync(join(outside, "dew.ts"), text(HELPER));
      rmSync(ws.path(DEW));
      symlinkSync(join(outside, "dew.ts"), ws.path(DEW));
      await expectCutRecordsOnly(() => agentEdits(ws, FORECAST, text(HELPER), ""), [FORECAST]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("another session's cut of a block this session pasted gives it back to its owners, once", async () => {
    await personWritesHelpers();
    await agentWrites(ws, DEW, text(HELPER));
    await agentEdits(ws, FORECAST, text(HELPER), "", "another-session-2");
    expect(await blameRows(ws, DEW)).toEqual(HELPER.map(() => byPersonMovedByAgent));
    // the paste's session keeps nothing of it to be claimed again
    const kept = readdirSync(ws.path(".orchestration/.sessions/cuts")).map((f) => JSON.parse(ws.read(`.orchestration/.sessions/cuts/${f}`)));
    expect(kept.flatMap((k: { pastes?: { path: string }[] }) => k.pastes ?? []).filter((p) => p.path === DEW)).toEqual([]);
  });

  it("the paste comes first, the cut by a later shell command: the block keeps the person", async () => {
    await personWritesHelpers();
    await agentWrites(ws, DEW, text(HELPER));
    const lines = ws.read(FORECAST).split("\n");
    const first = lines.indexOf(HELPER[0]!) + 1;
    await agentRuns(ws, `sed -i '${first},${first + HELPER.length - 1}d' ${FORECAST}`);
    expect(
      ledgerRecords(ws)
        .at(-1)!
        .files.map((f: any) => f.path)
        .sort(),
    ).toEqual([DEW, FORECAST].sort());
    expect(await blameRows(ws, DEW)).toEqual(HELPER.map(() => byPersonMovedByAgent));
  });
});
