import { describe, expect, it } from "vitest";
import { parseRawLog, PatchReader, unquotePath, walkCuts, type CommitHeader, type RawCommit } from "../../server/src/engine/gitPatch";
import {
  applyHunks,
  applyPatch,
  applyRawChanges,
  BEFORE_SHALLOW,
  datesOfRanges,
  NOT_COMMITTED,
  parseHunkHeader,
  wholeFile,
  type FilePatch,
  type LineRun,
} from "../../server/src/engine/lineTimes";

const runs = (...pairs: [number, number][]): LineRun[] => pairs.map(([lines, at]) => ({ lines, at }));
const hunk = (header: string) => parseHunkHeader(header)!;

describe("line times: a commit's hunks applied to a file's runs", () => {
  it("reads -U0 hunk headers, a missing count meaning one line", () => {
    expect(parseHunkHeader("@@ -3,2 +4 @@ export const x = 1;")).toEqual({ oldStart: 3, oldLines: 2, newLines: 1 });
    expect(parseHunkHeader("@@ -0,0 +1,3 @@")).toEqual({ oldStart: 0, oldLines: 0, newLines: 3 });
    expect(parseHunkHeader("+@@ -1 +1 @@")).toBeUndefined();
  });

  it("an insertion enters at the commit's time between lines that keep theirs; at the top too", () => {
    const before = runs([5, 100]);
    expect(applyHunks(before, [hunk("@@ -2,0 +3,2 @@")], 200)).toEqual(runs([2, 100], [2, 200], [3, 100]));
    expect(applyHunks(before, [hunk("@@ -0,0 +1 @@")], 200)).toEqual(runs([1, 200], [5, 100]));
    expect(applyHunks(before, [hunk("@@ -5,0 +6,1 @@")], 200)).toEqual(runs([5, 100], [1, 200]));
  });

  it("a deletion drops lines, and runs of one time on both sides join", () => {
    expect(applyHunks(runs([2, 100], [1, 200], [2, 100]), [hunk("@@ -3 +2,0 @@")], 300)).toEqual(runs([4, 100]));
    expect(applyHunks(runs([5, 100]), [hunk("@@ -1,5 +0,0 @@")], 300)).toEqual([]);
  });

  it("a replacement drops the old lines and adds the new ones at the commit's time", () => {
    expect(applyHunks(runs([3, 100], [3, 200]), [hunk("@@ -3,2 +3,3 @@")], 300)).toEqual(runs([2, 100], [3, 300], [2, 200]));
  });

  it("several hunks are read in the old file's numbers", () => {
    const after = applyHunks(runs([10, 100]), [hunk("@@ -1 +1,2 @@"), hunk("@@ -4,0 +6 @@"), hunk("@@ -8,2 +9,0 @@"), hunk("@@ -10 +10 @@")], 200);
    // old 1 → 2 new lines; old 2-4 kept; 1 inserted; old 5-7 kept; old 8-9 gone; old 10 replaced
    expect(after).toEqual(runs([2, 200], [3, 100], [1, 200], [3, 100], [1, 200]));
    expect(after!.reduce((n, r) => n + r.lines, 0)).toBe(10);
  });

  it("the rest of a file added whole keeps its time whatever its length", () => {
    expect(applyHunks(wholeFile(100), [hunk("@@ -2 +2 @@")], 200)).toEqual(runs([1, 100], [1, 200], [Number.POSITIVE_INFINITY, 100]));
  });

  it("hunks that do not fit what is known of the file give no runs (never a guess)", () => {
    expect(applyHunks(runs([3, 100]), [hunk("@@ -3,2 +3 @@")], 200)).toBeUndefined();
    expect(applyHunks(runs([3, 100]), [hunk("@@ -5,0 +6 @@")], 200)).toBeUndefined();
    expect(applyHunks(runs([9, 100]), [hunk("@@ -5 +5 @@"), hunk("@@ -2 +2 @@")], 200)).toBeUndefined();
  });
});

