/**
 * The figures of `intent stats`, `intent report` and the pull request summary (engine/insight.ts) from small
 * hand-built inputs: each expected number can be counted by hand from the lines in the case.
 */
import { describe, expect, it } from "vitest";
import type { Author, LineCounts } from "../../server/src/engine/authorship";
import type { BlameLine } from "../../server/src/engine/blame";
import {
  blocksOf,
  changedLinesInsight,
  datedRuns,
  hasUntraced,
  InsightBuilder,
  pathMatcher,
  resultAt,
  runsOf,
  tallyOf,
  untracedRanges,
  writtenBy,
  type ChangedText,
  type CommitDate,
  type InsightOptions,
  type Run,
  type UntracedDates,
} from "../../server/src/engine/insight";
import type { TraceEntry } from "../../server/src/engine/ledger/read";
import { BLOCK_FIELDS } from "../../server/src/engine/blockTable";
import { pushRun, readRun, RUN_FIELDS, StringTable } from "../../server/src/engine/runRows";
import { surenessText } from "../../server/src/engine/confidence";

const NOV = "2026-11-02T10:00:00.000Z";
const OCT = "2026-10-05T10:00:00.000Z";
const JAN = "2026-01-05T10:00:00.000Z";
const ms = (iso: string) => Date.parse(iso);
const NOW = ms("2026-11-26T12:00:00.000Z");

/** Line counts with only the named fields set; `total` is their sum of authors. */
function counts(c: Partial<Omit<LineCounts, "total">>): LineCounts {
  const full = { ai: 0, human: 0, mixed: 0, unknown: 0, untraced: 0, beforeAdoption: 0, outOfScope: 0, ...c };
  return { total: full.ai + full.human + full.mixed + full.unknown + full.untraced + full.beforeAdoption, ...full };
}

const row = (line: number, r: Partial<BlameLine> = {}): BlameLine => ({
  line,
  kind: r.author === "untraced" || !r.author ? "untraced" : "traced",
  text: "",
  ...r,
});

describe("pathMatcher (--path)", () => {
  it.each([
    // glob, path, matches
    [undefined, "any/where.ts", true],
    ["", "any/where.ts", true],
    ["src", "src", true],
    ["src", "src/a/b.ts", true],
    ["src", "lib/src/a.ts", false], // a folder's name is the workspace's folder
    ["a.ts", "lib/src/a.ts", true], // a file's name is a name at any depth
    ["src", "srcx/a.ts", false],
    ["./src", "src/a.ts", true],
    ["lib./x", "lib./x/y.ts", true], // only a leading ./ is dropped
    ["src//", "src/a.ts", true],
    ["src//", "src", true], // all the trailing slashes are dropped
    ["src/", "srcx/b.ts", false],
    ["src/a", "src/a/b.ts", true],
    ["src/a", "lib/src/a/b.ts", false], // a path with a slash is from the workspace's root
    ["a/b/", "a/b/c.ts", true],
    ["*.md", "docs/x/notes.md", true],
    ["*.md", "docs/.notes.md", true], // dot files count
    ["src", "src/.env", true],
    ["src/*.ts", "src/.a.ts", true],
    ["src/**/*.ts", "src/a.md", false],
    ["src/*.ts", "lib/src/a.ts", false],
  ] as const)("%s matches %s: %s", (glob, path, expected) => {
    expect(pathMatcher(glob)(path)).toBe(expected);
  });
});

