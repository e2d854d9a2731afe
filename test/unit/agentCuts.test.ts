import { describe, expect, it } from "vitest";
import {
  CUT_TTL_MS,
  cutOf,
  cutSources,
  cutLess,
  keepCuts,
  leftBehind,
  MAX_CUT_LINES,
  MAX_CUTS,
  MAX_MATCH_STARTS,
  parseCuts,
  pastedFromCuts,
  type Cut,
} from "../../server/src/engine/agent/cuts";
import { diffTexts } from "../../server/src/engine/lineChange";

/** The blocks an agent session cut, and what a later write pasted from them (engine/agent/cuts.ts). */

const BLOCK = ["export function urgent(a: Alert): boolean {", "  return a.severity >= 3;", "}"];
const KEPT = ["export const LIMIT = 42;", "export const FLOOR = 7;"];
const text = (lines: readonly string[]) => `${lines.join("\n")}\n`;
const textLinesOf = (t: string) => t.split("\n").slice(0, -1);
const BEFORE = text(["// alerts", ...BLOCK, ...KEPT]);
const AFTER_CUT = text(["// alerts", ...KEPT]);
const NOW = Date.UTC(2026, 10, 22, 10);
const pinnedAll = () => true;

function cutOfBlock(at = NOW): Cut {
  return cutOf("src/alerts.ts", "sha256:before", BEFORE, diffTexts(BEFORE, AFTER_CUT), at)!;
}

describe("cutOf: the blocks a change removed", () => {
  it("keeps exactly the removed lines, numbered in the content before the change", () => {
    expect(cutOfBlock()).toEqual({
      path: "src/alerts.ts",
      hash: "sha256:before",
      blocks: [{ start: 1, lines: BLOCK }],
      whole: ["// alerts", ...BLOCK, ...KEPT],
      at: NOW,
    });
  });

  it("a removed single line, or lines with fewer than 40 letters and digits (git's copy score), is no cut", () => {
    const oneLine = text(["// alerts", ...BLOCK.slice(1), ...KEPT]);
    expect(cutOf("a.ts", "h", BEFORE, diffTexts(BEFORE, oneLine), NOW)).toBeUndefined();
    const braces = text(["x", "}", "}", "y"]);
    expect(cutOf("a.ts", "h", braces, diffTexts(braces, text(["x", "y"])), NOW)).toBeUndefined();
    // 39 letters and digits in two lines: still too little to tell a move from text that happens to match
    const short = text(["x", "  const severityThreshold = 3;", "  return a.severity >= 3;", "y"]);
    expect(cutOf("a.ts", "h", short, diffTexts(short, text(["x", "y"])), NOW)).toBeUndefined();
    const enough = text(["x", "  const severityThreshold = 34;", "  return a.severity >= 3;", "y"]);
    expect(cutOf("a.ts", "h", enough, diffTexts(enough, text(["x", "y"])), NOW)?.blocks).toEqual([{ start: 1, lines: textLinesOf(enough).slice(1, 3) }]);
  });
});

