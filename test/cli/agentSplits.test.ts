import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { LspClient } from "../support/lspClient";
import type { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCliInProcess, runHookInProcess } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { claudeEdit, claudePayload, writeTranscript } from "../support/hookPayloads";
import { startInProcess } from "../support/inProcessServer";

/**
 * An agent splits a file into modules (docs/LEDGER.md "Renames, moves and copies", "What decides a line's
 * owner"): the session's records of its paste and its cut say whose lines moved, and they keep saying so
 * once a person commits the split, whatever git's copy detection reports for the new module. The mover is
 * provenance, never the author of the lines it moved. `intent blame` and the hover say the same.
 */

beforeAll(ensureBuilt);

const SONNET = "anthropic/claude-sonnet-4-5-20250929";
const OPUS = "anthropic/claude-opus-4-1-20250805";
const ENGINE = "src/api/engine.ts";
const PARSER = "src/api/parser.ts";
const HEADER = ["// @ts-check"];
/** The person's class, moved to the new module. */
const CLASS = [
  "export class Parser {",
  "  private pos = 0;",
  "  constructor(private readonly tokens: readonly string[]) {}",
  "  peek(): string | undefined {",
  "    return this.tokens[this.pos];",
  "  }",
  "  next(): string | undefined {",
  "    const token = this.tokens[this.pos];",
  "    this.pos += 1;",
  "    return token;",
  "  }",
  "  done(): boolean {",
  "    return this.pos >= this.tokens.length;",
  "  }",
  "}",
];
/** Another agent's function (opus, another session), moved to the new module with the class. */
const TOKENIZE = [
  "export function tokenize(source: string): string[] {",
  "  const out: string[] = [];",
  "  for (const match of source.matchAll(/\\s*(\\d+|[()+*\\/-])/g)) {",
  "    const token = match[1];",
  "    if (token !== undefined) out.push(token);",
  "  }",
  "  return out;",
  "}",
];
/** The person's function that stays in engine.ts. */
const RUN = [
  "export function run(source: string): number {",
  "  const parser = new Parser(tokenize(source));",
  "  let total = 0;",
  "  while (!parser.done()) total += Number(parser.next() ?? 0);",
  "  return total;",
  "}",
];
const MOVED = [...CLASS, "", ...TOKENIZE];
/** The splitting agent's own lines in the new module. */
const OWN_TAIL = ["", "export const GRAMMAR_VERSION = 2;"];
const IMPORT = 'import { Parser, tokenize } from "./parser";';

type Row = { kind: string; contributor?: string; model?: string; from?: string; movedBy?: string };

const text = (lines: readonly string[]) => `${lines.join("\n")}\n`;
const person: Row = { kind: "traced", contributor: "human", from: ENGINE, movedBy: SONNET };
const opus: Row = { kind: "traced", contributor: "ai", model: OPUS, from: ENGINE, movedBy: SONNET };
const sonnet: Row = { kind: "traced", contributor: "ai", model: SONNET };
/** The new module's rows when the session moved the header, the class and tokenize into it. */
const SPLIT_ROWS: Row[] = [person, ...CLASS.map(() => person), person, ...TOKENIZE.map(() => opus), ...OWN_TAIL.map(() => sonnet)];

async function blameRows(ws: TempWorkspace, path: string): Promise<Row[]> {
  const r = await runCliInProcess(["blame", path, "--json"], { cwd: ws.root });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout).lines.map((l: any) => ({
    kind: l.kind,
    ...(l.contributor ? { contributor: l.contributor } : {}),
    ...(l.model ? { model: l.model } : {}),
    ...(l.from ? { from: l.from } : {}),
    ...(l.movedBy ? { movedBy: l.movedBy.model ?? l.movedBy.contributor } : {}),
  }));
}

/** Claude Code's Edit of `path` through its hooks, in `session`. */
async function agentEdits(ws: TempWorkspace, path: string, old: string, next: string, session: string): Promise<void> {
  await runHookInProcess("claude-code", { ...claudeEdit(ws, "PreToolUse", path, old, next), session_id: session }, { cwd: ws.root });
  const content = ws.read(path);
  expect(content).toContain(old);
  ws.write(path, content.replace(old, next));
  await runHookInProcess("claude-code", { ...claudeEdit(ws, "PostToolUse", path, old, next), session_id: session }, { cwd: ws.root });
}

