import { describe, expect, it } from "vitest";
import { parseUnifiedDiff } from "../../server/src/io/git";
import { gateShell } from "../../server/src/engine/agent/shellPolicy";
import { undoEdits } from "../../server/src/io/agent/agentWrite";
import { changedSpans, diffTexts } from "../../server/src/engine/lineChange";
import { normalizeModelId } from "../../server/src/engine/contributor";

/** The pure pieces under the CLI, on inputs the end-to-end tests do not reach. */

/** 1-based numbers of the lines of `after` a record of the write would claim. */
function changedLineNumbers(before: string | null, after: string): number[] {
  return changedSpans(diffTexts(before, after)).flatMap((s) => Array.from({ length: s.end - s.start + 1 }, (_, k) => s.start + k + 1));
}

describe("parseUnifiedDiff", () => {
  it("reads added, changed, deleted, renamed, binary and oddly named files", () => {
    const diff = [
      "diff --git a/my file.txt b/my file.txt",
      "index de98044..a7bc997 100644",
      "--- a/my file.txt\t",
      "+++ b/my file.txt\t",
      "@@ -2 +2 @@ a",
      "-b",
      "+B",
      "@@ -3,0 +4,2 @@ c",
      "+++ b/not-a-header",
      "+d",
      "diff --git a/gone.txt b/gone.txt",
      "deleted file mode 100644",
      "--- a/gone.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-x",
      "diff --git a/bin.dat b/bin.dat",
      "Binary files a/bin.dat and b/bin.dat differ",
      "diff --git a/old.ts b/new.ts",
      "similarity index 90%",
      "rename from old.ts",
      "rename to new.ts",
      "--- a/old.ts",
      "+++ b/new.ts",
      "@@ -5,2 +5,3 @@",
      "-a",
      "-b",
      "+a",
      "+b2",
      "+c",
      'diff --git "a/tab\\there.txt" "b/tab\\there.txt"',
      "new file mode 100644",
      "--- /dev/null",
      '+++ "b/tab\\there.txt"',
      "@@ -0,0 +1 @@",
      "+hi",
      "\\ No newline at end of file",
      "",
    ].join("\n");
    expect(parseUnifiedDiff(diff)).toEqual([
      { path: "my file.txt", status: "modified", binary: false, lines: [2, 4, 5] },
      { path: "gone.txt", status: "deleted", binary: false, lines: [] },
      { path: "bin.dat", status: "modified", binary: true, lines: [] },
      { path: "new.ts", status: "renamed", binary: false, lines: [5, 6, 7] },
      { path: "tab\there.txt", status: "added", binary: false, lines: [1] },
    ]);
  });
});

describe("the lines a write produced", () => {
  it("diffs as the hashes see lines: CRLF and trailing blanks are not changes, a final newline is not a line", () => {
    expect(changedLineNumbers("a\nb\nc\n", "a\nB\nc\nd\n")).toEqual([2, 4]);
    expect(changedLineNumbers("a\r\nb  \r\n", "a\nb\n")).toEqual([]);
    expect(changedLineNumbers(null, "x\ny\n")).toEqual([1, 2]);
    expect(changedLineNumbers("a\nb\nc\n", "a\nc\n")).toEqual([]);
  });

  it("undoes string edits only when the undo is unambiguous", () => {
    expect(undoEdits("one TWO three", [{ old_string: "two", new_string: "TWO" }])).toBe("one two three");
    expect(undoEdits("x y x", [{ old_string: "a", new_string: "x" }])).toBeUndefined(); // which x?
    // replace_all: an x that was there before looks like a new one, so the undo is not attempted
    expect(undoEdits("x y x", [{ old_string: "a", new_string: "x", replace_all: true }])).toBeUndefined();
    expect(undoEdits("A then B", [{ old_string: "a", new_string: "A" }, { old_string: "b", new_string: "B" }])).toBe("a then b");
    expect(undoEdits("abc", [{ old_string: "gone", new_string: "" }])).toBeUndefined(); // a deletion leaves nothing to find
  });

  it("names models the models.dev way", () => {
    expect(normalizeModelId("claude-sonnet-4-5", "anthropic")).toBe("anthropic/claude-sonnet-4-5");
    expect(normalizeModelId("gpt-5")).toBe("openai/gpt-5");
    expect(normalizeModelId("openrouter/some-model")).toBe("openrouter/some-model");
    expect(normalizeModelId("<synthetic>", "anthropic")).toBeUndefined();
    expect(normalizeModelId("auto")).toBeUndefined();
  });
});

describe("the shell policy", () => {
  const asks = (c: string) => gateShell(c).kind === "ask";
  it("asks about commands that write or delete files", () => {
    for (const c of ["rm -f a", "echo hi >> notes.md", "cat a | tee b", "cp a b", "mv a b", "sed -i.bak s/a/b/ f", "git reset --hard", "git clean -fd", "npx prettier --write .", "tar -xzf x.tgz", "python -c \"open('f','w').write('x')\"", "cd src && touch new.ts"]) {
      expect(asks(c), c).toBe(true);
    }
  });
  it("leaves reading commands alone", () => {
    for (const c of ["ls", "git log --oneline -5", "npm test 2>&1", "grep -rn foo src >/dev/null", "cat a.ts | wc -l", "node -e 'x => x >= 1'", "git diff HEAD~1"]) {
      expect(asks(c), c).toBe(false);
    }
  });
});
