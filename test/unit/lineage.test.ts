import { describe, expect, it } from "vitest";
import { attribute } from "../../server/src/engine/attribution";
import { contentHash, fileHash, splitLines } from "../../server/src/engine/hashing";
import { diffTexts } from "../../server/src/engine/lineChange";
import { parseLedgerLines, type TraceEntry } from "../../server/src/engine/ledger/read";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { findMovedBlocks, MAX_SPLIT_SIBLINGS, namedByGit, pairMoves, sourceEntries, type GitCommit, type PathRecords } from "../../server/src/engine/lineage";
import { parseNameStatusLog } from "../../server/src/io/gitSources";

let clock = Date.UTC(2026, 10, 22, 10);
/** A record of a write of `path` from `before` to `after`, read back as the server reads it. */
function write(path: string, before: string | null, after: string, model: string | undefined, movedFrom?: string): TraceEntry[] {
  const record = buildRecord({
    path,
    content: after,
    change: diffTexts(before, after),
    contributor: model ? { type: "ai", modelId: model } : { type: "human" },
    sessionId: "lineage",
    toolVersion: "0.1.0",
    mutationClass: "INTENT_EVOLUTION",
    preHash: before === null ? null : fileHash(before),
    scope: "PASS",
    ...(movedFrom ? { movedFrom } : {}),
    now: new Date((clock += 60_000)),
  });
  return parseLedgerLines(JSON.stringify(record), 1).entries;
}

function ledgerOf(entries: readonly TraceEntry[]): PathRecords {
  return {
    entriesFor: (p) => entries.filter((e) => e.path === p),
    pathsPinning: (h) => [...new Set(entries.filter((e) => e.postHash === h).map((e) => e.path))],
  };
}

/** Each line's model (or "human", or "." when untraced), and where it was written when not here. */
function owners(path: string, entries: readonly TraceEntry[], text: string, named: readonly string[] = [], split: readonly string[] = []): string[] {
  const lines = splitLines(text);
  const ledger = ledgerOf(entries);
  const own = ledger.entriesFor(path);
  const all = [...own, ...sourceEntries(path, own, contentHash(lines), ledger, named, split)];
  return attribute(all, lines)
    .slice(0, text.endsWith("\n") ? lines.length - 1 : lines.length)
    .map((a) =>
      a
        ? `${a.entry.contributor.modelId ?? a.entry.contributor.type}${a.entry.path === path ? "" : ` from ${a.entry.path}`}${a.movedBy ? ` moved by ${a.movedBy.contributor.modelId ?? a.movedBy.contributor.type}` : ""}`
        : ".",
    );
}

const A = "a\nb\nc\n";

describe("lineage: a line's author follows its content across paths", () => {
  it("a path no record names, holding content another path's record pins: that path's owners", () => {
    const entries = write("src/old.ts", null, A, "sonnet");
    expect(owners("src/new.ts", entries, A)).toEqual(["sonnet from src/old.ts", "sonnet from src/old.ts", "sonnet from src/old.ts"]);
  });

  it("renamed twice, then edited at the new path: old lines keep their author, the edit is its writer's", () => {
    const entries = [...write("a.ts", null, A, "sonnet"), ...write("c.ts", "a\nb\nc\n", "a\nB\nc\n", "opus")];
    // b.ts: nothing recorded there; c.ts's record starts from content a.ts's record pins
    expect(owners("c.ts", entries, "a\nB\nc\n")).toEqual(["sonnet from a.ts", "opus", "sonnet from a.ts"]);
  });

  it("a recorded move: carried lines keep their author and name the mover, changed ones are the mover's", () => {
    const entries = [...write("a.ts", null, A, "sonnet"), ...write("b.ts", A, "a\nb2\nc\n", "codex", "a.ts")];
    expect(owners("b.ts", entries, "a\nb2\nc\n")).toEqual(["sonnet from a.ts moved by codex", "codex", "sonnet from a.ts moved by codex"]);
  });

  it("content no other path's record pins: nothing is borrowed", () => {
    const entries = write("a.ts", null, A, "sonnet");
    expect(owners("b.ts", entries, "x\ny\n")).toEqual([".", "."]);
  });
});

