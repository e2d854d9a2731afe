import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flaggedPaths, flaggedToDiff } from "../../server/src/io/flaggedFiles";

/** The flagged entries of `git ls-files -v -z` (io/flaggedFiles.ts); what git says of them is test/cli/flaggedFiles.test.ts's. */
describe("flagged files", () => {
  it("reads assume-unchanged (lower case) and skip-worktree (S, s) entries of `git ls-files -v -z`", () => {
    expect(flaggedPaths("H src/a.ts\0h src/b.ts\0S src/c.ts\0s src/d.ts\0M src/e.ts\0? x\0")).toEqual(["src/b.ts", "src/c.ts", "src/d.ts"]);
    expect(flaggedPaths("")).toEqual([]);
  });

  it("diffs every flagged file but a skip-worktree one a sparse checkout left out", () => {
    const root = mkdtempSync(join(tmpdir(), "flagged-"));
    try {
      writeFileSync(join(root, "here.ts"), "x\n");
      writeFileSync(join(root, "kept.ts"), "x\n");
      expect(flaggedToDiff(root, "h gone.ts\0S here.ts\0S absent.ts\0s kept.ts\0H plain.ts\0")).toEqual(["gone.ts", "here.ts", "kept.ts"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
