import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CACHE_DIR } from "../../server/src/io/cacheDir";
import { decodeIndex, indexFileName } from "../../server/src/io/ledger/indexFile";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { WorkspaceLedger } from "../../server/src/io/ledger/workspaceLedger";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { CLI_JS, runCli } from "../support/cliRunner";
import { claudeEdit } from "../support/hookPayloads";
import { LEDGER, ledgerRecords } from "../support/ledgerFile";
import { DAMAGES, damageFile } from "../support/cacheDamage";

/** The saved ledger index as the doors share it: written by one process, trusted by the next, never torn. */

beforeAll(ensureBuilt);

/** ~400 KB of other files' history, enough that the first process to index it saves the index. */
function history(): string {
  const lines: string[] = [];
  for (let i = 0; i < 400; i++) {
    const content = `export const v${i} = ${i};\n${"// filler\n".repeat(40)}`;
    const r = buildRecord({
      path: `src/api/old${i % 20}.ts`,
      content,
      ranges: [{ start_line: 1, end_line: 41 }],
      contributor: { type: "human" },
      sessionId: "history",
      toolVersion: "0.1.0",
      mutationClass: "INTENT_EVOLUTION",
      preHash: null,
      scope: "PASS",
      intentId: "INT-001",
      now: new Date(Date.UTC(2026, 0, 1, 0, i)),
    });
    lines.push(JSON.stringify(r));
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Each hook in a process of its own: what these tests look at is the index a hook's own process saves before
 * it exits (the hook service saves the index it keeps when it is quiet: test/cli/hookService.test.ts).
 */
const OWN_PROCESS = { ...process.env, INTENT_LSP_HOOK_SERVICE: "off" };

function hookAsync(ws: TempWorkspace, payload: unknown): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_JS, "hook", "claude-code"], { cwd: ws.root, env: OWN_PROCESS });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(JSON.stringify(payload));
  });
}