describe("pastedFromCuts: a write's lines pasted from a session's cuts", () => {
  it("a block the session removed elsewhere is moved in; the other lines are the writer's", () => {
    const after = text(["// mine", ...BLOCK]);
    const sources = cutSources([cutOfBlock()], "src/urgent.ts", NOW, pinnedAll);
    expect(pastedFromCuts("src/urgent.ts", null, after, diffTexts(null, after), sources)).toEqual([
      { from: "src/alerts.ts", preHash: "sha256:before", runs: [{ oldStart: 1, newStart: 1, length: 3 }] },
    ]);
  });

  it("a block the cut file holds again now is not taken from the old cut; one it holds only part of still is", () => {
    const after = text(["// mine", ...BLOCK]);
    const sources = cutSources([cutOfBlock()], "src/urgent.ts", NOW, pinnedAll);
    // the block came back to alerts.ts since the cut (pasted back, reverted): the write copies it from there, or
    // moves it ahead of that file's own next cut, which gives it back then
    const back = { path: "src/alerts.ts", hash: "sha256:now", lines: textLinesOf(BEFORE) };
    expect(pastedFromCuts("src/urgent.ts", null, after, diffTexts(null, after), sources, [back])).toEqual([]);
    // alerts.ts holds the first two lines of the block again, not the whole run: the cut's block is taken
    const part = { path: "src/alerts.ts", hash: "sha256:now", lines: [...BLOCK.slice(0, 2), "};", ...KEPT] };
    expect(pastedFromCuts("src/urgent.ts", null, after, diffTexts(null, after), sources, [part])).toEqual([
      { from: "src/alerts.ts", preHash: "sha256:before", runs: [{ oldStart: 1, newStart: 1, length: 3 }] },
    ]);
  });

  it("a copy of the pasted run that its file held elsewhere already when it was cut is no sign the block came back", () => {
    // alerts.ts held a copy of the block's first two lines below it before the cut, and still does
    const before = text(["// alerts", ...BLOCK, ...KEPT, ...BLOCK.slice(0, 2)]);
    const left = text(["// alerts", ...KEPT, ...BLOCK.slice(0, 2)]);
    const cut = cutOf("src/alerts.ts", "sha256:before", before, diffTexts(before, left), NOW)!;
    const after = text(["// mine", ...BLOCK.slice(0, 2), "  // the rest is new"]);
    const sources = cutSources([cut], "src/urgent.ts", NOW, pinnedAll);
    const now = { path: "src/alerts.ts", hash: "sha256:left", lines: textLinesOf(left) };
    const kept = [leftBehind(cut)!];
    expect(pastedFromCuts("src/urgent.ts", null, after, diffTexts(null, after), sources, [now], kept)).toEqual([
      { from: "src/alerts.ts", preHash: "sha256:before", runs: [{ oldStart: 1, newStart: 1, length: 2 }] },
    ]);
    // without what the cut left behind, the copy reads as the block come back: the paste would be the writer's
    expect(pastedFromCuts("src/urgent.ts", null, after, diffTexts(null, after), sources, [now])).toEqual([]);
    // the whole block back in its place is still held, the cut's kept copy of two of its lines aside
    const whole = text(["// mine", ...BLOCK]);
    const back = { path: "src/alerts.ts", hash: "sha256:back", lines: textLinesOf(before) };
    expect(pastedFromCuts("src/urgent.ts", null, whole, diffTexts(null, whole), sources, [back], kept)).toEqual([]);
  });

  it("lines the cut left in place are not offered, though the content before it held them", () => {
    const after = text([...KEPT]);
    const sources = cutSources([cutOfBlock()], "src/limits.ts", NOW, pinnedAll);
    expect(pastedFromCuts("src/limits.ts", null, after, diffTexts(null, after), sources)).toEqual([]);
  });

  it("no source for the cut file itself, for a content no record pins, or for a cut older than the TTL", () => {
    expect(cutSources([cutOfBlock()], "src/alerts.ts", NOW, pinnedAll)).toEqual([]);
    expect(cutSources([cutOfBlock()], "src/urgent.ts", NOW, () => false)).toEqual([]);
    expect(cutSources([cutOfBlock(NOW - CUT_TTL_MS)], "src/urgent.ts", NOW, pinnedAll)).toEqual([]);
  });

  it("a block the written file held before is moved within it, the writer's", () => {
    const before = text([...BLOCK, "// a", "// b", "// c", "// d"]);
    const after = text(["// a", "// b", "// c", "// d", ...BLOCK]);
    const sources = cutSources([cutOfBlock()], "src/urgent.ts", NOW, pinnedAll);
    expect(pastedFromCuts("src/urgent.ts", before, after, diffTexts(before, after), sources)).toEqual([]);
  });
});

