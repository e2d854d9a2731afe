import { describe, expect, it } from "vitest";
import type { LspClient } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

/**
 * Three defects of the open-document model (server/src/lsp/documents.ts, engine/editedLines.ts) that the
 * protocol fuzz found, each as its smallest reproduction. They belong to the open-document rewrite; these
 * tests fail until it fixes them, and the fuzz (fuzz.test.ts) finds them again from random input.
 */
describe("the open-document model against edits editors can send", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  stopAfterEach(() => ({ client, ws }));

  it("a reversed range (start after end) edits the lines the text model edits", async () => {
    ws = new TempWorkspace();
    ws.write("src/auth/a.ts", "l0\nl1\nl2\nl3\nl4\n"); // INT-002 owns it and is BLOCKED: every edited line is a diagnostic
    client = await startInProcess({ root: ws.root });
    const uri = await client.open("src/auth/a.ts");
    // "l|1\nl2\nl|3" replaced by "Z", the range given end first: the text becomes l0, lZ3, l4
    await client.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 3, character: 1 }, end: { line: 1, character: 1 } }, text: "Z" }],
    });
    const blame = async () =>
      ((await client.executeCommand("intent.blame", { uri })) as { lines: { text: string; kind: string }[] }).lines.map((l) => [l.text, l.kind]);
    // the fact to wait for: the ledger has been read (until then lines not edited are "indexing")
    await expect.poll(async () => (await blame()).some(([, kind]) => kind === "indexing")).toBe(false);
    expect(await blame()).toEqual([
      ["l0", "untraced"],
      ["lZ3", "edited"],
      ["l4", "untraced"],
    ]);
    const diags = await client.waitForDiagnostics("src/auth/a.ts", (d) => d.length > 0);
    expect(diags.map((d) => [d.code, d.range.start.line, d.range.end.line])).toEqual([["no-active-intent", 1, 1]]);
  });

  it("text ending in CR inserted before an LF makes one CRLF line break, as the editor counts it", async () => {
    ws = new TempWorkspace();
    ws.write("src/api/crlf.ts", "a\nb\n");
    client = await startInProcess({ root: ws.root });
    const uri = await client.open("src/api/crlf.ts");
    // "a" + "\r" + "\nb\n": the CR joins the LF after it; the document has lines a, b and an empty last one
    await client.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 0, character: 1 }, end: { line: 0, character: 1 } }, text: "\r" }],
    });
    // the editor now deletes line 1 ("b"): positions are the editor's lines
    await client.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: 3 },
      contentChanges: [{ range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, text: "" }],
    });
    const blame = (await client.executeCommand("intent.blame", { uri })) as { lines: { text: string }[] };
    expect(blame.lines.map((l) => l.text)).toEqual(["a"]);
  });

  it("an untouched line between two changed lines of one edit is not edited", async () => {
    ws = new TempWorkspace();
    ws.write("src/auth/a.ts", "l0\nl1\nl2\nl3\nl4\n");
    client = await startInProcess({ root: ws.root });
    const uri = await client.open("src/auth/a.ts");
    // one edit (a formatter, a multi-cursor change) rewrites lines 1..3; only 1 and 3 differ afterwards
    await client.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 1, character: 0 }, end: { line: 3, character: 2 } }, text: "L1\nl2\nL3" }],
    });
    const diags = await client.waitForDiagnostics("src/auth/a.ts", (d) => d.length > 0);
    expect(diags.map((d) => [d.range.start.line, d.range.end.line])).toEqual([
      [1, 1],
      [3, 3],
    ]);
  });
});
