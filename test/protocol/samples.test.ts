import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hover } from "vscode-languageserver-protocol";
import { type LspClient, REPO_ROOT } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { TempWorkspace } from "../support/workspace";

const SAMPLES = join(REPO_ROOT, "test/fixtures/agent-trace");
const sample = (name: string) => readFileSync(join(SAMPLES, name), "utf8");
const numbered = (n: number) => `${Array.from({ length: n }, (_, i) => `const line${i + 1} = ${i + 1};`).join("\n")}\n`;

/** Every dialect of Agent Trace in test/fixtures/agent-trace, read by the editor from the places other tools write them. */
describe("the Agent Trace samples, as the editor attributes them", () => {
  let ws: TempWorkspace;
  let client: LspClient;

  beforeAll(async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.write(".orchestration/agent_trace.jsonl", sample("spec-examples.jsonl") + sample("older-dialect.jsonl") + sample("flat-dialect.jsonl"));
    ws.write(".agent-trace/traces.jsonl", sample("reference-impl-traces.jsonl"));
    ws.write("src/utils/parser.ts", numbered(70));
    ws.write("src/utils/helpers.ts", numbered(30));
    ws.write("src/app.ts", numbered(50));
    ws.write("src/auth/middleware.ts", "test"); // the flat sample's content_hash is sha256("test")
    ws.write("src/auth/token.ts", "foo");
    client = await startInProcess({ root: ws.root });
  });
  afterAll(async () => {
    await client.stop();
    ws.dispose();
  });

  const opened = new Set<string>();
  async function hover(path: string, line: number): Promise<string> {
    if (!opened.has(path)) {
      opened.add(path);
      await client.open(path, "typescript");
    }
    const h = await client.request<Hover | null>("textDocument/hover", { textDocument: { uri: client.uri(path) }, position: { line, character: 0 } });
    return h ? (h.contents as { value: string }).value : "";
  }

  it("spec records without a checkable hash are placed at their recorded lines, marked as such", async () => {
    // parser.ts 42-67 is claimed by a spec record (murmur3 hash) and by the reference hook; the later one wins
    // the first read of the ledgers runs in the background after start-up
    await expect.poll(() => hover("src/utils/parser.ts", 41)).toContain("ai · anthropic/claude-opus-4-5-20251101");
    const parser = await hover("src/utils/parser.ts", 41);
    expect(parser).toContain("position as recorded");
    expect(await hover("src/utils/parser.ts", 40)).toContain("Untraced");
    expect(await hover("src/utils/parser.ts", 67)).toContain("Untraced");
    expect(await hover("src/utils/helpers.ts", 9)).toContain("ai · openai/gpt-4o");
    expect(await hover("src/utils/helpers.ts", 25)).toContain("Untraced");
    const app = await hover("src/app.ts", 0);
    expect(app).toContain("no intent");
    expect(app).toMatch(/\nai · /);
  });

  it("reference-implementation records (version 1.0, .agent-trace/traces.jsonl) are read; .shell-history is not a file", async () => {
    const parser = await hover("src/utils/parser.ts", 50);
    expect(parser).toContain("claude-code");
    // the ledger was read (the hover above), so a problem in it is in the diagnostics published for it when open
    await client.open(".agent-trace/traces.jsonl", "jsonl");
    expect(await client.waitForPublishOfCurrentVersion(".agent-trace/traces.jsonl")).toEqual([]);
  });

  it("flat records attribute a whole file whose hash matches, with their intent", async () => {
    const mw = await hover("src/auth/middleware.ts", 0);
    expect(mw).toContain("INT-002 — Token refresh for auth middleware (BLOCKED)");
    expect(mw).toMatch(/\nunknown · /);
    expect(await hover("src/auth/token.ts", 0)).toContain("INT-002");
  });

  it("older-dialect records whose hash does not match the content attribute nothing", async () => {
    ws.write("src/api/routes.ts", numbered(50));
    expect(await hover("src/api/routes.ts", 10)).toContain("Untraced");
    await client.open(".orchestration/agent_trace.jsonl", "jsonl");
    expect(await client.waitForPublishOfCurrentVersion(".orchestration/agent_trace.jsonl")).toEqual([]);
  });
});
