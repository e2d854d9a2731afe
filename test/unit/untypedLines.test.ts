// Edits the person did not type: the VS Code extension's decision from what VS Code tells it
// (clients/vscode/src/changeOrigin.ts), and the server's untyped lines kept in step with later edits and
// split out of a record's claimed lines (server/src/engine/untypedLines.ts).
import { describe, expect, it } from "vitest";
import { type ChangeFacts, untypedReason } from "../../clients/vscode/src/changeOrigin";
import { splitByUntyped, UntypedLines } from "../../server/src/engine/untypedLines";

const typedIn = (text: string, rangeLength = 0, singleLine = true): ChangeFacts => ({
  focused: true,
  undoRedo: false,
  saving: false,
  changes: [{ text, rangeLength, singleLine }],
});

describe("untypedReason: what VS Code's facts say about one change", () => {
  it.each([
    ["one character", typedIn("x")],
    ["a deletion", typedIn("", 5)],
    ["Enter with indentation", typedIn("\n    ")],
    ["Enter between braces", typedIn("\n\t\n")],
    ["an auto-closed bracket", typedIn("()")],
    ["an auto-closed quote", typedIn('""')],
    ["a suggestion completing the word typed", typedIn("currentWeather", 4)],
    ["an input method's composed word", typedIn("日本語")],
  ])("%s is typing", (_, facts) => {
    expect(untypedReason(facts)).toBeUndefined();
  });

  it.each([
    ["a completion of several words", typedIn("const cached = cache.get(city);")],
    ["a multi-line completion", typedIn("\n  if (cached) return cached;\n")],
    ["a word inserted where nothing was typed", typedIn("currentWeather")],
    ["a snippet", typedIn("console.log()", 3)],
    ["a word completion across lines", typedIn("currentWeather", 4, false)],
  ])("%s is inserted at once", (_, facts) => {
    expect(untypedReason(facts)).toBe("inserted-at-once");
  });

  it("a paste the paste provider saw is the person's, whole or one cursor's line of it; other text is not", () => {
    const pasted = "first line\r\nsecond line";
    expect(untypedReason({ ...typedIn("first line\nsecond line"), pasted })).toBeUndefined();
    expect(untypedReason({ ...typedIn("second line"), pasted })).toBeUndefined();
    expect(untypedReason({ ...typedIn("something else entirely"), pasted })).toBe("inserted-at-once");
  });

  it("every change of a multi-cursor edit must be a keystroke", () => {
    const one = { text: "x", rangeLength: 0, singleLine: true };
    expect(untypedReason({ ...typedIn("x"), changes: [one, one, one] })).toBeUndefined();
    expect(untypedReason({ ...typedIn("x"), changes: [one, { text: "return cached;", rangeLength: 0, singleLine: true }] })).toBe("inserted-at-once");
  });

  it("a change to a document without the focus is never the person's typing, however small", () => {
    expect(untypedReason({ ...typedIn("x"), focused: false })).toBe("not-focused");
  });

  it("undo, redo and a save's reformatting say nothing new about who wrote a line", () => {
    expect(untypedReason({ ...typedIn("const cached = 1;"), undoRedo: true })).toBeUndefined();
    expect(untypedReason({ ...typedIn("const cached = 1;"), focused: false, saving: true })).toBeUndefined();
    expect(untypedReason({ ...typedIn("x"), changes: [] })).toBeUndefined();
  });
});

describe("UntypedLines: kept in step with the buffer's edits", () => {
  const marked = (u: UntypedLines) => u.all.map((s) => `${s.start}-${s.end} ${s.why}`);

  it("inserted lines are marked; lines after them shift with later insertions and deletions", () => {
    const u = new UntypedLines();
    u.replace(10, 9, 3, "inserted-at-once"); // 3 lines inserted at 10
    expect(marked(u)).toEqual(["10-12 inserted-at-once"]);
    u.replace(2, 1, 2); // the person inserts 2 lines above
    expect(marked(u)).toEqual(["12-14 inserted-at-once"]);
    u.replace(0, 1, 0); // and deletes 2 lines above
    expect(marked(u)).toEqual(["10-12 inserted-at-once"]);
    u.replace(20, 20, 1); // an edit below changes nothing
    expect(marked(u)).toEqual(["10-12 inserted-at-once"]);
  });

  it("a marked line the person edits stays marked; a line they insert inside the run is theirs and splits it", () => {
    const u = new UntypedLines();
    u.replace(10, 9, 3, "inserted-at-once");
    u.replace(11, 11, 1); // edits line 11
    expect(marked(u)).toEqual(["10-12 inserted-at-once"]);
    u.replace(12, 11, 1); // inserts one line at 12
    expect(marked(u)).toEqual(["10-11 inserted-at-once", "13-13 inserted-at-once"]);
    u.replace(10, 13, 1); // replaces the whole run by one line: still not typed
    expect(marked(u)).toEqual(["10-10 inserted-at-once"]);
    u.replace(10, 10, 0); // deleted
    expect(marked(u)).toEqual([]);
  });

  it("a later change's reason wins over the lines it replaces; neighbours of one reason join", () => {
    const u = new UntypedLines();
    u.replace(0, -1, 2, "not-focused");
    u.replace(2, 1, 2, "not-focused");
    expect(marked(u)).toEqual(["0-3 not-focused"]);
    u.replace(1, 2, 2, "inserted-at-once");
    expect(marked(u)).toEqual(["0-0 not-focused", "1-2 inserted-at-once", "3-3 not-focused"]);
  });

  it("a save takes the marks; restore brings back what `all` showed", () => {
    const u = new UntypedLines();
    u.replace(0, -1, 2, "not-focused");
    const before = u.all;
    expect(u.take()).toEqual(before);
    expect(u.all).toEqual([]);
    u.restore(before);
    expect(marked(u)).toEqual(["0-1 not-focused"]);
  });
});

describe("splitByUntyped: a record's claimed lines, with the untyped ones apart", () => {
  it("splits claimed spans at untyped lines and ignores untyped lines the record does not claim", () => {
    const pieces = splitByUntyped(
      [
        { start: 0, end: 5 },
        { start: 9, end: 9 },
      ],
      [
        { start: 2, end: 3, why: "inserted-at-once" },
        { start: 7, end: 8, why: "not-focused" },
      ],
    );
    expect(pieces).toEqual([
      { start: 0, end: 1 },
      { start: 2, end: 3, why: "inserted-at-once" },
      { start: 4, end: 5 },
      { start: 9, end: 9 },
    ]);
  });
});
