import { beforeAll, describe, expect, it } from "vitest";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { LspClient } from "../support/lspClient";
import { stopAfterEach, TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli, runHook } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { claudeEdit, writeTranscript } from "../support/hookPayloads";
import { LEDGER, ledgerRecords } from "../support/ledgerFile";

/**
 * One fixture, two doors: the language server's diagnostics for edits in the editor, and `intent check` for
 * the same changes made by an agent through the hooks and seen as a git diff. They must agree file by file;
 * so must the editor's commands and their `intent` subcommands (blame, select, ignoring a path).
 */

beforeAll(ensureBuilt);

const API = "src/api/weather.ts";
const SCOPE_CODES = new Set(["out-of-scope", "intent-not-in-progress", "no-active-intent"]);

/** Each edit replaces one whole line (0-based) with new text. */
const EDITS = [
  { path: "src/api/weather.ts", line: 2, text: "export interface Weather { // v2" }, // in INT-001's scope
  { path: "docs/notes.md", line: 10, text: "- Write the onboarding guide this week." }, // owned by INT-003/INT-004
  { path: "README.md", line: 2, text: "A tiny workspace used by `npm start` in intent-lsp." }, // owned by INT-003
  { path: "src/billing/export.ts", line: 1, text: '  return rows.map((r) => `${r.id},${r.cents}`).join("\\n");' }, // owned by INT-005
];

type Row = { code: string; message: string; start: number; end: number };

function editorRows(diags: Diagnostic[]): Row[] {
  return diags
    .filter((d) => SCOPE_CODES.has(String(d.code)))
    .map((d) => ({ code: String(d.code), message: d.message, start: d.range.start.line + 1, end: d.range.end.line + 1 }));
}

function checkRows(ws: TempWorkspace): Map<string, Row[]> {
  const report = JSON.parse(runCli(["check", "--format", "json"], { cwd: ws.root }).stdout);
  const byFile = new Map<string, Row[]>();
  for (const f of report.findings) {
    if (!SCOPE_CODES.has(f.code)) continue;
    byFile.set(f.path, [...(byFile.get(f.path) ?? []), { code: f.code, message: f.message, start: f.startLine, end: f.endLine }]);
  }
  return byFile;
}

