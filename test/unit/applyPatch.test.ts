import { describe, expect, it } from "vitest";
import { applyPatchFiles } from "../../server/src/engine/agent/applyPatch";

/**
 * The files of a Codex apply_patch envelope, as Codex's own parser (codex-rs/apply-patch/src/parser.rs,
 * lenient mode) reads them: each expectation is the list of hunk paths (a move's destination after its
 * source) that parser returns for the same text, or undefined where it rejects the patch.
 */
describe("applyPatchFiles (Codex apply_patch)", () => {
  it("every file the patch adds, updates, deletes or moves to, once each, in order", () => {
    const patch =
      "*** Begin Patch\n*** Add File: src/a.ts\n+x\n*** Update File: src/b.ts\n*** Move to: src/c.ts\n@@\n-y\n+z\n*** Delete File: src/d.ts\n*** Update File: src/a.ts\n@@\n-x\n+w\n*** End Patch\n";
    expect(applyPatchFiles(patch)).toEqual(["src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts"]);
  });

  it("an indented header after an added file or a deletion is a header (Codex trims header lines)", () => {
    expect(applyPatchFiles("*** Begin Patch\n*** Add File: src/api/new.ts\n+x\n  *** Update File: docs/notes.md\n@@\n-a\n+b\n*** End Patch")).toEqual([
      "src/api/new.ts",
      "docs/notes.md",
    ]);
    expect(applyPatchFiles("*** Begin Patch\n*** Delete File: src/old.ts\n\t*** Add File:  docs/x.md \n+y\n*** End Patch")).toEqual([
      "src/old.ts",
      " docs/x.md",
    ]);
  });

  it("markers padded with whitespace, CRLF line ends and a heredoc around the envelope are read as Codex reads them", () => {
    expect(
      applyPatchFiles(
        "  *** Begin Patch  \r\n *** Update File: a.py \r\n@@ def f():\r\n-    pass\r\n+    return 1\r\n*** End of File\r\n   *** End Patch   \r\n",
      ),
    ).toEqual(["a.py"]);
    expect(applyPatchFiles("<<'EOF'\n*** Begin Patch\n*** Add File: b.txt\n+hi\n*** End Patch\nEOF\n")).toEqual(["b.txt"]);
  });

  it("inside an Update, an indented header is a context line and an indented Move to is no move", () => {
    // " *** Update File: b.ts" starts with a space: one more context line of a.ts's chunk
    expect(applyPatchFiles("*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+y\n *** Update File: b.ts\n*** End Patch")).toEqual(["a.ts"]);
    // the move marker counts only at the start of the line right after the Update header
    expect(applyPatchFiles("*** Begin Patch\n*** Update File: a.ts\n  *** Move to: b.ts\n@@\n-x\n+y\n*** End Patch")).toEqual(["a.ts"]);
  });

  it("what Codex rejects is unreadable; an envelope with no file names none", () => {
    expect(applyPatchFiles("not a patch")).toBeUndefined();
    expect(applyPatchFiles("*** Begin Patch\n*** Update File: a.ts\n*** End Patch")).toBeUndefined(); // an empty Update
    expect(applyPatchFiles("*** Begin Patch\n*** Frobnicate File: a.ts\n*** End Patch")).toBeUndefined();
    expect(applyPatchFiles("*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+y\n\t*** Add File: b.ts\n+z\n*** End Patch")).toBeUndefined(); // a tab ends the chunk, then no @@
    expect(applyPatchFiles("*** Begin Patch\n*** Add File: a.ts\n+x\n")).toBeUndefined(); // no end marker
    expect(applyPatchFiles("*** Begin Patch\n*** End Patch\n")).toEqual([]);
  });

  it("Codex's own parser test patches give Codex's files", () => {
    expect(
      applyPatchFiles(
        "*** Begin Patch\n*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123\n*** End Patch",
      ),
    ).toEqual(["path/add.py", "path/delete.py", "path/update.py", "path/update2.py"]);
    expect(applyPatchFiles("*** Begin Patch\n*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content\n*** End Patch")).toEqual([
      "file.py",
      "other.py",
    ]);
    expect(applyPatchFiles("*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch")).toEqual(["file2.py"]);
    expect(applyPatchFiles("*** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch")).toEqual(["foo"]);
  });
});