describe("line times: files added, renamed, deleted", () => {
  it("a rename carries the runs; a deleted file drops them; a file deleted then added again starts anew", () => {
    const state = new Map<string, LineRun[]>([["a.ts", runs([4, 100])]]);
    applyRawChanges(state, [{ status: "R", from: "a.ts", path: "b.ts" }], 200);
    expect([...state]).toEqual([["b.ts", runs([4, 100])]]);
    expect(applyPatch(state, { path: "b.ts", kind: "modified", hunks: [hunk("@@ -4 +4 @@")] }, 300)).toBe(true);
    expect(state.get("b.ts")).toEqual(runs([3, 100], [1, 300]));
    applyRawChanges(state, [{ status: "D", path: "b.ts" }], 400);
    expect(state.size).toBe(0);
    applyRawChanges(state, [{ status: "A", path: "b.ts" }], 500);
    expect(state.get("b.ts")).toEqual(wholeFile(500));
  });

  it("a commit that renames a file away and adds another at its old path: each keeps its own lines", () => {
    const state = new Map<string, LineRun[]>([["a.ts", runs([4, 100])]]);
    applyRawChanges(
      state,
      [
        { status: "A", path: "a.ts" },
        { status: "R", from: "a.ts", path: "b.ts" },
      ],
      200,
    );
    expect(state.get("b.ts")).toEqual(runs([4, 100]));
    expect(state.get("a.ts")).toEqual(wholeFile(200));
  });

  it("a patch's own rename (git diff from HEAD) carries the runs to the new path before its hunks", () => {
    const state = new Map<string, LineRun[]>([["old name.ts", runs([3, 100])]]);
    expect(applyPatch(state, { path: "new name.ts", from: "old name.ts", kind: "modified", hunks: [hunk("@@ -1,0 +1 @@")] }, NOT_COMMITTED)).toBe(true);
    expect([...state]).toEqual([["new name.ts", runs([1, 100], [1, NOT_COMMITTED], [2, 100])]]);
  });

  it("a change git shows as binary rewrites the whole file; a modification of an unknown file is refused", () => {
    const state = new Map<string, LineRun[]>([["logo.txt", runs([3, 100])]]);
    expect(applyPatch(state, { path: "logo.txt", kind: "binary", hunks: [] }, 200)).toBe(true);
    expect(state.get("logo.txt")).toEqual(wholeFile(200));
    expect(applyPatch(state, { path: "nowhere.ts", kind: "modified", hunks: [hunk("@@ -1 +1 @@")] }, 200)).toBe(false);
  });
});

describe("line times: the dates of a file's lines", () => {
  it("gives each range's lines their times (ms; null: not committed), joined where one time runs on", () => {
    const r = runs([2, 100], [1, NOT_COMMITTED], [Number.POSITIVE_INFINITY, 200]);
    expect(
      datesOfRanges(r, [
        { start: 1, end: 1 },
        { start: 2, end: 5 },
        { start: 9, end: 9 },
      ]),
    ).toEqual({
      dates: [
        { start: 1, end: 2, ms: 100_000 },
        { start: 3, end: 3, ms: null },
        { start: 4, end: 5, ms: 200_000 },
        { start: 9, end: 9, ms: 200_000 },
      ],
      cut: false,
    });
  });

  it("lines from before a shallow clone's cut get no time; lines past the runs' end give no answer", () => {
    expect(datesOfRanges(runs([2, BEFORE_SHALLOW], [1, 300]), [{ start: 1, end: 3 }])).toEqual({ dates: [{ start: 3, end: 3, ms: 300_000 }], cut: true });
    expect(datesOfRanges(runs([2, 100]), [{ start: 2, end: 3 }])).toBeUndefined();
  });
});

