import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bytesHash } from "../../server/src/engine/hashing";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { LedgerVerifier, verifyLedger, verifyLedgerFile } from "../../server/src/io/ledger/verify";
import { appendRecord } from "../../server/src/io/ledger/append";
import type { TraceRecord } from "@shared/agentTrace";

const fixture = (name: string) => readFileSync(join(__dirname, "../fixtures/agent-trace", name), "utf8");
const kinds = (text: string | Buffer) => verifyLedger(text).problems.map((p) => [p.line, p.kind]);

function rec(i: number, prev: string | null | undefined): TraceRecord {
  const r = buildRecord({
    path: `src/f${i}.ts`,
    content: `line ${i}\n`,
    ranges: [{ start_line: 1, end_line: 1 }],
    contributor: { type: "human" },
    sessionId: "v",
    toolVersion: "0.1.0",
    mutationClass: "BUG_FIX",
    preHash: null,
    scope: "PASS",
    intentId: "INT-001",
    now: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
  });
  if (prev !== undefined) r.metadata!["dev.intent-lsp"]!.prev = prev;
  return r;
}

/** A ledger of n records chained the way appendRecord chains them. */
function chain(n: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(JSON.stringify(rec(i, i === 0 ? null : bytesHash(lines[i - 1]!))));
  return lines;
}
const text = (lines: string[]) => `${lines.join("\n")}\n`;

describe("verifyLedger on the sample files", () => {
  it("spec examples are valid v0.1.0 records", () => {
    expect(verifyLedger(fixture("spec-examples.jsonl"))).toEqual({ ok: true, records: 2, problems: [] });
  });
  it.each(["reference-impl-traces.jsonl", "older-dialect.jsonl", "flat-dialect.jsonl"])("%s is legacy, not an error", (name) => {
    const report = verifyLedger(fixture(name));
    expect(report.ok).toBe(true);
    expect(report.records).toBe(2);
    expect(report.problems.map((p) => [p.line, p.kind])).toEqual([
      [1, "legacy"],
      [2, "legacy"],
    ]);
    expect(report.problems[0]!.message).toMatch(/^legacy dialect/);
  });
});

