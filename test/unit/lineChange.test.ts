import { describe, expect, it } from "vitest";
import { fileHash, lineHash } from "../../server/src/engine/hashing";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { parseLedgerLines } from "../../server/src/engine/ledger/read";
import { changedSpans, changeFromEdits, diffLines, diffTexts, isValidChange, removedSpans } from "../../server/src/engine/lineChange";

const lines = (s: string) => s.split(",");

describe("line changes", () => {
  it("carries unchanged lines and claims the rest, interleaved edits included", () => {
    // a comment inserted above each of three lines: the three lines carry, the comments are changed
    const c = diffLines(lines("a,b,c"), lines("//1,a,//2,b,//3,c"));
    expect(c.carried).toEqual([
      { oldStart: 0, newStart: 1, length: 1 },
      { oldStart: 1, newStart: 3, length: 1 },
      { oldStart: 2, newStart: 5, length: 1 },
    ]);
    expect(changedSpans(c)).toEqual([
      { start: 0, end: 0 },
      { start: 2, end: 2 },
      { start: 4, end: 4 },
    ]);
    expect(c.reformatted).toEqual([]);
  });

  it("keeps whitespace-only changes as carried lines, listed as reformatted", () => {
    const c = diffTexts("if (x) {\n  y();\n}\n", "if(x){\r\n    y();\r\n}\r\n");
    expect(changedSpans(c)).toEqual([]);
    expect(c.carried).toEqual([{ oldStart: 0, newStart: 0, length: 3 }]);
    expect(c.reformatted).toEqual([{ start: 0, end: 1 }]); // `}` lost only its line ending
  });

  it("a re-indented block stays one block, even where a brace equals another brace's old indentation", () => {
    const c = diffLines(["  if (a) {", "  }", "    if (b) {", "    }"], ["    if (a) {", "    }", "      if (b) {", "      }"]);
    expect(changedSpans(c)).toEqual([]);
    expect(c.carried).toEqual([{ oldStart: 0, newStart: 0, length: 4 }]);
    expect(c.reformatted).toEqual([{ start: 0, end: 3 }]);
  });

  it("a new brace at another depth is the new line, not a re-indented old one", () => {
    // a block closed at 18 spaces inserted above a brace at 14: the old brace keeps its place
    const c = diffLines(["x();", "              }"], ["x();", "                  }", "              }"]);
    expect(changedSpans(c)).toEqual([{ start: 1, end: 1 }]);
    expect(c.reformatted).toEqual([]);
  });

  it("of two equally good readings, takes the one that removes first and inserts last, as git's diff does", () => {
    // two lines that swap places: git keeps the second and calls the first removed and inserted again
    expect(diffLines(lines("a,b"), lines("b,a")).carried).toEqual([{ oldStart: 1, newStart: 0, length: 1 }]);
    expect(diffLines(lines("x,a,b,y"), lines("x,b,a,y")).carried).toEqual([
      { oldStart: 0, newStart: 0, length: 1 },
      { oldStart: 2, newStart: 1, length: 1 },
      { oldStart: 3, newStart: 3, length: 1 },
    ]);
  });

  it("names the old lines a change removed or replaced, the mirror of the new lines it changed", () => {
    const c = diffLines(lines("a,b,c,d,e"), lines("a,x,d"));
    expect(removedSpans(c)).toEqual([
      { start: 1, end: 2 },
      { start: 4, end: 4 },
    ]);
    expect(changedSpans(c)).toEqual([{ start: 1, end: 1 }]);
    expect(removedSpans(diffLines([], lines("a")))).toEqual([]);
  });

  it("treats a new file as all changed and an empty text as no lines", () => {
    expect(changedSpans(diffTexts(null, "a\nb\n"))).toEqual([{ start: 0, end: 1 }]);
    expect(diffTexts("a\n", "")).toEqual({ oldCount: 1, newCount: 0, carried: [], reformatted: [] });
  });

  it("falls back to unique-line anchors when the diff is too large, never claiming an unchanged unique line", () => {
    const old = Array.from({ length: 6000 }, (_, i) => `old ${i}`);
    const kept = ["keep A", "keep B"];
    const before = [...old.slice(0, 3000), kept[0]!, ...old.slice(3000), kept[1]!];
    const after = [...old.map((l) => `${l} changed`).slice(0, 3000), kept[0]!, ...old.map((l) => `${l} changed`).slice(3000), kept[1]!];
    const c = diffLines(before, after);
    expect(c.carried).toEqual([
      { oldStart: 3000, newStart: 3000, length: 1 },
      { oldStart: 6001, newStart: 6001, length: 1 },
    ]);
  });

  it("recognizes malformed maps", () => {
    expect(
      isValidChange({
        oldCount: 3,
        newCount: 3,
        carried: [
          { oldStart: 1, newStart: 0, length: 1 },
          { oldStart: 0, newStart: 1, length: 1 },
        ],
        reformatted: [],
      }),
    ).toBe(false);
    expect(isValidChange({ oldCount: 3, newCount: 3, carried: [{ oldStart: 0, newStart: 0, length: 4 }], reformatted: [] })).toBe(false);
    expect(isValidChange({ oldCount: 3, newCount: 3, carried: [{ oldStart: 0, newStart: 1, length: 1 }], reformatted: [{ start: 0, end: 0 }] })).toBe(false);
  });
});