describe("reading git's patches", () => {
  const read = (text: string) => {
    const files: FilePatch[] = [];
    const commits: CommitHeader[] = [];
    const reader = new PatchReader(
      (f) => files.push(f),
      (c) => commits.push(c),
    );
    for (const line of text.split("\n")) reader.push(line);
    reader.end();
    return { files, commits, malformed: reader.malformed };
  };
  const A = "a".repeat(40);

  it("reads commits, modifications, renames, deletions, binary and mode-only changes; content lines are never headers", () => {
    const out = read(
      [
        `\u0001${A} 1767607200 ${"b".repeat(40)}`,
        "",
        "diff --git a/src/x.ts b/src/x.ts",
        "index 1..2 100644",
        "--- a/src/x.ts",
        "+++ b/src/x.ts",
        "@@ -1,2 +1,2 @@",
        "---- a/looks like a header",
        "-diff --git a/not b/not",
        "+@@ -9 +9 @@",
        "++++ b/neither",
        "diff --git a/old name.ts b/new näme.ts",
        "similarity index 90%",
        "rename from old name.ts",
        "rename to new näme.ts",
        "--- a/old name.ts",
        "+++ b/new näme.ts",
        "@@ -3 +3 @@",
        "-x",
        "\\ No newline at end of file",
        "+y",
        "\\ No newline at end of file",
        "diff --git a/with space.png b/with space.png",
        "index 1..2 100644",
        "Binary files a/with space.png and b/with space.png differ",
        "diff --git a/run me.sh b/run me.sh",
        "old mode 100644",
        "new mode 100755",
        'diff --git "a/tab\\there.txt" "b/tab\\there.txt"',
        "deleted file mode 100644",
        "index 1..0",
        '--- "a/tab\\there.txt"',
        "+++ /dev/null",
        "@@ -1 +0,0 @@",
        "-gone",
        "diff --git a/crlf.txt b/crlf.txt",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/crlf.txt",
        "@@ -0,0 +1,2 @@",
        "+one\r",
        "+two\r",
      ].join("\n"),
    );
    expect(out.malformed).toBe(0);
    expect(out.commits).toEqual([{ sha: A, time: 1767607200, parents: ["b".repeat(40)] }]);
    expect(out.files).toEqual([
      { path: "src/x.ts", kind: "modified", hunks: [{ oldStart: 1, oldLines: 2, newLines: 2 }] },
      { path: "new näme.ts", from: "old name.ts", kind: "modified", hunks: [{ oldStart: 3, oldLines: 1, newLines: 1 }] },
      { path: "with space.png", kind: "binary", hunks: [] },
      { path: "run me.sh", kind: "modified", hunks: [] },
      { path: "tab\there.txt", kind: "deleted", hunks: [{ oldStart: 1, oldLines: 1, newLines: 0 }] },
      { path: "crlf.txt", kind: "added", hunks: [{ oldStart: 0, oldLines: 0, newLines: 2 }] },
    ]);
  });

  it("unquotes C-quoted paths, octal bytes included", () => {
    expect(unquotePath('"a\\"b\\\\c"')).toBe('a"b\\c');
    expect(unquotePath('"caf\\303\\251.ts"')).toBe("café.ts");
    expect(unquotePath("plain name.ts")).toBe("plain name.ts");
  });

  it("reads git log --raw -z: additions, deletions, renames (old path first), type changes", () => {
    const raw = [
      `\u0001${A} 100 `,
      `\n:000000 100644 0000 1111 A`,
      "new file.ts",
      ":100644 000000 1111 0000 D",
      "gone.ts",
      ":100644 100644 1111 2222 R087",
      "from.ts",
      "to.ts",
      ":100644 120000 1111 2222 T",
      "link",
      `\u0001${"c".repeat(40)} 200 ${A}`,
      "",
    ].join("\0");
    expect(parseRawLog(raw)).toEqual([
      {
        sha: A,
        time: 100,
        parents: [],
        changes: [
          { status: "A", path: "new file.ts" },
          { status: "D", path: "gone.ts" },
          { status: "R", from: "from.ts", path: "to.ts" },
          { status: "T", path: "link" },
        ],
      },
      { sha: "c".repeat(40), time: 200, parents: [A], changes: [] },
    ]);
    expect(parseRawLog(`\u0001${A} 100\0:100644 100644 1 2 X\0path\0`)).toBeUndefined();
  });
});

describe("a walk cut into ranges read side by side", () => {
  /** Commits modifying `n[i]` files each (plus an added file, which has no patch). */
  const commits = (n: number[]): RawCommit[] =>
    n.map((m, i) => ({
      sha: String(i).padStart(40, "0"),
      time: i,
      parents: [],
      changes: [
        { status: "A" as const, path: `new${i}` },
        ...Array.from({ length: m }, (_, k) => ({ status: k % 2 ? ("R" as const) : ("M" as const), path: `f${k}` })),
      ],
    }));

  it("cuts where the patches of files split evenly, never more ranges than commits or than `perPart` allows", () => {
    expect(walkCuts(commits([10, 10, 10, 10]), 2, 1)).toEqual([2]);
    expect(walkCuts(commits([10, 10, 10, 10]), 4, 1)).toEqual([1, 2, 3]);
    expect(walkCuts(commits([30, 1, 1, 1, 1, 6]), 2, 1)).toEqual([1]);
    expect(walkCuts(commits([1, 1, 1, 1, 1, 1, 1, 1]), 2, 1)).toEqual([4]);
    expect(walkCuts(commits([5, 5]), 4, 1)).toEqual([1]);
    expect(walkCuts(commits([10, 10, 10, 10]), 4, 15)).toEqual([2]);
    expect(walkCuts(commits([10, 10, 10, 10]), 4, 41)).toEqual([]);
    expect(walkCuts(commits([10]), 4, 1)).toEqual([]);
    expect(walkCuts(commits([0, 0, 0]), 2, 1)).toEqual([]);
    expect(walkCuts([], 2, 1)).toEqual([]);
  });
});
