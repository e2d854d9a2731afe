import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { afterEach, expect, it } from "vitest";
import { createProtocolConnection, type Hover, type ProtocolConnection } from "vscode-languageserver-protocol/node";
import { inProcessTransport } from "../support/inProcessServer";
import { ledgerRecords } from "../support/ledgerFile";
import { TempWorkspace } from "../support/workspace";

/**
 * The editor's first messages reach a server that is still starting: it has answered `initialize` and asked
 * for the client's settings, which have not come yet. What arrives meanwhile (a document opened, edited and
 * saved, a hover on it) is handled once the settings are in, in the order it arrived, as those settings say.
 */

const API = "src/api/weather.ts";
const SETTINGS = { contributor: { type: "ai", modelId: "openai/gpt-4o" } };

let ws: TempWorkspace | undefined;
let connection: ProtocolConnection | undefined;

afterEach(async () => {
  await connection?.sendRequest("shutdown").catch(() => undefined); // never "exit": that ends this process
  connection?.dispose();
  ws?.dispose();
  connection = ws = undefined;
});

it("a document opened, edited and saved, and requests about it, sent while the settings are still asked for, are answered with those settings", async () => {
  ws = new TempWorkspace();
  ws.select("INT-001");
  const transport = await inProcessTransport();
  const c = createProtocolConnection(transport.reader, transport.writer);
  connection = c;
  // the settings are held back until the test has sent everything below
  let releaseSettings!: () => void;
  const released = new Promise<void>((resolve) => (releaseSettings = resolve));
  const settingsAsked = new Promise<void>((asked) =>
    c.onRequest("workspace/configuration", async (p: { items: { section?: string }[] }) => {
      asked();
      await released;
      return p.items.map((i) => (i.section === "intentLsp" ? SETTINGS : null));
    }),
  );
  const saveProcessed = new Promise<{ recordId: string | null }>((resolve) => c.onNotification("intent/saveProcessed", resolve));
  for (const m of ["client/registerCapability", "window/workDoneProgress/create", "workspace/codeLens/refresh", "workspace/inlayHint/refresh"]) {
    c.onRequest(m, () => null);
  }
  c.listen();
  const rootUri = pathToFileURL(ws.root).href;
  await c.sendRequest("initialize", {
    processId: null, // in process: no parent-process watchdog, which would end this process with the server
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: "ws" }],
    capabilities: { workspace: { configuration: true, workspaceFolders: true }, textDocument: { hover: { contentFormat: ["markdown"] } } },
  });
  await c.sendNotification("initialized", {});
  await settingsAsked;

  const uri = pathToFileURL(ws.path(API)).href;
  const text = ws.read(API);
  await c.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "typescript", version: 1, text } });
  const hover = c.sendRequest<Hover | null>("textDocument/hover", { textDocument: { uri }, position: { line: 9, character: 25 } });
  const edited = text.replace("  const now = forecast.hours[0];", "  const now = forecast.hours[0]; // the first hour");
  const range = { start: { line: 11, character: 0 }, end: { line: 11, character: "  const now = forecast.hours[0];".length } };
  await c.sendNotification("textDocument/didChange", {
    textDocument: { uri, version: 2 },
    contentChanges: [{ range, text: "  const now = forecast.hours[0]; // the first hour" }],
  });
  writeFileSync(ws.path(API), edited);
  await c.sendNotification("textDocument/didSave", { textDocument: { uri } });
  releaseSettings();

  // the hover knows the document opened before it: it names who wrote the line, or, while the ledger's first
  // read (which starts once the settings are in) is still running, says so
  expect(JSON.stringify((await hover)?.contents)).toMatch(/anthropic\/claude-sonnet-4-5|Indexing the ledger/);
  // the save is recorded under the contributor the settings name, for the edited line only
  const { recordId } = await saveProcessed;
  const record = ledgerRecords(ws).at(-1)!;
  expect(record.id).toBe(recordId);
  expect(record.files.map((f: { path: string }) => f.path)).toEqual([API]);
  const [conversation] = record.files[0].conversations;
  expect(conversation.contributor).toEqual({ type: "ai", model_id: "openai/gpt-4o" });
  expect(conversation.ranges.map((r: { start_line: number; end_line: number }) => [r.start_line, r.end_line])).toEqual([[12, 12]]);
});
