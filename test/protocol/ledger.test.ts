import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { beforeEach, describe, expect, it } from "vitest";
import type { CodeLens, InlayHint } from "vscode-languageserver-protocol";
import { type LspClient, REPO_ROOT } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

const API = "src/api/weather.ts";
const LEDGER = ".orchestration/agent_trace.jsonl";

const schema = JSON.parse(readFileSync(`${REPO_ROOT}/shared/schema/trace-record.schema.json`, "utf8"));
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

function ledgerRecords(ws: TempWorkspace): Record<string, any>[] {
  let text = "";
  try {
    text = ws.read(LEDGER);
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

describe("the trace ledger, from the editor", () => {
  let ws: TempWorkspace;
  let client: LspClient;

  beforeEach(async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.select("INT-001");
    client = await startInProcess({ root: ws.root, settings: { contributor: { type: "human" } } });
  });
  stopAfterEach(() => ({ client, ws }));

  async function editAndSave(path: string, line: number, text: string) {
    await client.setLine(path, line, text);
    await client.save(path); // the editor writes the file, then tells the server; the server says when it is done
  }

  async function waitForRecords(n: number) {
    const deadline = Date.now() + 10_000;
    while (ledgerRecords(ws).length < n) {
      if (Date.now() > deadline) throw new Error(`expected ${n} ledger records, found ${ledgerRecords(ws).length}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return ledgerRecords(ws);
  }

  it("a save appends exactly one schema-valid record for the edited lines", async () => {
    await client.open(API, "typescript");
    await editAndSave(API, 11, "  const now = forecast.hours[0]; // first hour");
    const [record] = await waitForRecords(1);
    expect(validate(record), JSON.stringify(validate.errors)).toBe(true);
    expect(record.files[0].path).toBe(API);
    const conv = record.files[0].conversations[0];
    expect(conv.contributor).toEqual({ type: "human" });
    expect(conv.ranges.map((r: any) => [r.start_line, r.end_line])).toEqual([[12, 12]]);
    expect(conv.ranges[0].content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(conv.related).toEqual([{ type: "intent", url: "urn:intent:INT-001" }]);
    expect(record.metadata["dev.intent-lsp"]).toMatchObject({ intent_id: "INT-001", scope: "PASS", mutation_class: "INTENT_EVOLUTION" });
    // saving again without changes adds nothing
    expect(await client.save(API)).toBeNull(); // the server says it handled this save, and recorded nothing
    expect(ledgerRecords(ws)).toHaveLength(1);
  });

  it("a save that only deletes lines is recorded without ranges, so the file is not reported as changed untraced", async () => {
    await client.open(API, "typescript");
    await client.deleteLines(API, 13, 1);
    ws.write(API, client.text(API));
    await client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: client.uri(API) } });
    const [record] = await waitForRecords(1);
    expect(validate(record), JSON.stringify(validate.errors)).toBe(true);
    expect(record.files[0].conversations[0].ranges).toEqual([]);
    await client.close(API);
    await client.open(API, "typescript");
    expect(await client.waitForPublishOfCurrentVersion(API)).toEqual([]);
  });

  it("hover shows intent, contributor and time; it follows inserted lines; a changed line loses it", async () => {
    await client.open(API, "typescript");
    await editAndSave(API, 11, "  const now = forecast.hours[0]; // first hour");
    await waitForRecords(1);
    await expect.poll(() => client.hoverText(API, 11, 1)).toContain("INT-001 — Build Weather API (IN_PROGRESS)");
    const text = await client.hoverText(API, 11, 1);
    expect(text).toContain("human · just now");
    expect(text).toContain("- Use TypeScript");
    expect(await client.hoverText(API, 10, 1)).toBe("**Untraced:** no ledger record covers this line.");

    await client.insertLines(
      API,
      0,
      Array.from({ length: 20 }, (_, i) => `// header ${i}`),
    );
    expect(await client.hoverText(API, 31, 1)).toContain("INT-001 — Build Weather API");
    expect(await client.hoverText(API, 5, 1)).toContain("Edited, not saved yet.");

    await client.setLine(API, 31, "  const now = forecast.hours[1];");
    expect(await client.hoverText(API, 31, 1)).toContain("Edited, not saved yet.");
  });

  it("a block moved while the file is closed keeps its attribution; a changed line does not", async () => {
    await client.open(API, "typescript");
    await client.setLine(API, 13, "    city: city.trim(),");
    await editAndSave(API, 14, "    celsius: Math.round(now.temperature * 10) / 10,");
    await waitForRecords(1);
    await client.close(API);

    // another tool moves the edited block (lines 14-15) to the top of the file, and changes an untraced line
    const lines = ws.read(API).split("\n");
    const block = lines.splice(13, 2);
    lines.splice(0, 0, ...block);
    lines[5] = "export interface Weather { // changed";
    ws.write(API, lines.join("\n"));

    await client.open(API, "typescript");
    // the save's own read-back of the ledger may still be under way in the server
    await expect.poll(() => client.hoverText(API, 0, 1)).toContain("INT-001 — Build Weather API");
    expect(await client.hoverText(API, 1, 1)).toContain("INT-001 — Build Weather API");
    expect(await client.hoverText(API, 5, 1)).toContain("Untraced");
    expect(await client.hoverText(API, 15, 1)).toContain("Untraced");
    await client.close(API);

    // now change one of the attributed lines while closed: it is no longer the record's work
    const again = ws.read(API).split("\n");
    again[0] = "    city: city.toUpperCase(),";
    ws.write(API, again.join("\n"));
    await client.open(API, "typescript");
    await expect.poll(() => client.hoverText(API, 1, 1)).toContain("INT-001 — Build Weather API");
    expect(await client.hoverText(API, 0, 1)).toContain("Untraced");
  });

  it("CodeLens and inlay hints carry the block attribution; inlay hints can be turned off", async () => {
    await client.open(API, "typescript");
    await editAndSave(API, 11, "  const now = forecast.hours[0]; // first hour");
    await waitForRecords(1);
    const codeLens = () => client.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri: client.uri(API) } });
    await expect.poll(async () => (await codeLens()).length).toBe(2);
    const lenses = await codeLens();
    expect(lenses.map((l) => [l.range.start.line, l.command!.title])).toEqual([
      [0, "1/18 lines traced · AI 0 (0%) · human 1 · untraced 17 · 1 record · INT-001 · last human just now"],
      [11, "INT-001 · human · just now"],
    ]);
    const hints = await client.request<InlayHint[]>("textDocument/inlayHint", {
      textDocument: { uri: client.uri(API) },
      range: { start: { line: 0, character: 0 }, end: { line: 17, character: 0 } },
    });
    // the inlay hint is short (the intent and who); when and which trace are in its tooltip
    expect(hints.map((h) => [h.position.line, h.label])).toEqual([[11, "INT-001 · human"]]);
    expect(hints[0]!.tooltip).toMatch(/^INT-001 — Build Weather API \(IN_PROGRESS\)\nhuman · just now \(.*\)\ntrace [0-9a-f-]{36}$/);
    await client.stop();

    client = await startInProcess({ root: ws.root, settings: { inlayHints: { enabled: false } } });
    await client.open(API, "typescript");
    const none = await client.request<InlayHint[]>("textDocument/inlayHint", {
      textDocument: { uri: client.uri(API) },
      range: { start: { line: 0, character: 0 }, end: { line: 17, character: 0 } },
    });
    expect(none).toEqual([]);
  });

  it("an out-of-scope save is recorded as such and leaves one lesson per file, intent and day", async () => {
    await client.open("docs/notes.md", "markdown");
    await editAndSave("docs/notes.md", 3, "- rate limit: 60/min");
    await waitForRecords(1);
    await editAndSave("docs/notes.md", 4, "- cache: 5 min");
    const records = await waitForRecords(2);
    expect(records.map((r) => r.metadata["dev.intent-lsp"].scope)).toEqual(["OUT_OF_SCOPE", "OUT_OF_SCOPE"]);
    expect(records[1].metadata["dev.intent-lsp"].mutation_class).toBe("DOCUMENTATION");
    const notes = ws.read(".orchestration/AGENT.md");
    expect(notes.match(/docs\/notes\.md/g)!.length).toBeGreaterThanOrEqual(1);
    expect(notes.split("\n").filter((l) => l.startsWith("- ")).length).toBe(1);
    expect(notes).toContain("## Lessons learned");
  });
});
