import { beforeAll, describe, expect, it } from "vitest";
import type { CodeAction, Diagnostic } from "vscode-languageserver-protocol";
import type { SavedFindingData } from "../../server/src/lsp/findings";
import type { LspClient } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, type TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { gitWorkspace } from "../support/gitRepository";
import { LEDGER, ledgerRecords } from "../support/ledgerFile";

/**
 * The editor shows what `intent check` will report, for saved lines too: with auto-save (a save right after
 * each edit) a line recorded out of scope keeps its diagnostic, from the ledger, on exactly the line the
 * check reports, until a quick fix settles it; then both are clean.
 */

beforeAll(ensureBuilt);

const NOTES = "docs/notes.md"; // owned by INT-003 (in progress) and INT-004 (pending); INT-001 is selected
const LINE = 10; // 0-based
const TEXT = "- Write the onboarding guide this week.";

type Row = { code: string; start: number; end: number; message: string };

const editorRows = (diags: Diagnostic[]): Row[] =>
  diags.map((d) => ({ code: String(d.code), start: d.range.start.line + 1, end: d.range.end.line + 1, message: d.message })).sort((a, b) => a.start - b.start);

function check(ws: TempWorkspace): { status: number; rows: (path: string) => Row[] } {
  const r = runCli(["check", "--format", "json"], { cwd: ws.root });
  const report = JSON.parse(r.stdout);
  return {
    status: r.status,
    rows: (path) =>
      report.findings
        .filter((f: any) => f.path === path)
        .map((f: any) => ({ code: f.code, start: f.startLine, end: f.endLine, message: f.message }))
        .sort((a: Row, b: Row) => a.start - b.start),
  };
}