/** Claude Code's Write of `path` through its hooks, in `session`. */
async function agentWrites(ws: TempWorkspace, path: string, content: string, session: string): Promise<void> {
  const input = { file_path: ws.path(path), content };
  const id = `toolu_w_${path}`;
  const call = { tool_name: "Write", tool_input: input, tool_use_id: id, session_id: session };
  await runHookInProcess("claude-code", claudePayload(ws, "PreToolUse", call), { cwd: ws.root });
  ws.write(path, content);
  await runHookInProcess("claude-code", claudePayload(ws, "PostToolUse", { ...call, tool_response: { type: "create" } }), { cwd: ws.root });
}

/** Claude Code's Bash command through its hooks (the person allowed it). */
async function agentRuns(ws: TempWorkspace, command: string): Promise<void> {
  const call = { tool_name: "Bash", tool_input: { command }, tool_use_id: "toolu_sh_split", session_id: "sonnet-session-1" };
  await runHookInProcess("claude-code", claudePayload(ws, "PreToolUse", call), { cwd: ws.root });
  const sh = spawnSync("bash", ["-c", command], { cwd: ws.root, encoding: "utf8" });
  if (sh.status !== 0) throw new Error(`the test's command failed: ${sh.stderr}`);
  await runHookInProcess("claude-code", claudePayload(ws, "PostToolUse", { ...call, tool_response: { stdout: "", stderr: "" } }), { cwd: ws.root });
}

