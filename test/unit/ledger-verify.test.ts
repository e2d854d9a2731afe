import { createHash } from "node:crypto";
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

  it("allows a record before the one its prev names (a rebase that reordered commits); an edit is still found", () => {
    const lines = chain(4);
    expect(verifyLedger(text([lines[0]!, lines[2]!, lines[1]!, lines[3]!]))).toEqual({ ok: true, records: 4, problems: [] });
    const edited = lines[1]!.replace("src/f1.ts", "src/g1.ts");
    expect(kinds(text([lines[0]!, lines[2]!, edited, lines[3]!]))).toEqual([[1, "chain"]]);
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

describe("verifyLedger: each problem as it is told", () => {
  const [first] = chain(1);
  // [what, the ledger's lines, the problems: line, kind, and the start of the message]
  const ROWS: [string, string[], [number, string, string][]][] = [
    ["JSON that is no record", ['{"a":1}'], [[1, "not-a-record", "JSON but not an Agent Trace record (no `files` array, nor `file_path` of a flat record)"]]],
    [
      "text after the JSON",
      ['{"a":1}}'],
      [[1, "unreadable", "not valid JSON (Unexpected non-whitespace character after JSON at position 7); readers skip this line — fix or remove it by hand"]],
    ],
    ["a record cut short, indented", ['  {"version":"0.1.0"'], [[1, "torn", "incomplete record (a later append continued on a fresh line)"]]],
    [
      "a record of a later version: read, not checked",
      [JSON.stringify({ ...JSON.parse(first!), version: "0.2.0" })],
      [[1, "legacy", 'Agent Trace version "0.2.0": read, but only 0.1.0 is schema-checked']],
    ],
    [
      "a record of a later version that would fail the schema: not checked",
      [JSON.stringify({ ...JSON.parse(first!), version: "0.2.0", tool: 5 })],
      [[1, "legacy", 'Agent Trace version "0.2.0"']],
    ],
    [
      "an older dialect",
      [fixture("older-dialect.jsonl").split("\n")[0]!],
      [[1, "legacy", "legacy dialect (relative_path / entity_type records); read, not schema-checked — `intent migrate` converts it"]],
    ],
    [
      "a flat record",
      [fixture("flat-dialect.jsonl").split("\n")[0]!],
      [[1, "legacy", "legacy dialect (flat record: intent_id / file_path / content_hash); read, not schema-checked — `intent migrate` converts it"]],
    ],
    [
      "a record claiming more lines than any file has",
      [first!.replace('"scope":"PASS"', '"scope":"PASS","line_count":6000000')],
      [[1, "unreadable", "record "]],
    ],
    [
      "a prev that is a number",
      [first!, JSON.stringify(rec(1, 5 as unknown as string))],
      [[2, "chain", 'prev 5 is not a "sha256:<64 hex>" hash; the record was not written by intent-lsp\'s appender or was edited']],
    ],
    ["a prev without its prefix", [first!, JSON.stringify(rec(1, bytesHash(first!).slice("sha256:".length)))], [[2, "chain", 'prev "']]],
    ["our metadata that is no object: nothing to chain", [JSON.stringify({ ...JSON.parse(first!), metadata: { "dev.intent-lsp": "x" } })], []],
  ];
  it.each(ROWS)("%s", (_what, lines, problems) => {
    const report = verifyLedger(text(lines));
    expect(report.problems.map((p) => [p.line, p.kind])).toEqual(problems.map(([line, kind]) => [line, kind]));
    for (const [i, [, , message]] of problems.entries()) expect(report.problems[i]!.message.startsWith(message), report.problems[i]!.message).toBe(true);
  });

  it("a record that fails the schema says which record and why", () => {
    const bad = JSON.parse(first!);
    bad.files[0].conversations[0].contributor.type = "robot";
    const twice = JSON.parse(JSON.stringify(bad));
    twice.files[0].path = 5;
    expect(verifyLedger(text([JSON.stringify(twice)])).problems[0]!.message).toMatch(
      /: \/files\/0\/path: .*; \/files\/0\/conversations\/0\/contributor\/type: /,
    );
    const [problem] = verifyLedger(text([JSON.stringify(bad)])).problems;
    expect(problem!.message).toBe(
      `record ${bad.id} claims Agent Trace 0.1.0 but does not match its schema: /files/0/conversations/0/contributor/type: must be equal to one of the allowed values ("human", "ai", "mixed", "unknown")`,
    );
  });

  it("a line again is the same record: checked and counted once", () => {
    const lines = chain(2);
    expect(verifyLedger(text([...lines, lines[1]!, lines[1]!]))).toEqual({ ok: true, records: 2, problems: [] });
  });

  it("problems come in line order, whichever line told them first", () => {
    const lines = chain(2);
    lines[0] = lines[0]!.replace("src/f0.ts", "src/g0.ts");
    const bad = JSON.parse(lines[1]!);
    bad.files[0].conversations[0].contributor.type = "robot";
    expect(kinds(text([lines[0]!, JSON.stringify(bad)]))).toEqual([
      [1, "chain"],
      [2, "schema"],
    ]);
  });

  it("tells each distinct line's first number, in order", () => {
    const lines = chain(3);
    const v = new LedgerVerifier();
    for (const [i, l] of [lines[0]!, "", lines[1]!, lines[0]!, lines[2]!].entries()) v.addLine(Buffer.from(l), i + 1, true);
    expect([...v.lines()]).toEqual([1, 3, 5]);
    const digest = (l: string) => createHash("sha256").update(l).digest().toString("latin1");
    expect(v.lineOf(digest(lines[1]!))).toBe(3);
    expect(v.lineOf(digest(`${lines[1]!}\r`))).toBe(undefined);
  });
});

describe("verifyLedgerFile", () => {
  it("a torn line inside the file is told as continued, as verifyLedger tells it; a folder is no ledger", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verify-file-"));
    const file = join(dir, "ledger.jsonl");
    const [a, b] = chain(2);
    writeFileSync(file, `${a}\n${b!.slice(0, 60)}\n${b}\n`);
    const report = await verifyLedgerFile(file, 64);
    expect(report).toEqual(verifyLedger(readFileSync(file)));
    expect(report!.problems[0]!.message).toContain("a later append continued on a fresh line");
    await expect(verifyLedgerFile(dir)).rejects.toThrow();
    rmSync(dir, { recursive: true });
  });

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
