import { describe, expect, it } from "vitest";
import { EditedLines } from "../../server/src/engine/editedLines";

/** A document as an editor holds it, applying LSP-style range edits and feeding the tracker. */
class Doc {
  lines: string[];
  tracker: EditedLines;
  constructor(text: string) {
    this.lines = text.split("\n");
    this.tracker = new EditedLines(this.lines.slice());
  }
  edit(sl: number, sc: number, el: number, ec: number, text: string) {
    const head = this.lines[sl].slice(0, sc);
    const tail = this.lines[el].slice(ec);
    const inserted = (head + text + tail).split("\n");
    this.lines.splice(sl, el - sl + 1, ...inserted);
    this.tracker.replace(sl, el, inserted.length, (i) => this.lines[i]);
    expect(this.tracker.lineCount).toBe(this.lines.length);
  }
  blocks() {
    return this.tracker.blocks().map((b) => [b.start, b.end]);
  }
}

const twenty = `${Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

describe("EditedLines", () => {
  it("currentBlocks: where baseline lines are now, edited ones left out", () => {
    const d = new Doc(twenty);
    d.edit(0, 0, 0, 0, "new first\n"); // everything moves down one
    d.edit(6, 0, 6, 7, "changed"); // baseline line 5 (0-based) is edited
    expect(d.tracker.currentBlocks(3, 7).map((b) => [b.start, b.end])).toEqual([
      [4, 5],
      [7, 8],
    ]);
    expect(d.tracker.currentBlocks(5, 5)).toEqual([]);
    expect(d.tracker.currentBlocks(19, 30).map((b) => [b.start, b.end])).toEqual([[20, 21]]); // the last line and the empty one after the final newline
  });

  it("marks exactly the edited line", () => {
    const d = new Doc(twenty);
    d.edit(9, 0, 9, 7, "changed");
    expect(d.blocks()).toEqual([[9, 9]]);
  });

  it("moves the edited line down when lines are inserted above, and marks the inserted lines", () => {
    const d = new Doc(twenty);
    d.edit(9, 0, 9, 7, "changed");
    d.edit(2, 0, 2, 0, "a\nb\nc\nd\ne\n");
    expect(d.blocks()).toEqual([
      [2, 6],
      [14, 14],
    ]);
    expect(d.tracker.origin(7)).toBe(2);
    expect(d.tracker.origin(15)).toBe(10);
  });

  it("forgets edits that are undone back to the baseline text", () => {
    const d = new Doc(twenty);
    d.edit(9, 0, 9, 7, "changed");
    d.edit(2, 0, 2, 0, "a\nb\nc\nd\ne\n");
    d.edit(2, 0, 7, 0, ""); // delete the five inserted lines
    expect(d.blocks()).toEqual([[9, 9]]);
    d.edit(9, 0, 9, 7, "line 10");
    expect(d.blocks()).toEqual([]);
    expect(d.tracker.origin(9)).toBe(9);
  });

  it("treats typing a character and deleting it as no edit", () => {
    const d = new Doc(twenty);
    d.edit(4, 3, 4, 3, "x");
    expect(d.blocks()).toEqual([[4, 4]]);
    d.edit(4, 3, 4, 4, "");
    expect(d.blocks()).toEqual([]);
  });

  it("handles deletions of whole lines: no line is edited but the join point", () => {
    const d = new Doc(twenty);
    d.edit(3, 0, 6, 0, ""); // remove lines 4..6
    expect(d.blocks()).toEqual([]);
    expect(d.tracker.origin(3)).toBe(6);
    d.edit(3, 0, 3, 0, "line 4\nline 5\nline 6\n");
    expect(d.blocks()).toEqual([]);
    expect(d.tracker.origin(19)).toBe(19);
  });

  it("keeps separate blocks separate and merges touching ones", () => {
    const d = new Doc(twenty);
    d.edit(1, 0, 1, 0, "X");
    d.edit(5, 0, 5, 0, "Y");
    d.edit(2, 0, 2, 0, "Z");
    expect(d.blocks()).toEqual([
      [1, 2],
      [5, 5],
    ]);
  });

  it("does work proportional to the runs, not the document", () => {
    const big = Array.from({ length: 200_000 }, (_, i) => `l${i}`);
    const d = new Doc(big.join("\n"));
    let reads = 0;
    const lineAt = (i: number) => {
      reads++;
      return d.lines[i];
    };
    d.lines[100_000] = "edited";
    d.tracker.replace(100_000, 100_000, 1, lineAt);
    expect(reads).toBeLessThan(5);
    expect(d.blocks()).toEqual([[100_000, 100_000]]);
  });
});
