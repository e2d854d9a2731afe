import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesHash } from "../../server/src/engine/hashing";
import { acquireLedgerLock, appendRecord, appendRecords, lastNonBlankLine, LedgerAppendError } from "../../server/src/io/ledger/append";
import { recordChange } from "../../server/src/io/ledger/recordChange";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { verifyLedger } from "../../server/src/io/ledger/verify";
import type { TraceRecord } from "@shared/agentTrace";

const repoRoot = resolve(__dirname, "../..");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "intent-lsp-append-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function record(i = n++): TraceRecord {
  return buildRecord({
    path: `src/file${i % 7}.ts`,
    content: `export const v${i} = ${i};\n`,
    ranges: [{ start_line: 1, end_line: 1 }],
    contributor: { type: i % 2 ? "ai" : "human", ...(i % 2 ? { modelId: "anthropic/claude-sonnet-4-5" } : {}) },
    sessionId: "test",
    toolVersion: "0.1.0",
    mutationClass: "INTENT_EVOLUTION",
    preHash: null,
    scope: "PASS",
    intentId: "INT-001",
  });
}
const prevOf = (line: string) => JSON.parse(line).metadata["dev.intent-lsp"].prev as string | null;

describe("appendRecord", () => {
  it("creates the ledger and its directory, and chains prev to the previous line's bytes", async () => {
    const file = join(dir, "new", ".orchestration", "agent_trace.jsonl");
    const r1 = await appendRecord(file, record());
    const r2 = await appendRecord(file, record());
    const r3 = await appendRecord(file, record());
    const text = readFileSync(file, "utf8");
    const lines = text.split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe("");
    expect([r1.line, r2.line, r3.line]).toEqual(lines.slice(0, 3));
    expect(r1.prev).toBeNull();
    expect(prevOf(lines[0]!)).toBeNull();
    expect(r2.prev).toBe(bytesHash(lines[0]!));
    expect(prevOf(lines[2]!)).toBe(bytesHash(lines[1]!));
    expect(r3.offset).toBe(Buffer.byteLength(lines[0]! + lines[1]!) + 2);
    expect(verifyLedger(text)).toEqual({ ok: true, records: 3, problems: [] });
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("chains over lines written by other tools and skips blank lines", async () => {
    const file = join(dir, "foreign.jsonl");
    const foreign = readFileSync(join(__dirname, "../fixtures/agent-trace/older-dialect.jsonl"), "utf8").split("\n")[0]!;
    writeFileSync(file, `${foreign}\n\n  \n`);
    const r = await appendRecord(file, record());
    expect(r.prev).toBe(bytesHash(foreign));
    expect(r.afterTornLine).toBe(false);
    const report = verifyLedger(readFileSync(file));
    expect(report.ok).toBe(true);
    expect(report.problems.map((p) => [p.line, p.kind])).toEqual([[1, "legacy"]]);
  });

  it("leaves a torn last line in place and starts the record on a fresh line", async () => {
    const file = join(dir, "torn.jsonl");
    await appendRecord(file, record());
    const torn = JSON.stringify(record()).slice(0, 120);
    appendFileSync(file, torn);
    const before = readFileSync(file);
    const r = await appendRecord(file, record());
    const after = readFileSync(file);
    expect(after.subarray(0, before.length).equals(before)).toBe(true); // nothing rewritten
    expect(r.afterTornLine).toBe(true);
    expect(r.prev).toBe(bytesHash(torn));
    expect(after.subarray(before.length).toString()).toBe(`\n${r.line}\n`);
    const report = verifyLedger(after);
    expect(report.records).toBe(2);
    expect(report.problems.map((p) => [p.line, p.kind])).toEqual([[2, "torn"]]);
  });

  it("refuses a record that fails the schema, writing nothing", async () => {
    const file = join(dir, "invalid.jsonl");
    const bad = { ...record(), id: "nope" };
    await expect(appendRecord(file, bad)).rejects.toThrow(LedgerAppendError);
    await expect(appendRecord(file, bad)).rejects.toThrow(/\/id: must match format "uuid"/);
    expect(existsSync(file) ? readFileSync(file, "utf8") : "").toBe("");
  });

  it("finds the last line even when it is longer than the tail window", async () => {
    const file = join(dir, "long.jsonl");
    const big = record();
    big.metadata!["dev.cursor"] = { blob: "x".repeat(200_000) };
    await appendRecord(file, big);
    const r = await appendRecord(file, record());
    expect(r.prev).toBe(bytesHash(readFileSync(file, "utf8").split("\n")[0]!));
    expect(verifyLedger(readFileSync(file)).ok).toBe(true);
  });

  it("does not mutate the record it is given", async () => {
    const rec = record();
    const copy = structuredClone(rec);
    await appendRecord(join(dir, "immutable.jsonl"), rec);
    expect(rec).toEqual(copy);
  });
});

describe("appendRecords", () => {
  it("appends one act's records as consecutive lines, each chained to the one before it, after a torn line", async () => {
    const file = join(dir, "several.jsonl");
    await appendRecord(file, record());
    const torn = JSON.stringify(record()).slice(0, 120);
    appendFileSync(file, torn);
    const before = readFileSync(file);
    const rs = await appendRecords(file, [record(), record(), record()]);
    const after = readFileSync(file);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.subarray(before.length).toString()).toBe(`\n${rs.map((r) => `${r.line}\n`).join("")}`);
    expect(rs.map((r) => r.prev)).toEqual([bytesHash(torn), bytesHash(rs[0]!.line), bytesHash(rs[1]!.line)]);
    expect(rs.map((r) => prevOf(r.line))).toEqual(rs.map((r) => r.prev));
    expect(rs.map((r) => r.afterTornLine)).toEqual([true, false, false]);
    // each offset is where its line starts
    for (const r of rs) expect(after.subarray(r.offset, r.offset + Buffer.byteLength(r.line)).toString()).toBe(r.line);
    const report = verifyLedger(after);
    expect(report.records).toBe(4);
    expect(report.problems.map((p) => [p.line, p.kind])).toEqual([[2, "torn"]]);
    expect(await appendRecords(file, [])).toEqual([]);
    expect(readFileSync(file).equals(after)).toBe(true);
  });

  it("refuses the whole act when one record fails the schema, writing none of them", async () => {
    const file = join(dir, "several-invalid.jsonl");
    await expect(appendRecords(file, [record(), { ...record(), id: "nope" }])).rejects.toThrow(/\/id: must match format "uuid"/);
    expect(existsSync(file) ? readFileSync(file, "utf8") : "").toBe("");
  });
});

describe("recordChange: two writers of one change at once", () => {
  it("asks again under the lock: the writer that waited for it appends nothing when the other recorded the change meanwhile", async () => {
    const root = mkdtempSync(join(dir, "twice-"));
    const ledgerPath = ".orchestration/agent_trace.jsonl";
    const file = join(root, ledgerPath);
    const change = (recordedUnderLock?: (p: string, h: string) => Promise<boolean>) => ({
      root,
      ledgerPath,
      path: "src/a.ts",
      content: "export const a = 2;\n",
      before: "export const a = 1;\n",
      verdict: { kind: "exempt" as const },
      contributor: { type: "ai" as const, modelId: "anthropic/claude-sonnet-4-5" },
      sessionId: "s",
      toolVersion: "0.1.0",
      // both writers checked before the lock, and found nothing
      alreadyRecorded: () => false,
      ...(recordedUnderLock ? { recordedUnderLock } : {}),
    });
    const lastPost = async () => {
      const lines = existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : [];
      const last = lines.at(-1);
      return last ? (JSON.parse(last).metadata["dev.intent-lsp"].post_hash as string) : undefined;
    };
    const recorded = async (_: string, h: string) => (await lastPost()) === h;
    for (const [guard, expected] of [
      [recorded, 1],
      [undefined, 2],
    ] as const) {
      rmSync(file, { force: true });
      // the lock held while both writers get to it: each has checked, neither has written
      const release = await acquireLedgerLock(file);
      const both = Promise.all([recordChange(change(guard)), recordChange(change(guard))]);
      await release();
      const outcomes = await both;
      expect(readFileSync(file, "utf8").trim().split("\n"), guard ? "asked under the lock" : "asked before it only").toHaveLength(expected);
      if (guard) expect(outcomes.map((o) => o.written).sort()).toEqual([false, true]);
    }
  });
});

describe("lastNonBlankLine", () => {
  const b = (s: string) => Buffer.from(s);
  it("finds the last line, terminated or torn, skipping blank ones", () => {
    expect(lastNonBlankLine(b("a\nbc\n"), true)).toEqual({ start: 2, end: 4 });
    expect(lastNonBlankLine(b("a\nbc"), true)).toEqual({ start: 2, end: 4 });
    expect(lastNonBlankLine(b("a\n\n \r\n"), true)).toEqual({ start: 0, end: 1 });
    expect(lastNonBlankLine(b("abc"), true)).toEqual({ start: 0, end: 3 });
    expect(lastNonBlankLine(b("\n\n"), true)).toBeUndefined();
    expect(lastNonBlankLine(b(""), true)).toBeUndefined();
  });
  it("asks for a bigger window when the line may start before it", () => {
    expect(lastNonBlankLine(b("abc\n"), false)).toBeUndefined();
    expect(lastNonBlankLine(b("x\nabc\n"), false)).toEqual({ start: 2, end: 5 });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Real processes: a bundled child script using the same modules.

const CHILD = `
import { openSync, writeSync, fsyncSync } from "node:fs";
import { appendRecord, acquireLedgerLock } from "./server/src/io/ledger/append";
import { buildRecord } from "./server/src/engine/ledger/record";

async function main() {
  const [mode, file, arg, tag] = process.argv.slice(2);
  if (mode === "append") {
    for (let i = 0; i < Number(arg); i++) {
      const record = buildRecord({
        path: "src/" + tag + "/f" + (i % 50) + ".ts",
        content: "// " + tag + " " + i + "\\n",
        ranges: [{ start_line: 1, end_line: 1 }],
        contributor: { type: "ai", modelId: "test/" + tag },
        sessionId: tag, toolVersion: "0.1.0", mutationClass: "INTENT_EVOLUTION",
        preHash: null, scope: "PASS", intentId: "INT-001",
      });
      await appendRecord(file, record);
    }
  } else if (mode === "crash") {
    // Take the lock, write half a record, and hang until killed.
    await acquireLedgerLock(file, { stale: 2000 });
    const fd = openSync(file, "a");
    writeSync(fd, arg);
    fsyncSync(fd);
    process.stdout.write("locked\\n");
    setInterval(() => {}, 1000);
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
`;

let childScript: string;

async function bundleChild(): Promise<string> {
  const out = join(dir, "child.cjs");
  await build({
    stdin: { contents: CHILD, resolveDir: repoRoot, loader: "ts", sourcefile: "ledger-child.ts" },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    outfile: out,
    logLevel: "error",
  });
  return out;
}

function run(
  args: string[],
  onStdout?: (s: string, kill: () => void) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [childScript, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.stdout.on("data", (d) => onStdout?.(String(d), () => child.kill("SIGKILL")));
    child.on("error", reject);
    child.on("exit", (code, signal) => resolvePromise({ code, signal, stderr }));
  });
}

describe("appendRecord across processes", () => {
  beforeAll(async () => {
    childScript = await bundleChild();
  }, 60_000);

  // 1,000 each: with the lock taken and at once released (the appends unlocked), every run of 2×1,000 left
  // 64 to 117 links of the chain broken, so a lock that does not hold fails this test many times over.
  it("two processes appending 1,000 records each leave 2,000 whole records in one verified chain", async () => {
    const file = join(dir, "concurrent", "agent_trace.jsonl");
    const started = Date.now();
    const [a, b] = await Promise.all([run(["append", file, "1000", "A"]), run(["append", file, "1000", "B"])]);
    const elapsed = Date.now() - started;
    console.log(`2×1,000 concurrent appends: ${elapsed} ms (${Math.round(2_000 / (elapsed / 1000))} records/s)`);
    expect(a).toMatchObject({ code: 0, stderr: "" });
    expect(b).toMatchObject({ code: 0, stderr: "" });

    const text = readFileSync(file, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.slice(0, -1).split("\n");
    expect(lines).toHaveLength(2_000);
    const tags = lines.map((l) => JSON.parse(l).files[0].conversations[0].url as string);
    expect(tags.filter((t) => t.endsWith(":A"))).toHaveLength(1000);
    expect(tags.filter((t) => t.endsWith(":B"))).toHaveLength(1000);
    // Under the lock every writer sees the true last line: the chain is linear, no two records share a prev.
    expect(prevOf(lines[0]!)).toBeNull();
    for (let i = 1; i < lines.length; i++) expect(prevOf(lines[i]!)).toBe(bytesHash(lines[i - 1]!));
    expect(verifyLedger(text)).toEqual({ ok: true, records: 2_000, problems: [] });
  }, 180_000);

  it("a writer SIGKILLed while holding the lock mid-append: the next append waits out the stale lock, verify reports only the torn line", async () => {
    const file = join(dir, "crash", "agent_trace.jsonl");
    await appendRecord(file, record());
    await appendRecord(file, record());
    const intact = readFileSync(file);
    const partial = JSON.stringify(record()).slice(0, 200);

    let appendStarted = 0;
    let pending: Promise<unknown> | undefined;
    const crashed = await run(["crash", file, partial], (out, kill) => {
      if (!out.includes("locked")) return;
      // The lock is held: start an append (it must wait), then kill the holder.
      appendStarted = Date.now();
      pending = appendRecord(file, record(), { stale: 2000 });
      setTimeout(kill, 300);
    });
    expect(crashed.signal).toBe("SIGKILL");
    expect(existsSync(`${file}.lock`)).toBe(true); // left behind by the killed writer
    const result = (await pending) as Awaited<ReturnType<typeof appendRecord>>;
    const waited = Date.now() - appendStarted;
    console.log(`append after SIGKILLed lock holder completed after ${waited} ms (stale = 2000 ms)`);
    expect(waited).toBeGreaterThanOrEqual(1500);
    expect(existsSync(`${file}.lock`)).toBe(false);

    const after = readFileSync(file);
    expect(after.subarray(0, intact.length).equals(intact)).toBe(true);
    expect(after.subarray(intact.length).toString()).toBe(`${partial}\n${result.line}\n`);
    expect(result.afterTornLine).toBe(true);
    expect(result.prev).toBe(bytesHash(partial));
    const report = verifyLedger(after);
    expect(report.records).toBe(3);
    expect(report.problems.map((p) => [p.line, p.kind])).toEqual([[3, "torn"]]);
  }, 60_000);
});