describe("pastedFromCuts answers in bounded time", () => {
  const same = (n: number) => new Array<string>(n).fill("  total = total + compute(alpha);");
  const repetitive = (cutLines: number, written: number) => {
    const before = text(["// start", ...same(cutLines), "// end"]);
    const cut = cutOf("src/a.ts", "h", before, diffTexts(before, text(["// start", "// end"])), NOW)!;
    const after = text(same(written));
    return pastedFromCuts("src/b.ts", null, after, diffTexts(null, after), cutSources([cut], "src/b.ts", NOW, pinnedAll));
  };

  it(`text so repetitive that the matcher would try more than ${MAX_MATCH_STARTS} places is not matched: the writer's`, () => {
    expect(repetitive(1_500, 1_000)).toEqual([]);
  });

  it("the same text within the bound is matched", () => {
    expect(repetitive(100, 100)).toEqual([{ from: "src/a.ts", preHash: "h", runs: [{ oldStart: 1, newStart: 0, length: 100 }] }]);
  });
});

describe("keepCuts: a session's cuts stay bounded", () => {
  it("newest first, one per content of a path, none older than the TTL", () => {
    const old = cutOfBlock(NOW - CUT_TTL_MS - 1);
    const again = cutOfBlock(NOW);
    expect(keepCuts([cutOfBlock(NOW - 1000), old], [again], NOW)).toEqual([again]);
  });

  it(`at most ${MAX_CUTS} cuts and ${MAX_CUT_LINES} lines`, () => {
    const many = Array.from({ length: MAX_CUTS + 5 }, (_, k) => ({ ...cutOfBlock(NOW - k), path: `src/f${k}.ts` }));
    const kept = keepCuts([], many, NOW);
    expect(kept.map((c) => c.path)).toEqual(many.slice(0, MAX_CUTS).map((c) => c.path));
    const huge: Cut = { path: "src/huge.ts", hash: "h", blocks: [{ start: 0, lines: new Array(MAX_CUT_LINES + 1).fill("const x = 1;") }], at: NOW };
    expect(keepCuts([cutOfBlock()], [huge], NOW)).toEqual([cutOfBlock()]);
  });

  it("a stored file read back keeps only well-formed cuts", () => {
    const good = cutOfBlock();
    expect(parseCuts(JSON.parse(JSON.stringify([good])))).toEqual([good]);
    expect(parseCuts([{ ...good, blocks: [{ start: -1, lines: ["a", "b"] }] }, { ...good, hash: 3 }, null, "x"])).toEqual([]);
    expect(parseCuts({ not: "a list" })).toEqual([]);
  });
});

describe("cutLess: a cut that gave its paste back is matched no more", () => {
  const claimedFrom = (cut: Cut, oldStart: number, length: number, path = cut.path, preHash = cut.hash) => ({
    from: path,
    preHash,
    runs: [{ oldStart, newStart: 0, length }],
  });

  it("the claimed lines leave the cut; nothing movable left, no cut", () => {
    const cut = cutOfBlock();
    expect(cutLess(cut, [claimedFrom(cut, 1, BLOCK.length)])).toBeUndefined();
  });

  it("lines of another file or another content claimed leave the cut as it is", () => {
    const cut = cutOfBlock();
    expect(cutLess(cut, [claimedFrom(cut, 1, BLOCK.length, "src/other.ts")])).toBe(cut);
    expect(cutLess(cut, [claimedFrom(cut, 1, BLOCK.length, cut.path, "sha256:other")])).toBe(cut);
    expect(cutLess(cut, [])).toBe(cut);
  });

  it("what is left keeps its place, in runs a paste may still take", () => {
    const long = ["export function first(a: number): number {", "  return a * 2;", "}", "export function second(b: number): number {", "  return b * 3;", "}"];
    const cut: Cut = { path: "src/a.ts", hash: "sha256:a", blocks: [{ start: 4, lines: long }], at: NOW };
    // the first function given back: the second stays, at line 7 of the content before the cut
    expect(cutLess(cut, [claimedFrom(cut, 4, 3)])).toEqual({ ...cut, blocks: [{ start: 7, lines: long.slice(3) }] });
    // a line in the middle given back: the run above is still a block, the two lines below are too short to be one
    expect(cutLess(cut, [claimedFrom(cut, 7, 1)])?.blocks).toEqual([{ start: 4, lines: long.slice(0, 3) }]);
  });
});
