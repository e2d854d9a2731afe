import { afterEach, describe, expect, it } from "vitest";
import { fileHash } from "../../server/src/engine/hashing";
import { MAX_BLOCK_LENSES } from "../../server/src/lsp/codeLens";
import { MAX_DIAGNOSTICS } from "../../server/src/lsp/diagnostics";
import { runCliInProcess } from "../support/cliRunner";
import { commitThenRewriteEveryOtherLine } from "../support/generatedFile";
import { gitWorkspace } from "../support/gitRepository";
import { LEDGER, ledgerRecords } from "../support/ledgerFile";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";

const API = "src/api/weather.ts";
const PASTED = 200_000;

/**
 * An edit that brings hundreds of thousands of lines at once (a paste of a generated file, an editor's reload
 * of a file rewritten on disk) is taken as any edit: the buffer holds it, the diagnostics cover it, and the save
 * records exactly the saved text.
 */
describe("an edit of hundreds of thousands of lines", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  afterEach(async () => {
    await client.stop();
    ws.dispose();
  });

  it("a paste of 200,000 lines into an open file is held, judged and recorded as pasted", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.write(LEDGER, "");
    ws.select("INT-001");
    client = await LspClient.start({ root: ws.root });
    await client.open(API, "typescript");
    const before = client.text(API).split("\n").length;
    const pasted = Array.from({ length: PASTED }, (_, i) => `export const p${i} = ${i};\n`).join("");
    await client.edit(API, { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, pasted);
    // the server holds the pasted text: a hover on the last pasted line describes an unsaved edit
    expect(await client.hoverText(API, PASTED)).toContain("Edited, not saved yet.");
    expect(client.text(API).split("\n")).toHaveLength(before + PASTED);
    const recordId = await client.save(API);
    expect(recordId).not.toBeNull();
    const records = ledgerRecords(ws);
    expect(records).toHaveLength(1);
    expect(records[0].metadata["dev.intent-lsp"].post_hash).toBe(fileHash(client.text(API)));
    expect(records[0].files[0].conversations[0].ranges.map((r: { start_line: number; end_line: number }) => [r.start_line, r.end_line])).toEqual([
      [2, PASTED + 1],
    ]);
  });

  it("a reload that rewrites every other line of a 200,000-line file: each rewritten line is an edit, each kept one is not", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.write(LEDGER, "");
    ws.select("INT-001");
    const BIG = "src/api/generated.ts";
    const lines = Array.from({ length: PASTED }, (_, i) => `export const g${i} = ${i};`);
    ws.write(BIG, `${lines.join("\n")}\n`);
    client = await LspClient.start({ root: ws.root });
    await client.open(BIG, "typescript");
    const rewritten = lines.map((l, i) => (i % 2 ? l.replace(" = ", " = -") : l));
    // the editor's reload: one change replacing the whole text
    await client.edit(BIG, { start: { line: 0, character: 0 }, end: { line: PASTED, character: 0 } }, `${rewritten.join("\n")}\n`);
    expect(await client.hoverText(BIG, 1)).toContain("Edited, not saved yet.");
    expect(await client.hoverText(BIG, 2)).not.toContain("Edited, not saved yet.");
    expect(await client.hoverText(BIG, PASTED - 1)).toContain("Edited, not saved yet.");
    await client.save(BIG);
    const records = ledgerRecords(ws);
    expect(records).toHaveLength(1);
    expect(records[0].metadata["dev.intent-lsp"].post_hash).toBe(fileHash(client.text(BIG)));
    const ranges = records[0].files[0].conversations[0].ranges.map((r: { start_line: number; end_line: number }) => [r.start_line, r.end_line]);
    expect(ranges).toHaveLength(PASTED / 2);
    expect(ranges.slice(0, 2)).toEqual([
      [2, 2],
      [4, 4],
    ]);
    // once the ledger holds the record, each rewritten line is its own block: lenses stop after the first 1,000
    await expect.poll(async () => client.hoverText(BIG, 1), { timeout: 30_000 }).toContain("INT-001");
    const lenses = (await client.connection.sendRequest("textDocument/codeLens", { textDocument: { uri: client.uri(BIG) } })) as {
      range: { start: { line: number } };
      command: { title: string };
    }[];
    expect(lenses).toHaveLength(1 + MAX_BLOCK_LENSES);
    expect(lenses[0]!.command.title).toContain(`· lenses on the first 1,000 of ${(PASTED / 2).toLocaleString("en")} blocks`);
    expect(lenses.slice(1, 3).map((l) => l.range.start.line)).toEqual([1, 3]);
    expect(lenses.at(-1)!.range.start.line).toBe(2 * MAX_BLOCK_LENSES - 1);
  });

  it("every other line of a 300,000-line file outside the selected intent's scope rewritten: the first 1,000 rewritten lines have their out-of-scope diagnostic, then one says how many more there are", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.write(LEDGER, "");
    ws.select("INT-001");
    const NOTES = "docs/generated.md";
    const count = 300_000;
    const lines = Array.from({ length: count }, (_, i) => `note ${i}`);
    ws.write(NOTES, `${lines.join("\n")}\n`);
    client = await LspClient.start({ root: ws.root });
    await client.open(NOTES, "markdown");
    const rewritten = lines.map((l, i) => (i % 2 ? `${l}!` : l));
    await client.edit(NOTES, { start: { line: 0, character: 0 }, end: { line: count, character: 0 } }, `${rewritten.join("\n")}\n`);
    const diagnostics = await client.waitForDiagnostics(NOTES, (d) => d.length > 0, 60_000);
    expect(diagnostics).toHaveLength(MAX_DIAGNOSTICS + 1);
    const outOfScope = diagnostics.slice(0, MAX_DIAGNOSTICS);
    expect(new Set(outOfScope.map((d) => d.code))).toEqual(new Set(["out-of-scope"]));
    expect(outOfScope.map((d) => d.range.start.line)).toEqual(Array.from({ length: MAX_DIAGNOSTICS }, (_, k) => 2 * k + 1));
    const more = diagnostics[MAX_DIAGNOSTICS]!;
    expect(more.code).toBe("findings-not-shown");
    expect(more.range.start.line).toBe(2 * MAX_DIAGNOSTICS + 1);
    expect(more.message).toContain(`${(count / 2 - MAX_DIAGNOSTICS).toLocaleString("en")} more findings in this file, from this line on, are not shown`);
    // a keystroke that takes one diagnostic away moves the point where they stop by one line pair
    await client.setLine(NOTES, 1, "note 1");
    const after = await client.waitForDiagnostics(NOTES, (d) => d.at(-1)?.range.start.line === 2 * MAX_DIAGNOSTICS + 3, 60_000);
    expect(after[0]!.range.start.line).toBe(3);
    expect(after.at(-1)!.message).toContain(`${(count / 2 - MAX_DIAGNOSTICS - 1).toLocaleString("en")} more findings`);
  });

  it("a saved file git counts 150,000 changed runs in: the first 1,000 untraced changes are shown, then where the rest start, as many as intent check lists", async () => {
    ws = gitWorkspace();
    const GEN = "src/api/generated.ts";
    commitThenRewriteEveryOtherLine(ws, GEN, 300_000);
    const check = await runCliInProcess(["check"], { cwd: ws.root });
    const listed = check.stdout.split("\n").filter((l) => l.startsWith(`${GEN}:`));
    client = await LspClient.start({ root: ws.root });
    await client.open(GEN, "typescript");
    const diagnostics = await client.waitForDiagnostics(GEN, (d) => d.length > 0, 60_000);
    expect(diagnostics).toHaveLength(MAX_DIAGNOSTICS + 1);
    // the ones shown are the first intent check lists, at the same lines, with the same codes
    const lineAndCode = (l: string) => /^[^:]+:(\d+): \w+ ([\w-]+):/.exec(l)!.slice(1).join(" ");
    expect(diagnostics.slice(0, MAX_DIAGNOSTICS).map((d) => `${d.range.start.line + 1} ${d.code}`)).toEqual(listed.slice(0, MAX_DIAGNOSTICS).map(lineAndCode));
    const more = diagnostics[MAX_DIAGNOSTICS]!;
    expect(more.code).toBe("findings-not-shown");
    expect(more.range.start.line).toBe(2 * MAX_DIAGNOSTICS + 1);
    expect(more.message).toContain(`${(listed.length - MAX_DIAGNOSTICS).toLocaleString("en")} more findings`);
  });
});
