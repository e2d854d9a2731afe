import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { runHookInProcess } from "../support/cliRunner";
import { claudePayload, writeTranscript } from "../support/hookPayloads";
import { LEDGER } from "../support/ledgerFile";
import { blameTracesInProcess, InProcessEditor } from "../support/inProcessEditor";
import { lineRange, OTHER, text } from "../support/savedDocument";
import { TempWorkspace } from "../support/workspace";
import { readFileSync } from "node:fs";

/**
 * Every order in which an agent's write, the editor's reload of it, its record landing in the ledger, the
 * person's edit and save, and the watcher's event can reach the server. Whatever the order, once every
 * event has arrived and been handled: each line of the open document (whose buffer is then the file on
 * disk) shows in hover exactly the owner and the trace `intent blame` shows, and the person's save record
 * claims only lines the person edited. The agent's hook and `intent blame` run in this process
 * (runCliInProcess, the built CLI's code): the order of events reaching the server is the subject here.
 */

const SONNET = "claude-sonnet-4-5-20250929";

type Event = "reload" | "record" | "edit" | "save" | "watcher" | "open" | "close" | "reopen";

/** Every way of inserting `extra` events into `fixed` (whose order is kept). */
function interleavings(fixed: readonly Event[], extra: readonly Event[]): Event[][] {
  if (!extra.length) return [[...fixed]];
  const [first, ...rest] = extra;
  const out: Event[][] = [];
  for (const order of interleavings(fixed, rest)) {
    for (let at = 0; at <= order.length; at++) out.push([...order.slice(0, at), first!, ...order.slice(at)]);
  }
  return out;
}