describe("the present's numbers", () => {
  it("counts each file's lines by author, scope, intent, model and person, sorted by lines then name", () => {
    const b = new InsightBuilder();
    b.addFile("src/a.ts", [
      row(1, { author: "ai", intent: "I-2", model: "m/x", traceId: "r1", timestamp: NOV }),
      row(2, { author: "ai", intent: "I-2", model: "m/x", traceId: "r1", timestamp: NOV }),
      row(3, { author: "human", intent: "I-1", person: "Ada", traceId: "r2", timestamp: NOV, outOfScope: true }),
      row(4, { author: "mixed", model: "m/y", person: "Bo", traceId: "r3", timestamp: NOV }),
      row(5, { author: "unknown", traceId: "r4", timestamp: NOV }),
      row(6, { author: "untraced" }),
      row(7, { author: "ai", traceId: "r5", timestamp: NOV }),
      row(8, { author: "human", traceId: "r6", timestamp: NOV }),
      row(9, { author: "unknown", model: "m/z", person: "Cy", traceId: "r7", timestamp: NOV }),
      row(10, { author: "mixed", traceId: "r9", timestamp: NOV }),
    ]);
    b.addFile("b.ts", [row(1, { author: "human", intent: "I-1", person: "Ada", traceId: "r8", timestamp: NOV, outOfScope: true })]);
    const s = b.result();
    expect(s.files).toBe(2);
    expect(s.lines).toEqual(counts({ ai: 3, human: 3, mixed: 2, unknown: 2, untraced: 1, outOfScope: 2 }));
    // untraced lines are in no intent, model or person
    expect(s.byIntent).toEqual([
      { id: null, lines: counts({ ai: 1, human: 1, mixed: 2, unknown: 2 }) },
      { id: "I-1", lines: counts({ human: 2, outOfScope: 2 }) },
      { id: "I-2", lines: counts({ ai: 2 }) },
    ]);
    // the AI's and mixed lines always have a model (null: none named); a human's or unknown's only when named
    expect(s.byModel).toEqual([
      { model: "m/x", lines: counts({ ai: 2 }) },
      { model: null, lines: counts({ ai: 1, mixed: 1 }) },
      { model: "m/y", lines: counts({ mixed: 1 }) },
      { model: "m/z", lines: counts({ unknown: 1 }) },
    ]);
    // a human's and mixed lines always have a person; the AI's or unknown's only when named
    expect(s.byPerson).toEqual([
      { person: "Ada", lines: counts({ human: 2, outOfScope: 2 }) },
      { person: null, lines: counts({ human: 1, mixed: 1 }) },
      { person: "Bo", lines: counts({ mixed: 1 }) },
      { person: "Cy", lines: counts({ unknown: 1 }) },
    ]);
    expect(s.byFile).toEqual([
      { path: "src/a.ts", lines: counts({ ai: 3, human: 2, mixed: 2, unknown: 2, untraced: 1, outOfScope: 1 }) },
      { path: "b.ts", lines: counts({ human: 1, outOfScope: 1 }) },
    ]);
    expect(s.outOfScope).toEqual({
      lines: 2,
      byIntent: [{ id: "I-1", lines: 2 }],
      blocks: [
        { path: "src/a.ts", start: 3, end: 3, author: "human", intent: "I-1", person: "Ada", traceId: "r2", timestamp: NOV, outOfScope: true },
        { path: "b.ts", start: 1, end: 1, author: "human", intent: "I-1", person: "Ada", traceId: "r8", timestamp: NOV, outOfScope: true },
      ],
    });
    // without a period or blocks the result has no such fields (the JSON output has none)
    expect(Object.keys(s)).toEqual(["files", "lines", "confidence", "byIntent", "byModel", "byPerson", "byFolder", "byFile", "outOfScope"]);
  });

  it("counts each author's lines by how sure their owner is, every attributed line once, with the words stats and the report say", () => {
    const b = new InsightBuilder();
    b.addFile("a.ts", [
      row(1, { author: "ai", traceId: "r1", model: "m/x", confidence: "exact" }),
      row(2, { author: "ai", traceId: "r1", model: "m/x", confidence: "exact" }),
      row(3, { author: "ai", traceId: "r1", model: "m/x", confidence: "replayed" }),
      row(4, { author: "ai", traceId: "r2", model: "m/x", confidence: "inferred" }),
      row(5, { author: "human", traceId: "r3", person: "Ada", confidence: "moved" }),
      row(6, { author: "unknown", traceId: "r4", confidence: "exact" }),
      row(7, { author: "untraced", confidence: "untraced" }),
    ]);
    // the same runs, through the numbers the caches keep, count the same
    const t = new StringTable();
    const stored: (string | number)[] = [];
    for (const r of runsOf([row(1, { author: "ai", traceId: "r1", confidence: "replayed" }), row(2, { author: "untraced" })])) pushRun(stored, r, t);
    b.addRunRows(
      "b.ts",
      stored as number[],
      t.strings,
      [],
      NOW,
      tallyOf(runsOf([row(1, { author: "ai", traceId: "r1", confidence: "replayed" }), row(2, { author: "untraced" })])),
    );
    const str = (i: number) => (i === 0 ? undefined : t.strings[i - 1]);
    expect([readRun(stored as number[], 0, str).confidence, readRun(stored as number[], RUN_FIELDS, str).confidence]).toEqual(["replayed", undefined]);
    const s = b.result();
    expect(s.confidence).toEqual({
      ai: { exact: 2, replayed: 2, moved: 0, inferred: 1 },
      human: { exact: 0, replayed: 0, moved: 1, inferred: 0 },
      mixed: { exact: 0, replayed: 0, moved: 0, inferred: 0 },
      unknown: { exact: 1, replayed: 0, moved: 0, inferred: 0 },
    });
    // a run ends where the confidence changes, though the record is the same
    expect(
      runsOf([row(1, { author: "ai", traceId: "r1", confidence: "exact" }), row(2, { author: "ai", traceId: "r1", confidence: "replayed" })]),
    ).toHaveLength(2);
    expect(surenessText(s.confidence.ai, s.lines.total)).toBe("22% exact, 22% replayed, 11% inferred");
  });

  it("sorts equal totals by name, and out-of-scope lines by intent, most lines first", () => {
    const b = new InsightBuilder();
    const out = (intent: string | undefined, trace: string) => ({
      author: "ai" as const,
      traceId: trace,
      timestamp: NOV,
      outOfScope: true,
      ...(intent ? { intent } : {}),
    });
    b.addFile("z/b.ts", [row(1, out("I-b", "r1")), row(2, out(undefined, "r2")), row(3, out(undefined, "r2"))]);
    b.addFile("a/c.ts", [row(1, out("I-a", "r3")), row(2, { author: "untraced" }), row(3, out("I-c", "r4"))]);
    b.addFile("m/a.ts", [row(1, out("I-c", "r5")), row(2, out("I-c", "r5"))]);
    const s = b.result();
    expect(s.byFile.map((f) => [f.path, f.lines.total])).toEqual([
      ["a/c.ts", 3],
      ["z/b.ts", 3],
      ["m/a.ts", 2],
    ]);
    expect(s.byFolder.map((f) => [f.path, f.lines.total])).toEqual([
      ["a", 3],
      ["z", 3],
      ["m", 2],
    ]);
    expect(s.byIntent.map((i) => [i.id, i.lines.total])).toEqual([
      ["I-c", 3],
      [null, 2],
      ["I-a", 1],
      ["I-b", 1],
    ]);
    expect(s.outOfScope.byIntent).toEqual([
      { id: "I-c", lines: 3 },
      { id: null, lines: 2 },
      { id: "I-b", lines: 1 },
      { id: "I-a", lines: 1 },
    ]);
    expect(s.outOfScope.lines).toBe(7);
  });

  it("an untraced file counts its lines once in its folders, and an empty one adds no block", () => {
    const b = new InsightBuilder({ blocks: true, by: "month" });
    b.addUntracedFile("a/b/c/d.ts", 3);
    b.addUntracedFile("a/empty.ts", 0);
    const s = b.result();
    expect(s.files).toBe(2);
    expect(s.byFolder).toEqual([
      { path: "a", lines: counts({ untraced: 3 }) },
      { path: "a/b", lines: counts({ untraced: 3 }) },
    ]);
    expect(s.blocks!.strings).toEqual(["a/b/c/d.ts"]);
    expect(s.history!.undated).toEqual({ lines: 3, reasons: [] });
  });

  it.each([
    [{}, false],
    [{ blocks: false }, false],
    [{ blocks: true }, true],
    [{ by: "day" }, true],
    [{ path: "src", since: 1, until: 2 }, false],
  ] as [InsightOptions, boolean][])("needsRuns with %j: %s", (opts, expected) => {
    expect(new InsightBuilder(opts).needsRuns).toBe(expected);
  });

  it.each([
    // options, now, key
    [{}, ms(NOV), ":true"],
    [{ by: "month" }, ms(NOV), "2026-11:true"],
    [{ by: "day", since: ms(OCT) }, ms(NOV), "2026-11-02:true"],
    [{ by: "week", until: ms(OCT) }, ms(NOV), "2026-11-02:false"],
    [{ since: ms(NOV) + 1 }, ms(NOV), ":false"],
  ] as [InsightOptions, number, string][])("nowKey with %j", (opts, now, key) => {
    expect(new InsightBuilder(opts).nowKey(now)).toBe(key);
  });

  it.each([
    // a run, the window, whether it is in it
    [{ start: 1, end: 1, author: "ai", timestamp: NOV }, {}, true],
    [{ start: 1, end: 1, author: "ai" }, {}, false],
    [{ start: 1, end: 1, author: "ai", timestamp: NOV, committed: JAN }, { until: ms(OCT) }, false],
    [{ start: 1, end: 1, author: "untraced", committed: JAN }, { until: ms(OCT) }, true],
    [{ start: 1, end: 1, author: "untraced", timestamp: JAN, committed: NOV }, { until: ms(OCT) }, false],
    [{ start: 1, end: 1, author: "untraced" }, {}, false],
    [{ start: 1, end: 1, author: "ai", timestamp: "not a time" }, {}, false],
  ] as [Run, InsightOptions, boolean][])("runInWindow %j %j: %s", (run, opts, expected) => {
    expect(new InsightBuilder(opts).runInWindow(run)).toBe(expected);
  });
});