describe("the saved ledger index across processes", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace({ withLedger: false });
    ws.write(LEDGER, history());
  });
  afterEach(() => ws.dispose());

  it("eight concurrent post-write hooks each record their write and leave a whole index that describes the ledger", async () => {
    const files = Array.from({ length: 8 }, (_, i) => `src/api/w${i}.ts`);
    for (const f of files) ws.write(f, "export const a = 1;\n");
    for (const f of files) ws.write(f, "export const a = 2;\n");
    const results = await Promise.all(
      files.map((f, i) => hookAsync(ws, { ...claudeEdit(ws, "PostToolUse", f, "export const a = 1;", "export const a = 2;"), tool_use_id: `toolu_${i}` })),
    );
    for (const r of results) expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(ledgerRecords(ws).filter((r) => files.includes(r.files[0].path))).toHaveLength(8);

    const cache = ws.path(CACHE_DIR);
    const saved = readFileSync(`${cache}/${indexFileName(LEDGER)}`);
    expect(decodeIndex(saved)).not.toHaveProperty("problem");
    expect(readdirSync(cache).filter((n) => n.endsWith(".tmp"))).toEqual([]);

    const warm = new WorkspaceLedger(ws.root, LEDGER);
    const poll = await warm.poll();
    expect(poll.bytesResumed).toBeGreaterThan(0);
    const cold = new WorkspaceLedger(ws.root, LEDGER, { cache: false });
    await cold.poll();
    for (const f of [...files, "src/api/old3.ts"]) expect(warm.entriesFor(f), f).toEqual(cold.entriesFor(f));
    expect(warm.recordCount).toBe(408);
    expect(runCli(["verify"], { cwd: ws.root }).status).toBe(0);
  });

  it("a second post-write hook for the same content is a duplicate, found through the saved index", () => {
    ws.write("src/api/dup.ts", "one\n");
    ws.write("src/api/dup.ts", "two\n");
    const payload = JSON.stringify(claudeEdit(ws, "PostToolUse", "src/api/dup.ts", "one", "two"));
    expect(runCli(["hook", "claude-code"], { cwd: ws.root, input: payload, env: OWN_PROCESS }).status).toBe(0);
    expect(decodeIndex(readFileSync(ws.path(`${CACHE_DIR}/${indexFileName(LEDGER)}`)))).not.toHaveProperty("problem");
    expect(runCli(["hook", "claude-code"], { cwd: ws.root, input: payload, env: OWN_PROCESS }).status).toBe(0);
    expect(ledgerRecords(ws).filter((r) => r.files[0].path === "src/api/dup.ts")).toHaveLength(1);
  });

  it("a damaged index is rebuilt by the next command, which answers from the ledger", () => {
    expect(runCli(["blame", "src/api/old3.ts", "--json"], { cwd: ws.root }).status).toBe(1); // no such file yet
    ws.write("src/api/old3.ts", `export const v383 = 383;\n${"// filler\n".repeat(40)}`);
    const before = runCli(["blame", "src/api/old3.ts:1", "--json"], { cwd: ws.root });
    const file = ws.path(`${CACHE_DIR}/${indexFileName(LEDGER)}`);
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length >> 1));
    const after = runCli(["blame", "src/api/old3.ts:1", "--json"], { cwd: ws.root });
    expect(after).toEqual(before);
    expect(JSON.parse(after.stdout).lines[0]).toMatchObject({ kind: "traced", intent: "INT-001" });
    expect(decodeIndex(readFileSync(file))).not.toHaveProperty("problem");
  });

  /** blame's answer with the saved index intact, then with it damaged; the index's path. */
  const blameThroughDamage = (damage: (b: Buffer) => Buffer | undefined) => {
    ws.write("src/api/old3.ts", `export const v383 = 383;\n${"// filler\n".repeat(40)}`);
    const blame = () => runCli(["blame", "src/api/old3.ts", "--json"], { cwd: ws.root });
    const intact = blame();
    expect(intact).toMatchObject({ status: 0, stderr: "" });
    expect(JSON.parse(intact.stdout).lines[0]).toMatchObject({ kind: "traced", intent: "INT-001" });
    const file = ws.path(`${CACHE_DIR}/${indexFileName(LEDGER)}`);
    damageFile(file, damage);
    return { intact, damaged: blame(), file };
  };
  const FLIPPED = DAMAGES.find((d) => d.name.includes("flipped"))!;

  it.each(DAMAGES.filter((d) => d !== FLIPPED))("an index $name: blame answers as with it intact, and the index is written whole again", ({ damage }) => {
    const { intact, damaged, file } = blameThroughDamage(damage);
    expect(damaged).toEqual(intact);
    expect(decodeIndex(readFileSync(file))).not.toHaveProperty("problem");
  });

  it("an index with one bit flipped in its rows: blame, which reads a file's rows at a time, answers as with it intact", () => {
    // the rows a query reads are checked against the ledger's own lines (a process that reads them all
    // checks their checksum: decodeIndex)
    const { intact, damaged, file } = blameThroughDamage(FLIPPED.damage);
    expect(decodeIndex(readFileSync(file))).toMatchObject({ problem: "corrupt: its checksum does not match" });
    expect(damaged).toEqual(intact);
  });

  it("the catalogue one door parsed is reused by the others: the CLI, the hooks and the server", async () => {
    expect(runCli(["status"], { cwd: ws.root }).status).toBe(0);
    const cached = ws.path(`${CACHE_DIR}/catalogue.json`);
    const written = { bytes: readFileSync(cached, "utf8"), mtime: statSync(cached).mtimeMs };
    ws.write("src/api/c.ts", "x\n");
    expect(runCli(["hook", "claude-code"], { cwd: ws.root, input: JSON.stringify(claudeEdit(ws, "PreToolUse", "src/api/c.ts", "x", "y")) }).status).toBe(0);
    const client = await LspClient.start({ root: ws.root });
    try {
      const uri = await client.open("src/api/c.ts");
      await client.waitForDiagnostics("src/api/c.ts", () => client.diagnostics.has(uri));
    } finally {
      await client.stop();
    }
    expect({ bytes: readFileSync(cached, "utf8"), mtime: statSync(cached).mtimeMs }).toEqual(written);
  });
});
