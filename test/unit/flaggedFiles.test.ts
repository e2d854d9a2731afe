import { describe, expect, it } from "vitest";
import { flaggedDiff, flaggedPaths } from "../../server/src/io/flaggedFiles";

/**
 * Files git is told not to look at are diffed by intent-lsp (io/flaggedFiles.ts): the lines counted changed
 * must be git's own for the same two texts (`git diff -U0`), whitespace included.
 */
describe("flagged files", () => {
  it("reads assume-unchanged (lower case) and skip-worktree (S) entries of `git ls-files -v -z`", () => {
    expect(flaggedPaths("H src/a.ts\0h src/b.ts\0S src/c.ts\0s src/d.ts\0M src/e.ts\0? x\0")).toEqual(["src/b.ts", "src/c.ts", "src/d.ts"]);
    expect(flaggedPaths("")).toEqual([]);
  });

  it("counts as git does: changed and added lines, a whitespace-only change, lines removed with none added", () => {
    const before = "a\nb\nc\nd\ne\n";
    // git diff -U0: @@ -2 +2 @@ (b → B), @@ -4,2 +4 @@ (d removed, "e" → "e ": one hunk, no removal alone)
    expect(flaggedDiff("f.ts", before, "a\nB\nc\ne \n")).toEqual({
      path: "f.ts",
      status: "modified",
      binary: false,
      lines: [2, 4],
      removed: [],
    });
    expect(flaggedDiff("f.ts", before, "x\na\nb\nc\nd\ne\n")).toMatchObject({ lines: [1], removed: [] });
    expect(flaggedDiff("f.ts", before, "a\nb\nc\nd\n")).toMatchObject({ lines: [], removed: [{ after: 4, count: 1 }] });
    expect(flaggedDiff("f.ts", before, "b\nc\nd\ne\n")).toMatchObject({ lines: [], removed: [{ after: 0, count: 1 }] });
    // a line that changed in its whitespace only, between two that did not
    expect(flaggedDiff("f.ts", "a\nb\nc\n", "a\nb \nc\n")).toMatchObject({ lines: [2], removed: [] });
    // an empty text has no line, as in git's diff
    expect(flaggedDiff("f.ts", "", "a\n")).toMatchObject({ status: "modified", lines: [1], removed: [] });
    expect(flaggedDiff("f.ts", "a\nb\n", "")).toMatchObject({ lines: [], removed: [{ after: 0, count: 2 }] });
  });

  it("the same text is no change; a new file is every line added; NUL bytes make it binary", () => {
    expect(flaggedDiff("f.ts", "a\n", "a\n")).toBeUndefined();
    expect(flaggedDiff("f.ts", undefined, "a\nb\n")).toEqual({ path: "f.ts", status: "added", binary: false, lines: [1, 2], removed: [] });
    expect(flaggedDiff("f.bin", "a\n", "a\0b")).toEqual({ path: "f.bin", status: "modified", binary: true, lines: [], removed: [] });
  });
});