describe("an agent's split of a file into modules keeps every moved line's owner, committed or not", () => {
  let ws: TempWorkspace;
  let client: LspClient | undefined;
  afterEach(async () => {
    await client?.stop();
    client = undefined;
    ws.dispose();
  });

  /**
   * engine.ts as the person (in the editor) and another agent (opus, its own session) wrote it: the header,
   * the class and run by the person, tokenize by opus; committed. The editor stays open for the hover.
   */
  async function engineOfTwoOwners(): Promise<void> {
    ws = gitWorkspace();
    ws.select("INT-001");
    ws.write(ENGINE, "");
    client = await startInProcess({ root: ws.root });
    await client.open(ENGINE);
    await client.insertLines(ENGINE, 0, [...HEADER, ...CLASS, "", ...RUN]);
    await client.save(ENGINE);
    await client.waitForPublishOfCurrentVersion(ENGINE);
    await client.close(ENGINE);
    writeTranscript(ws, OPUS);
    await agentEdits(ws, ENGINE, `}\n\n${RUN[0]}`, `}\n\n${TOKENIZE.join("\n")}\n\n${RUN[0]}`, "opus-session-1");
    expect(ws.read(ENGINE)).toBe(text([...HEADER, ...CLASS, "", ...TOKENIZE, "", ...RUN]));
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "engine");
    git(ws.root, "checkout", "-q", "-b", "split");
    writeTranscript(ws, SONNET);
  }

  /** The splitting agent's Write of the new module. */
  const writeModule = (session = "sonnet-session-1") => agentWrites(ws, PARSER, text([...HEADER, ...MOVED, ...OWN_TAIL]), session);
  /** The splitting agent's cut of the class and tokenize from engine.ts, an import in their place. */
  const cutEngine = (session = "sonnet-session-1") => agentEdits(ws, ENGINE, text(MOVED), `${IMPORT}\n`, session);
  /** Claude Code's SessionEnd hook (`/clear`, or the agent quit). */
  const endSession = (session: string) =>
    runHookInProcess("claude-code", claudePayload(ws, "SessionEnd", { session_id: session, reason: "clear" }), { cwd: ws.root });

  /** What `fn` returns, and whether a git call it made asked `git log --follow` (git's own trace, GIT_TRACE). */
  async function gitCalls<T>(fn: () => Promise<T>): Promise<{ value: T; follows: boolean }> {
    const trace = ws.path(".orchestration/git-trace.log");
    rmSync(trace, { force: true });
    process.env["GIT_TRACE"] = trace;
    try {
      const value = await fn();
      return { value, follows: existsSync(trace) && readFileSync(trace, "utf8").includes("--follow") };
    } finally {
      delete process.env["GIT_TRACE"];
    }
  }

  /** `intent check` on the branch (against its merge base with main), as CI runs it. */
  async function check(): Promise<{ status: number; checkedFiles: number; checkedLines: number; findings: string[] }> {
    const r = await runCliInProcess(["check", "--format", "json"], { cwd: ws.root });
    const report = JSON.parse(r.stdout) as { checkedFiles: number; checkedLines: number; findings: { path: string; startLine: number; code: string }[] };
    const findings = report.findings.map((f) => `${f.path}:${f.startLine} ${f.code}`);
    return { status: r.status, checkedFiles: report.checkedFiles, checkedLines: report.checkedLines, findings };
  }

  /** The person commits the split as it is on disk. */
  function commitSplit(): void {
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "split the parser out of engine.ts");
  }

  /** Hover over every line of `path` names the owner blame names, and the mover as provenance. */
  async function expectHoverAsBlame(path: string, rows: readonly Row[]): Promise<void> {
    for (let k = 0; k < rows.length; k++) {
      const hover = await client!.hoverText(path, k);
      const row = rows[k]!;
      if (row.kind === "untraced") expect(hover, `line ${k + 1}`).not.toMatch(/human|ai ·/);
      else if (row.contributor === "human") expect(hover, `line ${k + 1}`).toMatch(/human|Test/);
      else expect(hover, `line ${k + 1}`).toContain(`ai · ${row.model}`);
      if (row.movedBy) expect(hover, `line ${k + 1}`).toContain(`moved by ai · ${row.movedBy} from \`${ENGINE}\``);
      else expect(hover, `line ${k + 1}`).not.toContain("moved by");
    }
  }

  /** After the commit, with a teammate's unrecorded copy of a line of engine.ts appended to the new module. */
  async function expectAfterCommit(): Promise<void> {
    const rows = await blameRows(ws, PARSER);
    expect(rows).toEqual(SPLIT_ROWS);
    // git names engine.ts for the new module: the copy detection fires
    expect(git(ws.root, "log", "--follow", "-M", "--name-status", "--format=", "--", PARSER)).toMatch(new RegExp(`^[RC]\\d+\\s+${ENGINE}\\s+${PARSER}`, "m"));
    // the teammate's line is explained by git alone: the first hover already waits for git's answer
    ws.write(PARSER, `${ws.read(PARSER)}${RUN[2]}\n`);
    git(ws.root, "commit", "-q", "-am", "a teammate's line");
    const withLine = await blameRows(ws, PARSER);
    expect(withLine).toEqual([...SPLIT_ROWS, { kind: "traced", contributor: "human", from: ENGINE }]);
    await client!.open(PARSER);
    // asked first: the line only git's answer explains, right after the file is opened
    const teammates = await client!.hoverText(PARSER, withLine.length - 1);
    expect(teammates).not.toMatch(/Untraced/);
    expect(teammates).toMatch(/human|Test/);
    await expectHoverAsBlame(PARSER, [...SPLIT_ROWS, { kind: "traced", contributor: "human", from: ENGINE }]);
  }

  it("the new module written first, then the cut: right before the commit and after it", async () => {
    await engineOfTwoOwners();
    await writeModule();
    await cutEngine();
    const rows = await blameRows(ws, PARSER);
    expect(rows).toEqual(SPLIT_ROWS);
    commitSplit();
    // the records explain every line of the committed module: blame asks git nothing of its history
    expect(await gitCalls(() => blameRows(ws, PARSER))).toEqual({ value: SPLIT_ROWS, follows: false });
    // CI on the branch: every moved line is explained by the session's records, none is an unowned change
    expect(await check()).toEqual({ status: 0, checkedFiles: 2, checkedLines: 28, findings: [] });
    // a line only git explains (a teammate's, committed): then it does
    ws.write(PARSER, `${ws.read(PARSER)}${RUN[2]}\n`);
    git(ws.root, "commit", "-q", "-am", "a teammate's line");
    expect((await gitCalls(() => blameRows(ws, PARSER))).follows).toBe(true);
    // the check is not blind: a line committed with no record is told, the moved ones still are not
    expect(await check()).toEqual({ status: 0, checkedFiles: 2, checkedLines: 29, findings: [`${PARSER}:28 untraced-change`] });
    git(ws.root, "reset", "-q", "--hard", "HEAD~1");
    await expectAfterCommit();
  });

  it("the cut first, then the new module: right before the commit and after it", async () => {
    await engineOfTwoOwners();
    await cutEngine();
    await writeModule();
    expect(await blameRows(ws, PARSER)).toEqual(SPLIT_ROWS);
    await client!.open(PARSER);
    await client!.executeCommand("intent.blame", { path: "README.md", quiet: true }); // the ledger read to its end
    await client!.waitForPublishOfCurrentVersion(PARSER);
    await expectHoverAsBlame(PARSER, SPLIT_ROWS);
    await client!.close(PARSER);
    commitSplit();
    expect(await check()).toEqual({ status: 0, checkedFiles: 2, checkedLines: 28, findings: [] });
    await expectAfterCommit();
  });

  it.each([
    [
      "the cut in one session, the new module in the next (the first one ended)",
      () => cutEngine("sonnet-session-1").then(() => endSession("sonnet-session-1")),
      () => writeModule("sonnet-session-2"),
    ],
    ["the new module written in one session, the cut in the next", () => writeModule("sonnet-session-1"), () => cutEngine("sonnet-session-2")],
  ] as [string, () => Promise<unknown>, () => Promise<unknown>][])("%s: right before the commit and after it", async (_, first, second) => {
    await engineOfTwoOwners();
    await first();
    await second();
    expect(await blameRows(ws, PARSER)).toEqual(SPLIT_ROWS);
    commitSplit();
    expect(await check()).toEqual({ status: 0, checkedFiles: 2, checkedLines: 28, findings: [] });
    await expectAfterCommit();
  });

  it("a person's unrecorded change to the new module committed with the split: the records still name the moved lines' owners", async () => {
    await engineOfTwoOwners();
    await writeModule();
    await cutEngine();
    // a plain editor that records nothing: the committed content is pinned by no record
    ws.write(PARSER, ws.read(PARSER).replace("export const GRAMMAR_VERSION = 2;", "export const GRAMMAR_VERSION = 2; // v2 grammar"));
    commitSplit();
    const expected = [...SPLIT_ROWS.slice(0, -1), { kind: "untraced" }];
    expect(await blameRows(ws, PARSER)).toEqual(expected);
    // an agent's later edit starts from the committed content
    await agentEdits(ws, PARSER, "  done(): boolean {", "  finished(): boolean {", "sonnet-session-2");
    expected[CLASS.indexOf("  done(): boolean {") + 1] = sonnet;
    expect(await blameRows(ws, PARSER)).toEqual(expected);
  });

  it("a module one shell command split off, then moved by a tool that records nothing: the person's edit there chains to the command's record", async () => {
    await engineOfTwoOwners();
    // one command writes both files; its record names engine.ts first and the new module second
    await agentRuns(ws, `sed -n '1,25p' ${ENGINE} > ${PARSER} && sed -i '2,26d' ${ENGINE}`);
    expect(ws.read(PARSER)).toBe(text([...HEADER, ...MOVED]));
    const split = [person, ...CLASS.map(() => person), person, ...TOKENIZE.map(() => opus)];
    expect(await blameRows(ws, PARSER)).toEqual(split);
    // a file manager's rename (no record), then the person's edit there in the editor
    const GRAMMAR = "src/api/grammar.ts";
    renameSync(ws.path(PARSER), ws.path(GRAMMAR));
    await client!.open(GRAMMAR);
    await client!.setLine(GRAMMAR, 2, "  private pos = 1;");
    await client!.save(GRAMMAR);
    await client!.waitForPublishOfCurrentVersion(GRAMMAR);
    const rows = await blameRows(ws, GRAMMAR);
    expect(rows).toEqual([...split.slice(0, 2), { kind: "traced", contributor: "human" }, ...split.slice(3)]);
  });

  it("an agent's ordinary edits of the committed module keep the moved lines' owners", async () => {
    await engineOfTwoOwners();
    await writeModule();
    await cutEngine();
    commitSplit();
    await agentEdits(ws, PARSER, "export const GRAMMAR_VERSION = 2;", "export const GRAMMAR_VERSION = 3;", "sonnet-session-2");
    await agentEdits(ws, PARSER, "  private pos = 0;", "  private pos = 0; // index of the next token", "sonnet-session-2");
    const rows = await blameRows(ws, PARSER);
    const expected = [...SPLIT_ROWS];
    expected[2] = sonnet;
    expect(rows).toEqual(expected);
    // intent check over the branch finds nothing in the new module: every moved line is owned and traced
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "edits");
    const check = await runCliInProcess(["check", "--base", "main", "--format", "json"], { cwd: ws.root });
    expect(check.stderr).toBe("");
    expect(JSON.parse(check.stdout).findings.filter((f: { path: string }) => f.path === PARSER)).toEqual([]);
  });
});
