import { writeFileSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Hover } from "vscode-languageserver-protocol";
import { ensureBuilt } from "../support/builtDist";
import { runCli, runHook } from "../support/cliRunner";
import { claudeEdit, claudePayload, writeTranscript } from "../support/hookPayloads";
import { ledgerRecords } from "../support/ledgerFile";
import type { LspClient } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { TempWorkspace } from "../support/workspace";

/**
 * Who wrote each line, through the edit streams that are easiest to get wrong: an agent's write the editor
 * reloads, interleaved multi-edits, a large paste into a large block, reformatting, a hover before the
 * ledger is read, and a write underneath an open document. Every expectation is the exact owner of every
 * line, from the editor's hover and from `intent blame --json` alike.
 */

const PATH = "src/api/story.ts";
const SONNET = "anthropic/claude-sonnet-4-5-20250929";
const GPT = "openai/gpt-5";

/** The owner a hover names: "human", a model id, or untraced / edited / indexing. */
async function hoverOwner(client: LspClient, path: string, line: number): Promise<string> {
  const h = await client.request<Hover | null>("textDocument/hover", { textDocument: { uri: client.uri(path) }, position: { line, character: 0 } });
  const text = h ? (h.contents as { value: string }).value : "";
  if (text.startsWith("**Untraced")) return "untraced";
  if (text.startsWith("**Edited")) return "edited";
  if (text.startsWith("**Indexing")) return "indexing";
  const m = /\n\n(human|ai|mixed|unknown)(?: · (\S+))? · /.exec(text);
  return m ? (m[2] ?? m[1]!) : `?${text}`;
}

async function hoverOwners(client: LspClient, path: string, lines: number): Promise<string[]> {
  const out: string[] = [];
  for (let l = 0; l < lines; l++) out.push(await hoverOwner(client, path, l));
  return out;
}

/** `intent blame --json` as the terminal shows it: the owner of every line of the file on disk. */
function blameOwners(ws: TempWorkspace, path: string): string[] {
  const r = runCli(["blame", path, "--json"], { cwd: ws.root });
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout).lines as { kind: string; contributor?: string; model?: string }[]).map((l) =>
    l.kind === "traced" ? (l.model ?? l.contributor!) : l.kind,
  );
}

const text = (lines: string[]) => lines.map((l) => `${l}\n`).join("");

/** Ranges (1-based [start, end]) and contributor of a record. */
function claims(record: Record<string, any>) {
  const conv = record.files[0].conversations[0];
  return { ranges: conv.ranges.map((r: any) => [r.start_line, r.end_line]), contributor: conv.contributor.model_id ?? conv.contributor.type };
}