describe("lineage: paths git names (renames and splits no record pins)", () => {
  const FN = ["export function isUrgent(a: Alert): boolean {", "  return a.severity >= 3;", "}"];
  const BASE = `type Alert = { severity: number };\n}\n\n${FN.join("\n")}\n`;

  it("a block cut from a named path into a new file: the block keeps its owners, the lines around it stay untraced", () => {
    const entries = write("a.ts", null, BASE, "sonnet");
    const text = `import type { Alert } from "./a";\n${FN.join("\n")}\n`;
    expect(owners("b.ts", entries, text)).toEqual([".", ".", ".", "."]);
    expect(owners("b.ts", entries, text, [], ["a.ts"])).toEqual([".", "sonnet from a.ts", "sonnet from a.ts", "sonnet from a.ts"]);
  });

  it("renamed with edits (named by git), then edited by a record of its own: the lines the rename carried keep their author", () => {
    const renamed = BASE.replace("severity: number", "severity: 1 | 2");
    const entries = [...write("a.ts", null, BASE, "sonnet"), ...write("b.ts", renamed, `${renamed}// end\n`, "opus")];
    expect(owners("b.ts", entries, `${renamed}// end\n`, ["a.ts"])).toEqual([
      ".",
      "sonnet from a.ts",
      "sonnet from a.ts",
      "sonnet from a.ts",
      "sonnet from a.ts",
      "sonnet from a.ts",
      "opus",
    ]);
  });

  it("renamed twice with edits, a record between: single lines the renames kept keep their author", () => {
    const a = "const one = 1;\nconst two = 2;\nconst three = 3;\nconst four = 4;\n";
    const b = "const one = 1;\nconst TWO = 2;\nconst three = 3;\nconst four = 4;\n"; // renamed a → b with an edit, unrecorded
    const b2 = `${b}const five = 5;\n`;
    const c = "const one = 1;\nconst TWO = 2;\nconst three = 3;\nconst FOUR = 4;\nconst five = 5;\n"; // b → c with an edit, unrecorded
    const entries = [...write("a.ts", null, a, "sonnet"), ...write("b.ts", b, b2, "opus")];
    expect(owners("c.ts", entries, c, ["b.ts", "a.ts"])).toEqual(["sonnet from a.ts", ".", "sonnet from a.ts", ".", "opus from b.ts"]);
  });

  it("from a file split from (not renamed from), a lone line or a run of short lines only is not taken", () => {
    const entries = write("a.ts", null, "const alertThreshold = 3;\n}\n}\n", "sonnet");
    const text = "const alertThreshold = 3;\nlet x = 1;\n}\n}\nlet y = 2;\n";
    expect(owners("b.ts", entries, text, [], ["a.ts"])).toEqual([".", ".", ".", ".", "."]);
    // renamed from it: the two contents' diff keeps every line it matches
    expect(owners("b.ts", entries, text, ["a.ts"])).toEqual(["sonnet from a.ts", ".", "sonnet from a.ts", "sonnet from a.ts", "."]);
  });

  it("namedByGit: renames going back, then the files changed by the commit that added the path", () => {
    const commits: GitCommit[] = [
      { sha: "3", changes: [{ status: "R", from: "src/b.ts", path: "src/c.ts" }] },
      { sha: "2", changes: [{ status: "M", path: "src/b.ts" }] },
      {
        sha: "1",
        changes: [
          { status: "A", path: "src/b.ts" },
          { status: "M", path: "src/a.ts" },
          { status: "D", path: "src/old.ts" },
          { status: "A", path: "src/x.ts" },
        ],
      },
      { sha: "0", changes: [{ status: "A", path: "src/a.ts" }] },
    ];
    // the rename's commit too, for git's version of the renamed content (io/gitSources.ts)
    expect(namedByGit("src/c.ts", commits)).toEqual({
      renamed: ["src/b.ts"],
      split: ["src/a.ts", "src/old.ts"],
      renames: [{ sha: "3", from: "src/b.ts", path: "src/c.ts" }],
    });
    expect(namedByGit("src/a.ts", commits)).toEqual({ renamed: [], split: [] });
    expect(namedByGit("elsewhere.ts", commits)).toEqual({ renamed: [], split: [] });
  });

  it("namedByGit: a commit that adds the file among more than MAX_SPLIT_SIBLINGS other changes names nothing it was split from", () => {
    const others = (n: number) => Array.from({ length: n }, (_, i) => ({ status: "M" as const, path: `src/m${i}.ts` }));
    const adding = (n: number): GitCommit[] => [{ sha: "1", changes: [{ status: "A", path: "src/new.ts" }, ...others(n)] }];
    expect(namedByGit("src/new.ts", adding(MAX_SPLIT_SIBLINGS)).split).toHaveLength(MAX_SPLIT_SIBLINGS);
    expect(namedByGit("src/new.ts", adding(MAX_SPLIT_SIBLINGS + 1))).toEqual({ renamed: [], split: [] });
  });

  it("parseNameStatusLog reads `git log -z --name-status --format=%x01%H`, odd names included", () => {
    const out = "\u0001c2\0\nM\0y.ts\0R087\0x é.ts\0z\tq.ts\0\u0001c1\0\nA\0x é.ts\0A\0y.ts\0";
    expect(parseNameStatusLog(out)).toEqual([
      {
        sha: "c2",
        changes: [
          { status: "M", path: "y.ts" },
          { status: "R", from: "x é.ts", path: "z\tq.ts" },
        ],
      },
      {
        sha: "c1",
        changes: [
          { status: "A", path: "x é.ts" },
          { status: "A", path: "y.ts" },
        ],
      },
    ]);
    expect(parseNameStatusLog("")).toEqual([]);
  });

  it("parseNameStatusLog counts each commit's parents from `--format=%x01%H%x02%P` (0: a root commit)", () => {
    const out = "\u0001m\u0002p1 p2\0\nM\0a.ts\0\u0001p1\u0002r\0\nM\0a.ts\0\u0001r\u0002\0\nA\0a.ts\0";
    expect(parseNameStatusLog(out).map((c) => [c.sha, c.parents])).toEqual([
      ["m", 2],
      ["p1", 1],
      ["r", 0],
    ]);
  });
});

