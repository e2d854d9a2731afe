import { describe, expect, it } from "vitest";
import { attribute } from "../../server/src/engine/attribution";
import { contentHash, fileHash, splitLines } from "../../server/src/engine/hashing";
import { diffTexts } from "../../server/src/engine/lineChange";
import { parseLedgerLines, type TraceEntry } from "../../server/src/engine/ledger/read";
import { buildRecord } from "../../server/src/engine/ledger/record";
import {
  findMovedBlocks,
  GitHistory,
  isMovedBlock,
  lineScore,
  MAX_SOURCE_PATHS,
  MAX_SPLIT_SIBLINGS,
  namedByGit,
  pairMoves,
  sourceEntries,
  startHashes,
  type GitChange,
  type GitCommit,
  type PathRecords,
  type RenamedVersion,
} from "../../server/src/engine/lineage";
import { parseNameStatusLog } from "../../server/src/io/gitSources";
import { prng } from "../support/protocolFuzz";

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

  it("GitHistory: the next commit that changed a path is the one a scan of every commit finds", () => {
    const rand = prng(42);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const statuses = ["A", "M", "D", "T", "R", "C"] as const;
    let found = 0;
    for (let round = 0; round < 200; round++) {
      const paths = Array.from({ length: 3 + Math.floor(rand() * 12) }, (_, i) => `src/p${i}.ts`);
      // now and then a path named twice in one commit (its last change counts)
      const commits: GitCommit[] = Array.from({ length: 1 + Math.floor(rand() * 25) }, (_, k) => ({
        sha: `c${k}`,
        changes: Array.from({ length: 1 + Math.floor(rand() * 6) }, () => {
          const status = pick(statuses);
          return status === "R" || status === "C" ? { status, from: pick(paths), path: pick(paths) } : { status, path: pick(paths) };
        }),
      }));
      const history = new GitHistory(commits);
      for (const path of [...paths, "src/none.ts"]) {
        for (let from = 0; from <= commits.length; from++) {
          let expected: { at: number; change: GitChange } | undefined;
          for (let at = from; at < commits.length && !expected; at++) {
            const change = [...commits[at]!.changes].reverse().find((c) => c.path === path);
            if (change) expected = { at, change };
          }
          if (expected) found++;
          expect(history.nextChange(path, from), `round ${round}: ${path} from ${from}`).toEqual(expected);
        }
      }
    }
    expect(found).toBeGreaterThan(5000);
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

/** An entry of `path` as the ledger reader gives it, with only what the rule reads set. */
function entry(path: string, over: Partial<TraceEntry> = {}): TraceEntry {
  return {
    recordId: `r-${path}`,
    line: 1,
    timestamp: "2026-11-22T10:00:00.000Z",
    path,
    startLine: 1,
    endLine: 1,
    contributor: { type: "human" },
    dialect: "spec",
    ...over,
  };
}

describe("sourceEntries: which earlier paths a path reads, and how each is marked", () => {
  /** Each entry read: its path, how git named it ("-": by a record), and whether it is marked borrowed. */
  const read = (out: readonly TraceEntry[]) => out.map((e) => `${e.path} ${e.gitNamed ?? "-"}${e.borrowed ? " borrowed" : ""}`);

  it.each([
    ["a path renamed from (named)", { named: ["a.ts"] }, ["a.ts renamed borrowed"]],
    ["a path split from (named)", { split: ["a.ts"] }, ["a.ts split borrowed"]],
    ["a path whose record pins the current content", { hash: "h-a" }, ["a.ts - borrowed"]],
  ])("%s", (_, { named = [], split = [], hash }: { named?: string[]; split?: string[]; hash?: string }, expected) => {
    const ledger = ledgerOf([entry("a.ts", { postHash: "h-a" })]);
    expect(read(sourceEntries("b.ts", [], hash, ledger, named, split))).toEqual(expected);
  });

  it("a path named by git passes its naming on to the paths it was moved from; lines moved in from a file are read as a record's", () => {
    const ledger = ledgerOf([entry("a.ts", { movedFrom: "z.ts", movedIn: [{ from: "m.ts", preHash: "h-m", runs: [] }] }), entry("z.ts"), entry("m.ts")]);
    expect(read(sourceEntries("b.ts", [], undefined, ledger, ["a.ts"]))).toEqual(["a.ts renamed borrowed", "z.ts renamed borrowed", "m.ts - borrowed"]);
  });

  it("with no path named and no record naming one, nothing is read, however many paths the ledger holds", () => {
    const everyPath: PathRecords = { entriesFor: (p) => [entry(p)], pathsPinning: () => [] };
    expect(sourceEntries("b.ts", [], "h-b", everyPath)).toEqual([]);
    expect(read(sourceEntries("b.ts", [], "h-b", everyPath, ["a.ts"]))).toEqual(["a.ts renamed borrowed"]);
  });

  it("the content's hash is asked for only when the path has no record of its own, and then once", () => {
    let asked = 0;
    const hash = () => {
      asked++;
      return "h-a";
    };
    const ledger = ledgerOf([entry("a.ts", { postHash: "h-a" })]);
    expect(read(sourceEntries("b.ts", [], hash, ledger))).toEqual(["a.ts - borrowed"]);
    expect(asked).toBe(1);
    expect(read(sourceEntries("b.ts", [entry("b.ts", { preHash: "h-a" })], hash, ledger))).toEqual(["a.ts - borrowed"]);
    expect(asked).toBe(1);
  });

  it("each earlier path is read once, the path itself never, however the paths name each other", () => {
    const ledger = ledgerOf([entry("a.ts", { movedFrom: "b.ts" }), entry("b.ts", { movedFrom: "a.ts" }), entry("c.ts", { movedFrom: "a.ts" })]);
    expect(read(sourceEntries("b.ts", [], undefined, ledger, ["c.ts", "a.ts"]))).toEqual(["c.ts renamed borrowed", "a.ts renamed borrowed"]);
  });

  it(`at most MAX_SOURCE_PATHS (${MAX_SOURCE_PATHS}) earlier paths are read`, () => {
    const paths = Array.from({ length: MAX_SOURCE_PATHS + 6 }, (_, i) => `p${i}.ts`);
    const ledger = ledgerOf(paths.map((p) => entry(p)));
    expect(sourceEntries("b.ts", [], undefined, ledger, paths).map((e) => e.path)).toEqual(paths.slice(0, MAX_SOURCE_PATHS));
  });

  describe("a rename git shows and nobody recorded", () => {
    const version: RenamedVersion = { sha: "c1", from: "a.ts", path: "b.ts", hash: "h-git", lineHashes: ["l1", "l2"] };
    const renameOf = (v: RenamedVersion): TraceEntry => ({
      recordId: `git:${v.sha}`,
      line: 0,
      timestamp: "",
      path: v.path,
      startLine: 0,
      endLine: 0,
      contributor: { type: "unknown" },
      dialect: "spec",
      postHash: v.hash,
      borrowed: true,
      renamedFrom: { path: v.from, lineHashes: v.lineHashes },
    });
    const ledger = ledgerOf([entry("a.ts", { postHash: "h-a" }), entry("x.ts", { postHash: "h-x" })]);
    const renames = (own: TraceEntry[], versions: RenamedVersion[], named = ["a.ts"]) =>
      sourceEntries("b.ts", own, undefined, ledger, named, [], versions).filter((e) => e.renamedFrom);

    it("stands as an entry of git's content after it, no line claimed, from the old path's content", () => {
      expect(renames([], [version])).toEqual([renameOf(version)]);
    });

    it("of an earlier path renamed into another earlier one, both read", () => {
      const older: RenamedVersion = { ...version, sha: "c0", from: "x.ts", path: "a.ts" };
      expect(renames([], [version, older], ["a.ts", "x.ts"])).toEqual([renameOf(version), renameOf(older)]);
    });

    it.each<[string, TraceEntry[], RenamedVersion[], string[]]>([
      ["the old path is not read", [], [version], ["x.ts"]],
      ["the new path is neither this one nor one read", [], [{ ...version, path: "y.ts" }], ["a.ts"]],
      ["a record of this path pins git's content", [entry("b.ts", { postHash: "h-git" })], [version], ["a.ts"]],
      ["a record of a path read pins git's content", [], [{ ...version, hash: "h-a" }], ["a.ts"]],
    ])("none when %s", (_, own, versions, named) => {
      expect(renames(own, versions, named)).toEqual([]);
    });
  });
});

describe("startHashes: the content a path's history starts from", () => {
  const at = (minute: number, line: number, preHash: string | null | undefined, postHash?: string) =>
    entry("a.ts", { timestamp: `2026-11-22T10:0${minute}:00.000Z`, line, preHash, ...(postHash ? { postHash } : {}) });

  it.each<[string, TraceEntry[], string | undefined, string[]]>([
    ["no record: the current content", [], "h-now", ["h-now"]],
    ["no record and no current content: none", [], undefined, []],
    ["the oldest record's pre_hash, whatever the order", [at(2, 1, "h-2"), at(1, 2, "h-1"), at(3, 3, "h-3")], "h-now", ["h-1"]],
    ["equally old records: the one earlier in the ledger", [at(1, 2, "h-b"), at(1, 1, "h-a"), at(1, 3, "h-c")], undefined, ["h-a"]],
    ["equally old records listed in ledger order: the first", [at(1, 1, "h-a"), at(1, 2, "h-b")], undefined, ["h-a"]],
    ["the oldest by time, though a newer record is earlier in the ledger", [at(1, 5, "h-1"), at(2, 3, "h-2")], undefined, ["h-1"]],
    ["one record naming the path twice: its first file's", [at(1, 1, "h-a"), at(1, 1, "h-b")], undefined, ["h-a"]],
    ["the oldest record created the file: none", [at(1, 1, null), at(2, 2, "h-2")], undefined, []],
    ["the oldest record of another tool names no pre_hash: none", [at(1, 1, undefined), at(2, 2, "h-2")], undefined, []],
    ["a record of the path itself pins the start: none", [at(1, 1, "h-1"), at(2, 2, "h-2", "h-1")], undefined, []],
  ])("%s", (_, entries, current, expected) => {
    expect(startHashes(entries, current)).toEqual(expected);
  });
});

describe("namedByGit: what git's history names", () => {
  const rename = (sha: string, from: string | undefined, path: string, status: "R" | "C" = "R"): GitCommit => ({
    sha,
    changes: [from === undefined ? { status, path } : { status, from, path }],
  });
  const adding = (path: string, ...others: GitCommit["changes"]): GitCommit => ({ sha: "add", changes: [{ status: "A", path }, ...others] });

  it("a copy is followed as a rename is", () => {
    expect(namedByGit("b.ts", [rename("2", "a.ts", "b.ts", "C")])).toEqual({
      renamed: ["a.ts"],
      split: [],
      renames: [{ sha: "2", from: "a.ts", path: "b.ts" }],
    });
  });

  it("a change that is not a rename or a copy names no source, even with one given", () => {
    expect(namedByGit("b.ts", [{ sha: "2", changes: [{ status: "M", from: "a.ts", path: "b.ts" }] }])).toEqual({ renamed: [], split: [] });
  });

  it("a rename git names no source of is passed over, and the commit that added the path still read", () => {
    expect(namedByGit("b.ts", [rename("2", undefined, "b.ts"), adding("b.ts", { status: "M", path: "x.ts" })])).toEqual({ renamed: [], split: ["x.ts"] });
  });

  it.each<[string, GitCommit["changes"][number], string[]]>([
    ["changed", { status: "M", path: "x.ts" }, ["x.ts"]],
    ["deleted", { status: "D", path: "x.ts" }, ["x.ts"]],
    ["renamed away (its old path)", { status: "R", from: "x.ts", path: "y.ts" }, ["x.ts"]],
    ["renamed with no source named", { status: "R", path: "y.ts" }, []],
    ["added too", { status: "A", path: "x.ts" }, []],
    ["copied", { status: "C", from: "x.ts", path: "y.ts" }, []],
    ["changed in type", { status: "T", path: "x.ts" }, []],
  ])("a file the adding commit %s: split from it %j", (_, other, split) => {
    expect(namedByGit("b.ts", [adding("b.ts", other)]).split).toEqual(split);
  });

  it("a path renamed back and forth is named once, the path itself never", () => {
    const commits = [rename("4", "a.ts", "c.ts"), rename("3", "b.ts", "a.ts"), rename("2", "a.ts", "b.ts"), rename("1", "c.ts", "a.ts")];
    expect(namedByGit("c.ts", commits).renamed).toEqual(["a.ts", "b.ts"]);
  });

  it("a file named as renamed from, or twice by the adding commit, is named once", () => {
    const siblings = [
      { status: "M", path: "a.ts" },
      { status: "M", path: "x.ts" },
      { status: "R", from: "x.ts", path: "y.ts" },
    ] as const;
    const commits = [rename("3", "a.ts", "b.ts"), rename("2", "z.ts", "a.ts"), adding("z.ts", ...siblings)];
    expect(namedByGit("b.ts", commits)).toMatchObject({ renamed: ["a.ts", "z.ts"], split: ["x.ts"] });
  });

  it(`names at most MAX_SOURCE_PATHS (${MAX_SOURCE_PATHS}) paths, renames and splits together`, () => {
    const renames = MAX_SOURCE_PATHS - 4;
    const commits = Array.from({ length: renames }, (_, i) => rename(`${i}`, `p${i + 1}.ts`, `p${i}.ts`));
    const siblings = Array.from({ length: 10 }, (_, i) => ({ status: "M" as const, path: `s${i}.ts` }));
    const named = namedByGit("p0.ts", [...commits, adding(`p${renames}.ts`, ...siblings)]);
    expect(named.renamed).toHaveLength(renames);
    expect(named.split).toEqual(["s0.ts", "s1.ts", "s2.ts", "s3.ts"]);
    const long = Array.from({ length: MAX_SOURCE_PATHS + 5 }, (_, i) => rename(`${i}`, `p${i + 1}.ts`, `p${i}.ts`));
    expect(namedByGit("p0.ts", long).renamed).toEqual(Array.from({ length: MAX_SOURCE_PATHS }, (_, i) => `p${i + 1}.ts`));
  });
});

describe("pairMoves: which created file is which deleted file's move", () => {
  const pair = (created: [string, string][], deleted: [string, string][]) => [
    ...pairMoves(
      created.map(([path, text]) => ({ path, text })),
      deleted.map(([path, text]) => ({ path, text })),
    ),
  ];

  it.each<[string, string, string, boolean]>([
    ["half the lines shared", "a\nb\nx\ny\n", "a\nb\nc\nd\n", true],
    ["less than half shared", "a\nx\ny\nz\n", "a\nb\nc\nd\n", false],
    ["all of a smaller file's lines, under half of the deleted one's", "a\nb\n", "a\nb\nc\nd\ne\n", false],
    ["the same lines re-indented, trailing blanks aside", "  a\n\tb  \n", "a\nb\n", true],
    ["blank lines are not counted", "a\n\n\n\n\n", "a\nb\n", true],
    ["a line repeated counts as often as both files hold it", "a\na\na\na\n", "a\nb\nc\nd\n", false],
    ["only blank lines, differently many", "\n\n", "\n", false],
  ])("%s: paired %s", (_, created, deleted, paired) => {
    expect(pair([["new.ts", created]], [["old.ts", deleted]])).toEqual(paired ? [["new.ts", "old.ts"]] : []);
  });

  it("identical content is preferred to content that differs in blank lines or indentation only", () => {
    expect(
      pair(
        [["new.ts", "a\nb\n"]],
        [
          ["spaced.ts", "a\n\nb\n"],
          ["same.ts", "a\nb\n"],
        ],
      ),
    ).toEqual([["new.ts", "same.ts"]]);
  });

  it("the closer deleted file wins whatever the order, and created files equally close take it by name", () => {
    expect(
      pair(
        [["new.ts", "a\nb\nc\nd\n"]],
        [
          ["half.ts", "a\nb\nx\ny\n"],
          ["most.ts", "a\nb\nc\ny\n"],
        ],
      ),
    ).toEqual([["new.ts", "most.ts"]]);
    expect(
      pair(
        [["new.ts", "a\nb\nc\nd\n"]],
        [
          ["most.ts", "a\nb\nc\ny\n"],
          ["half.ts", "a\nb\nx\ny\n"],
        ],
      ),
    ).toEqual([["new.ts", "most.ts"]]);
    expect(
      pair(
        [
          ["d.ts", "a\nb\n"],
          ["c.ts", "a\nb\n"],
          ["e.ts", "a\nb\n"],
        ],
        [["old.ts", "a\nb\n"]],
      ),
    ).toEqual([["c.ts", "old.ts"]]);
    const reversed = (["e.ts", "d.ts", "c.ts"] as const).map((p): [string, string] => [p, "a\nb\n"]);
    expect(pair(reversed, [["old.ts", "a\nb\n"]])).toEqual([["c.ts", "old.ts"]]);
  });

  it("a created file as close to two deleted files takes the one listed first", () => {
    expect(
      pair(
        [["new.ts", "a\nb\n"]],
        [
          ["y.ts", "a\nb\n"],
          ["x.ts", "a\nb\n"],
        ],
      ),
    ).toEqual([["new.ts", "y.ts"]]);
  });

  it("nothing without a created or a deleted file", () => {
    expect(pair([], [["old.ts", "a\n"]])).toEqual([]);
    expect(pair([["new.ts", "a\n"]], [])).toEqual([]);
  });
});

describe("lineScore and isMovedBlock: git's copy score", () => {
  it.each([
    ["09AZaz", 6],
    ["/:@[`{", 0],
    ["  return a.severity >= 3;", 16],
    ["é", 0],
    ["", 0],
  ])("lineScore(%j) is %i", (line, score) => {
    expect(lineScore(line)).toBe(score);
  });

  it.each([
    [2, 40, true],
    [1, 400, false],
    [2, 39, false],
    [5, 100, true],
  ])("isMovedBlock(%i lines, score %i) is %s", (length, score, moved) => {
    expect(isMovedBlock(length, score)).toBe(moved);
  });
});

describe("findMovedBlocks: which source a block is taken from", () => {
  const block = ["export function urgent(a: Alert): boolean {", "  return a.severity >= 3;", "}"];
  const whole = { start: 0, end: 2 };

  it("the block's first line found earlier in the source too: each place is tried", () => {
    const src = { path: "s.ts", hash: "h-s", lines: [...block, "// between", block[0]!] };
    expect(findMovedBlocks(block, [whole], [src])).toEqual([{ from: "s.ts", preHash: "h-s", runs: [{ oldStart: 0, newStart: 0, length: 3 }] }]);
  });

  it("a line a source does not offer breaks a block there", () => {
    const src = { path: "s.ts", hash: "h-s", lines: [block[0], undefined, block[2]] };
    expect(findMovedBlocks(block, [whole], [src])).toEqual([]);
    const first = { path: "s.ts", hash: "h-s", lines: [undefined, block[1], block[2]] };
    expect(findMovedBlocks(block, [whole], [first])).toEqual([]);
  });

  it("two blocks from one source in a save: one run each", () => {
    const other = ["export const LIMIT_OF_ALERTS_PER_DAY = 3;", "export const LIMIT_OF_ALERTS_PER_HOUR = 1;"];
    const src = { path: "s.ts", hash: "h-s", lines: [...other, "// x", ...block] };
    const lines = [...block, "// mine", ...other];
    expect(findMovedBlocks(lines, [{ start: 0, end: 5 }], [src])).toEqual([
      {
        from: "s.ts",
        preHash: "h-s",
        runs: [
          { oldStart: 3, newStart: 0, length: 3 },
          { oldStart: 0, newStart: 4, length: 2 },
        ],
      },
    ]);
  });

  it("the longest block wins; of equally long ones, the source listed first", () => {
    const part = { path: "part.ts", hash: "h-p", lines: block.slice(0, 2) };
    const all = { path: "all.ts", hash: "h-a", lines: block };
    const also = { path: "also.ts", hash: "h-b", lines: ["// also", ...block] };
    expect(findMovedBlocks(block, [whole], [part, all, also]).map((m) => m.from)).toEqual(["all.ts"]);
    expect(findMovedBlocks(block, [whole], [also, part, all]).map((m) => m.from)).toEqual(["also.ts"]);
  });

  it("a block the file did not hold before, found in another file: moved in from there", () => {
    const own = { path: "own.ts", hash: "", lines: ["// before"] };
    const src = { path: "s.ts", hash: "h-s", lines: block };
    expect(findMovedBlocks(block, [whole], [src], own)).toEqual([{ from: "s.ts", preHash: "h-s", runs: [{ oldStart: 0, newStart: 0, length: 3 }] }]);
  });

  it("no other file: nothing, whatever the file held before", () => {
    expect(findMovedBlocks(block, [whole], [], { path: "own.ts", hash: "", lines: block })).toEqual([]);
  });
});