describe("runs, blocks and tallies", () => {
  it("runsOf joins consecutive rows that count the same in every number", () => {
    const base = { author: "ai" as const, intent: "I", model: "m", person: "p", traceId: "r", timestamp: NOV };
    const rows = [
      row(1, base),
      row(2, base),
      row(4, base), // a gap
      row(5, { ...base, author: "mixed" }),
      row(6, { ...base, author: "mixed", traceId: "s" }),
      row(7, { ...base, author: "mixed", traceId: "s", intent: "J" }),
      row(8, { ...base, author: "mixed", traceId: "s", intent: "J", model: "n" }),
      row(9, { ...base, author: "mixed", traceId: "s", intent: "J", model: "n", person: "q" }),
      row(10, { ...base, author: "mixed", traceId: "s", intent: "J", model: "n", person: "q", timestamp: OCT }),
      row(11, { ...base, author: "mixed", traceId: "s", intent: "J", model: "n", person: "q", timestamp: OCT, outOfScope: true }),
      row(12, { ...base, author: "mixed", traceId: "s", intent: "J", model: "n", person: "q", timestamp: OCT, outOfScope: true }),
      row(13, { kind: "untraced" }), // no author: untraced
      row(14, { author: "untraced" }),
    ];
    expect(runsOf(rows)).toEqual([
      { start: 1, end: 2, ...base },
      { start: 4, end: 4, ...base },
      { start: 5, end: 5, ...base, author: "mixed" },
      { start: 6, end: 6, ...base, author: "mixed", traceId: "s" },
      { start: 7, end: 7, ...base, author: "mixed", traceId: "s", intent: "J" },
      { start: 8, end: 8, ...base, author: "mixed", traceId: "s", intent: "J", model: "n" },
      { start: 9, end: 9, ...base, author: "mixed", traceId: "s", intent: "J", model: "n", person: "q" },
      { start: 10, end: 10, ...base, author: "mixed", traceId: "s", intent: "J", model: "n", person: "q", timestamp: OCT },
      { start: 11, end: 12, ...base, author: "mixed", traceId: "s", intent: "J", model: "n", person: "q", timestamp: OCT, outOfScope: true },
      { start: 13, end: 14, author: "untraced" },
    ]);
    // absent fields stay absent
    expect(Object.keys(runsOf([row(1, { author: "ai", outOfScope: false })])[0]!)).toEqual(["start", "end", "author"]);
  });

  it("blocksOf joins consecutive runs of one record (untraced: of one commit time), whatever else differs", () => {
    const runs: Run[] = [
      { start: 1, end: 2, author: "ai", traceId: "r1", intent: "I" },
      { start: 3, end: 3, author: "ai", traceId: "r1", outOfScope: true },
      { start: 5, end: 5, author: "ai", traceId: "r1" }, // a gap
      { start: 6, end: 6, author: "ai", traceId: "r2" },
      { start: 7, end: 7, author: "untraced", committed: JAN },
      { start: 8, end: 9, author: "untraced", committed: JAN },
      { start: 10, end: 10, author: "untraced", committed: NOV },
    ];
    expect(blocksOf(runs)).toEqual([
      { start: 1, end: 3, author: "ai", traceId: "r1", intent: "I" },
      { start: 5, end: 5, author: "ai", traceId: "r1" },
      { start: 6, end: 6, author: "ai", traceId: "r2" },
      { start: 7, end: 9, author: "untraced", committed: JAN },
      { start: 10, end: 10, author: "untraced", committed: NOV },
    ]);
    // the runs are left as they are
    expect(runs[0]).toEqual({ start: 1, end: 2, author: "ai", traceId: "r1", intent: "I" });
  });

  it("tallyOf groups a file's lines by author, scope, intent, model and person; its out-of-scope lines as blocks", () => {
    const runs: Run[] = [
      { start: 1, end: 2, author: "ai", traceId: "r1", intent: "I", model: "m" },
      { start: 3, end: 3, author: "ai", traceId: "r9", intent: "I", model: "m" },
      { start: 4, end: 4, author: "ai", traceId: "r2", intent: "I", model: "m", outOfScope: true },
      { start: 5, end: 5, author: "ai", traceId: "r2", intent: "I", model: "m", outOfScope: true, person: "p" },
      { start: 6, end: 6, author: "human", traceId: "r3", intent: "I", model: "m", outOfScope: true, person: "p" },
      { start: 7, end: 9, author: "untraced" },
      { start: 10, end: 10, author: "ai", traceId: "r4", intent: "J", model: "m" },
      { start: 11, end: 11, author: "ai", traceId: "r4", model: "n" },
      { start: 12, end: 13, author: "untraced" },
      { start: 14, end: 14, author: "ai", traceId: "r4", model: "m" },
    ];
    expect(tallyOf(runs)).toEqual({
      groups: [
        { author: "ai", outOfScope: false, intent: "I", model: "m", lines: 3 },
        { author: "ai", outOfScope: true, intent: "I", model: "m", lines: 1 },
        { author: "ai", outOfScope: true, intent: "I", model: "m", person: "p", lines: 1 },
        { author: "human", outOfScope: true, intent: "I", model: "m", person: "p", lines: 1 },
        { author: "untraced", outOfScope: false, lines: 5 },
        { author: "ai", outOfScope: false, intent: "J", model: "m", lines: 1 },
        { author: "ai", outOfScope: false, model: "n", lines: 1 },
        { author: "ai", outOfScope: false, model: "m", lines: 1 },
      ],
      outOfScope: [
        { start: 4, end: 5, author: "ai", traceId: "r2", intent: "I", model: "m", outOfScope: true },
        { start: 6, end: 6, author: "human", traceId: "r3", intent: "I", model: "m", outOfScope: true, person: "p" },
      ],
    });
    expect(Object.keys(tallyOf([{ start: 1, end: 1, author: "untraced" }]).groups[0]!)).toEqual(["author", "outOfScope", "lines"]);
  });

  it("tallyOf groups a file of many groups the same, once looked up by key", () => {
    // 20 intents, each written twice apart: the second pass finds each group, the ones made before and after the lookup by key
    const runs: Run[] = [];
    for (let pass = 0; pass < 2; pass++)
      for (let k = 0; k < 20; k++)
        runs.push({ start: runs.length + 1, end: runs.length + 1 + k, author: k % 2 ? "ai" : "human", intent: `I-${k}`, outOfScope: k % 3 === 0 });
    const { groups } = tallyOf(runs);
    expect(groups).toEqual(
      Array.from({ length: 20 }, (_, k) => ({ author: k % 2 ? "ai" : "human", outOfScope: k % 3 === 0, intent: `I-${k}`, lines: 2 * (k + 1) })),
    );
    // groups that differ only in model or person stay apart past the switch too
    const more: Run[] = Array.from({ length: 18 }, (_, k) => ({ start: k + 1, end: k + 1, author: "ai", intent: `I-${k}` }));
    more.push({ start: 19, end: 19, author: "ai", intent: "I-0", model: "m" }, { start: 20, end: 20, author: "ai", intent: "I-0", person: "p" });
    more.push({ start: 21, end: 21, author: "ai", intent: "I-0", model: "m" }, { start: 22, end: 22, author: "ai", intent: "I-0", person: "p" });
    expect(tallyOf(more).groups.slice(-2)).toEqual([
      { author: "ai", outOfScope: false, intent: "I-0", model: "m", lines: 2 },
      { author: "ai", outOfScope: false, intent: "I-0", person: "p", lines: 2 },
    ]);
  });

  it.each([
    [[], false, []],
    [[{ start: 1, end: 2, author: "ai" }], false, []],
    [
      [
        { start: 1, end: 2, author: "untraced" },
        { start: 3, end: 3, author: "untraced", committed: JAN },
        { start: 4, end: 4, author: "ai" },
        { start: 5, end: 5, author: "untraced" },
        { start: 7, end: 8, author: "untraced" },
      ],
      true,
      [
        { start: 1, end: 3 },
        { start: 5, end: 5 },
        { start: 7, end: 8 },
      ],
    ],
  ] as [Run[], boolean, unknown][])("untraced lines of %j", (runs, has, ranges) => {
    expect(hasUntraced(runs)).toBe(has);
    expect(untracedRanges(runs)).toEqual(ranges);
  });
});

