import { describe, expect, it } from "vitest";
import { AUTHORS, authorOfEntry, percent } from "../../server/src/engine/authorship";
import { datedRuns, InsightBuilder, pathMatcher, untracedRanges, type Run } from "../../server/src/engine/insight";
import { periodOf } from "../../server/src/engine/insightHistory";
import type { BlameLine } from "../../server/src/engine/blame";
import { BLOCK_FIELDS } from "../../server/src/engine/blockTable";

const row = (line: number, r: Partial<BlameLine>): BlameLine => ({ line, kind: "traced", text: "", ...r });

describe("insight", () => {
  it("counts a line by its record's contributor type; an unknown type is unknown, no record is untraced", () => {
    expect(authorOfEntry({ contributor: { type: "ai" } })).toBe("ai");
    expect(authorOfEntry({ contributor: { type: "mixed" } })).toBe("mixed");
    expect(authorOfEntry({ contributor: { type: "robot" as "ai" } })).toBe("unknown");
    expect(authorOfEntry(undefined)).toBe("untraced");
  });

  it("says shares without rounding a few lines to 0% or 100%", () => {
    expect([percent(0, 0), percent(1, 1000), percent(999, 1000), percent(1, 3), percent(0, 5)]).toEqual(["–", "<1%", ">99%", "33%", "0%"]);
  });

  it("splits untraced runs by their commit time; lines git gives no time stay undated", () => {
    const runs: Run[] = [
      { start: 1, end: 4, author: "untraced" },
      { start: 5, end: 5, author: "ai", traceId: "r1", timestamp: "2026-11-02T10:00:00Z" },
      { start: 6, end: 9, author: "untraced" },
    ];
    expect(untracedRanges(runs)).toEqual([
      { start: 1, end: 4 },
      { start: 6, end: 9 },
    ]);
    const now = Date.parse("2026-11-26T12:00:00Z");
    const jan = Date.parse("2026-01-05T10:00:00Z");
    const dated = datedRuns(
      runs,
      [
        { start: 1, end: 2, ms: jan },
        { start: 3, end: 4, ms: jan },
        { start: 6, end: 6, ms: null },
        { start: 8, end: 9, ms: jan },
      ],
      now,
    );
    expect(dated.map((r) => [r.start, r.end, r.author, r.committed])).toEqual([
      [1, 4, "untraced", "2026-01-05T10:00:00.000Z"],
      [5, 5, "ai", undefined],
      [6, 6, "untraced", "2026-11-26T12:00:00.000Z"],
      [7, 7, "untraced", undefined],
      [8, 9, "untraced", "2026-01-05T10:00:00.000Z"],
    ]);
    expect(datedRuns(runs, { undated: "no git" }, now)).toEqual(runs);
    const b = new InsightBuilder({ by: "month" });
    b.addRuns("a.ts", dated);
    const h = b.result().history!;
    expect(h.periods.map((p) => [p.period, p.inCode.ai, p.inCode.untraced, p.inCode.untracedShare])).toEqual([
      ["2026-01", 0, 6, 1],
      ["2026-11", 1, 1, 0.5],
    ]);
    expect(h.undated).toEqual({ lines: 1, reasons: [] });
  });

  it("puts a time in its UTC day, ISO week (from Monday) and month", () => {
    const sunday = Date.parse("2026-11-29T23:30:00Z");
    expect([periodOf(sunday, "day"), periodOf(sunday, "week"), periodOf(sunday, "month")]).toEqual(["2026-11-29", "2026-11-23", "2026-11"]);
  });

  it("--path names a folder, a glob, or a file name at any depth", () => {
    expect(pathMatcher("src")("src/a/b.ts")).toBe(true);
    expect(pathMatcher("src/")("srcx/b.ts")).toBe(false);
    expect(pathMatcher("*.md")("docs/x/notes.md")).toBe(true);
    expect(pathMatcher("src/**/*.ts")("src/a.md")).toBe(false);
  });

  it("sums each file into its first two levels of folders: src/api/x.ts counts in src and src/api, src/api/v1 is not summed", () => {
    const b = new InsightBuilder({});
    b.addFile("src/api/x.ts", [row(1, { author: "ai", intent: "I-1", traceId: "r1" }), row(2, { kind: "untraced", author: "untraced" })]);
    b.addUntracedFile("src/y.ts", 3);
    b.addUntracedFile("src/api/v1/z.ts", 4);
    b.addUntracedFile("top.ts", 5);
    expect(b.result().byFolder).toEqual([
      { path: "src", lines: { total: 9, ai: 1, human: 0, mixed: 0, unknown: 0, untraced: 8, beforeAdoption: 0, outOfScope: 0 } },
      { path: "src/api", lines: { total: 6, ai: 1, human: 0, mixed: 0, unknown: 0, untraced: 5, beforeAdoption: 0, outOfScope: 0 } },
    ]);
  });

  it("sums rows into runs, breakdowns and folders; durability is the AI's lines still present over those written", () => {
    const b = new InsightBuilder({ by: "month", blocks: true });
    const t = "2026-11-02T10:00:00Z";
    b.addFile("src/a.ts", [
      row(1, { author: "ai", intent: "I-1", model: "m/x", traceId: "r1", timestamp: t }),
      row(2, { author: "ai", intent: "I-1", model: "m/x", traceId: "r1", timestamp: t }),
      row(3, { kind: "untraced", author: "untraced" }),
      row(4, { author: "human", intent: "I-2", person: "Ada", traceId: "r2", timestamp: t, outOfScope: true }),
    ]);
    b.addUntracedFile("README.md", 5);
    const written = {
      recordId: "r1",
      line: 1,
      timestamp: t,
      path: "src/a.ts",
      startLine: 1,
      endLine: 4,
      contributor: { type: "ai" as const },
      dialect: "spec" as const,
    };
    b.addWritten(written);
    b.addWritten({ ...written, preHash: "sha256:a", postHash: "sha256:a" }); // a re-attribution writes nothing
    const s = b.result();
    expect(s.lines).toEqual({ total: 9, ai: 2, human: 1, mixed: 0, unknown: 0, untraced: 6, beforeAdoption: 0, outOfScope: 1 });
    expect(s.byIntent.map((i) => [i.id, i.lines.total])).toEqual([
      ["I-1", 2],
      ["I-2", 1],
    ]);
    expect(s.byFolder.map((f) => [f.path, f.lines.total])).toEqual([["src", 4]]);
    const { strings: S, rows } = s.blocks!;
    const blocks = [];
    for (let i = 0; i < rows.length; i += BLOCK_FIELDS) blocks.push([S[rows[i]!], rows[i + 1], rows[i + 2], AUTHORS[rows[i + 3]!]]);
    expect(blocks).toEqual([
      ["src/a.ts", 1, 2, "ai"],
      ["src/a.ts", 3, 3, "untraced"],
      ["src/a.ts", 4, 4, "human"],
      ["README.md", 1, 5, "untraced"],
    ]);
    expect(s.history!.periods).toEqual([
      {
        period: "2026-11",
        written: { ai: 4, human: 0, mixed: 0, unknown: 0 },
        writtenOutOfScope: 0,
        surviving: { ai: 2, human: 1, mixed: 0, unknown: 0 },
        durability: 0.5,
        // untraced lines no commit time was given for are in no period: undated
        inCode: { ai: 2, human: 1, mixed: 0, unknown: 0, untraced: 0, beforeAdoption: 0, total: 3, untracedShare: 0 },
      },
    ]);
    expect(s.history!.undated).toEqual({ lines: 6, reasons: [] });
  });
});
