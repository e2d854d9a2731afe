import { appendFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { changedSpans } from "../../server/src/engine/lineChange";
import { TrackedDocument } from "../../server/src/lsp/documents";
import { TextBuffer } from "../../server/src/lsp/textBuffer";
import { WorkspaceContext } from "../../server/src/lsp/workspaceContext";
import { runHookInProcess } from "../support/cliRunner";
import { claudePayload, writeTranscript } from "../support/hookPayloads";
import { LEDGER } from "../support/ledgerFile";
import { TempWorkspace } from "../support/workspace";

/**
 * A save whose write reached the disk before the server handled the change that produced it looks like a
 * reload of another writer's content; the didSave that follows says it was the editor's own (its record
 * is due). Only a record of the file appended meanwhile by another writer says it was a reload. The
 * document is driven here as the server drives it (TrackedDocument over a real workspace and ledger), with
 * git's answer about the file's sources standing in for the background git call whose arrival, between the
 * change and the didSave, took the save for a reload and recorded nothing (seen in the attribution oracle).
 */

const SRC = "src/api/source.ts";
const PATH = "src/api/pasted.ts";
const BLOCK = Array.from({ length: 6 }, (_, i) => `export const moved${i} = computeTheValueOf(${i});`);
const text = (lines: string[]) => lines.map((l) => `${l}\n`).join("");
const NONE = { renamed: [], split: [] };

describe("a save that reached the disk before its change was handled", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.dispose());

  /** SRC written by an agent (its record in the ledger), PATH open with two lines, the person pasting BLOCK into it. */
  async function scene(): Promise<{ ctx: WorkspaceContext; doc: TrackedDocument; pasted: string }> {
    ws = new TempWorkspace({ withLedger: false });
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    const payload = (event: string) =>
      claudePayload(ws, event, {
        tool_name: "Write",
        tool_input: { file_path: ws.path(SRC), content: text(BLOCK) },
        tool_use_id: "toolu_src",
        ...(event === "PostToolUse" ? { tool_response: { type: "create" } } : {}),
      });
    expect((await runHookInProcess("claude-code", payload("PreToolUse"), { cwd: ws.root })).status).toBe(0);
    ws.write(SRC, text(BLOCK));
    expect((await runHookInProcess("claude-code", payload("PostToolUse"), { cwd: ws.root })).status).toBe(0);
    ws.write(PATH, text(["p1", "p2"]));

    const ctx = new WorkspaceContext(ws.root, "test");
    ctx.ledger.gitNames = () => NONE;
    await ctx.ledger.poll();
    const doc = new TrackedDocument(new TextBuffer(pathToFileURL(ws.path(PATH)).href, "typescript", 1, text(["p1", "p2"])), PATH, ctx);
    doc.ledgerChanged(doc.ledgerEntries());

    // the editor's save wrote the pasted text before the server handled the paste's didChange
    const pasted = text(["p1", ...BLOCK, "p2"]);
    ws.write(PATH, pasted);
    expect(doc.applyChanges([{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: text(BLOCK) }], 2)).toBe(true);
    return { ctx, doc, pasted };
  }

  it("stays the editor's own save when git's answer brings older records into view before the didSave", async () => {
    const { ctx, doc } = await scene();
    // git's background answer lands: the file is named as split from SRC, whose (old) records now explain it
    ctx.ledger.gitNames = (p) => (p === PATH ? { renamed: [], split: [SRC] } : NONE);
    doc.ledgerChanged(doc.ledgerEntries());
    expect(doc.ledgerEntries().some((e) => e.path === SRC)).toBe(true);

    doc.beforeSave();
    const save = doc.beginSave();
    expect(save.before).toBe(text(["p1", "p2"]));
    expect(changedSpans(save.change)).toEqual([{ start: 1, end: BLOCK.length }]);
  });

  it("is a reload when another writer's record of the file is appended before the didSave", async () => {
    const { ctx, doc, pasted } = await scene();
    // another tool's record of this file: ranges only, no content hash
    const foreign = {
      version: "1.0",
      id: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6b",
      timestamp: new Date().toISOString(),
      tool: { name: "other-agent" },
      files: [{ path: PATH, conversations: [{ contributor: { type: "ai", model_id: "openai/gpt-4o" }, ranges: [{ start_line: 2, end_line: 7 }] }] }],
    };
    appendFileSync(ws.path(LEDGER), `${JSON.stringify(foreign)}\n`);
    await ctx.ledger.poll();
    doc.ledgerChanged(doc.ledgerEntries());

    doc.beforeSave();
    const save = doc.beginSave();
    expect(save.before).toBe(pasted);
    expect(changedSpans(save.change)).toEqual([]);
  });
});
