import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli, runHookInProcess } from "../support/cliRunner";
import { git } from "../support/gitRepository";
import { claudeAnswer, claudeEdit, claudePayload, cursorPayload, writeTranscript } from "../support/hookPayloads";
import { ledgerRecords, LEDGER } from "../support/ledgerFile";

/**
 * Behaviour that follows from each rule living once in the engine: the same tool rule for every agent, the
 * same record rule as the editor, the same selection and blame in the terminal and the editor.
 */

beforeAll(ensureBuilt);

const API = "src/api/weather.ts";
const NOTES = "docs/notes.md";

describe("the agent gate", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.write(LEDGER, "");
  });
  afterEach(() => ws.dispose());

  const claudeTool = (event: "PreToolUse" | "PostToolUse", tool_name: string, tool_input: Record<string, unknown>) =>
    runHookInProcess("claude-code", claudePayload(ws, event, { tool_name, tool_input, tool_use_id: "toolu_mcp" }), { cwd: ws.root });

  it("an agent started above the workspace (a monorepo root) is gated by the workspace that holds the file", async () => {
    ws.select("INT-001");
    const above = join(ws.root, "..");
    const payload = {
      ...claudePayload(ws, "PreToolUse", {
        tool_name: "Write",
        tool_input: { file_path: ws.path("src/billing/export.ts"), content: "x\n" },
        tool_use_id: "toolu_mono",
      }),
      cwd: above,
    };
    const answer = await runHookInProcess("claude-code", payload, { cwd: above });
    expect((answer.json as any).hookSpecificOutput.permissionDecision).toBe("deny");
    expect((answer.json as any).hookSpecificOutput.permissionDecisionReason).toMatch(
      /^\[intent-lsp: out-of-scope\] src\/billing\/export\.ts is outside the scope of INT-001/,
    );
  });

  it("a call naming files above the workspace and in it is judged by that workspace, whichever file it names first", async () => {
    ws.select("INT-001");
    const above = join(ws.root, "..");
    const outside = join(above, `${ws.root.split("/").pop()}-README.md`);
    for (const tool_input of [
      { source: outside, destination: ws.path("src/billing/export.ts") },
      { destination: ws.path("src/billing/export.ts"), source: outside },
      { source: outside, destination: ws.path("src/api/moved.ts") },
    ]) {
      const payload = { ...claudePayload(ws, "PreToolUse", { tool_name: "mcp__fs__move_file", tool_input, tool_use_id: "toolu_mono2" }), cwd: above };
      const answer = await runHookInProcess("claude-code", payload, { cwd: above });
      expect((answer.json as any).hookSpecificOutput.permissionDecision, JSON.stringify(tool_input)).toBe("deny");
    }
  });

  it("judges a write where it really lands: a symlink into docs/ is out of INT-001's scope, one out of the workspace is denied", async () => {
    ws.select("INT-001");
    const outside = mkdtempSync(join(tmpdir(), "outside-"));
    symlinkSync(ws.path("docs"), ws.path("src/api/docs-link"));
    symlinkSync(outside, ws.path("src/api/escape"));
    const viaDocs = await claudeTool("PreToolUse", "Write", { file_path: ws.path("src/api/docs-link/notes.md"), content: "x\n" });
    expect((viaDocs.json as any).hookSpecificOutput.permissionDecisionReason).toMatch(
      /^\[intent-lsp: out-of-scope\] docs\/notes\.md is outside the scope of INT-001/,
    );
    const escaping = await claudeTool("PreToolUse", "Write", { file_path: ws.path("src/api/escape/key"), content: "x\n" });
    expect((escaping.json as any).hookSpecificOutput).toEqual({
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringMatching(
        /^\[intent-lsp: outside-workspace\] src\/api\/escape\/key leads outside the workspace through a symbolic link/,
      ),
    });
    rmSync(outside, { recursive: true });
  });

  it("gates an MCP tool that writes a file like Write, records it after, and leaves MCP readers alone", async () => {
    ws.select("INT-001");
    const denied = await claudeTool("PreToolUse", "mcp__filesystem__write_file", { path: ws.path(NOTES), content: "x\n" });
    expect((denied.json as any).hookSpecificOutput).toMatchObject({ permissionDecision: "deny" });
    expect((denied.json as any).hookSpecificOutput.permissionDecisionReason).toMatch(
      /^\[intent-lsp: out-of-scope\] docs\/notes\.md is outside the scope of INT-001/,
    );
    expect((await claudeTool("PreToolUse", "mcp__filesystem__read_text_file", { path: ws.path(NOTES) })).json).toEqual({});

    writeTranscript(ws, "claude-sonnet-4-5");
    const content = `${ws.read(API)}export const UNITS = ["C", "F"];\n`;
    expect((await claudeTool("PreToolUse", "mcp__filesystem__write_file", { path: ws.path(API), content })).json).toEqual(
      claudeAnswer("allow", "INT-001 (Build Weather API) owns src/api/weather.ts."),
    );
    ws.write(API, content);
    await claudeTool("PostToolUse", "mcp__filesystem__write_file", { path: ws.path(API), content });
    const [record] = ledgerRecords(ws);
    const lines = content.split("\n").length - 1;
    expect(record!.files[0].conversations[0]).toMatchObject({
      contributor: { type: "ai", model_id: "anthropic/claude-sonnet-4-5" },
      ranges: [{ start_line: lines, end_line: lines }],
    });
  });

  it("an `!` glob keeps a folder out of the intent around it: with nothing selected, a write there is denied", async () => {
    ws.write(
      ".orchestration/active_intents.yaml",
      ws
        .read(".orchestration/active_intents.yaml")
        .replace(`owned_scope: ["src/api/**", "test/api/**"]`, `owned_scope: ["src/api/**", "!src/api/generated/**", "test/api/**"]`),
    );
    const write = async (file: string) => (await claudeTool("PreToolUse", "Write", { file_path: ws.path(file), content: "x\n" })).json as any;
    expect((await write("src/api/generated/client.ts")).hookSpecificOutput).toEqual({
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringMatching(
        /^\[intent-lsp: no-active-intent\] No intent selected for src\/api\/generated\/client\.ts\. Select an intent before editing\. No intent owns this file\./,
      ),
    });
    // beside the excluded folder, INT-001 is still the one in-progress owner
    expect((await write("src/api/routes.ts")).hookSpecificOutput).toMatchObject({ permissionDecision: "allow" });
  });

  it("Cursor: a writer that names no file is denied (fail closed)", async () => {
    const r = await runHookInProcess("cursor", cursorPayload(ws, "preToolUse", { tool_name: "Write", tool_input: { content: "x" } }), { cwd: ws.root });
    expect(r.json).toMatchObject({
      permission: "deny",
      agentMessage: expect.stringMatching(/^\[intent-lsp: internal-error\] intent-lsp's hook failed \(Write call without tool_input\.file_path\)/),
    });
  });

  it("fails closed on a broken config.jsonc, naming the problem at file:line:col; status lists it", async () => {
    ws.select("INT-001");
    ws.write(".orchestration/config.jsonc", '{\n  "autoSelect": true,\n  "severity": { "out-of-scope": "loud" }\n}\n');
    const r = await runHookInProcess("claude-code", claudeEdit(ws, "PreToolUse", API, "a", "b"), { cwd: ws.root });
    expect(r.json).toEqual(
      claudeAnswer(
        "deny",
        '[intent-lsp: config-file-broken] .orchestration/config.jsonc:3:17: "severity.out-of-scope" must be one of error, warning, information, hint, off. ' +
          "While .orchestration/config.jsonc has errors every write is denied (fail closed). Ask the user to fix it; `intent status` lists every problem.",
      ),
    );
    // fixing it is the user's call: the agent may propose the change
    expect(
      ((await runHookInProcess("claude-code", claudeEdit(ws, "PreToolUse", ".orchestration/config.jsonc", "a", "b"), { cwd: ws.root })).json as any)
        .hookSpecificOutput.permissionDecision,
    ).toBe("ask");
    const status = runCli(["status"], { cwd: ws.root }).stdout;
    expect(status).toContain(
      'Problems in .orchestration/config.jsonc:\n  .orchestration/config.jsonc:3:17: error: "severity.out-of-scope" must be one of error, warning, information, hint, off.\n',
    );
    const briefing = (await runHookInProcess("claude-code", claudePayload(ws, "SessionStart", { source: "startup" }), { cwd: ws.root })).json as any;
    expect(briefing.hookSpecificOutput.additionalContext).toContain(".orchestration/config.jsonc has errors, so every write is denied until the user fixes it");
  });

  it("records what the editor records: an approved write to a rule file is not work under an intent", async () => {
    ws.select("INT-001");
    const [from, to] = ["dist/", "dist/\nbuild/"];
    expect(
      ((await runHookInProcess("claude-code", claudeEdit(ws, "PreToolUse", ".intentignore", from, to), { cwd: ws.root })).json as any).hookSpecificOutput
        .permissionDecision,
    ).toBe("ask");
    ws.write(".intentignore", ws.read(".intentignore").replace(from, to));
    await runHookInProcess("claude-code", claudeEdit(ws, "PostToolUse", ".intentignore", from, to), { cwd: ws.root });
    expect(ledgerRecords(ws)).toEqual([]);
  });

  it("an agent whose session id needs quoting gets one that works as printed in `intent select --session`", async () => {
    const payload = (event: string, extra: Record<string, unknown> = {}) => ({ ...claudePayload(ws, event, extra), session_id: "odd id/with spaces" });
    const briefing = ((await runHookInProcess("claude-code", payload("SessionStart"), { cwd: ws.root })).json as any).hookSpecificOutput
      .additionalContext as string;
    const session = /--session (\S+)`/.exec(briefing)![1]!;
    expect(session).toMatch(/^claude-[0-9a-f]{32}$/);
    expect(runCli(["select", "INT-003", "--session", session], { cwd: ws.root })).toMatchObject({
      status: 0,
      stdout: `Selected INT-003 (Docs refresh) for session ${session}.\n`,
    });
    const edit = claudeEdit(ws, "PreToolUse", NOTES, "a", "b");
    expect((await runHookInProcess("claude-code", { ...edit, session_id: "odd id/with spaces" }, { cwd: ws.root })).json).toEqual(
      claudeAnswer("allow", "INT-003 (Docs refresh) owns docs/notes.md."),
    );
  });

  it("records HEAD's commit for a workspace in a folder of the repository", async () => {
    const repo = new TempWorkspace({ fromExample: false });
    try {
      cpSync(ws.root, repo.path("app"), { recursive: true });
      git(repo.root, "init", "-q");
      git(repo.root, "add", "-A");
      git(repo.root, "commit", "-q", "-m", "monorepo");
      const app = repo.path("app");
      const [from, to] = ["export interface Weather {", "export interface Weather { // v2"];
      const edit = (event: "PreToolUse" | "PostToolUse") => ({ ...claudeEdit(ws, event, join(app, API), from, to), cwd: app });
      await runHookInProcess("claude-code", edit("PreToolUse"), { cwd: app });
      repo.write(`app/${API}`, repo.read(`app/${API}`).replace(from, to));
      await runHookInProcess("claude-code", edit("PostToolUse"), { cwd: app });
      const [record] = readFileSync(repo.path(`app/${LEDGER}`), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(record.files[0].path).toBe(API);
      expect(record.vcs).toEqual({ type: "git", revision: git(repo.root, "rev-parse", "HEAD").trim() });
    } finally {
      repo.dispose();
    }
  });
});

describe("intent select --session", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
  });
  afterEach(() => ws.dispose());

  it("refuses ids that are not sessions: workspace names the workspace selection", async () => {
    expect(runCli(["select", "INT-001", "--session", "workspace"], { cwd: ws.root })).toMatchObject({
      status: 1,
      stderr: 'intent select: "workspace" is not a session: it names the workspace selection (select without --session for that)\n',
    });
    expect(runCli(["select", "INT-001", "--session", "a/b"], { cwd: ws.root })).toMatchObject({
      status: 1,
      stderr: 'intent select: "a/b" is not a session id: letters, digits, ".", "_" and "-", at most 120 (`intent status` lists the live sessions)\n',
    });
    expect(existsSync(ws.path(".orchestration/.sessions"))).toBe(false); // nothing was written
  });
});

describe("intent migrate", () => {
  it("reports a record with a malformed intent URN and migrates the rest", async () => {
    const ws = new TempWorkspace();
    try {
      const rec = (id: string, url: string) =>
        JSON.stringify({
          id,
          timestamp: "2025-01-01T00:00:00Z",
          files: [
            {
              relative_path: "src/a.ts",
              conversations: [{ contributor: { entity_type: "human" }, ranges: [{ start_line: 1, end_line: 1 }], related: [{ type: "intent", url }] }],
            },
          ],
        });
      ws.write("legacy.jsonl", [rec("a", "urn:intent:INT-001"), rec("b", "urn:intent:%E0%A4%A"), rec("c", "urn:intent:INT-002"), ""].join("\n"));
      const r = runCli(["migrate", "--from", "legacy.jsonl"], { cwd: ws.root });
      expect(r.status).toBe(1);
      expect(r.stderr).toBe('legacy.jsonl:2: skipped: related url "urn:intent:%E0%A4%A" is not a valid intent URN (a malformed %-escape)\n');
      expect(r.stdout).toMatch(/^Wrote 2 records to /);
    } finally {
      ws.dispose();
    }
  });
});
