import { describe, expect, it } from "vitest";
import { LspClient, line } from "../support/lspClient";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

const NOTES = "docs/notes.md";

/** The server keeps serving whatever clients and files throw at it. */
describe("bad input and unusual clients", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  stopAfterEach(() => ({ client, ws }));

  async function stillServing() {
    await client.open("src/auth/middleware.ts");
    await client.setLine("src/auth/middleware.ts", 0, "// edited");
    // INT-001 is selected and src/auth/ is INT-002's: the edited line is out of scope, and said so
    const diags = await client.waitForDiagnostics("src/auth/middleware.ts", (x) => x.length > 0);
    expect(diags.map((d) => [d.code, d.range.start.line, d.range.end.line])).toEqual([["out-of-scope", 0, 0]]);
    expect(client.process.exitCode).toBeNull();
  }

  it("a client that declares no workspace-folder support is served", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    client = await LspClient.start({ root: ws.root, workspaceFolders: false });
    await client.open(NOTES);
    await client.setLine(NOTES, 2, "edited");
    const [d] = await client.waitForDiagnostics(NOTES, (x) => x.length === 1);
    expect(d.code).toBe("out-of-scope");
  });

  it("malformed session files from other tools are ignored", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    ws.write(".orchestration/.sessions/broken.json", `{"id":"x","heartbeat":"${new Date().toISOString()}","dirtyFiles":42,"pid":"no"}`);
    ws.write(".orchestration/.sessions/garbage.json", "{not json");
    client = await LspClient.start({ root: ws.root });
    await client.open(NOTES);
    await client.setLine(NOTES, 2, "edited");
    const [d] = await client.waitForDiagnostics(NOTES, (x) => x.length === 1);
    expect(d.code).toBe("out-of-scope");
  });

  it("text with lone CR line breaks is tracked line by line, and saving it records the right lines", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.select("INT-001");
    ws.write("src/api/old-mac.ts", "a\rb\rc\rd\r");
    client = await LspClient.start({ root: ws.root });
    await client.open("src/api/old-mac.ts");
    await client.edit("src/api/old-mac.ts", { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } }, "B\rB2");
    ws.write("src/api/old-mac.ts", "a\rB\rB2\rc\rd\r");
    await client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: client.uri("src/api/old-mac.ts") } });
    await expect
      .poll(
        () => {
          try {
            return ws.read(".orchestration/agent_trace.jsonl");
          } catch {
            return "";
          }
        },
        { timeout: 10_000 },
      )
      .toContain("old-mac.ts");
    const record = JSON.parse(ws.read(".orchestration/agent_trace.jsonl").trim());
    expect(record.files[0].conversations[0].ranges.map((r: { start_line: number; end_line: number }) => [r.start_line, r.end_line])).toEqual([[2, 3]]);
    await stillServing();
  });

  it("an edit range past the end of the file (Neovim deleting the last lines) is clamped, and the save is recorded", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.select("INT-001");
    ws.write("src/api/tail.ts", "l0\nl1\nl2\nl3\nl4");
    client = await LspClient.start({ root: ws.root });
    await client.open("src/api/tail.ts");
    await client.edit("src/api/tail.ts", { start: { line: 3, character: 0 }, end: { line: 5, character: 0 } }, "");
    await client.edit("src/api/tail.ts", { start: { line: 1, character: 0 }, end: { line: 1, character: 2 } }, "L1");
    ws.write("src/api/tail.ts", "l0\nL1\nl2\n");
    await client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: client.uri("src/api/tail.ts") } });
    await expect
      .poll(() => {
        try {
          return ws.read(".orchestration/agent_trace.jsonl");
        } catch {
          return "";
        }
      })
      .toContain("tail.ts");
    const record = JSON.parse(ws.read(".orchestration/agent_trace.jsonl").trim());
    expect(record.files[0].conversations[0].ranges.map((r: { start_line: number; end_line: number }) => [r.start_line, r.end_line])).toEqual([[2, 2]]);
  });

  it("a buffer restored with unsaved changes over the last recorded content has them as edits: squiggled at once", async () => {
    ws = new TempWorkspace(); // the example ledger records src/api/weather.ts as it is on disk
    ws.select("INT-002");
    client = await LspClient.start({ root: ws.root });
    const path = "src/api/weather.ts";
    // blame reads the ledger into the server's index first: after it, the server knows the recorded content
    await client.executeCommand("intent.blame", { path, startLine: 0, endLine: 0 });
    const text = ws.read(path).replace("  summary: string;", "  summary: string;\n  restored: boolean;");
    await client.connection.sendNotification("textDocument/didOpen", { textDocument: { uri: client.uri(path), languageId: "typescript", version: 1, text } });
    const diags = await client.waitForDiagnostics(path, (d) => d.length > 0);
    expect(diags.map((d) => [d.code, d.range.start.line, d.range.end.line])).toEqual([["intent-not-in-progress", 6, 6]]);
  });

  it("closing an edited file without saving withdraws it from the session's unsaved files", async () => {
    ws = new TempWorkspace();
    client = await LspClient.start({ root: ws.root });
    await client.open(NOTES);
    await client.setLine(NOTES, 1, "edited");
    const { readdirSync, readFileSync } = await import("node:fs");
    const dirty = () => {
      const dir = ws.path(".orchestration/.sessions");
      return readdirSync(dir)
        .filter((n) => n.startsWith("lsp-"))
        .flatMap((n) => JSON.parse(readFileSync(`${dir}/${n}`, "utf8")).dirtyFiles ?? []);
    };
    await expect.poll(dirty).toEqual([NOTES]);
    await client.close(NOTES);
    await expect.poll(dirty).toEqual([]);
  });

  it("trailing whitespace is not an edit, as the ledger's hashes see it", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    client = await LspClient.start({ root: ws.root });
    await client.open(NOTES);
    await client.setLine(NOTES, 2, "## Weather API   ");
    await client.setLine(NOTES, 4, "- changed");
    const diags = await client.waitForDiagnostics(NOTES, (x) => x.length === 1);
    expect(diags[0].range.start.line).toBe(4);
  });

  it("the scope quick fix for a path with glob characters adds a glob that matches exactly that path", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    ws.write("src/app/[id]/page.tsx", "export default function Page() {}\n");
    client = await LspClient.start({ root: ws.root });
    await client.open("src/app/[id]/page.tsx");
    await client.setLine("src/app/[id]/page.tsx", 0, "export default function Page() { return null; }");
    const [diag] = await client.waitForDiagnostics("src/app/[id]/page.tsx", (x) => x.length === 1);
    const actions = await client.codeActions("src/app/[id]/page.tsx", line(0), [diag]);
    const amend = actions.find((a) => a.title === "Add src/app/[id]/page.tsx to INT-001's scope")!;
    expect(amend.command!.arguments).toEqual([{ id: "INT-001", glob: "src/app/[[]id[]]/page.tsx" }]);
    await client.executeCommand(amend.command!.command, ...amend.command!.arguments!);
    await client.waitForDiagnostics("src/app/[id]/page.tsx", (x) => x.length === 0);
  });

  it("rule settings from the editor are ignored with a warning: the hooks and CI could not see them", async () => {
    ws = new TempWorkspace();
    client = await LspClient.start({ root: ws.root, settings: { autoSelect: false } });
    await client.open("src/api/weather.ts");
    await client.setLine("src/api/weather.ts", 0, "// edited");
    expect(await client.waitForPublishOfCurrentVersion("src/api/weather.ts")).toEqual([]);
    expect(client.logs.join("\n")).toContain('"autoSelect" is a workspace rule: set it in .orchestration/config.jsonc');
  });
});
