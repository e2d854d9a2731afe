import { describe, expect, it } from "vitest";
import { copiedAlong, joinMoved, spansLess } from "../../server/src/engine/agent/copies";
import type { BlockSource, MovedLines } from "../../server/src/engine/lineage";

/** Blocks an agent copied from a file it took a cut block from (engine/agent/copies.ts). */

const IMPORTS = ["from werkzeug.exceptions import default_exceptions", "from werkzeug.exceptions import HTTPException"];
const MOVED = ["    def register_error_handler(self, code_or_exception, f):", '        """Alternative error attach function."""'];
const APP_BEFORE = ["import os", ...IMPORTS, "", "class Flask:", ...MOVED, "    pass"];
const SCAFFOLD = ["# base class", ...IMPORTS, "", ...MOVED];
const app: BlockSource = { path: "src/app.py", hash: "sha256:app-before", lines: APP_BEFORE };
// the write took MOVED (scaffold lines 5-6) from app.py's cut
const taken: MovedLines[] = [{ from: "src/app.py", preHash: "sha256:app-before", runs: [{ oldStart: 5, newStart: 4, length: 2 }] }];
const whole = (source: BlockSource | undefined) => (path: string, hash: string) =>
  source && source.path === path && source.hash === hash ? source : undefined;

describe("copiedAlong: blocks copied from the file a cut block came from", () => {
  it("a block of the written lines the cut file holds keeps its owners there, numbered in that content", () => {
    // the imports and the blank line after them, as app.py holds them
    expect(copiedAlong(SCAFFOLD, [{ start: 0, end: 5 }], taken, whole(app))).toEqual([
      { from: "src/app.py", preHash: "sha256:app-before", runs: [{ oldStart: 1, newStart: 1, length: 3 }] },
    ]);
  });

  it("nothing without a cut block from that file, or without its whole content at hand", () => {
    expect(copiedAlong(SCAFFOLD, [{ start: 0, end: 5 }], [], whole(app))).toEqual([]);
    expect(copiedAlong(SCAFFOLD, [{ start: 0, end: 5 }], taken, whole(undefined))).toEqual([]);
    expect(copiedAlong(SCAFFOLD, [{ start: 0, end: 5 }], taken, undefined)).toEqual([]);
  });

  it("only the written lines the cut did not explain: a cut block is not matched twice", () => {
    const all: MovedLines[] = [{ ...taken[0]!, runs: [{ oldStart: 1, newStart: 1, length: 2 }, ...taken[0]!.runs] }];
    expect(copiedAlong(SCAFFOLD, [{ start: 0, end: 5 }], all, whole(app))).toEqual([]);
  });

  it("a block the written file held before is the writer's own, even when the cut file holds it too", () => {
    const own: BlockSource = { path: "src/scaffold.py", hash: "", lines: [...IMPORTS, ""] };
    expect(copiedAlong(SCAFFOLD, [{ start: 0, end: 5 }], taken, whole(app), own)).toEqual([]);
  });

  it("a block below git's copy score is new text where it lands", () => {
    const short = ["import os", "import re"];
    const source: BlockSource = { ...app, lines: [...short, ...APP_BEFORE] };
    expect(copiedAlong([...short, "", ...MOVED], [{ start: 0, end: 4 }], taken, whole(source))).toEqual([]);
  });
});

describe("spansLess and joinMoved", () => {
  it("spansLess leaves the lines no block covers, split where a block sits", () => {
    const runs: MovedLines[] = [{ from: "a", preHash: "h", runs: [{ oldStart: 0, newStart: 3, length: 2 }] }];
    expect(spansLess([{ start: 0, end: 9 }], runs)).toEqual([
      { start: 0, end: 2 },
      { start: 5, end: 9 },
    ]);
    expect(spansLess([{ start: 3, end: 4 }], runs)).toEqual([]);
  });

  it("joinMoved puts blocks from the same content of the same file in one entry, in line order", () => {
    const cut: MovedLines = { from: "a", preHash: "h1", runs: [{ oldStart: 9, newStart: 5, length: 2 }] };
    const copy: MovedLines = { from: "a", preHash: "h1", runs: [{ oldStart: 1, newStart: 1, length: 2 }] };
    const other: MovedLines = { from: "a", preHash: "h2", runs: [{ oldStart: 0, newStart: 8, length: 2 }] };
    expect(joinMoved([cut], [copy, other])).toEqual([
      {
        from: "a",
        preHash: "h1",
        runs: [
          { oldStart: 1, newStart: 1, length: 2 },
          { oldStart: 9, newStart: 5, length: 2 },
        ],
      },
      other,
    ]);
    // the inputs are left as they were
    expect(cut.runs).toHaveLength(1);
  });
});