describe("the editor and the CLI agree", () => {
  let ws: TempWorkspace;
  let client: LspClient | undefined;
  stopAfterEach(() => ({ client, ws }));

  it("file by file, with the intent in progress and after it is blocked", async () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    client = await LspClient.start({ root: ws.root, watchedFiles: true });
    for (const e of EDITS) await client.open(e.path);

    for (const e of EDITS) {
      const before = ws.read(e.path).split("\n")[e.line]!;
      await client.setLine(e.path, e.line, e.text); // the person's editor
      await client.waitForPublishOfCurrentVersion(e.path); // ...has seen the edit before the agent's write lands      // the agent makes the same change through the hooks (out-of-scope ones the person let through)
      runHook("claude-code", claudeEdit(ws, "PreToolUse", e.path, before, e.text), { cwd: ws.root });
      ws.write(e.path, client.text(e.path));
      runHook("claude-code", claudeEdit(ws, "PostToolUse", e.path, before, e.text), { cwd: ws.root });
    }
    expect(ledgerRecords(ws)).toHaveLength(EDITS.length);

    // the editor judges the typed lines before any record exists; the check adds the door the record names
    const DOOR = / Recorded from an agent's write \(anthropic\/claude-sonnet-4-5-20250929\); the agent gate would deny this write now\. .*$/;
    const compare = async (expectedCode: string, files: string[]) => {
      const fromCheck = checkRows(ws);
      expect([...fromCheck.keys()].sort()).toEqual([...files].sort());
      for (const e of EDITS) {
        const recorded = fromCheck.get(e.path) ?? [];
        for (const row of recorded) expect(row.message).toMatch(DOOR);
        const want = recorded.map((row) => ({ ...row, message: row.message.replace(DOOR, "") }));
        const diags = await client!.waitForDiagnostics(e.path, (d) => JSON.stringify(editorRows(d)) === JSON.stringify(want));
        expect(editorRows(diags), e.path).toEqual(want);
        for (const row of want) expect(row).toMatchObject({ code: expectedCode, start: e.line + 1, end: e.line + 1 });
      }
    };

    // INT-001 in progress: the three files it does not own are out of scope, in both
    await compare("out-of-scope", ["docs/notes.md", "README.md", "src/billing/export.ts"]);

    // blocking INT-001 (from the terminal) makes every edited line intent-not-in-progress, in both
    expect(runCli(["block", "INT-001"], { cwd: ws.root }).stdout).toBe("INT-001: IN_PROGRESS → BLOCKED\n");
    await client.notifyWatched(".orchestration/active_intents.yaml");
    await compare(
      "intent-not-in-progress",
      EDITS.map((e) => e.path),
    );
  });

  // files git is told not to look at are judged by their working tree all the same (a command can set the flag)
  it.each([
    ["as git shows them", undefined],
    ["in files git is told not to look at", ["--assume-unchanged", "--skip-worktree"]],
  ])("hand edits nobody recorded, %s: the editor flags exactly the lines `intent check` calls errors", async (_, flags) => {
    ws = gitWorkspace(); // nothing selected: each edit counts under the file's in-progress owner, if any
    const HAND = [
      { path: "src/api/forecast.ts", line: 1 }, // INT-001 in progress: fine in the editor, a notice in CI
      { path: "docs/notes.md", line: 3 }, // INT-003 in progress (INT-004 pending): the same
      { path: "src/auth/middleware.ts", line: 0 }, // INT-002 blocked: no intent to count under
      { path: "src/billing/export.ts", line: 0 }, // INT-005 complete: the same
    ];
    if (flags) for (const [i, e] of HAND.entries()) git(ws.root, "update-index", flags[i % 2]!, e.path);
    client = await LspClient.start({ root: ws.root });
    for (const e of HAND) {
      await client.open(e.path);
      await client.setLine(e.path, e.line, "// changed by hand");
      await client.waitForPublishOfCurrentVersion(e.path);
      ws.write(e.path, client.text(e.path)); // the same change, on disk, recorded by nobody
    }
    const report = JSON.parse(runCli(["check", "--format", "json"], { cwd: ws.root }).stdout);
    const ciErrors = report.findings
      .filter((f: any) => f.severity === "error")
      .map((f: any) => `${f.path}:${f.startLine} ${f.code}`)
      .sort();
    const ciNotices = report.findings
      .filter((f: any) => f.severity !== "error")
      .map((f: any) => `${f.path}:${f.startLine} ${f.code}`)
      .sort();
    const editorProblems: string[] = [];
    for (const e of HAND) {
      for (const d of await client.waitForPublishOfCurrentVersion(e.path))
        if (SCOPE_CODES.has(String(d.code))) editorProblems.push(`${e.path}:${d.range.start.line + 1}`);
    }
    expect(ciErrors).toEqual(["src/auth/middleware.ts:1 unowned-change", "src/billing/export.ts:1 unowned-change"]);
    expect(ciNotices).toEqual(["docs/notes.md:4 untraced-change", "src/api/forecast.ts:2 untraced-change"]);
    expect(editorProblems.sort()).toEqual(ciErrors.map((x: string) => x.split(" ")[0]));
  });

  it("hand edits on disk in files git is told not to look at: opened, the editor flags what `intent check` calls errors", async () => {
    ws = gitWorkspace();
    const HAND = [
      { path: "src/auth/middleware.ts", flag: "--assume-unchanged" }, // INT-002 blocked: unowned
      { path: "src/billing/export.ts", flag: "--skip-worktree" }, // INT-005 complete: unowned
    ];
    for (const e of HAND) {
      git(ws.root, "update-index", e.flag, e.path);
      ws.write(e.path, ws.read(e.path).replace(/\n/, "\n// changed by hand\n"));
    }
    const report = JSON.parse(runCli(["check", "--format", "json"], { cwd: ws.root }).stdout);
    const ciErrors = report.findings.filter((f: any) => f.severity === "error").map((f: any) => `${f.path}:${f.startLine} ${f.code}`);
    expect(ciErrors.sort()).toEqual(["src/auth/middleware.ts:2 unowned-change", "src/billing/export.ts:2 unowned-change"]);
    client = await LspClient.start({ root: ws.root });
    for (const e of HAND) {
      await client.open(e.path);
      const diags = await client.waitForDiagnostics(e.path, (d) => d.some((x) => SCOPE_CODES.has(String(x.code)) || String(x.code) === "unowned-change"));
      expect(
        diags.map((d) => `${e.path}:${d.range.start.line + 1} ${String(d.code)}`),
        e.path,
      ).toEqual([`${e.path}:2 unowned-change`]);
    }
  });

  it("a write recorded by the hook shows the model in the editor's hover, and the editor's save adds no duplicate", async () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    const path = "src/api/weather.ts";
    client = await LspClient.start({ root: ws.root, settings: { contributor: { type: "human" } } });
    await client.open(path, "typescript"); // open before the agent writes

    const [from, to] = ["  summary: string;", "  summary: string;\n  humidity: number;"];
    runHook("claude-code", claudeEdit(ws, "PreToolUse", path, from, to), { cwd: ws.root });
    const oldText = client.text(path);
    const newText = oldText.replace(from, to);
    ws.write(path, newText);
    runHook("claude-code", claudeEdit(ws, "PostToolUse", path, from, to), { cwd: ws.root });
    expect(ledgerRecords(ws)).toHaveLength(1);

    // the editor reloads the file the agent changed, then the person saves it as it is
    const lines = oldText.split("\n");
    await client.edit(path, { start: { line: 0, character: 0 }, end: { line: lines.length - 1, character: lines[lines.length - 1]!.length } }, newText);
    await client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: client.uri(path) } });
    await expect.poll(() => client!.hoverText(path, 6, 1), { timeout: 10_000 }).toContain("ai · anthropic/claude-sonnet-4-5-20250929");
    expect(await client.hoverText(path, 6, 1)).toContain("INT-001 — Build Weather API (IN_PROGRESS)");
    expect(await client.save(path)).toBeNull(); // handled, nothing recorded
    expect(ledgerRecords(ws)).toHaveLength(1);
  });

  it("blame: the same rows for a file, no row for the line after a final newline; a path outside the workspace is refused", async () => {
    ws = new TempWorkspace();
    ws.write(LEDGER, "");
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5");
    const [from, to] = ["export interface Weather {", "export interface Weather { // v2"];
    runHook("claude-code", claudeEdit(ws, "PreToolUse", API, from, to), { cwd: ws.root });
    ws.write(API, ws.read(API).replace(from, to));
    runHook("claude-code", claudeEdit(ws, "PostToolUse", API, from, to), { cwd: ws.root });
    expect(ws.read(API).endsWith("\n")).toBe(true);

    client = await LspClient.start({ root: ws.root });
    const fromCli = JSON.parse(runCli(["blame", API, "--json"], { cwd: ws.root }).stdout);
    const fromEditor = await client.executeCommand("intent.blame", { path: API });
    expect(fromEditor).toEqual(fromCli);
    expect(fromCli.lines).toHaveLength(ws.read(API).split("\n").length - 1);
    expect(fromCli.lines.find((l: any) => l.kind === "traced")).toMatchObject({ line: 3, intent: "INT-001", text: to });

    // an open document: the same rows, and the same count of lines
    await client.open(API);
    expect(await client.executeCommand("intent.blame", { uri: client.uri(API) })).toEqual(fromCli);

    await expect(client.executeCommand("intent.blame", { path: "../../etc/passwd" })).rejects.toThrow(
      `"../../etc/passwd" is not a file inside the workspace ${ws.root}; pass a workspace-relative path such as "src/api/weather.ts".`,
    );
  });

  it("select: the same refusal in both doors; ignorePath refuses line breaks", async () => {
    ws = new TempWorkspace();
    client = await LspClient.start({ root: ws.root });
    const cli = runCli(["select", "INT-004"], { cwd: ws.root }).stderr;
    // the same reason; the next steps in each door's own words
    expect(cli).toBe("intent select: INT-004 is PENDING. `intent select INT-004 --start` starts and selects it; or `intent start INT-004` starts it.\n");
    await expect(client.executeCommand("intent.selectIntent", { id: "INT-004" })).rejects.toThrow(
      'INT-004 is PENDING. Pick "Start and select INT-004" in the intent picker; or the code action "Start INT-004 (PENDING → IN_PROGRESS)" on INT-004 in active_intents.yaml makes that move.',
    );
    await expect(client.executeCommand("intent.selectIntent", { id: "INT-999" })).rejects.toThrow(
      "no intent INT-999 in active_intents.yaml. The intent picker lists the intents to select (more work is a new intent, declared in active_intents.yaml).",
    );
    await client.executeCommand("intent.selectIntent", { id: "INT-004", start: true });
    expect(JSON.parse(ws.read(".orchestration/.sessions/workspace.json")).intent).toBe("INT-004");
    expect(ws.read(".orchestration/active_intents.yaml")).toMatch(/id: INT-004\n {4}name: Onboarding guide\n {4}status: IN_PROGRESS\n/);

    const before = ws.read(".intentignore");
    await expect(client.executeCommand("intent.ignorePath", { path: "docs/x.md\n!src/**" })).rejects.toThrow(
      '"docs/x.md\\n!src/**" must be a workspace-relative path',
    );
    await expect(client.executeCommand("intent.ignorePath", { path: "../outside.md" })).rejects.toThrow("must be a workspace-relative path");
    expect(ws.read(".intentignore")).toBe(before);
  });
});