describe("attribution through real edit streams", () => {
  let ws: TempWorkspace;
  const clients: LspClient[] = [];
  beforeAll(ensureBuilt);

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.stop();
    ws.dispose();
  });

  async function editor(contributor: { type: "human" } | { type: "ai"; modelId: string }, opts: { watchedFiles?: boolean } = {}): Promise<LspClient> {
    const c = await startInProcess({ root: ws.root, settings: { contributor }, ...opts });
    clients.push(c);
    return c;
  }

  /** A file written line by line in the editor and saved: every line the contributor's. */
  async function createInEditor(client: LspClient, path: string, lines: string[]): Promise<void> {
    ws.write(path, "");
    await client.open(path, "typescript");
    await client.edit(path, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text(lines));
    expect(await client.save(path)).not.toBeNull();
  }

  function setUp(): void {
    ws = new TempWorkspace({ withLedger: false });
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
  }

  /** An agent's Edit through the hooks, as Claude Code makes it: gate, write, record. */
  function agentEdit(path: string, from: string, to: string): string {
    expect(runHook("claude-code", claudeEdit(ws, "PreToolUse", path, from, to), { cwd: ws.root }).status).toBe(0);
    const after = ws.read(path).replace(from, to);
    ws.write(path, after);
    expect(runHook("claude-code", claudeEdit(ws, "PostToolUse", path, from, to), { cwd: ws.root }).status).toBe(0);
    return after;
  }

  describe.each([
    ["replacing one region (VS Code)", "region"],
    ["hunk by hunk", "hunks"],
  ] as const)("an agent's write into an open document, reloaded %s, is the agent's; the next save claims only its own line", (_, style) => {
    it.each([
      ["after the hook recorded it", false],
      ["before the hook recorded it", true],
    ])("reloaded %s", async (_when, reloadFirst) => {
      setUp();
      const client = await editor({ type: "human" });
      await createInEditor(client, PATH, ["one", "two", "three"]);

      const reload = async (after: string) => {
        if (style === "region") await client.replaceAll(PATH, after);
        else await client.editMany(PATH, [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 3 } }, text: "TWO" }]);
      };
      if (reloadFirst) {
        // the editor notices the write and reloads before the agent's PostToolUse hook has run
        expect(runHook("claude-code", claudeEdit(ws, "PreToolUse", PATH, "two", "TWO"), { cwd: ws.root }).status).toBe(0);
        ws.write(PATH, text(["one", "TWO", "three"]));
        await reload(text(["one", "TWO", "three"]));
        expect(runHook("claude-code", claudeEdit(ws, "PostToolUse", PATH, "two", "TWO"), { cwd: ws.root }).status).toBe(0);
      } else {
        await reload(agentEdit(PATH, "two", "TWO"));
      }
      await expect.poll(() => hoverOwners(client, PATH, 3)).toEqual(["human", SONNET, "human"]);

      await client.setLine(PATH, 2, "THREE");
      const id = await client.save(PATH);
      const records = ledgerRecords(ws);
      expect(records.map(claims)).toEqual([
        { ranges: [[1, 3]], contributor: "human" },
        { ranges: [[2, 2]], contributor: SONNET },
        { ranges: [[3, 3]], contributor: "human" },
      ]);
      expect(records[2]!.id).toBe(id);
      expect(await hoverOwners(client, PATH, 3)).toEqual(["human", SONNET, "human"]);
      expect(blameOwners(ws, PATH)).toEqual(["human", SONNET, "human"]);
    });
  });

  it("a copy of a line typed at its start is the new line above it, typed at its end the new line below: each save claims the line typed, as tracked, not as a diff of the texts would guess", async () => {
    setUp();
    const client = await editor({ type: "human" });
    await createInEditor(client, PATH, ["one", "two", "three"]);
    // "two\n" typed at column 0 of "two": the old "two" is pushed down, the typed one is line 2
    await client.edit(PATH, { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, "two\n");
    await client.save(PATH);
    // "\ntwo" typed at the end of line 2: the typed one is line 3
    await client.edit(PATH, { start: { line: 1, character: 3 }, end: { line: 1, character: 3 } }, "\ntwo");
    await client.save(PATH);
    expect(ledgerRecords(ws).map(claims)).toEqual([
      { ranges: [[1, 3]], contributor: "human" },
      { ranges: [[2, 2]], contributor: "human" },
      { ranges: [[3, 3]], contributor: "human" },
    ]);
  });

  it("comments inserted above each of N lines in one multi-edit (bottom-up) claim only the comments", async () => {
    setUp();
    const human = await editor({ type: "human" });
    const lines = ["def area(r):", "    pi = 3.14159", "    sq = r * r", "", "    return pi * sq", "}"];
    await createInEditor(human, PATH, lines);
    await human.stop();
    clients.splice(0);

    const ai = await editor({ type: "ai", modelId: GPT });
    await ai.open(PATH, "typescript");
    const at = (l: number) => ({ start: { line: l, character: 0 }, end: { line: l, character: 0 } });
    await ai.editMany(
      PATH,
      [5, 4, 3, 2, 1, 0].map((l) => ({ range: at(l), text: `# why ${l}\n` })),
    );
    await ai.save(PATH);
    expect(claims(ledgerRecords(ws)[1]!)).toEqual({
      ranges: [
        [1, 1],
        [3, 3],
        [5, 5],
        [7, 7],
        [9, 9],
        [11, 11],
      ],
      contributor: GPT,
    });
    const expected = lines.flatMap(() => [GPT, "human"]);
    expect(await hoverOwners(ai, PATH, 12)).toEqual(expected);
    expect(blameOwners(ws, PATH)).toEqual(expected);
  });

  it("a 250-line paste into the middle of a 200-line block leaves both halves of the block with their writer", async () => {
    setUp();
    const human = await editor({ type: "human" });
    const block = Array.from({ length: 200 }, (_, i) => (i % 10 === 9 ? "" : i % 10 === 8 ? "}" : `  value${i} = compute(${i});`));
    await createInEditor(human, PATH, block);
    await human.stop();
    clients.splice(0);

    const ai = await editor({ type: "ai", modelId: GPT });
    await ai.open(PATH, "typescript");
    const paste = Array.from({ length: 250 }, (_, i) => (i % 10 === 9 ? "" : i % 10 === 8 ? "}" : `  pasted${i}();`));
    await ai.insertLines(PATH, 100, paste);
    await ai.save(PATH);
    expect(claims(ledgerRecords(ws)[1]!)).toEqual({ ranges: [[101, 350]], contributor: GPT });
    const expected = [...Array(100).fill("human"), ...Array(250).fill(GPT), ...Array(100).fill("human")];
    expect(await hoverOwners(ai, PATH, 450)).toEqual(expected);
    expect(blameOwners(ws, PATH)).toEqual(expected);
  });

  it("reformatting keeps each line's writer and says who reformatted it; identical blank and brace lines keep theirs", async () => {
    setUp();
    const human = await editor({ type: "human" });
    await createInEditor(human, PATH, ["function f(a, b) {", "  if (a) {", "    return b;", "  }", "", "  return a;", "}"]);
    await human.close(PATH);

    // the agent reformats the whole file (indentation, spacing, CRLF) and adds one block of its own
    const reformatted = `${["function f(a,b){", "    if(a){", "        return b;", "    }", "", "    if (b) {", "    }", "", "    return a;", "}"].join("\r\n")}\r\n`;
    expect(
      runHook(
        "claude-code",
        claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: { file_path: ws.path(PATH), content: reformatted }, tool_use_id: "toolu_fmt" }),
        { cwd: ws.root },
      ).status,
    ).toBe(0);
    writeFileSync(ws.path(PATH), reformatted);
    expect(
      runHook(
        "claude-code",
        claudePayload(ws, "PostToolUse", {
          tool_name: "Write",
          tool_input: { file_path: ws.path(PATH), content: reformatted },
          tool_use_id: "toolu_fmt",
          tool_response: { type: "update" },
        }),
        { cwd: ws.root },
      ).status,
    ).toBe(0);
    expect(claims(ledgerRecords(ws)[1]!)).toEqual({ ranges: [[6, 8]], contributor: SONNET });

    await human.open(PATH, "typescript");
    const expected = ["human", "human", "human", "human", "human", SONNET, SONNET, SONNET, "human", "human"];
    await expect.poll(() => hoverOwners(human, PATH, 10)).toEqual(expected);
    expect(blameOwners(ws, PATH)).toEqual(expected);
    const h = await human.request<Hover>("textDocument/hover", { textDocument: { uri: human.uri(PATH) }, position: { line: 1, character: 0 } });
    expect((h.contents as { value: string }).value).toContain(`reformatted by ai · ${SONNET}`);
  });

  it("while a large ledger is first read, hover says it is indexing, never untraced", async () => {
    setUp();
    const human = await editor({ type: "human" });
    await createInEditor(human, PATH, ["alpha", "beta"]);
    await human.stop();
    clients.splice(0);
    // 60,000 records of other files before ours: reading them takes the server a while
    const ours = ws.read(".orchestration/agent_trace.jsonl");
    const filler = JSON.parse(ours);
    const lines: string[] = [];
    for (let i = 0; i < 60_000; i++) {
      filler.id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
      filler.files[0].path = `src/api/generated/f${i}.ts`;
      lines.push(JSON.stringify(filler));
    }
    ws.write(".orchestration/agent_trace.jsonl", `${lines.join("\n")}\n${ours}`);

    const client = await editor({ type: "human" });
    await client.open(PATH, "typescript");
    const seen = new Set<string>();
    for (;;) {
      const owner = await hoverOwner(client, PATH, 0);
      seen.add(owner);
      expect(owner, "a line with a record is never shown untraced").not.toBe("untraced");
      if (owner === "human") break;
      expect(owner).toBe("indexing");
    }
    console.log(`hover answers while indexing 60,000 records: ${[...seen].join(", ")}`);
    expect(await hoverOwner(client, PATH, 1)).toBe("human");
  });

  it("a plain write underneath an open document is reported as stale, with a client that watches no files", async () => {
    setUp();
    const client = await editor({ type: "human" }, { watchedFiles: false });
    await createInEditor(client, PATH, ["one", "two"]);
    await client.waitForDiagnostics(PATH, (d) => d.length === 0);
    const start = Date.now();
    writeFileSync(ws.path(PATH), "one\ntwo\nthree, from another program\n");
    const diags = await client.waitForDiagnostics(PATH, (d) => d.some((x) => x.code === "stale-file"));
    console.log(`stale-file published ${Date.now() - start} ms after the write`);
    expect(diags.find((d) => d.code === "stale-file")!.message).toContain(`${PATH} changed on disk after it was loaded here`);
  });
});