describe("saved lines: the editor shows what `intent check` reports", () => {
  let ws: TempWorkspace;
  let client: LspClient | undefined;
  stopAfterEach(() => ({ client, ws }));

  /** An out-of-scope line typed and auto-saved: its record lands, the squiggle stays where the check puts it. */
  async function autoSavedOutOfScope(): Promise<{ diags: Diagnostic[]; recordId: string }> {
    ws = gitWorkspace();
    ws.select("INT-001");
    client = await startInProcess({ root: ws.root });
    await client.open(NOTES);
    // the server has read the ledger (intent.blame reads it to its end first): until then no save's lines
    // can be judged, and what is published for them is the subject of no test here
    await client.executeCommand("intent.blame", { path: NOTES, startLine: 0, endLine: 0 });
    await client.setLine(NOTES, LINE, TEXT);
    const recordId = await client.save(NOTES); // auto-save: written and saved right after the edit
    expect(recordId).toEqual(expect.any(String));
    // the save's own publication can come before git has been asked which lines changed: wait for the one
    // that carries the saved line's finding, explained by the record just written
    const diags = await client.waitForDiagnostics(NOTES, (d) => d.some((x) => (x.data as SavedFindingData | undefined)?.recordId === recordId));
    const fromCheck = check(ws);
    expect(fromCheck.rows(NOTES)).toEqual([{ code: "out-of-scope", start: LINE + 1, end: LINE + 1, message: expect.stringContaining("INT-001") }]);
    expect(editorRows(diags)).toEqual(fromCheck.rows(NOTES));
    expect(diags[0]!.range).toEqual({ start: { line: LINE, character: 0 }, end: { line: LINE, character: TEXT.length } });
    return { diags, recordId: recordId! };
  }

  async function applyFix(diags: Diagnostic[], title: (t: string) => boolean): Promise<CodeAction> {
    const actions = await client!.codeActions(NOTES, diags[0]!.range, diags);
    const action = actions.find((a) => title(a.title));
    expect(action, `offered: ${actions.map((a) => a.title).join(" | ")}`).toBeDefined();
    await client!.executeCommand(action!.command!.command, ...(action!.command!.arguments ?? []));
    return action!;
  }

  async function bothClean(): Promise<ReturnType<typeof check>> {
    await client!.waitForDiagnostics(NOTES, (d) => d.length === 0);
    const after = check(ws);
    expect(after.rows(NOTES)).toEqual([]);
    return after;
  }

  it("re-record under the owner: one appended record, the original untouched, both clean", async () => {
    const { diags, recordId } = await autoSavedOutOfScope();
    const before = ws.read(LEDGER);
    const action = await applyFix(diags, (t) => t === `Re-record line ${LINE + 1} under INT-003 — Docs refresh`);
    expect(action.isPreferred).toBe(true);

    const after = ws.read(LEDGER);
    expect(after.startsWith(before)).toBe(true); // the first records' bytes unchanged
    const records = ledgerRecords(ws);
    expect(records).toHaveLength(2);
    const [original, reattribution] = records;
    expect(original!.id).toBe(recordId);
    const meta = reattribution!.metadata["dev.intent-lsp"];
    expect(meta).toMatchObject({
      intent_id: "INT-003",
      scope: "PASS",
      reattributes: [recordId],
      pre_hash: original!.metadata["dev.intent-lsp"].post_hash,
      post_hash: original!.metadata["dev.intent-lsp"].post_hash,
    });
    expect(reattribution!.files[0].conversations[0].ranges).toEqual([expect.objectContaining({ start_line: LINE + 1, end_line: LINE + 1 })]);
    expect(reattribution!.files[0].conversations[0].contributor).toEqual(original!.files[0].conversations[0].contributor);

    expect((await bothClean()).status).toBe(0);
    expect(await client!.hoverText(NOTES, LINE, 1)).toContain("INT-003");
  });

  it("the hover on a line recorded out of scope warns in words, as the check's finding does", async () => {
    const { recordId } = await autoSavedOutOfScope();
    const [record] = ledgerRecords(ws);
    expect(record!.metadata["dev.intent-lsp"].scope).toBe("OUT_OF_SCOPE");
    expect(await client!.hoverText(NOTES, LINE, 1)).toBe(
      [
        "**INT-001 — Build Weather API (IN_PROGRESS)**",
        "",
        "⚠ recorded outside INT-001's scope",
        "",
        `human · just now (${record!.timestamp})`,
        "",
        `trace \`${recordId}\` · intent-lsp · exact`,
        "",
        "Constraints:",
        "- Use TypeScript",
        "- No new runtime dependencies",
      ].join("\n"),
    );
  });

  it("amend the scope of the intent it was recorded under: both clean", async () => {
    const { diags } = await autoSavedOutOfScope();
    await applyFix(diags, (t) => t === `Add ${NOTES} to INT-001's scope`);
    expect(ledgerRecords(ws)).toHaveLength(1);
    expect((await bothClean()).status).toBe(0);
  });

  it("ignore the path: both clean", async () => {
    const { diags } = await autoSavedOutOfScope();
    await applyFix(diags, (t) => t === `Add ${NOTES} to .intentignore`);
    expect(ledgerRecords(ws)).toHaveLength(1);
    // .intentignore is a rule file, exempt like .orchestration/: the exemption is reviewed as a rule change
    expect((await bothClean()).status).toBe(0);
  });

  it("untraced-change: a line another program inserts at the top is flagged at line 1, as `intent check` flags it", async () => {
    const API = "src/api/weather.ts"; // owned by INT-001, in progress
    ws = gitWorkspace();
    ws.select("INT-001");
    client = await startInProcess({ root: ws.root });
    await client.open(API);
    await client.setLine(API, 4, "  celsius: number; // °C");
    expect(await client.save(API)).toEqual(expect.any(String)); // recorded, in scope
    expect(editorRows(await client.waitForPublishOfCurrentVersion(API))).toEqual([]);

    // another program writes a header at the top; the editor reloads the file, as editors do for a clean buffer
    const header = "// generated: do not edit";
    ws.write(API, `${header}\n${client.text(API)}`);
    await client.replaceAll(API, ws.read(API));
    const diags = await client.waitForDiagnostics(API, (d) => d.some((x) => x.code === "untraced-change"));
    const fromCheck = check(ws).rows(API);
    expect(fromCheck).toEqual([{ code: "untraced-change", start: 1, end: 1, message: expect.stringContaining("untraced") }]);
    expect(editorRows(diags)).toEqual(fromCheck);
    expect(diags[0]!.range).toEqual({ start: { line: 0, character: 0 }, end: { line: 0, character: header.length } });
  });
});
