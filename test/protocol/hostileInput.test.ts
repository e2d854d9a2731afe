import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { fileHash } from "../../server/src/engine/hashing";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";
import { runCli } from "../support/cliRunner";
import { gitWorkspace } from "../support/gitRepository";

const INTENTS = ".orchestration/active_intents.yaml";
const CONFIG = ".orchestration/config.jsonc";
const LEDGER = ".orchestration/agent_trace.jsonl";
const API = "src/api/weather.ts";

/** Every range within a text of `lines` lines (LSP: a position may sit at the end of the last line). */
function inside(diags: Diagnostic[], text: string): boolean {
  const lines = text.split(/\r\n|\r|\n/);
  const ok = (p: { line: number; character: number }) => p.line >= 0 && p.character >= 0 && p.line < lines.length && p.character <= lines[p.line]!.length;
  return diags.every((d) => ok(d.range.start) && ok(d.range.end));
}

/** Rule files the editor cannot live with, and the server still starting, serving and reporting them where they are. */
describe("hostile rule files, ledgers and commands, from the editor", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  afterEach(async () => {
    await client?.stop();
    ws.dispose();
  });

  async function stillServing() {
    await client.open("src/auth/middleware.ts");
    await client.setLine("src/auth/middleware.ts", 0, "// edited");
    await client.waitForDiagnostics("src/auth/middleware.ts", (x) => x.length > 0);
    expect(client.process.exitCode).toBeNull();
  }

  it("a 40 KB nest of brackets in active_intents.yaml: initialize succeeds and the problem is at the first bracket too deep", async () => {
    ws = new TempWorkspace();
    const text = `active_intents: ${"[".repeat(20_000)}${"]".repeat(20_000)}\n`;
    ws.write(INTENTS, text);
    client = await LspClient.start({ root: ws.root });
    const [d] = await client.waitForDiagnostics(INTENTS, (x) => x.length === 1);
    expect(d!.code).toBe("intent-schema");
    expect(d!.range.start).toEqual({ line: 0, character: 16 + 63 });
    expect(d!.message).toMatch(/^active_intents\.yaml is nested more than 64 levels deep here/);
    expect(client.stderr).not.toMatch(/Maximum call stack/);
  });

  it("100 KB of brackets in config.jsonc: initialize succeeds, settings-invalid at the bracket, the rest keeps working", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    ws.write(CONFIG, `{\n  "exempt": ${"[".repeat(50_000)}${"]".repeat(50_000)}\n}\n`);
    client = await LspClient.start({ root: ws.root });
    const [d] = await client.waitForDiagnostics(CONFIG, (x) => x.length === 1);
    expect([d!.code, d!.range.start]).toEqual(["settings-invalid", { line: 1, character: 12 + 63 }]);
    await stillServing();
  });

  it("the same nesting typed into the open file: diagnostics at the spot, and fixing it clears them", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    client = await LspClient.start({ root: ws.root });
    await client.open(INTENTS, "yaml");
    const end = client.text(INTENTS).split("\n").length - 1;
    await client.edit(INTENTS, { start: { line: end, character: 0 }, end: { line: end, character: 0 } }, `x: ${"[".repeat(20_000)}`);
    const [d] = await client.waitForDiagnostics(INTENTS, (x) => x.some((y) => /nested more than 64/.test(y.message)));
    expect(d!.range.start).toEqual({ line: end, character: 3 + 63 });
    await client.edit(INTENTS, { start: { line: end, character: 0 }, end: { line: end, character: 20_003 } }, "");
    await client.waitForDiagnostics(INTENTS, (x) => x.length === 0);
    await stillServing();
  });

  it("lone-CR line breaks: each YAML problem on its own line", async () => {
    ws = new TempWorkspace();
    ws.write(INTENTS, ws.read(INTENTS).replace("    tags: [api]\n", "    tags: [api]\n    bogus: 1\n").replace(/\n/g, "\r"));
    client = await LspClient.start({ root: ws.root });
    const diags = await client.waitForDiagnostics(INTENTS, (x) => x.length > 0);
    expect(diags.map((x) => [x.message, x.range.start.line])).toEqual([["Unknown field `bogus` (ignored).", 11]]);
  });

  it("a byte-order mark in config.jsonc is not a syntax error", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    ws.write(CONFIG, `\uFEFF{ "autoSelect": false, "exempt": ["docs/**"] }\n`);
    client = await LspClient.start({ root: ws.root });
    await client.open("docs/notes.md");
    await client.setLine("docs/notes.md", 0, "# edited");
    await client.open("src/auth/middleware.ts");
    await client.setLine("src/auth/middleware.ts", 0, "// edited");
    await client.waitForDiagnostics("src/auth/middleware.ts", (x) => x.length === 1);
    expect(await client.waitForPublishOfCurrentVersion("docs/notes.md")).toEqual([]); // exempt: the setting was read
    await client.open(CONFIG, "jsonc"); // its diagnostics are published for this version: none
    await client.waitForDiagnostics(CONFIG, () => client.diagnostics.get(client.uri(CONFIG))?.version === 1);
    expect(client.diagnosticsFor(CONFIG)).toEqual([]);
  });

  it("a pathological exempt pattern is settings-invalid at the pattern; diagnostics keep flowing", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    const bad = `${"a*".repeat(20_000)}`; // "Invalid regular expression" in the ignore library
    ws.write(CONFIG, `{\n  "exempt": [\n    "docs/**",\n    "${bad}"\n  ]\n}\n`);
    client = await LspClient.start({ root: ws.root });
    const [d] = await client.waitForDiagnostics(CONFIG, (x) => x.length === 1);
    expect(d!.code).toBe("settings-invalid");
    expect(d!.range).toEqual({ start: { line: 3, character: 4 }, end: { line: 3, character: 6 + bad.length } });
    expect(d!.message).toMatch(/"exempt" pattern 2 is not used: .* is 40000 characters long; a pattern may have at most 1024/);
    await stillServing();
    expect(client.logs.join("\n")).not.toMatch(/Invalid regular expression/);
  });

  it("untraced-change after an empty-file record, or for a record whose range starts at line 0 or below: at the line `intent check` names, never at line -1", async () => {
    ws = gitWorkspace();
    const emptied = buildRecord({
      path: API,
      content: "",
      ranges: [],
      contributor: { type: "human" },
      sessionId: "s",
      toolVersion: "0",
      mutationClass: "INTENT_EVOLUTION",
      preHash: null,
      scope: "PASS",
      intentId: "INT-001",
      revision: undefined,
    });
    const zero = JSON.stringify({
      version: "0.1.0",
      id: "b2c6e7d2-5d8e-4a4f-9d7c-7f0a3e1c2b11",
      timestamp: "2026-02-21T10:00:00Z",
      files: [
        {
          path: "src/api/forecast.ts",
          conversations: [
            {
              contributor: { type: "human" },
              ranges: [
                { start_line: 0, end_line: 0 },
                { start_line: -5, end_line: 2 },
              ],
            },
          ],
        },
      ],
      metadata: { "dev.intent-lsp": { post_hash: fileHash("something else\n") } },
    });
    ws.write(LEDGER, `${JSON.stringify(emptied)}\n${zero}\n`);
    const added = "// added by hand";
    for (const path of [API, "src/api/forecast.ts"]) ws.write(path, `${added}\n${ws.read(path)}`);
    const report = JSON.parse(runCli(["check", "--format", "json"], { cwd: ws.root }).stdout);
    client = await LspClient.start({ root: ws.root });
    for (const path of [API, "src/api/forecast.ts"]) {
      expect(report.findings.filter((f: any) => f.path === path).map((f: any) => [f.code, f.startLine, f.endLine])).toEqual([["untraced-change", 1, 1]]);
      await client.open(path);
      const diags = await client.waitForDiagnostics(path, (x) => x.some((y) => y.code === "untraced-change"));
      expect(diags.filter((x) => x.code === "untraced-change").map((x) => x.range)).toEqual([
        { start: { line: 0, character: 0 }, end: { line: 0, character: added.length } },
      ]);
      expect(inside(diags, client.text(path))).toBe(true);
    }
  });

  it("ledger-unreadable for an open ledger with unsaved edits is about the buffer's lines, inside it", async () => {
    ws = new TempWorkspace();
    const good = ws.read(LEDGER).trimEnd().split("\n");
    ws.write(LEDGER, `${[...good, "{not json", ...good].join("\n")}\n`); // unreadable line 5 of 9 on disk
    client = await LspClient.start({ root: ws.root });
    await client.open(LEDGER, "jsonl");
    const disk = await client.waitForDiagnostics(LEDGER, (x) => x.length === 1);
    expect(disk[0]!.range.start.line).toBe(4);
    // delete everything before the bad line, and the bad line itself moves to line 0; then delete it too
    await client.deleteLines(LEDGER, 0, 4);
    const moved = await client.waitForDiagnostics(LEDGER, (x) => x.length === 1 && x[0]!.range.start.line === 0);
    expect(inside(moved, client.text(LEDGER))).toBe(true);
    await client.deleteLines(LEDGER, 0, 1);
    await client.waitForDiagnostics(LEDGER, (x) => x.length === 0);
  });

  it("intent.blame with a NUL in the path answers with its own error, not Node's", async () => {
    ws = new TempWorkspace();
    client = await LspClient.start({ root: ws.root });
    const err = await client.executeCommand("intent.blame", { path: "src/api/weather.ts\u0000.png" }).then(
      () => undefined,
      (e: { code: number; message: string }) => e,
    );
    expect(err?.code).toBe(-32602);
    expect(err?.message).toBe(
      `"src/api/weather.ts\\u0000.png" holds a NUL character, which no file name can; pass a workspace-relative path such as "src/api/weather.ts".`,
    );
  });

  it("hostile paths in command arguments and links out of the workspace: clear errors, nothing written outside", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    const outside = mkdtempSync(join(tmpdir(), "intent-lsp-outside-"));
    writeFileSync(join(outside, "sentinel.txt"), "keep me\n");
    const snapshot = () =>
      readdirSync(outside)
        .sort()
        .map((n) => `${n}:${readFileSync(join(outside, n), "utf8")}`);
    const before = snapshot();
    try {
      symlinkSync(join(outside, "notes.md"), ws.path(".orchestration/AGENT.md")); // dangling, out of the workspace
      rmSync(ws.path(".intentignore"), { force: true });
      symlinkSync(join(outside, "ignore"), ws.path(".intentignore"));
      symlinkSync(join(outside, "map.md"), ws.path(".orchestration/intent_map.md"));
      client = await LspClient.start({ root: ws.root });
      const error = (command: string, args: unknown) =>
        client.executeCommand(command, args).then(
          () => "(no error)",
          (e: { message: string }) => e.message,
        );
      for (const path of ["../x.md", "/etc/passwd", "docs/a\nb.md", "docs/\u0000.md", ""]) {
        expect(await error("intent.ignorePath", { path }), path).toMatch(/must be a workspace-relative path|Missing argument "path"/);
      }
      expect(await error("intent.ignorePath", { path: "docs/notes.md" })).toMatch(
        /\.intentignore (leads outside the workspace|is a dangling symbolic link \(\.intentignore → [^)]*\)).*Replace the link/,
      );
      for (const glob of ["../**", "/etc/**", "a\n- id: INT-666"]) {
        expect(await error("intent.amendScope", { id: "INT-001", glob }), glob).toMatch(/Cannot add to INT-001's scope/);
      }
      for (const path of ["../../etc/passwd", "/etc/passwd"]) {
        expect(await error("intent.blame", { path }), path).toMatch(/is not a file inside the workspace/);
      }
      expect(await error("intent.regenerateMap", {})).toMatch(/intent_map\.md leads outside the workspace/);
      // an out-of-scope save still records, and its lesson is not written through the link
      await client.open("docs/notes.md", "markdown");
      await client.setLine("docs/notes.md", 0, "# edited");
      ws.write("docs/notes.md", client.text("docs/notes.md"));
      await client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: client.uri("docs/notes.md") } });
      await expect.poll(() => ws.read(LEDGER), { timeout: 10_000 }).toContain('"path":"docs/notes.md"');
      expect(snapshot()).toEqual(before);
      expect(client.process.exitCode).toBeNull();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