describe("dating untraced lines by their commit", () => {
  const U = (start: number, end: number): Run => ({ start, end, author: "untraced" });
  const at = (start: number, end: number, when: string | null): CommitDate => ({ start, end, ms: when === null ? null : ms(when) });
  it.each([
    // runs, dates, the dated runs as [start, end, author, committed, uncommitted]
    ["no dates", [U(1, 3)], [], [[1, 3, "untraced", undefined, undefined]]],
    ["one date over all", [U(1, 3)], [at(1, 3, JAN)], [[1, 3, "untraced", JAN, undefined]]],
    ["a date wider than the run", [U(2, 3)], [at(1, 5, JAN)], [[2, 3, "untraced", JAN, undefined]]],
    [
      "a date inside the run",
      [U(1, 5)],
      [at(2, 3, JAN)],
      [
        [1, 1, "untraced", undefined, undefined],
        [2, 3, "untraced", JAN, undefined],
        [4, 5, "untraced", undefined, undefined],
      ],
    ],
    [
      "dates out of order, one uncommitted",
      [U(1, 4)],
      [at(3, 4, null), at(1, 2, OCT)],
      [
        [1, 2, "untraced", OCT, undefined],
        [3, 4, "untraced", "2026-11-26T12:00:00.000Z", true],
      ],
    ],
    [
      "a date over two runs with a traced line between",
      [U(1, 2), { start: 3, end: 3, author: "ai", traceId: "r" }, U(4, 5)],
      [at(1, 5, JAN)],
      [
        [1, 2, "untraced", JAN, undefined],
        [3, 3, "ai", undefined, undefined],
        [4, 5, "untraced", JAN, undefined],
      ],
    ],
    [
      "dates before the run are passed over",
      [U(5, 6), U(8, 9)],
      [at(1, 2, JAN), at(3, 5, OCT), at(6, 8, NOV), at(9, 9, JAN)],
      [
        [5, 5, "untraced", OCT, undefined],
        [6, 6, "untraced", NOV, undefined],
        [8, 8, "untraced", NOV, undefined],
        [9, 9, "untraced", JAN, undefined],
      ],
    ],
    ["one date's pieces join across runs that meet", [U(1, 1), U(2, 2)], [at(1, 2, JAN)], [[1, 2, "untraced", JAN, undefined]]],
    [
      "uncommitted lines join only with uncommitted ones",
      [U(1, 2)],
      [at(1, 1, "2026-11-26T12:00:00.000Z"), at(2, 2, null)],
      [
        [1, 1, "untraced", "2026-11-26T12:00:00.000Z", undefined],
        [2, 2, "untraced", "2026-11-26T12:00:00.000Z", true],
      ],
    ],
    [
      "undated lines after a traced run stay apart from it",
      [{ start: 1, end: 1, author: "ai", traceId: "r" }, U(2, 3)],
      [],
      [
        [1, 1, "ai", undefined, undefined],
        [2, 3, "untraced", undefined, undefined],
      ],
    ],
    ["a date over the run's end after another date", [U(1, 4)], [at(1, 4, JAN), at(2, 6, OCT)], [[1, 4, "untraced", JAN, undefined]]],
    ["a date after the run's end dates nothing", [U(1, 2)], [at(3, 4, JAN)], [[1, 2, "untraced", undefined, undefined]]],
    [
      "untraced lines next to lines kept from before adoption, committed at the same time, stay two runs",
      [U(1, 2), { start: 3, end: 4, author: "beforeAdoption" }],
      [at(1, 4, JAN)],
      [
        [1, 2, "untraced", JAN, undefined],
        [3, 4, "beforeAdoption", JAN, undefined],
      ],
    ],
    [
      "overlapping dates: a line is dated once, by the first",
      [U(1, 4)],
      [at(1, 3, JAN), at(2, 4, OCT)],
      [
        [1, 3, "untraced", JAN, undefined],
        [4, 4, "untraced", OCT, undefined],
      ],
    ],
    [
      "a date that ends before the lines left",
      [U(1, 6)],
      [at(1, 4, JAN), at(2, 3, OCT), at(5, 5, NOV)],
      [
        [1, 4, "untraced", JAN, undefined],
        [5, 5, "untraced", NOV, undefined],
        [6, 6, "untraced", undefined, undefined],
      ],
    ],
  ] as [string, Run[], CommitDate[], unknown[]][])("%s", (_, runs, dates, expected) => {
    const toRow = (r: Run) => [r.start, r.end, r.author, r.committed, r.uncommitted];
    expect(datedRuns(runs, dates, NOW).map(toRow)).toEqual(expected);
    expect(datedRuns(runs, { undated: "git stopped", dates }, NOW).map(toRow)).toEqual(expected);
  });

  it("a dated piece keeps its run's fields; a traced run is the same object; no dates leave the runs as they are", () => {
    const traced: Run = { start: 1, end: 1, author: "ai", traceId: "r", timestamp: NOV, intent: "I", model: "m", person: "p", outOfScope: true };
    const runs: Run[] = [traced, U(2, 3)];
    const dated = datedRuns(runs, [{ start: 2, end: 3, ms: ms(JAN) }], NOW);
    expect(dated[0]).toBe(traced);
    expect(dated[1]).toEqual({ start: 2, end: 3, author: "untraced", committed: JAN });
    const copy = datedRuns(runs, { undated: "no git" }, NOW);
    expect(copy).toEqual(runs);
    expect(copy).not.toBe(runs);
  });
});

