import { describe, expect, it } from "vitest";
import { changedSpans } from "../../server/src/engine/lineChange";
import { TrackedDocument } from "../../server/src/lsp/documents";
import { TextBuffer } from "../../server/src/lsp/textBuffer";

/** A save taken when didSave arrives and made the baseline later: edits made in between stay edits. */
describe("TrackedDocument saves being handled", () => {
  const text = `${Array.from({ length: 10 }, (_, i) => `line ${i}`).join("\n")}\n`;
  const setLine = (doc: TrackedDocument, line: number, value: string, version: number) =>
    doc.applyChanges([{ range: { start: { line, character: 0 }, end: { line, character: doc.lineText(line).length } }, text: value }], version);
  const edited = (doc: TrackedDocument) => Array.from({ length: doc.doc.lineCount }, (_, l) => l).filter((l) => doc.owner(l).kind === "edited");

  it("two saves in flight: each records its own lines, and the edits after each stay edits", () => {
    const doc = new TrackedDocument(new TextBuffer("untitled:big", "plaintext", 1, text), undefined, undefined);
    setLine(doc, 2, "two", 2);
    const first = doc.beginSave();
    setLine(doc, 5, "five", 3);
    const second = doc.beginSave();
    setLine(doc, 7, "seven", 4);
    expect(changedSpans(first.change)).toEqual([{ start: 2, end: 2 }]);
    expect(changedSpans(second.change)).toEqual([{ start: 5, end: 5 }]);
    expect(second.before).toBe(first.text);
    expect(first.text.split("\n")[5]).toBe("line 5");

    doc.saved(first, undefined);
    expect(doc.baseline).toBe(first.text);
    expect(edited(doc)).toEqual([5, 7]);
    doc.saved(second, undefined);
    expect(doc.baseline).toBe(second.text);
    expect(edited(doc)).toEqual([7]);
  });
});
