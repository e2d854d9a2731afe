import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DiagnosticSeverity } from "vscode-languageserver-protocol";
import { type LspClient, line } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

const NOTES = "docs/notes.md";
const outOfScope = (d: { code?: unknown }[]) => d.filter((x) => x.code === "out-of-scope");
const lines = (d: { range: { start: { line: number }; end: { line: number } } }[]) => d.map((x) => [x.range.start.line, x.range.end.line]);

describe("scope diagnostics over JSON-RPC", () => {
  let ws: TempWorkspace;
  let client: LspClient;

  beforeEach(async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    client = await startInProcess({ root: ws.root });
  });
  stopAfterEach(() => ({ client, ws }));

  it("squiggles exactly the edited line, naming the file, the intent and its scope", async () => {
    await client.open(NOTES, "markdown");
    await client.setLine(NOTES, 9, "- Write the onboarding guide this week.");
    const diags = await client.waitForDiagnostics(NOTES, (d) => d.length > 0);
    expect(diags).toEqual([
      {
        range: { start: { line: 9, character: 0 }, end: { line: 9, character: 39 } },
        severity: DiagnosticSeverity.Error,
        code: "out-of-scope",
        source: "intent-lsp",
        message:
          "docs/notes.md is outside the scope of INT-001 (Build Weather API): src/api/**, test/api/**. Owned by INT-003 (IN_PROGRESS), INT-004 (PENDING).",
        data: { path: NOTES },
      },
    ]);
  });

  it("moves the diagnostic with inserted lines, squiggles them too, and forgets undone edits", async () => {
    await client.open(NOTES, "markdown");
    const original = client.text(NOTES).split("\n")[9];
    await client.setLine(NOTES, 9, "changed");
    await client.waitForDiagnostics(NOTES, (d) => lines(d).join() === "9,9");

    await client.insertLines(NOTES, 2, ["a", "b", "c", "d", "e"]);
    const moved = await client.waitForDiagnostics(NOTES, (d) => lines(d).join("|") === "2,6|14,14");
    expect(outOfScope(moved)).toHaveLength(2);

    await client.deleteLines(NOTES, 2, 5);
    await client.waitForDiagnostics(NOTES, (d) => lines(d).join("|") === "9,9");
    await client.setLine(NOTES, 9, original);
    await client.waitForDiagnostics(NOTES, (d) => d.length === 0);
  });

  it("offers the quick fixes of the user journey, and selecting an owner clears the squiggle", async () => {
    await client.open(NOTES, "markdown");
    await client.setLine(NOTES, 3, "- changed");
    const [diag] = await client.waitForDiagnostics(NOTES, (d) => d.length === 1);
    const actions = await client.codeActions(NOTES, line(3), [diag]);
    expect(actions.map((a) => a.title)).toEqual([
      "Select INT-003 — Docs refresh",
      "Start and select INT-004 — Onboarding guide",
      "Add docs/notes.md to INT-001's scope",
      "Add docs/** to INT-001's scope",
      "Add docs/notes.md to .intentignore",
    ]);
    expect(actions[0].isPreferred).toBe(true);
    expect(actions.every((a) => a.kind === "quickfix")).toBe(true);

    await client.executeCommand(actions[0].command!.command, ...(actions[0].command!.arguments ?? []));
    await client.waitForDiagnostics(NOTES, (d) => d.length === 0);
    expect(JSON.parse(ws.read(".orchestration/.sessions/workspace.json")).intent).toBe("INT-003");
  });

  it("start-and-select moves a PENDING owner to IN_PROGRESS in the YAML and selects it", async () => {
    await client.open(NOTES, "markdown");
    await client.setLine(NOTES, 3, "- changed");
    const [diag] = await client.waitForDiagnostics(NOTES, (d) => d.length === 1);
    const start = (await client.codeActions(NOTES, line(3), [diag])).find((a) => a.title.startsWith("Start and select INT-004"))!;
    await client.executeCommand(start.command!.command, ...(start.command!.arguments ?? []));
    await client.waitForDiagnostics(NOTES, (d) => d.length === 0);
    expect(ws.read(".orchestration/active_intents.yaml")).toMatch(/id: INT-004\n {4}name: Onboarding guide\n {4}status: IN_PROGRESS\n/);
  });

  it("amending the scope rewrites the YAML in place and clears the squiggle", async () => {
    await client.open(NOTES, "markdown");
    await client.setLine(NOTES, 3, "- changed");
    const [diag] = await client.waitForDiagnostics(NOTES, (d) => d.length === 1);
    const amend = (await client.codeActions(NOTES, line(3), [diag])).find((a) => a.title === "Add docs/** to INT-001's scope")!;
    await client.executeCommand(amend.command!.command, ...(amend.command!.arguments ?? []));
    await client.waitForDiagnostics(NOTES, (d) => d.length === 0);
    expect(ws.read(".orchestration/active_intents.yaml")).toContain(`owned_scope: ["src/api/**", "test/api/**", "docs/**"]`);
  });

  it("ignoring the path appends it to .intentignore and clears the squiggle", async () => {
    await client.open(NOTES, "markdown");
    await client.setLine(NOTES, 3, "- changed");
    const [diag] = await client.waitForDiagnostics(NOTES, (d) => d.length === 1);
    const ignore = (await client.codeActions(NOTES, line(3), [diag])).find((a) => a.title.endsWith("to .intentignore"))!;
    await client.executeCommand(ignore.command!.command, ...(ignore.command!.arguments ?? []));
    await client.waitForDiagnostics(NOTES, (d) => d.length === 0);
    expect(ws.read(".intentignore")).toBe("dist/\n*.log\n/docs/notes.md\n");
  });

  it("no edits, no diagnostics; an in-scope edit is clean", async () => {
    await client.open("src/api/weather.ts", "typescript");
    await client.setLine("src/api/weather.ts", 2, "export interface Weather { // edited");
    await client.open(NOTES, "markdown");
    expect(await client.waitForPublishOfCurrentVersion("src/api/weather.ts")).toEqual([]);
    expect(await client.waitForPublishOfCurrentVersion(NOTES)).toEqual([]);
  });
});