describe("what a record wrote", () => {
  const entry = (e: Partial<TraceEntry>): TraceEntry => ({
    recordId: "r",
    line: 1,
    timestamp: NOV,
    path: "a.ts",
    startLine: 3,
    endLine: 7,
    contributor: { type: "ai" },
    dialect: "spec",
    ...e,
  });
  it.each([
    ["a change", {}, { ms: ms(NOV), author: "ai", lines: 5, outOfScope: false }],
    ["a human's, out of scope", { contributor: { type: "human" }, scope: "OUT_OF_SCOPE" }, { ms: ms(NOV), author: "human", lines: 5, outOfScope: true }],
    ["a re-attribution", { preHash: "sha256:a", postHash: "sha256:a" }, undefined],
    ["a change with both hashes", { preHash: "sha256:a", postHash: "sha256:b" }, { ms: ms(NOV), author: "ai", lines: 5, outOfScope: false }],
    ["a new file (no pre_hash)", { preHash: null, postHash: null }, { ms: ms(NOV), author: "ai", lines: 5, outOfScope: false }],
    ["an empty pre_hash", { preHash: "", postHash: "" }, { ms: ms(NOV), author: "ai", lines: 5, outOfScope: false }],
    ["no readable time", { timestamp: "yesterday" }, undefined],
  ] as [string, Partial<TraceEntry>, unknown][])("%s", (_, e, expected) => {
    expect(writtenBy(entry(e))).toEqual(expected);
  });

  it("the history counts what records wrote per period, in the window and under --path only", () => {
    const b = new InsightBuilder({ by: "month", path: "src", since: ms(OCT) });
    b.addWritten(entry({ path: "src/a.ts" }));
    b.addWritten(entry({ path: "src/a.ts", timestamp: OCT, contributor: { type: "human" }, scope: "OUT_OF_SCOPE", startLine: 1, endLine: 1 }));
    b.addWritten(entry({ path: "lib/a.ts" }));
    b.addWritten(entry({ path: "src/a.ts", timestamp: JAN }));
    b.addWritten(entry({ path: "src/a.ts", preHash: "h", postHash: "h" }));
    expect(b.result().history!.periods.map((p) => [p.period, p.written, p.writtenOutOfScope])).toEqual([
      ["2026-10", { ai: 0, human: 1, mixed: 0, unknown: 0 }, 1],
      ["2026-11", { ai: 5, human: 0, mixed: 0, unknown: 0 }, 0],
    ]);
  });
});

