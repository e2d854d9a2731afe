import { describe, expect, it } from "vitest";
import { candidatePaths, type PathRecords } from "../../server/src/engine/revertCandidates";
import { prng } from "../support/protocolFuzz";

/**
 * The files `intent revert` looks in (engine/revertCandidates.ts), held to the definition read plainly: start
 * from the selected paths, then add every path whose records took content from a path already found and every
 * path a found one was renamed to, over and over until a whole round adds nothing.
 */
function byRounds(records: ReadonlyMap<string, PathRecords>, renames: readonly (readonly [string, string])[]): Set<string> {
  const found = new Set([...records].filter(([, r]) => r.selected).map(([p]) => p));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, r] of records) {
      if (!found.has(p) && r.from.some((f) => found.has(f))) {
        found.add(p);
        grew = true;
      }
    }
    for (const [from, to] of renames) {
      if (found.has(from) && !found.has(to)) {
        found.add(to);
        grew = true;
      }
    }
  }
  return found;
}

const sorted = (s: Set<string>) => [...s].sort();

describe("candidatePaths", () => {
  it("follows moves and renames in turn, however long the chain, and nothing else", () => {
    const records = new Map<string, PathRecords>([
      ["a.ts", { selected: true, from: [] }],
      ["b.ts", { selected: false, from: ["a.ts"] }],
      // content from b's renamed path, whose rename no record names
      ["d.ts", { selected: false, from: ["c.ts"] }],
      ["e.ts", { selected: false, from: ["elsewhere.ts"] }],
      // renamed to a: reaching a does not reach the path it was renamed from
      ["f.ts", { selected: false, from: [] }],
    ]);
    const renames: [string, string][] = [
      ["b.ts", "c.ts"],
      ["f.ts", "a.ts"],
    ];
    expect(sorted(candidatePaths(records, renames))).toEqual(["a.ts", "b.ts", "c.ts", "d.ts"]);
    expect(sorted(candidatePaths(records, []))).toEqual(["a.ts", "b.ts"]);
    expect(candidatePaths(new Map([["x.ts", { selected: false, from: [] }]]), [["x.ts", "y.ts"]]).size).toBe(0);
  });

  it("finds what rounds of the plain definition find, on 500 random ledgers", () => {
    const random = prng(42);
    for (let n = 0; n < 500; n++) {
      const count = 1 + Math.floor(random() * 30);
      const path = () => `p${Math.floor(random() * (count + 5))}.ts`; // some named by no record
      const records = new Map<string, PathRecords>();
      for (let i = 0; i < count; i++) {
        const from = Array.from({ length: Math.floor(random() * 3) }, path);
        records.set(`p${i}.ts`, { selected: random() < 0.1, from });
      }
      const renames = Array.from({ length: Math.floor(random() * 6) }, () => [path(), path()] as const);
      expect(sorted(candidatePaths(records, renames)), `case ${n}`).toEqual(sorted(byRounds(records, renames)));
    }
  });
});