describe("active intent resolution", () => {
  let ws: TempWorkspace;
  let client: LspClient | undefined;
  afterEach(async () => {
    await client?.stop();
    ws.dispose();
  });

  it("auto-selects the single in-progress owner; strict mode reports no-active-intent", async () => {
    ws = new TempWorkspace();
    client = await startInProcess({ root: ws.root });
    await client.open("src/api/weather.ts");
    await client.setLine("src/api/weather.ts", 0, "// edited");
    await client.open(NOTES);
    await client.setLine(NOTES, 0, "# edited");
    // docs/notes.md has two owners (INT-003 in progress, INT-004 pending): one in-progress owner is enough
    expect(await client.waitForPublishOfCurrentVersion("src/api/weather.ts")).toEqual([]);
    expect(await client.waitForPublishOfCurrentVersion(NOTES)).toEqual([]);
    await client.stop();

    ws.write(".orchestration/config.jsonc", `{ "autoSelect": false }`);
    client = await startInProcess({ root: ws.root });
    await client.open("src/api/weather.ts");
    await client.setLine("src/api/weather.ts", 0, "// edited");
    const [d] = await client.waitForDiagnostics("src/api/weather.ts", (x) => x.length === 1);
    expect(d.code).toBe("no-active-intent");
    expect(d.severity).toBe(DiagnosticSeverity.Error);
    expect(d.message).toBe("No intent selected for src/api/weather.ts. Select an intent before editing. Owned by INT-001 (IN_PROGRESS).");
  });

  it.each([
    ["INT-002", "INT-002 (Token refresh for auth middleware) is BLOCKED: it is blocked. Resume it once the blocker is resolved, or select another intent."],
    ["INT-004", "INT-004 (Onboarding guide) is PENDING: it has not been started. Start it, or select an intent that is in progress."],
    ["INT-005", "INT-005 (Billing export) is COMPLETE: it is complete, so its work is closed. Select another intent, or create one for this change."],
  ])("selected %s that is not in progress gives a status-specific intent-not-in-progress", async (id, message) => {
    ws = new TempWorkspace();
    ws.select(id);
    client = await startInProcess({ root: ws.root });
    await client.open("src/auth/middleware.ts");
    await client.setLine("src/auth/middleware.ts", 1, "  // edited");
    const [d] = await client.waitForDiagnostics("src/auth/middleware.ts", (x) => x.length === 1);
    expect(d.code).toBe("intent-not-in-progress");
    expect(d.range.start.line).toBe(1);
    expect(d.message).toBe(message);
  });

  it("follows `intent select` made outside the editor (workspace.json written by another process)", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    client = await startInProcess({ root: ws.root });
    await client.open(NOTES);
    await client.setLine(NOTES, 5, "edited");
    await client.waitForDiagnostics(NOTES, (d) => d.length === 1);
    ws.select("INT-003");
    await client.waitForDiagnostics(NOTES, (d) => d.length === 0);
  });

  it("a workspace selection file that cannot be read: the edit is under no intent, and the message says which file and to select again, as the gate does", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    const file = ".orchestration/.sessions/workspace.json";
    ws.write(file, ws.read(file).slice(0, 10));
    client = await startInProcess({ root: ws.root });
    await client.open("src/api/weather.ts");
    await client.setLine("src/api/weather.ts", 0, "// edited");
    const [d] = await client.waitForDiagnostics("src/api/weather.ts", (x) => x.length === 1);
    expect(d.code).toBe("no-active-intent");
    expect(d.message).toBe(
      `${file} is not valid JSON (half-written, or edited by hand), so which intent is selected is not known. Select again (\`intent select ID\`) before editing. Owned by INT-001 (IN_PROGRESS).`,
    );
    // selected again (outside the editor): the edit is under INT-001, which owns it
    ws.select("INT-001");
    await client.waitForDiagnostics("src/api/weather.ts", (x) => x.length === 0);
  });

  it("honours per-code severity from config.jsonc, overridden by the client's settings", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    ws.write(".orchestration/config.jsonc", `{ "severity": { "out-of-scope": "warning" } }`);
    client = await startInProcess({ root: ws.root });
    await client.open(NOTES);
    await client.setLine(NOTES, 5, "edited");
    const [d] = await client.waitForDiagnostics(NOTES, (x) => x.length === 1);
    expect(d.severity).toBe(DiagnosticSeverity.Warning);
    await client.stop();

    client = await startInProcess({ root: ws.root, settings: { severity: { "out-of-scope": "off" } } });
    await client.open(NOTES);
    await client.setLine(NOTES, 5, "edited");
    expect(await client.waitForPublishOfCurrentVersion(NOTES)).toEqual([]);
  });
});
