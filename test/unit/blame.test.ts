import { describe, expect, it } from "vitest";
import { blame, blameByOwner } from "../../server/src/engine/blame";
import { contentHash } from "../../server/src/engine/hashing";
import { parseLedgerLines } from "../../server/src/engine/ledger/read";

const RECORD_ID = "0b7f0c8e-6a55-4d8c-9e0a-1f2d3c4b5a69";
const WHEN = "2026-01-01T00:00:00Z";

/** A spec record from any Agent Trace writer, attributing `lines` (1-based) of `content` to a model under INT-001. */
function entriesFor(content: string, [start, end]: [number, number]) {
  const hash = contentHash(content.split("\n").slice(start - 1, end));
  const conversation = {
    contributor: { type: "ai", model_id: "anthropic/claude-sonnet-4-5" },
    ranges: [{ start_line: start, end_line: end, content_hash: hash }],
    related: [{ type: "intent", url: "urn:intent:INT-001" }],
  };
  return parseLedgerLines(JSON.stringify({ version: "0.1.0", id: RECORD_ID, timestamp: WHEN, files: [{ path: "f.ts", conversations: [conversation] }] }), 1)
    .entries;
}

describe("blame", () => {
  it("numbers lines from 1; a final line break does not make a line", () => {
    const text = "a\nb\nc\n";
    const entries = entriesFor(text, [2, 2]);
    expect(blame(entries, text)).toEqual([
      { line: 1, kind: "untraced", author: "untraced", confidence: "untraced", text: "a" },
      {
        line: 2,
        kind: "traced",
        author: "ai",
        intent: "INT-001",
        contributor: "ai",
        model: "anthropic/claude-sonnet-4-5",
        timestamp: WHEN,
        traceId: RECORD_ID,
        exact: true,
        confidence: "exact",
        text: "b",
      },
      { line: 3, kind: "untraced", author: "untraced", confidence: "untraced", text: "c" },
    ]);
    expect(blame([], "a\nb").map((r) => r.line)).toEqual([1, 2]);
    expect(blame([], "")).toEqual([{ line: 1, kind: "untraced", author: "untraced", confidence: "untraced", text: "" }]); // an empty file is one empty line
  });

  it("splits CRLF as the hashes do: no \\r in the text, attribution kept", () => {
    const text = "a\r\nb\r\n";
    const entries = entriesFor("a\nb\n", [1, 2]);
    const rows = blame(entries, text);
    expect(rows.map((r) => [r.line, r.kind, r.text])).toEqual([
      [1, "traced", "a"],
      [2, "traced", "b"],
    ]);
  });

  it("clamps the range to the text", () => {
    const text = "a\nb\nc\n";
    expect(blame([], text, { start: 2 }).map((r) => r.line)).toEqual([2, 3]);
    expect(blame([], text, { start: 0, end: 99 }).map((r) => r.line)).toEqual([1, 2, 3]);
    expect(blame([], text, { start: 4 })).toEqual([]);
  });

  it("takes the owners an open document knows: unsaved lines are edited", () => {
    const rows = blameByOwner("x\ny\n", (i) => (i === 0 ? { kind: "edited" } : { kind: "untraced" }));
    expect(rows).toEqual([
      { line: 1, kind: "edited", text: "x" },
      { line: 2, kind: "untraced", author: "untraced", confidence: "untraced", text: "y" },
    ]);
  });
});
