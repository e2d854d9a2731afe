import { describe, expect, it } from "vitest";
import { confidenceOf } from "../../server/src/engine/confidence";
import type { TraceEntry } from "../../server/src/engine/ledger/read";

/** How sure each kind of match is (docs/LEDGER.md "How sure: confidence"). */

const entry = (e: Partial<TraceEntry> = {}) => ({ path: "src/a.ts", postHash: "sha256:now", ...e }) as TraceEntry;

describe("confidenceOf", () => {
  it("a record's own range in the content it pins is exact; carried through later records' maps, replayed", () => {
    expect(confidenceOf({ entry: entry(), anchor: "carried" }, "src/a.ts", "sha256:now")).toBe("exact");
    expect(confidenceOf({ entry: entry({ postHash: "sha256:before" }), anchor: "carried" }, "src/a.ts", "sha256:now")).toBe("replayed");
  });

  it("a range or a whole file whose hash matches is exact; found by content or placed by position, inferred", () => {
    expect(confidenceOf({ entry: entry({ postHash: "sha256:old" }), anchor: "range" }, "src/a.ts", "sha256:now")).toBe("exact");
    expect(confidenceOf({ entry: entry(), anchor: "file" }, "src/a.ts", "sha256:now")).toBe("exact");
    for (const anchor of ["moved", "line", "position"] as const)
      expect(confidenceOf({ entry: entry(), anchor }, "src/a.ts", "sha256:now"), anchor).toBe("inferred");
  });

  it("written in another path: moved when the move was recorded, inferred when found by content or git", () => {
    const there = entry({ path: "src/old.ts" });
    expect(confidenceOf({ entry: there, anchor: "carried", movedBy: entry() }, "src/a.ts", "sha256:now")).toBe("moved");
    expect(confidenceOf({ entry: there, anchor: "carried" }, "src/a.ts", "sha256:now")).toBe("inferred");
  });
});
