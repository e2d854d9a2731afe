import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { fileHash } from "../../server/src/engine/hashing";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";

const LEDGER = ".orchestration/agent_trace.jsonl";
const BIG = "src/api/big.ts";
const LINES = 1_000_000;

/**
 * Saving a very large file keeps the server answering (docs/ARCHITECTURE.md: the editor is never blocked): the save's
 * whole-file work yields, so a request sent right after the didSave is answered before the save is
 * processed. The record still describes exactly the saved text, and an edit that arrives while the save
 * is being handled is not part of it: it stays an unsaved edit.
 */
describe("saving a 1,000,000-line file", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  afterEach(async () => {
    await client.stop();
    ws.dispose();
  });

  it("answers other requests while the save is handled; the record is exactly the saved text's; an edit during the save stays unsaved", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.write(LEDGER, "");
    ws.select("INT-001");
    const body: string[] = [];
    for (let i = 0; i < LINES; i++) body.push(`export const v${i} = ${i};`);
    ws.write(BIG, `${body.join("\n")}\n`);
    client = await LspClient.start({ root: ws.root });
    await client.open("src/api/weather.ts", "typescript");
    await client.open(BIG, "typescript");
    await client.hoverText("src/api/weather.ts", 2); // both documents are open and handled

    await client.setLine(BIG, 500_000, "export const changed = 1;");
    const saved = client.text(BIG);
    writeFileSync(ws.path(BIG), saved);
    const seen = client.savesProcessed.length;
    const bigUri = client.uri(BIG);
    // what the server writes, in order: which answer came before which notification
    let out = "";
    client.process.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    // the didSave and, right behind it in the same write (so that they wait in the server's queue together):
    // a hover on the saved line, a hover on another file, and a keystroke in the saved file
    const frame = (m: object) => {
      const body = JSON.stringify({ jsonrpc: "2.0", ...m });
      return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    };
    const hover = (id: string, uri: string, line: number) =>
      frame({ id, method: "textDocument/hover", params: { textDocument: { uri }, position: { line, character: 0 } } });
    client.process.stdin.write(
      frame({ method: "textDocument/didSave", params: { textDocument: { uri: bigUri } } }) +
        hover("during-save-big", bigUri, 500_000) +
        hover("during-save-small", client.uri("src/api/weather.ts"), 2) +
        frame({
          method: "textDocument/didChange",
          params: {
            textDocument: { uri: bigUri, version: 100 },
            contentChanges: [
              { range: { start: { line: 10, character: 0 }, end: { line: 10, character: "export const v10 = 10;".length } }, text: "export const during = 2;" },
            ],
          },
        }),
    );
    const done = await client.waitFor(
      () => client.savesProcessed.slice(seen).find((s) => s.uri === bigUri),
      "the save of the big file to be processed",
      60_000,
    );
    expect(done.recordId).not.toBeNull();
    type Message = { id?: string; method?: string; params?: { uri?: string }; result?: { contents: { value: string } } | null };
    const written = (): Message[] => {
      const list: Message[] = [];
      for (let at = 0; ; ) {
        const head = out.indexOf("\r\n\r\n", at);
        if (head === -1) return list;
        const length = Number(/Content-Length: (\d+)/.exec(out.slice(at, head))![1]);
        const body = Buffer.from(out.slice(head + 4), "utf8").subarray(0, length);
        if (body.length < length) return list;
        list.push(JSON.parse(body.toString("utf8")));
        at = head + 4 + body.toString("utf8").length;
      }
    };
    const order = await client.waitFor(() => {
      const list = written();
      const at = (p: (m: Message) => boolean) => list.findIndex(p);
      const r = {
        big: at((m) => m.id === "during-save-big"),
        small: at((m) => m.id === "during-save-small"),
        processed: at((m) => m.method === "intent/saveProcessed" && m.params?.uri === bigUri),
      };
      return r.big >= 0 && r.small >= 0 && r.processed >= 0 ? { ...r, bigText: list[r.big]!.result?.contents.value } : undefined;
    }, "the hovers sent during the save to be answered");
    // both answered before the save was processed; the saved line, asked about meanwhile, is not recorded yet
    expect(order.small).toBeLessThan(order.processed);
    expect(order.big).toBeLessThan(order.processed);
    expect(order.bigText).toContain("Edited, not saved yet.");
    const records = readFileSync(ws.path(LEDGER), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(1);
    const file = records[0].files[0];
    expect(file.path).toBe(BIG);
    expect(file.conversations[0].ranges.map((r: { start_line: number; end_line: number }) => [r.start_line, r.end_line])).toEqual([[500_001, 500_001]]);
    expect(records[0].metadata["dev.intent-lsp"].post_hash).toBe(fileHash(saved));

    // the edit made during the save is still unsaved; the saved line is the record's
    expect(await client.hoverText(BIG, 10)).toContain("Edited, not saved yet.");
    expect(await client.hoverText(BIG, 500_000)).toContain(done.recordId!);
    expect(await client.hoverText(BIG, 11)).not.toContain("Edited, not saved yet.");
  }, 180_000);
});