describe("the history's lines in the code", () => {
  it("a traced run counts at its record's time, an untraced one at its commit time, undated ones apart", () => {
    const b = new InsightBuilder({ by: "month", since: ms(OCT) });
    b.addRuns("a.ts", [
      { start: 1, end: 3, author: "ai", traceId: "r1", timestamp: NOV, committed: JAN },
      { start: 4, end: 4, author: "human", traceId: "r2", timestamp: OCT },
      { start: 5, end: 6, author: "untraced", committed: OCT, timestamp: NOV },
      { start: 7, end: 10, author: "untraced" },
      { start: 11, end: 11, author: "untraced", committed: JAN },
      { start: 12, end: 12, author: "ai", traceId: "r3" },
    ]);
    b.undatedBecause("git stopped");
    b.undatedBecause("git stopped");
    const h = b.result().history!;
    expect(h.periods.map((p) => [p.period, p.surviving, p.inCode])).toEqual([
      [
        "2026-10",
        { ai: 0, human: 1, mixed: 0, unknown: 0 },
        { ai: 0, human: 1, mixed: 0, unknown: 0, untraced: 2, beforeAdoption: 0, total: 3, untracedShare: 2 / 3 },
      ],
      [
        "2026-11",
        { ai: 3, human: 0, mixed: 0, unknown: 0 },
        { ai: 3, human: 0, mixed: 0, unknown: 0, untraced: 0, beforeAdoption: 0, total: 3, untracedShare: 0 },
      ],
    ]);
    expect(h.undated).toEqual({ lines: 4, reasons: ["git stopped"] });
    expect(h.since).toBe(OCT);
  });

  it("a tally given with the runs is what the present counts", () => {
    const b = new InsightBuilder({});
    const runs: Run[] = [{ start: 1, end: 2, author: "ai", traceId: "r" }];
    b.addRuns("a.ts", runs, tallyOf([{ start: 1, end: 5, author: "human", traceId: "r" }]));
    expect(b.result().lines).toEqual(counts({ human: 5 }));
  });
});

