import { appendFileSync, existsSync, readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { fileHash } from "../../server/src/engine/hashing";
import { CACHE_DIR } from "../../server/src/io/cacheDir";
import { decodeIndex, indexFileName } from "../../server/src/io/ledger/indexFile";
import { runCliInProcess } from "../support/cliRunner";
import { bombRecords } from "../support/ledgerBombs";
import { LspClient } from "../support/lspClient";
import { stopAfterEach, TempWorkspace } from "../support/workspace";
import { git, gitWorkspace } from "../support/gitRepository";

const API = "src/api/weather.ts";
const LEDGER = ".orchestration/agent_trace.jsonl";

/** A record as an agent hook in another process would append it. */
function agentRecord(path: string, content: string, lines: [number, number], intentId = "INT-001") {
  return buildRecord({
    path,
    content,
    ranges: [{ start_line: lines[0], end_line: lines[1] }],
    contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" },
    sessionId: "claude-abc",
    toolVersion: "0.1.0",
    mutationClass: "INTENT_EVOLUTION",
    preHash: null,
    scope: "PASS",
    intentId,
  });
}

describe("the ledger as other processes write it", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  stopAfterEach(() => ({ client, ws }));

  it("an append by another process shows in hover without reopening the file", async () => {
    ws = new TempWorkspace({ withLedger: false });
    client = await LspClient.start({ root: ws.root });
    await client.open(API);
    // while the (empty) ledger is first read, hover says it is indexing; then, with no record of the file at
    // all, it says nothing (the language's own hover stands alone)
    await expect.poll(() => client.hoverText(API, 2)).toBe("");
    appendFileSync(ws.path(LEDGER), `${JSON.stringify(agentRecord(API, ws.read(API), [3, 7]))}\n`);
    await expect.poll(() => client.hoverText(API, 2), { timeout: 5000 }).toContain("ai · anthropic/claude-sonnet-4-5");
    expect(await client.hoverText(API, 7)).toContain("Untraced");
  });

  it("reports each unreadable ledger line in the ledger file and keeps serving", async () => {
    ws = new TempWorkspace({ withLedger: false });
    const good = JSON.stringify(agentRecord(API, ws.read(API), [1, 2]));
    ws.write(LEDGER, `${good}\nthis is not json\n{"id": 42}\n${good.replace('"id":"', '"id":"x')}\n{"truncated": \n`);
    client = await LspClient.start({ root: ws.root });
    const diags = await client.waitForDiagnostics(LEDGER, (d) => d.length >= 3);
    expect(diags.map((d) => [d.range.start.line, d.code, d.severity])).toEqual([
      [1, "ledger-unreadable", 2],
      [2, "ledger-unreadable", 2],
      [4, "ledger-unreadable", 2],
    ]);
    expect(diags[0].message).toMatch(/^\.orchestration\/agent_trace\.jsonl:2: /);
    await client.open(API);
    expect(await client.hoverText(API, 0)).toContain("INT-001");
  });

  it("a record claiming tens of millions of lines is reported; the server indexes the rest and answers hover", async () => {
    ws = new TempWorkspace({ withLedger: false });
    const bombs = bombRecords(API);
    ws.write(LEDGER, `${JSON.stringify(agentRecord(API, ws.read(API), [1, 2]))}\n${bombs.map((b) => b.line).join("\n")}\n`);
    client = await LspClient.start({ root: ws.root });
    await client.open(API);
    const diags = await client.waitForDiagnostics(LEDGER, (d) => d.length === bombs.length);
    expect(diags.map((d) => [d.range.start.line, d.code])).toEqual(bombs.map((_, i) => [i + 1, "ledger-unreadable"]));
    bombs.forEach((b, i) => {
      expect(diags[i]!.message).toContain(`${LEDGER}:${i + 2}: record "${b.id}" claims`);
    });
    expect(await client.hoverText(API, 0)).toContain("INT-001");
    expect(await client.hoverText(API, 5)).toContain("Untraced");
  });

  it("stale-file when another process writes an open file, naming the writer the ledger knows", async () => {
    ws = new TempWorkspace({ withLedger: false });
    client = await LspClient.start({ root: ws.root });
    await client.open(API);
    await client.setLine(API, 2, "export interface Weather { // mine");
    const theirs = ws.read(API).replace("summary: string;", "summary: string;\n  humidity: number;");
    ws.write(API, theirs);
    appendFileSync(ws.path(LEDGER), `${JSON.stringify(agentRecord(API, theirs, [7, 7]))}\n`);
    await client.notifyWatched(API);
    // the file's change and the record arrive separately: the warning names the writer once the record is read
    const diags = await client.waitForDiagnostics(API, (d) => d.some((x) => x.code === "stale-file" && x.message.includes(" by ")));
    const stale = diags.find((d) => d.code === "stale-file")!;
    expect(stale.range).toEqual({ start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
    expect(stale.message).toMatch(
      /^src\/api\/weather\.ts changed on disk after it was loaded here by ai · anthropic\/claude-sonnet-4-5 under INT-001 — Build Weather API \(IN_PROGRESS\) at \S+\. Saving will overwrite that change; reload the file first\.$/,
    );
  });

  it("untraced-change on a line changed since the check's base that no record explains", async () => {
    ws = gitWorkspace();
    const recorded = ws.read(API);
    appendFileSync(ws.path(LEDGER), `${JSON.stringify(agentRecord(API, recorded, [10, 17]))}\n`);
    ws.write(API, recorded.replace("celsius: Math.round(now.temperature),", "celsius: now.temperature,"));
    client = await LspClient.start({ root: ws.root });
    await client.open(API);
    const diags = await client.waitForDiagnostics(API, (d) => d.length > 0);
    // per-line re-anchoring knows exactly which recorded line changed
    expect(diags.map((d) => [d.code, d.range.start.line, d.range.end.line])).toEqual([["untraced-change", 14, 14]]);
    expect(diags[0].message).toBe(
      `${API} changed here and no ledger record explains it (untraced): the change was made outside intent-lsp and the agent hooks.`,
    );
    expect(fileHash(ws.read(API))).not.toBe(fileHash(recorded));
  });

  it("on a feature branch, the lines its commits changed since main are judged as intent check judges them (the merge-base, not HEAD)", async () => {
    ws = gitWorkspace();
    git(ws.root, "checkout", "-q", "-b", "feature");
    ws.write(API, ws.read(API).replace("celsius: Math.round(now.temperature),", "celsius: now.temperature,"));
    git(ws.root, "commit", "-q", "-am", "an unrecorded change, committed on the branch");
    const check = await runCliInProcess(["check", "--format", "json"], { cwd: ws.root });
    const fromCheck = (JSON.parse(check.stdout) as { findings: { path: string; startLine: number; code: string }[] }).findings
      .filter((f) => f.path === API)
      .map((f) => [f.code, f.startLine - 1]);
    expect(fromCheck).toEqual([["untraced-change", 14]]);
    client = await LspClient.start({ root: ws.root });
    await client.open(API);
    const diags = await client.waitForDiagnostics(API, (d) => d.length > 0);
    expect(diags.map((d) => [d.code, d.range.start.line])).toEqual(fromCheck);
  });

  it("a large ledger is indexed with work-done progress", async () => {
    ws = new TempWorkspace({ withLedger: false });
    const line = JSON.stringify(agentRecord("src/other.ts", "x\n", [1, 1]));
    const count = Math.ceil((1.5 * 1024 * 1024) / line.length);
    ws.write(LEDGER, `${`${line}\n`.repeat(count)}`);
    const progress: unknown[] = [];
    client = await LspClient.start({ root: ws.root, onProgress: (p) => progress.push(p) });
    await expect.poll(() => progress.some((p: any) => p.kind === "end"), { timeout: 15_000 }).toBe(true);
    const kinds = progress.map((p: any) => p.kind);
    expect(kinds[0]).toBe("begin");
    expect((progress[0] as any).title).toBe("intent-lsp: indexing the trace ledger");
    expect(kinds.at(-1)).toBe("end");
    // the index of the whole ledger is saved after the end is reported, for the next process to resume from
    const saved = () => {
      const file = ws!.path(`${CACHE_DIR}/${indexFileName(LEDGER)}`);
      if (!existsSync(file)) return undefined;
      const d = decodeIndex(readFileSync(file));
      return "problem" in d ? d.problem : d.indexed;
    };
    await expect.poll(saved, { timeout: 15_000 }).toBe(statSync(ws.path(LEDGER)).size);
  });

  it("a hover sent on seeing the end of indexing answers from the whole ledger, the open file's last record included", async () => {
    ws = new TempWorkspace({ withLedger: false });
    const line = JSON.stringify(agentRecord("src/other.ts", "x\n", [1, 1]));
    const count = Math.ceil((1.5 * 1024 * 1024) / line.length);
    // the record of the open file's lines is the ledger's last line
    ws.write(LEDGER, `${`${line}\n`.repeat(count)}${JSON.stringify(agentRecord(API, ws.read(API), [3, 7]))}\n`);
    let ended: () => void = () => {};
    const end = new Promise<void>((resolve) => (ended = resolve));
    client = await LspClient.start({ root: ws.root, onProgress: (p) => (p as { kind?: string }).kind === "end" && ended() });
    await client.open(API);
    await end;
    expect(await client.hoverText(API, 2)).toContain("ai · anthropic/claude-sonnet-4-5");
  });

  it("a client that refuses the progress token still gets the ledger read at once, with nothing reported as failed", async () => {
    ws = new TempWorkspace({ withLedger: false });
    const line = JSON.stringify(agentRecord("src/other.ts", "x\n", [1, 1]));
    const count = Math.ceil((1.5 * 1024 * 1024) / line.length);
    ws.write(LEDGER, `${`${line}\n`.repeat(count)}${JSON.stringify(agentRecord(API, ws.read(API), [3, 7]))}\n`);
    const progress: unknown[] = [];
    client = await LspClient.start({ root: ws.root, refuseProgress: true, onProgress: (p) => progress.push(p) });
    await client.open(API);
    await expect.poll(() => client!.hoverText(API, 2), { timeout: 15_000 }).toContain("ai · anthropic/claude-sonnet-4-5");
    expect(progress).toEqual([]);
    expect(client.logs.filter((l) => l.includes("reading the ledger failed"))).toEqual([]);
  });

  it("a compacted ledger's first read reports progress too: the sealed history it decodes, not only the small live file", async () => {
    ws = new TempWorkspace({ withLedger: false });
    const lines: string[] = [];
    for (let size = 0, i = 0; size < 1.5 * 1024 * 1024; i++) {
      const line = JSON.stringify(agentRecord(`src/f${i}.ts`, `export const v${i} = ${i};\n`, [1, 1]));
      lines.push(line);
      size += line.length + 1;
    }
    ws.write(LEDGER, `${lines.join("\n")}\n`);
    const compacted = await runCliInProcess(["ledger", "compact", "--before", "2999-01-01", "--store", "folder"], { cwd: ws.root });
    expect(compacted.stderr).toBe("");
    expect(compacted.status).toBe(0);
    expect(statSync(ws.path(LEDGER)).size).toBeLessThan(1024 * 1024);
    const progress: unknown[] = [];
    client = await LspClient.start({ root: ws.root, onProgress: (p) => progress.push(p) });
    await expect.poll(() => progress.some((p: any) => p.kind === "end"), { timeout: 20_000 }).toBe(true);
    expect((progress[0] as any).title).toBe("intent-lsp: indexing the trace ledger");
    const reports = progress.filter((p: any) => p.kind === "report").map((p: any) => p.percentage as number);
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.at(-1)).toBe(100);
    // and the sealed records are read: the last one's file is attributed
    const last = `src/f${lines.length - 1}.ts`;
    ws.write(last, `export const v${lines.length - 1} = ${lines.length - 1};\n`);
    await client.open(last);
    expect(await client.hoverText(last, 0)).toContain("anthropic/claude-sonnet-4-5");
  });

  it("verifyLedger, blame and regenerateMap answer from the ledger", async () => {
    ws = new TempWorkspace({ withLedger: false });
    client = await LspClient.start({ root: ws.root });
    await client.open(API);
    ws.select("INT-001");
    await client.setLine(API, 4, "  celsius: number; // °C");
    ws.write(API, client.text(API));
    await client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: client.uri(API) } });
    await expect.poll(() => ws.read(LEDGER).split("\n").filter(Boolean).length).toBe(1);

    const report = (await client.executeCommand("intent.verifyLedger")) as { ok: boolean; records: number; problems: unknown[] };
    expect(report).toMatchObject({ ok: true, records: 1, problems: [] });

    const blame = async () => ((await client.executeCommand("intent.blame", { uri: client.uri(API), startLine: 3, endLine: 5 })) as { lines: any[] }).lines;
    // the save's own read-back of the ledger may still be re-attributing the document
    await expect
      .poll(async () => (await blame()).map((l) => [l.line, l.kind, l.intent ?? null]))
      .toEqual([
        [4, "untraced", null],
        [5, "traced", "INT-001"],
        [6, "untraced", null],
      ]);

    const map = (await client.executeCommand("intent.regenerateMap")) as { path: string; changed: boolean };
    expect(map).toMatchObject({ path: ".orchestration/intent_map.md", changed: true });
    expect(ws.read(".orchestration/intent_map.md")).toContain(
      "## INT-001 — Build Weather API\n\nStatus: IN_PROGRESS · scope: `src/api/**`, `test/api/**`\nEdits: 1",
    );
    expect(((await client.executeCommand("intent.regenerateMap")) as { changed: boolean }).changed).toBe(false);
  });
});