describe("pairMoves", () => {
  it("pairs a created file with the deleted one it shares at least half its lines with, identical content first", () => {
    const deleted = [
      { path: "a.ts", text: "1\n2\n3\n4\n" },
      { path: "b.ts", text: "1\n2\n3\n5\n" },
    ];
    expect([...pairMoves([{ path: "c.ts", text: "1\n2\n3\n5\n" }], deleted)]).toEqual([["c.ts", "b.ts"]]);
    expect([...pairMoves([{ path: "c.ts", text: "1\n2\n9\n8\n7\n" }], deleted)]).toEqual([]);
    expect([
      ...pairMoves(
        [
          { path: "c.ts", text: "1\n2\n3\n4\n" },
          { path: "d.ts", text: "1\n2\n3\n4\n" },
        ],
        deleted,
      ),
    ]).toEqual([
      ["c.ts", "a.ts"],
      ["d.ts", "b.ts"],
    ]);
  });
});

describe("findMovedBlocks: blocks pasted from another file's recorded content", () => {
  const block = ["export function urgent(a: Alert): boolean {", "  return a.severity >= 3;", "}"];
  const other = { path: "src/old/alerts.ts", hash: "h-old", lines: ["// alerts", ...block, "// end"] };

  it("a block found in another file only: moved in from there", () => {
    const lines = ["// mine", ...block];
    expect(findMovedBlocks(lines, [{ start: 1, end: 3 }], [other])).toEqual([
      { from: "src/old/alerts.ts", preHash: "h-old", runs: [{ oldStart: 1, newStart: 1, length: 3 }] },
    ]);
  });

  it("a block moved within the file is the mover's, even when another file (the path it was renamed from, still open) holds it too", () => {
    const before = [...block, "// a", "// b", "// c", "// d", "// e"];
    const after = ["// a", "// b", "// c", "// d", "// e", ...block];
    const own = { path: "src/new/alerts.ts", hash: "", lines: before };
    expect(findMovedBlocks(after, [{ start: 5, end: 7 }], [other], own)).toEqual([]);
  });
});
