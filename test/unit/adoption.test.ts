import { describe, expect, it } from "vitest";
import { adoptionText, keptSinceAdoption, parseAdoption, parseBlamePorcelain, unexplainedRuns, type GitAuthor } from "../../server/src/engine/adoption";
import { blame } from "../../server/src/engine/blame";
import { runsOf } from "../../server/src/engine/insight";

const SHA = "a".repeat(40);
const ADA: GitAuthor = { name: "Ada Lovelace", date: "2024-05-01T10:00:00.000Z", commit: "b".repeat(40) };

describe("the adoption file", () => {
  it("reads what init writes", () => {
    const a = { commit: SHA, date: "2026-11-29T10:00:00.000Z" };
    expect(parseAdoption(adoptionText(a))).toEqual(a);
  });

  it.each([
    ["{ not json", /^it is not JSON \(.+\); run `intent init` to write it again after removing it$/],
    ["[]", /^it must be one object/],
    ["null", /^it must be one object/],
    [JSON.stringify({ commit: "HEAD", date: "2026-11-29" }), /^"commit" must be a full commit name/],
    [JSON.stringify({ commit: SHA.toUpperCase(), date: "2026-11-29" }), /^"commit" must be a full commit name/],
    [JSON.stringify({ commit: `${SHA}0`, date: "2026-11-29" }), /^"commit" must be a full commit name/],
    [JSON.stringify({ commit: SHA, date: "yesterday" }), /^"date" must be an ISO 8601 time$/],
    [JSON.stringify({ commit: SHA }), /^"date" must be an ISO 8601 time$/],
  ])("refuses %s, saying what is wrong", (text, why) => {
    const r = parseAdoption(text);
    expect("problem" in r && r.problem).toMatch(why);
  });

  it("takes a SHA-256 repository's commit names", () => {
    expect(parseAdoption(JSON.stringify({ commit: "c".repeat(64), date: "2026-11-29" }))).toEqual({ commit: "c".repeat(64), date: "2026-11-29" });
  });
});

describe("the lines kept since the adoption point", () => {
  it.each([
    ["nothing changed", "a\nb\nc\n", "a\nb\nc\n", [1, 2, 3]],
    ["a line changed", "a\nb\nc\n", "a\nB\nc\n", [1, undefined, 3]],
    ["a line inserted above", "a\nb\n", "new\na\nb\n", [undefined, 1, 2]],
    ["a line removed", "a\nb\nc\n", "a\nc\n", [1, 3]],
    ["re-indented: still the line it was", "if (x) {\n  y();\n}\n", "if (x) {\n    y();\n}\n", [1, 2, 3]],
    ["a new file", "", "a\nb\n", [undefined, undefined]],
    ["emptied", "a\n", "", []],
  ])("%s", (_, then, now, lines) => {
    expect(keptSinceAdoption(then, now).map((k) => k?.line)).toEqual(lines);
  });

  it("carries git's author of each kept line, by its line at the adoption commit", () => {
    const grace: GitAuthor = { ...ADA, name: "Grace Hopper" };
    const kept = keptSinceAdoption("a\nb\n", "new\na\nb\n", [ADA, grace]);
    expect(kept).toEqual([undefined, { line: 1, author: ADA }, { line: 2, author: grace }]);
  });

  it("splits a file's unexplained lines into runs before adoption and untraced", () => {
    const kept = keptSinceAdoption("a\nb\nc\nd\n", "a\nX\nY\nd\n");
    expect(unexplainedRuns(1, 4, kept)).toEqual([
      { start: 1, end: 1, author: "beforeAdoption" },
      { start: 2, end: 3, author: "untraced" },
      { start: 4, end: 4, author: "beforeAdoption" },
    ]);
    expect(unexplainedRuns(1, 2, [])).toEqual([{ start: 1, end: 2, author: "untraced" }]);
  });

  it("blame names a kept line before adoption only where no record explains it; the runs count it so", () => {
    const rows = blame([], "a\nX\n", {}, "f.ts", keptSinceAdoption("a\nb\n", "a\nX\n", [ADA, ADA]));
    expect(rows).toEqual([
      { line: 1, kind: "beforeAdoption", author: "beforeAdoption", git: ADA, text: "a" },
      { line: 2, kind: "untraced", author: "untraced", confidence: "untraced", text: "X" },
    ]);
    expect(runsOf(rows).map((r) => [r.start, r.end, r.author])).toEqual([
      [1, 1, "beforeAdoption"],
      [2, 2, "untraced"],
    ]);
  });
});

describe("git blame --porcelain, read", () => {
  const sha1 = "1".repeat(40);
  const sha2 = "2".repeat(40);
  const porcelain = [
    `${sha1} 1 1 2`,
    "author Ada Lovelace",
    "author-mail <ada@example.com>",
    "author-time 1714557600",
    "author-tz +0000",
    "summary first",
    "filename f.ts",
    "\tline one",
    `${sha1} 2 2`,
    "\tline two",
    `${sha2} 3 3 1`,
    "author Grace Hopper",
    "author-time 1740909600",
    "filename f.ts",
    "\tline three",
    "",
  ].join("\n");

  it("gives each line its commit's author and author time, once per commit", () => {
    expect(parseBlamePorcelain(porcelain)).toEqual([
      { name: "Ada Lovelace", date: "2024-05-01T10:00:00.000Z", commit: sha1 },
      { name: "Ada Lovelace", date: "2024-05-01T10:00:00.000Z", commit: sha1 },
      { name: "Grace Hopper", date: "2025-03-02T10:00:00.000Z", commit: sha2 },
    ]);
  });

  it.each([
    ["a line of text before any header", "\tline"],
    ["a header cut off before its line", `${sha1} 1 1 1\nauthor A\nauthor-time 1`],
    ["not porcelain at all", "fatal: no such path"],
  ])("gives nothing for %s (no author guessed)", (_, text) => {
    expect(parseBlamePorcelain(text)).toBeUndefined();
  });
});