describe("records with a line map", () => {
  const before = "a\nb\nc\n";
  const content = "a\nX\nb\n  c\n";
  const change = diffTexts(before, content);
  const record = buildRecord({
    path: "f.ts",
    content,
    change,
    mutationClass: "INTENT_EVOLUTION",
    preHash: fileHash(before),
    scope: "PASS",
    contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" },
    sessionId: "s",
    toolVersion: "0",
  });

  it("claim exactly the lines not carried, and store the map", () => {
    expect(record.files[0]!.conversations[0]!.ranges.map((r) => [r.start_line, r.end_line])).toEqual([[2, 2]]);
    expect(record.metadata!["dev.intent-lsp"]).toMatchObject({
      line_count: 4,
      carried: [
        [1, 1, 1],
        [2, 3, 2],
      ],
      reformatted: [[4, 4]],
      reformatted_hashes: [[lineHash("  c")]],
    });
  });

  it("read back into entries that share the map", () => {
    const { entries } = parseLedgerLines(JSON.stringify(record), 1);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.change).toEqual({ oldCount: 3, newCount: 4, carried: change.carried, reformatted: change.reformatted });
    expect(entries[0]!.reformattedHashes).toBe(Buffer.from(lineHash("  c"), "hex").toString("latin1"));
  });

  it("a malformed map is ignored, the record still read", () => {
    const bad = structuredClone(record) as any;
    bad.metadata["dev.intent-lsp"].carried = [
      [2, 1, 1],
      [1, 2, 1],
    ];
    const { entries, unreadable } = parseLedgerLines(JSON.stringify(bad), 1);
    expect(unreadable).toEqual([]);
    expect(entries[0]!.change).toBeUndefined();
    expect(entries[0]!.startLine).toBe(2);
  });

  it("several files in one record each get their own hashes and map", () => {
    const multi = buildRecord({
      path: "f.ts",
      content,
      change,
      mutationClass: "INTENT_EVOLUTION",
      preHash: fileHash(before),
      scope: "PASS",
      otherFiles: [{ path: "g.md", content: "new\n", change: diffTexts(null, "new\n"), mutationClass: "FILE_CREATION", preHash: null, scope: "OUT_OF_SCOPE" }],
      contributor: { type: "ai" },
      sessionId: "s",
      toolVersion: "0",
      toolCall: { tool: "Bash", command: "make docs" },
    });
    const { entries } = parseLedgerLines(JSON.stringify(multi), 1);
    const g = entries.find((e) => e.path === "g.md")!;
    expect(g).toMatchObject({ startLine: 1, endLine: 1, preHash: null, postHash: fileHash("new\n"), scope: "OUT_OF_SCOPE" });
    expect(g.change).toEqual({ oldCount: 0, newCount: 1, carried: [], reformatted: [] });
    expect(multi.metadata!["dev.intent-lsp"]!.tool_call).toEqual({ tool: "Bash", command: "make docs" });
  });
});

describe("line changes from an agent's string edits", () => {
  it("know which of two identical lines is the new one", () => {
    const before = "a {\n}\nb {\n}\n";
    // insert "x {\n}\n" after the first block: a diff could pair the new "}" with the old one
    const c = changeFromEdits(before, "a {\n}\nx {\n}\nb {\n}\n", [{ old_string: "}\nb {", new_string: "}\nx {\n}\nb {" }]);
    expect(c && changedSpans(c)).toEqual([{ start: 2, end: 3 }]);
  });

  it("compose the edits of a MultiEdit and notice reformatted lines", () => {
    const before = "one\ntwo\nthree\nfour\n";
    const after = "ONE\ntwo\n  three\nfour\nfive\n";
    const c = changeFromEdits(before, after, [
      { old_string: "one", new_string: "ONE" },
      { old_string: "three", new_string: "  three" },
      { old_string: "four\n", new_string: "four\nfive\n" },
    ]);
    expect(c && changedSpans(c)).toEqual([
      { start: 0, end: 0 },
      { start: 4, end: 4 },
    ]);
    expect(c?.reformatted).toEqual([{ start: 2, end: 2 }]);
  });

  it("give up when the edits do not reproduce the file (it changed meanwhile) or are ambiguous", () => {
    expect(changeFromEdits("a\nb\n", "a\nB\nc\n", [{ old_string: "b", new_string: "B" }])).toBeUndefined();
    expect(changeFromEdits("x\nx\n", "y\nx\n", [{ old_string: "x", new_string: "y" }])).toBeUndefined();
    const all = changeFromEdits("x\na\nx\n", "y\na\ny\n", [{ old_string: "x", new_string: "y", replace_all: true }]);
    expect(all && changedSpans(all)).toEqual([
      { start: 0, end: 0 },
      { start: 2, end: 2 },
    ]);
  });
});