describe("verifyLedger per line", () => {
  it("reports unreadable lines, non-records and schema failures with their line numbers", () => {
    const bad = rec(9, undefined) as unknown as Record<string, any>;
    bad.files[0].conversations[0].contributor.type = "robot";
    const ledger = `${[fixture("spec-examples.jsonl").split("\n")[0]!, "not json", "", '{"a":1}', JSON.stringify(bad)].join("\n")}\n`;
    const report = verifyLedger(ledger);
    expect(report.ok).toBe(false);
    expect(report.records).toBe(2);
    expect(report.problems.map((p) => [p.line, p.kind])).toEqual([
      [2, "unreadable"],
      [4, "not-a-record"],
      [5, "schema"],
    ]);
    expect(report.problems[2]!.message).toMatch(
      /claims Agent Trace 0\.1\.0 but does not match its schema: \/files\/0\/conversations\/0\/contributor\/type: must be equal to one of the allowed values/,
    );
  });

  it("accepts a chain written by the appender", () => {
    expect(verifyLedger(text(chain(5)))).toEqual({ ok: true, records: 5, problems: [] });
  });

  it("reports an edited record: the line whose bytes no longer match the next record's prev", () => {
    const lines = chain(5);
    lines[2] = lines[2]!.replace('"human"', '"ai"');
    const report = verifyLedger(text(lines));
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => [p.line, p.kind])).toEqual([[3, "chain"]]);
    expect(report.problems[0]!.message).toMatch(/this line was edited after line 4 was written, or a line between them was removed/);
  });

  it("reports a removed record at the line before the gap", () => {
    const lines = chain(5);
    lines.splice(2, 1);
    expect(kinds(text(lines))).toEqual([[2, "chain"]]);
  });

  it("reports a removed first record at the new first line", () => {
    const lines = chain(3).slice(1);
    const report = verifyLedger(text(lines));
    expect(report.problems.map((p) => [p.line, p.kind])).toEqual([[1, "chain"]]);
    expect(report.problems[0]!.message).toMatch(/records before this one were removed/);
  });

  it("reports a forged record whose prev is not a sha256 hash", () => {
    const lines = chain(2);
    lines.push(JSON.stringify(rec(7, "sha256:nothex")));
    expect(kinds(text(lines))).toEqual([[3, "chain"]]);
  });

  it("allows two records sharing one prev (branches merged with merge=union)", () => {
    const base = chain(2);
    const prev = bytesHash(base[1]!);
    const ours = JSON.stringify(rec(10, prev));
    const theirs = JSON.stringify(rec(11, prev));
    const afterMerge = JSON.stringify(rec(12, bytesHash(theirs)));
    expect(verifyLedger(text([...base, ours, theirs, afterMerge]))).toEqual({ ok: true, records: 5, problems: [] });
  });

  it("allows prev: null anywhere (a branch that started from an empty ledger)", () => {
    const lines = chain(2);
    lines.push(JSON.stringify(rec(5, null)));
    expect(verifyLedger(text(lines)).ok).toBe(true);
  });

  it("reports a torn last line without breaking the chain, and a torn line followed by more records", () => {
    const lines = chain(3);
    const torn = JSON.stringify(rec(8, bytesHash(lines[2]!))).slice(0, 90);
    const report = verifyLedger(text(lines) + torn);
    expect(report.problems.map((p) => [p.line, p.kind])).toEqual([[4, "torn"]]);
    expect(report.problems[0]!.message).toMatch(/no newline ends the file/);

    const next = JSON.stringify(rec(9, bytesHash(torn)));
    const continued = `${text(lines) + torn}\n${next}\n`;
    const report2 = verifyLedger(continued);
    expect(report2.records).toBe(4);
    expect(report2.problems.map((p) => [p.line, p.kind])).toEqual([[4, "torn"]]);
    expect(report2.problems[0]!.message).toMatch(/a later append continued on a fresh line/);
  });

  it("hashes bytes, not decoded text, when given a Buffer", () => {
    const first = JSON.stringify(rec(0, null)).replace("line 0", "línea 0");
    const second = JSON.stringify(rec(1, bytesHash(Buffer.from(first, "utf8"))));
    expect(verifyLedger(Buffer.from(`${first}\n${second}\n`)).ok).toBe(true);
  });

  it("a CRLF checkout is the same chain; a record whose writer hashed the line's carriage return verifies too; an edit still shows", () => {
    const lines = chain(4);
    const crlf = (l: string[]) => `${l.join("\r\n")}\r\n`;
    expect(verifyLedger(crlf(lines))).toEqual({ ok: true, records: 4, problems: [] });
    // written in a CRLF checkout by a writer that hashed the "\r" too: the same chain in both checkouts
    const hashedCr = [...lines, JSON.stringify(rec(4, bytesHash(`${lines[3]}\r`)))];
    expect(verifyLedger(text(hashedCr))).toEqual({ ok: true, records: 5, problems: [] });
    expect(verifyLedger(crlf(hashedCr))).toEqual({ ok: true, records: 5, problems: [] });
    // …but only of the line right before it, as that writer read it
    const further = [...lines, JSON.stringify(rec(4, bytesHash(`${lines[2]}\r`)))];
    expect(kinds(crlf(further))).toEqual([[4, "chain"]]);
    const edited = [...lines];
    edited[1] = edited[1]!.replace("src/f1.ts", "src/f9.ts");
    expect(kinds(crlf(edited))).toEqual([[2, "chain"]]);
  });

  it("a record appended to a CRLF checkout chains to the line as git stores it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verify-crlf-"));
    const file = join(dir, "ledger.jsonl");
    const lines = chain(2);
    writeFileSync(file, `${lines.join("\r\n")}\r\n`);
    const appended = await appendRecord(file, rec(2, undefined));
    expect(appended.prev).toBe(bytesHash(lines[1]!));
    // committed, git stores "\n" line ends; checked out again, "\r\n" ones
    const stored = readFileSync(file, "utf8").replaceAll("\r\n", "\n");
    expect(verifyLedger(stored)).toEqual({ ok: true, records: 3, problems: [] });
    expect(verifyLedger(stored.replaceAll("\n", "\r\n"))).toEqual({ ok: true, records: 3, problems: [] });
    rmSync(dir, { recursive: true });
  });

  it("streams line by line with LedgerVerifier", () => {
    const lines = chain(3);
    const v = new LedgerVerifier();
    lines.forEach((l, i) => {
      v.addLine(Buffer.from(l), i + 1, true);
    });
    expect(v.report()).toEqual({ ok: true, records: 3, problems: [] });
  });
});

describe("verifyLedgerFile", () => {
  it("streams a file in chunks and reports exactly what verifyLedger reports for its bytes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verify-file-"));
    const file = join(dir, "ledger.jsonl");
    const sample = readFileSync(join(__dirname, "../fixtures/agent-trace/spec-examples.jsonl"), "utf8");
    writeFileSync(file, `${sample}not json\n\n${sample}{"version":"0.1.0","id":"torn`);
    const whole = verifyLedger(readFileSync(file));
    expect(whole.problems.map((p) => p.kind)).toContain("torn");
    expect(await verifyLedgerFile(file, 64)).toEqual(whole);
    expect(await verifyLedgerFile(join(dir, "missing.jsonl"))).toBeUndefined();
    rmSync(dir, { recursive: true });
  });
});