describe("a kept result given again at another now", () => {
  it("makes the uncommitted lines' time the new now, and leaves a result without them as it is", () => {
    const b = new InsightBuilder({ blocks: true });
    b.addRuns("a.ts", datedRuns([{ start: 1, end: 2, author: "untraced" }], [{ start: 1, end: 1, ms: null }], NOW));
    const s = b.result();
    const later = ms("2026-12-01T00:00:00.000Z");
    expect(resultAt(s, later)).toBe(s);
    expect(s.blocks!.strings[s.blocks!.now!]).toBe("2026-12-01T00:00:00.000Z");
    const plain = new InsightBuilder({ blocks: true });
    plain.addUntracedFile("a.ts", 2);
    const p = plain.result();
    expect(resultAt(p, later).blocks!.strings).toEqual(["a.ts"]);
    const none = new InsightBuilder().result();
    expect(resultAt(none, later)).toEqual(new InsightBuilder().result());
  });
});

describe("a kept file's runs added as numbers", () => {
  it("keeps the uncommitted lines' time as the string a kept result gives again at a new now", () => {
    const table = new StringTable();
    const row: number[] = [];
    const runs: Run[] = [
      { start: 1, end: 1, author: "ai", traceId: "r", timestamp: NOV },
      { start: 2, end: 4, author: "untraced" },
    ];
    for (const r of runs) pushRun(row, r, table);
    const b = new InsightBuilder({ blocks: true, by: "month" });
    const dates: CommitDate[] = [
      { start: 2, end: 2, ms: ms(OCT) },
      { start: 3, end: 3, ms: null },
    ];
    b.addRunRows("a.ts", Int32Array.from(row), table.strings, dates, NOW, tallyOf(runs));
    const s = b.result();
    const { strings, rows, now } = s.blocks!;
    const committed = (k: number) => (rows[k * BLOCK_FIELDS + 10] === -1 ? undefined : strings[rows[k * BLOCK_FIELDS + 10]!]);
    expect([0, 1, 2, 3].map(committed)).toEqual([undefined, OCT, "2026-11-26T12:00:00.000Z", undefined]);
    expect(rows[2 * BLOCK_FIELDS + 10]).toBe(now);
    expect(s.history!.periods.map((p) => [p.period, p.inCode.ai, p.inCode.untraced])).toEqual([
      ["2026-10", 0, 1],
      ["2026-11", 1, 1],
    ]);
    expect(s.history!.undated.lines).toBe(1);
    resultAt(s, ms("2026-12-01T00:00:00.000Z"));
    expect([0, 1, 2, 3].map(committed)).toEqual([undefined, OCT, "2026-12-01T00:00:00.000Z", undefined]);
  });
});

/** A ledger entry of `path` claiming lines `start`..`end`, placed by line numbers. */
function claim(path: string, id: string, timestamp: string, start: number, end: number, type: Author = "ai", extra: Partial<TraceEntry> = {}): TraceEntry {
  return { recordId: id, line: 1, timestamp, path, startLine: start, endLine: end, contributor: { type: type as "ai" }, dialect: "spec", ...extra };
}