/** Save records of the person for `path`: their ranges, 1-based. */
function humanRanges(ws: TempWorkspace, path: string): number[][][] {
  const records = readFileSync(ws.path(LEDGER), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  return records
    .filter((r) => r.files[0].path === path && r.files[0].conversations[0].contributor.type === "human")
    .map((r) => r.files[0].conversations[0].ranges.map((x: { start_line: number; end_line: number }) => [x.start_line, x.end_line]));
}

describe("hover = blame and honest save records, whatever order the events arrive in", () => {
  let ws: TempWorkspace;
  let editor: InProcessEditor;
  let n = 0;
  beforeAll(async () => {
    await ensureBuilt();
    ws = new TempWorkspace({ withLedger: false });
    ws.select("INT-001");
    writeTranscript(ws, SONNET);
    ws.write(OTHER, "other\n");
    editor = await InProcessEditor.start(ws.root);
  });
  afterAll(async () => {
    await editor?.stop();
    ws?.dispose();
  });

  /** A file the person created in the editor and saved: every line the person's. */
  async function created(lines: string[]): Promise<string> {
    const path = `src/api/order${++n}.ts`;
    ws.write(path, "");
    await editor.open(path, "");
    await editor.change(path, [{ range: lineRange(0, 0), text: text(lines) }]);
    expect(await editor.save(path)).not.toBeNull();
    return path;
  }

  /** Claude Code's Write: the gate and the file written now; `record` is its PostToolUse. */
  async function agentWrites(path: string, content: string): Promise<() => Promise<void>> {
    const payload = (event: string) =>
      claudePayload(ws, event, {
        tool_name: "Write",
        tool_input: { file_path: ws.path(path), content },
        tool_use_id: `toolu_${path}`,
        ...(event === "PostToolUse" ? { tool_response: { type: "update" } } : {}),
      });
    expect((await runHookInProcess("claude-code", payload("PreToolUse"), { cwd: ws.root })).status).toBe(0);
    ws.write(path, content);
    return async () => expect((await runHookInProcess("claude-code", payload("PostToolUse"), { cwd: ws.root })).status).toBe(0);
  }

  /** After every event: the saves handled, the ledger read; then hover = blame on every line. */
  async function settledAgreement(path: string, savesSent: number): Promise<void> {
    await editor.savesHandled(savesSent);
    await editor.ledgerRead(OTHER);
    expect(editor.text(path)).toBe(ws.read(path)); // the buffer is the file on disk
    expect(await editor.hoverTraces(path)).toEqual(await blameTracesInProcess(ws.root, path));
  }

  // The hook records what is on disk when it runs: a PostToolUse that runs after the person's save has
  // written the file describes the person's content, not the agent's, so its record lands before that write.
  const openOrders = interleavings(["reload", "edit", "save"], ["record", "watcher"]).filter((o) => o.indexOf("record") < o.indexOf("save"));
  describe.each(["one didChange per hunk", "one region"] as const)(
    "an agent's two hunks in an open file, reloaded in %s, and the person's edit of another line",
    (style) => {
      it.each(openOrders.map((o) => [o.join(" → "), o] as const))("%s", { timeout: 60_000 }, async (_name, order) => {
        const path = await created(["a1", "a2", "a3", "a4", "a5", "a6"]);
        const record = await agentWrites(path, text(["a1", "A2", "a3", "a4", "A5", "a6"]));
        let saves = editor.savesProcessed;
        for (const event of order) {
          if (event === "reload" && style === "one region")
            await editor.change(path, [{ range: { start: { line: 1, character: 0 }, end: { line: 4, character: 2 } }, text: "A2\na3\na4\nA5" }]);
          if (event === "reload" && style === "one didChange per hunk") {
            await editor.change(path, [{ range: lineRange(4, 2), text: "A5" }]);
            await editor.change(path, [{ range: lineRange(1, 2), text: "A2" }]);
          }
          if (event === "record") await record();
          if (event === "edit") await editor.setLine(path, 5, "a6 edited");
          if (event === "save") {
            await editor.writeBuffer(path);
            await editor.sendDidSave(path);
            saves++;
          }
          if (event === "watcher") await editor.watched(path);
        }
        await settledAgreement(path, saves);
        // the person's records: the creation, then the save of line 6 alone
        expect(humanRanges(ws, path)).toEqual([[[1, 6]], [[6, 6]]]);
      });
    },
  );

  const closedOrders = interleavings(["open", "save"], ["record", "watcher"]);
  it.each(closedOrders.map((o) => [o.join(" → "), o] as const))(
    "an agent's write to a closed file, opened and saved at once: %s",
    { timeout: 60_000 },
    async (_name, order) => {
      const path = await created(["d1", "d2", "d3"]);
      await editor.setLine(path, 1, "X");
      expect(await editor.save(path)).not.toBeNull();
      await editor.close(path);
      const record = await agentWrites(path, text(["d1", "d2", "d3"])); // the text an older human record wrote
      let saves = editor.savesProcessed;
      for (const event of order) {
        if (event === "open") await editor.open(path, ws.read(path));
        if (event === "record") await record();
        if (event === "save") {
          await editor.writeBuffer(path);
          await editor.sendDidSave(path);
          saves++;
        }
        if (event === "watcher") await editor.watched(path);
      }
      await settledAgreement(path, saves);
      expect(humanRanges(ws, path)).toEqual([[[1, 3]], [[2, 2]]]);
    },
  );

  const reopenOrders = interleavings(["save", "close", "reopen"], ["watcher"]);
  it.each(reopenOrders.map((o) => [o.join(" → "), o] as const))(
    "the person's save, then the document closed and opened again: %s",
    { timeout: 60_000 },
    async (_name, order) => {
      const path = await created(["c1", "c2"]);
      await editor.setLine(path, 1, "c2 edited");
      let saves = editor.savesProcessed;
      for (const event of order) {
        if (event === "save") {
          await editor.writeBuffer(path);
          await editor.sendDidSave(path);
          saves++;
        }
        if (event === "close") await editor.close(path);
        if (event === "reopen") await editor.open(path, ws.read(path));
        if (event === "watcher") await editor.watched(path);
      }
      await settledAgreement(path, saves);
      expect(humanRanges(ws, path)).toEqual([[[1, 2]], [[2, 2]]]);
    },
  );
});
