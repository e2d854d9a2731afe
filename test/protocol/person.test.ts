// The person behind a human save (git's user.name / user.email, or the `identity` settings), as the record
// keeps it and as hover, CodeLens, inlay hints and `intent blame` say it; and the quieter surfaces: no hover
// for a file the ledger has never recorded, short inlay hints, plain-text quick-fix titles, and commands
// that answer the person who ran them.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { CodeLens, InlayHint } from "vscode-languageserver-protocol";
import type { LspClient } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";
import { runCli } from "../support/cliRunner";
import { gitWorkspace } from "../support/gitRepository";

const API = "src/api/weather.ts";
const LEDGER = ".orchestration/agent_trace.jsonl";
const EDIT = "  const now = forecast.hours[0]; // first hour";

function records(ws: TempWorkspace): Record<string, any>[] {
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

/** The example workspace in a fresh git repository whose own configuration names the person. */
function repoWith(config: Record<string, string>): TempWorkspace {
  const ws = new TempWorkspace({ withLedger: false });
  const git = (...args: string[]) => {
    const r = spawnSync("git", args, { cwd: ws.root, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  };
  git("init", "-q");
  for (const [key, value] of Object.entries(config)) git("config", key, value);
  ws.select("INT-001");
  return ws;
}

const wholeFile = { start: { line: 0, character: 0 }, end: { line: 17, character: 0 } };

describe("the person who saved a line", () => {
  let ws: TempWorkspace | undefined;
  let client: LspClient | undefined;
  stopAfterEach(() => ({ client, ws }));

  it("is git's user.name in the record, hover, CodeLens, inlay hints and `intent blame`; the email only as a hash", async () => {
    ws = repoWith({ "user.name": "Ada Lovelace", "user.email": "Ada@Example.com" });
    client = await startInProcess({ root: ws.root, settings: { contributor: { type: "human" } } });
    await client.open(API, "typescript");
    await client.setLine(API, 11, EDIT);
    expect(await client.save(API)).not.toBeNull();

    const [record] = records(ws);
    expect(record!.files[0].conversations[0].contributor).toEqual({ type: "human" });
    expect(record!.metadata["dev.intent-lsp"].person).toEqual({
      name: "Ada Lovelace",
      email_hash: `sha256:${createHash("sha256").update("ada@example.com").digest("hex")}`,
    });

    const hover = await client.hoverText(API, 11, 1);
    expect(hover).toContain(`human · Ada Lovelace · just now (${record!.timestamp})`);
    const lenses = await client.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri: client.uri(API) } });
    expect(lenses.map((l) => [l.range.start.line, l.command!.title])).toEqual([
      [0, "1/18 lines traced · AI 0 (0%) · human 1 · untraced 17 · 1 record · INT-001 · last Ada Lovelace just now"],
      [11, "INT-001 · Ada Lovelace · just now"],
    ]);
    const hints = await client.request<InlayHint[]>("textDocument/inlayHint", { textDocument: { uri: client.uri(API) }, range: wholeFile });
    // short: the intent and who; no time to disagree with the CodeLens; the details in the tooltip
    expect(hints.map((h) => [h.position.line, h.label])).toEqual([[11, "INT-001 · Ada Lovelace"]]);
    expect(hints[0]!.tooltip).toBe(`INT-001 — Build Weather API (IN_PROGRESS)\nhuman · Ada Lovelace · just now (${record!.timestamp})\ntrace ${record!.id}`);

    const blame = runCli(["blame", `${API}:12`], { cwd: ws.root });
    expect(blame.stdout).toBe(`12  INT-001  Ada Lovelace  ${record!.timestamp.slice(0, 16).replace("T", " ")}  ${record!.id.slice(0, 8)} │ ${EDIT}\n`);
    const json = JSON.parse(runCli(["blame", `${API}:12`, "--json"], { cwd: ws.root }).stdout);
    expect(json.lines[0]).toMatchObject({ contributor: "human", person: "Ada Lovelace" });
  });

  it("follows the identity settings: another name, the email as written or not at all", async () => {
    ws = repoWith({ "user.name": "Ada Lovelace", "user.email": "ada@example.com" });
    client = await startInProcess({ root: ws.root, settings: { identity: { name: "Grace Hopper", recordEmail: "plain" } } });
    await client.open(API, "typescript");
    await client.setLine(API, 11, EDIT);
    await client.save(API);
    expect(records(ws)[0]!.metadata["dev.intent-lsp"].person).toEqual({ name: "Grace Hopper", email: "ada@example.com" });
    await client.stop();

    client = await startInProcess({ root: ws.root, settings: { identity: { recordEmail: "omit" } } });
    await client.open(API, "typescript");
    await client.setLine(API, 12, "  // second edit");
    await client.save(API);
    expect(records(ws)[1]!.metadata["dev.intent-lsp"].person).toEqual({ name: "Ada Lovelace" });
  });

  it("reads well without a name: the contributor type, and no person in the record", async () => {
    ws = repoWith({});
    client = await startInProcess({ root: ws.root });
    await client.open(API, "typescript");
    await client.setLine(API, 11, EDIT);
    await client.save(API);
    const [record] = records(ws);
    expect(record!.metadata["dev.intent-lsp"].person).toBeUndefined();
    expect(await client.hoverText(API, 11, 1)).toContain(`human · just now (${record!.timestamp})`);
    const hints = await client.request<InlayHint[]>("textDocument/inlayHint", { textDocument: { uri: client.uri(API) }, range: wholeFile });
    expect(hints.map((h) => h.label)).toEqual(["INT-001 · human"]);
  });

  it("once the save's record lands the server asks the client to refresh inlay hints and CodeLens, before saveProcessed", async () => {
    ws = repoWith({ "user.name": "Ada Lovelace" });
    client = await startInProcess({ root: ws.root });
    const refreshes: string[] = [];
    client.connection.onRequest("workspace/inlayHint/refresh", () => {
      refreshes.push("inlayHint");
      return null;
    });
    client.connection.onRequest("workspace/codeLens/refresh", () => {
      refreshes.push("codeLens");
      return null;
    });
    await client.open(API, "typescript");
    await client.setLine(API, 11, EDIT);
    const before = refreshes.length;
    expect(await client.save(API)).not.toBeNull(); // resolves on intent/saveProcessed, sent after the refreshes
    expect(refreshes.slice(before)).toEqual(expect.arrayContaining(["inlayHint", "codeLens"]));
    expect(records(ws)).toHaveLength(1);
  });

  it("an agent's configured save names its model, never the person", async () => {
    ws = repoWith({ "user.name": "Ada Lovelace" });
    client = await startInProcess({ root: ws.root, settings: { contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" } } });
    await client.open(API, "typescript");
    await client.setLine(API, 11, EDIT);
    await client.save(API);
    expect(records(ws)[0]!.metadata["dev.intent-lsp"].person).toBeUndefined();
    expect(await client.hoverText(API, 11, 1)).toContain("ai · anthropic/claude-sonnet-4-5 · just now");
  });
});

describe("quiet where there is nothing to say", () => {
  let ws: TempWorkspace | undefined;
  let client: LspClient | undefined;
  stopAfterEach(() => ({ client, ws }));

  it("no hover for a file the ledger has never recorded; a recorded file's untraced line still says so", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.select("INT-001");
    client = await startInProcess({ root: ws.root });
    await client.open(API, "typescript");
    // "Indexing the ledger…" until the first read of the ledger; then nothing at all
    await expect.poll(() => client!.request("textDocument/hover", { textDocument: { uri: client!.uri(API) }, position: { line: 3, character: 1 } })).toBeNull();

    await client.setLine(API, 11, EDIT);
    await client.save(API);
    expect(await client.hoverText(API, 3, 1)).toBe("**Untraced:** no ledger record covers this line.");
  });

  it("quick-fix titles are plain text: no Markdown backticks", async () => {
    ws = new TempWorkspace({ withLedger: false });
    ws.select("INT-001");
    client = await startInProcess({ root: ws.root });
    await client.open("docs/notes.md", "markdown");
    await client.setLine("docs/notes.md", 2, "An edit outside INT-001's scope.");
    const [diag] = await client.waitForPublishOfCurrentVersion("docs/notes.md");
    const titles = (await client.codeActions("docs/notes.md", diag!.range, [diag!])).map((a) => a.title);
    expect(titles).toEqual(
      expect.arrayContaining(["Add docs/notes.md to INT-001's scope", "Add docs/** to INT-001's scope", "Add docs/notes.md to .intentignore"]),
    );
    expect(titles.filter((t) => t.includes("`"))).toEqual([]);
  });
});

describe("workspace commands answer the person who ran them", () => {
  let ws: TempWorkspace | undefined;
  let client: LspClient | undefined;
  stopAfterEach(() => ({ client, ws }));

  it("intent.verifyLedger sends its answer as window/showMessage besides returning it; quiet: true does not", async () => {
    ws = new TempWorkspace();
    client = await startInProcess({ root: ws.root });
    const shown: { type: number; message: string }[] = [];
    client.connection.onNotification("window/showMessage", (p: { type: number; message: string }) => shown.push(p));
    const result = (await client.executeCommand("intent.verifyLedger")) as { ok: boolean; records: number };
    expect(result).toMatchObject({ ok: true });
    await expect.poll(() => shown).toEqual([{ type: 3, message: `intent-lsp: ${LEDGER} verified: ${result.records} records, no problems.` }]);

    await client.executeCommand("intent.verifyLedger", { quiet: true });
    await client.executeCommand("intent.activeIntent", { uri: client.uri(API) });
    // the second answer is the activeIntent's: the quiet call said nothing in between
    await expect
      .poll(() => shown.map((s) => s.message))
      .toEqual([`intent-lsp: ${LEDGER} verified: ${result.records} records, no problems.`, `intent-lsp: edits to ${API} count under INT-001 (auto-selected).`]);
  });

  it("a command that fails tells the person why, as an error message", async () => {
    ws = new TempWorkspace();
    client = await startInProcess({ root: ws.root });
    const shown: { type: number; message: string }[] = [];
    client.connection.onNotification("window/showMessage", (p: { type: number; message: string }) => shown.push(p));
    await expect(client.executeCommand("intent.selectIntent", { id: "INT-404" })).rejects.toThrow();
    await expect.poll(() => shown).toEqual([{ type: 1, message: expect.stringMatching(/^intent-lsp: intent\.selectIntent failed: .*INT-404/) }]);
  });
});

describe("the person of a re-recorded line", () => {
  let ws: TempWorkspace | undefined;
  let client: LspClient | undefined;
  stopAfterEach(() => ({ client, ws }));

  const NOTES = "docs/notes.md"; // owned by INT-003 (in progress); INT-001 is selected
  const LINE = 10;

  it("stays who wrote it: the quick fix re-records it under its owner, and hover and `intent blame` still name Ada Lovelace", async () => {
    ws = gitWorkspace(); // committed: only the saved line differs from HEAD
    for (const [key, value] of [
      ["user.name", "Ada Lovelace"],
      ["user.email", "Ada@Example.com"],
    ])
      spawnSync("git", ["config", key!, value!], { cwd: ws.root });
    ws.select("INT-001");
    client = await startInProcess({ root: ws.root, settings: { contributor: { type: "human" } } });
    await client.open(NOTES);
    await client.executeCommand("intent.blame", { path: NOTES, startLine: 0, endLine: 0 }); // the ledger read first
    await client.setLine(NOTES, LINE, "- Write the onboarding guide this week.");
    expect(await client.save(NOTES)).not.toBeNull();
    const diags = await client.waitForDiagnostics(NOTES, (d) => d.some((x) => x.code === "out-of-scope"));
    expect(await client.hoverText(NOTES, LINE, 1)).toContain("human · Ada Lovelace");

    const actions = await client.codeActions(NOTES, diags[0]!.range, diags);
    const fix = actions.find((a) => a.title === `Re-record line ${LINE + 1} under INT-003 — Docs refresh`);
    expect(fix, actions.map((a) => a.title).join(" | ")).toBeDefined();
    await client.executeCommand(fix!.command!.command, ...(fix!.command!.arguments ?? []));
    await client.waitForDiagnostics(NOTES, (d) => d.length === 0);

    const [saved, reattribution] = records(ws);
    expect(reattribution!.metadata["dev.intent-lsp"].reattributes).toEqual([saved!.id]);
    expect(reattribution!.metadata["dev.intent-lsp"].person).toEqual({
      name: "Ada Lovelace",
      email_hash: `sha256:${createHash("sha256").update("ada@example.com").digest("hex")}`,
    });
    expect(await client.hoverText(NOTES, LINE, 1)).toContain(`human · Ada Lovelace · just now (${reattribution!.timestamp})`);
    const json = JSON.parse(runCli(["blame", `${NOTES}:${LINE + 1}`, "--json"], { cwd: ws.root }).stdout);
    expect(json.lines[0]).toMatchObject({ contributor: "human", person: "Ada Lovelace", intent: "INT-003" });
  });
});