describe("the changed lines' numbers (the pull request summary)", () => {
  const text = "1\n2\n3\n4\n5\n6\n";
  const batches = (entries: Record<string, TraceEntry[]>) => (path: string) => [entries[path] ?? []];

  it("counts only the changed lines of files --path matches", () => {
    const files: ChangedText[] = [
      { path: "src/a.ts", text, changed: [1, 2, 5, 6] },
      { path: "src/none.ts", text, changed: [] },
      { path: "lib/b.ts", text, changed: [1] },
    ];
    const r = changedLinesInsight(files, batches({ "src/a.ts": [claim("src/a.ts", "r1", NOV, 1, 3, "ai", { intentId: "I-1", scope: "OUT_OF_SCOPE" })] }), {
      path: "src",
    });
    expect(r.files).toBe(1);
    expect(r.lines).toEqual(counts({ ai: 2, untraced: 2, outOfScope: 2 }));
    expect(r.byIntent).toEqual([{ id: "I-1", lines: counts({ ai: 2, outOfScope: 2 }) }]);
    expect(r.outOfScope.blocks.map((b) => [b.path, b.start, b.end])).toEqual([["src/a.ts", 1, 2]]);
    expect(r.history).toBeUndefined();
    expect(r.window).toBeUndefined();
  });

  it("with a window, counts the lines written in it and says how many were left out and why", () => {
    const files: ChangedText[] = [
      { path: "a.ts", text, changed: [1, 2, 3, 4, 5, 6] },
      { path: "b.ts", text, changed: [1, 2] },
      { path: "c.ts", text, changed: [1] },
      { path: "d.ts", text, changed: [2] },
    ];
    const entries = {
      "a.ts": [claim("a.ts", "r1", NOV, 1, 1), claim("a.ts", "r2", JAN, 2, 2, "human")],
      "b.ts": [claim("b.ts", "r3", JAN, 1, 2)],
    };
    const asked: unknown[] = [];
    const dates = (path: string, t: string, ranges: { start: number; end: number }[]): UntracedDates => {
      asked.push([path, t === text, ranges]);
      if (path === "c.ts" || path === "d.ts") return { undated: "a shallow clone" };
      return {
        undated: "git stopped",
        dates: [
          { start: 3, end: 3, ms: ms(OCT) },
          { start: 4, end: 4, ms: null },
          { start: 5, end: 5, ms: ms(JAN) },
        ],
      };
    };
    const r = changedLinesInsight(files, batches(entries), { since: ms(OCT), now: NOW }, dates);
    // a.ts: 1 (ai, Nov), 3 (untraced, Oct), 4 (uncommitted: now) in; 2 (Jan), 5 (Jan), 6 (undated) out; b.ts: both out;
    // c.ts and d.ts: undated, for one reason said once
    expect(asked).toEqual([
      ["a.ts", true, [{ start: 3, end: 6 }]],
      ["c.ts", true, [{ start: 1, end: 1 }]],
      ["d.ts", true, [{ start: 2, end: 2 }]],
    ]);
    expect(r.files).toBe(1);
    expect(r.lines).toEqual(counts({ ai: 1, untraced: 2 }));
    expect(r.window).toEqual({ since: new Date(ms(OCT)).toISOString(), leftOut: 7, undated: { lines: 3, reasons: ["git stopped", "a shallow clone"] } });
    expect(r.history).toBeUndefined();
  });

  it("with an end only, or with a period, the window and the history say so", () => {
    const files: ChangedText[] = [{ path: "a.ts", text, changed: [1, 2, 3] }];
    const entries = { "a.ts": [claim("a.ts", "r1", NOV, 1, 1), claim("a.ts", "r2", OCT, 2, 2)] };
    const dates = (): UntracedDates => [{ start: 3, end: 3, ms: ms(OCT) }];
    const until = changedLinesInsight(files, batches(entries), { until: ms(OCT) }, dates);
    expect(until.window).toEqual({ until: new Date(ms(OCT)).toISOString(), leftOut: 1, undated: { lines: 0, reasons: [] } });
    expect(until.lines).toEqual(counts({ ai: 1, untraced: 1 }));
    const by = changedLinesInsight(files, batches(entries), { by: "month" }, () => ({ undated: "no git" }));
    expect(by.window).toBeUndefined();
    expect(by.history!.periods.map((p) => [p.period, p.inCode.total])).toEqual([
      ["2026-10", 1],
      ["2026-11", 1],
    ]);
    expect(by.history!.undated).toEqual({ lines: 1, reasons: ["no git"] });
  });

  it("asks git for dates only with a window or a period, and only for files with untraced changed lines", () => {
    const files: ChangedText[] = [
      { path: "a.ts", text, changed: [1] },
      { path: "b.ts", text, changed: [2] },
    ];
    const entries = { "a.ts": [claim("a.ts", "r1", NOV, 1, 1)] };
    const asked: string[] = [];
    const dates = (path: string): UntracedDates => {
      asked.push(path);
      return [];
    };
    changedLinesInsight(files, batches(entries), {}, dates);
    expect(asked).toEqual([]);
    const r = changedLinesInsight(files, batches(entries), { by: "day" }, dates);
    expect(asked).toEqual(["b.ts"]);
    expect(r.history!.undated).toEqual({ lines: 1, reasons: [] });
    // without a way to date them, untraced lines are undated
    const none = changedLinesInsight(files, batches(entries), { since: 0 });
    expect(none.window!.leftOut).toBe(1);
    expect(none.window!.undated.lines).toBe(1);
  });
});
