import { describe, expect, it } from "vitest";
import { TextDocument } from "vscode-languageserver-textdocument";
import { splitLines } from "../../server/src/engine/hashing";
import { TextBuffer } from "../../server/src/lsp/textBuffer";

/** The line buffer must read back exactly what `TextDocument` (the reference model) holds after the same edits. */

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const PIECES = ["a", "bc", "\n", "\r\n", "\r", "", "é", "😀", "\n\n", "x\ry", "  ", "\r\r\n"];

describe("TextBuffer", () => {
  it("agrees with TextDocument over 3,000 random edits (CR, LF, CRLF, reversed and past-the-end ranges, surrogate pairs)", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const r = rng(seed);
      const pick = () => PIECES[Math.floor(r() * PIECES.length)]!;
      let text = Array.from({ length: 8 }, pick).join("");
      let ref = TextDocument.create("file:///t", "plaintext", 0, text);
      const buf = new TextBuffer("file:///t", "plaintext", 0, text);
      for (let k = 0; k < 100; k++) {
        const pos = () => ({ line: Math.floor(r() * (ref.lineCount + 2)), character: Math.floor(r() * 6) });
        const range = { start: pos(), end: pos() }; // often reversed or past the end
        const insert = Array.from({ length: Math.floor(r() * 3) }, pick).join("");
        ref = TextDocument.update(ref, [{ range, text: insert }], k + 1);
        buf.replace(buf.clamp(range.start), buf.clamp(range.end), insert);
        text = ref.getText();
        expect(buf.getText(), `seed ${seed} step ${k}`).toBe(text);
        expect(buf.length).toBe(text.length);
        // lines as the text itself splits them: TextDocument's incremental line offsets can count a CR and
        // an LF brought together by an edit as two breaks, so the recount is the reference
        ref = TextDocument.create("file:///t", "plaintext", k + 1, text);
        expect(buf.lineCount).toBe(ref.lineCount);
        for (let l = 0; l < ref.lineCount; l++) {
          expect(buf.lineText(l)).toBe(ref.getText({ start: { line: l, character: 0 }, end: { line: l + 1, character: 0 } }).replace(/(\r\n|\r|\n)$/, ""));
        }
      }
    }
  });

  it("its lines are the text's splitLines, with or without a CR, and a copy of them stays as taken while the buffer is edited", () => {
    const LF_ONLY = PIECES.filter((p) => !p.includes("\r"));
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed);
      const pieces = seed % 2 ? LF_ONLY : PIECES;
      const text = Array.from({ length: 1 + Math.floor(r() * 30) }, () => pieces[Math.floor(r() * pieces.length)]!).join("");
      const buf = new TextBuffer("file:///t", "plaintext", 0, text);
      const lines = buf.copyLines();
      expect(lines, JSON.stringify(text)).toEqual(splitLines(text));
      expect(buf.getText()).toBe(text);
      expect(buf.getText({ start: { line: 0, character: 0 }, end: { line: lines.length, character: 0 } })).toBe(text);
      buf.replace(buf.clamp({ line: 0, character: 0 }), buf.clamp({ line: buf.lineCount, character: 0 }), "changed\n");
      expect(buf.getText()).toBe("changed\n");
      expect(lines).toEqual(splitLines(text));
    }
    // the terminators read back: a text without a CR ends each line but the last with LF
    const buf = new TextBuffer("file:///t", "plaintext", 0, "a\n\nb\n");
    expect([buf.lineCount, buf.lineText(0), buf.lineText(1), buf.lineText(2), buf.lineText(3)]).toEqual([4, "a", "", "b", ""]);
    expect(buf.getText({ start: { line: 1, character: 0 }, end: { line: 3, character: 0 } })).toBe("\nb\n");
  });

  it("reads ranges and offsets as TextDocument does", () => {
    const text = "one\r\ntwo\nthree\rfour";
    const ref = TextDocument.create("file:///t", "plaintext", 0, text);
    const buf = new TextBuffer("file:///t", "plaintext", 0, text);
    for (const range of [
      { start: { line: 0, character: 1 }, end: { line: 2, character: 3 } },
      { start: { line: 1, character: 9 }, end: { line: 9, character: 0 } },
      { start: { line: 3, character: 0 }, end: { line: 3, character: 2 } },
    ]) {
      expect(buf.getText(range)).toBe(ref.getText(range));
      expect(buf.offsetAt(range.start)).toBe(ref.offsetAt(range.start));
    }
  });

  it("a snapshot reads back the text as it was taken, joined at once or in slices, whatever is typed after it", async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const r = rng(seed);
      const pick = () => PIECES[Math.floor(r() * PIECES.length)]!;
      const text = Array.from({ length: 40 }, pick).join("");
      for (const sliced of [false, true]) {
        const buf = new TextBuffer("file:///t", "plaintext", 0, text);
        buf.replace({ line: 0, character: 0 }, { line: 0, character: 0 }, pick()); // the buffer's text is no longer joined
        const taken = buf.getText();
        buf.replace({ line: 0, character: 0 }, { line: 0, character: 0 }, "x"); // drop the joined text again
        buf.replace({ line: 0, character: 0 }, { line: 0, character: 1 }, ""); // back to `taken`, not joined
        const snap = buf.snapshot();
        buf.replace({ line: 1, character: 0 }, { line: 1, character: 0 }, "typed\r\n"); // typing after the save
        const now = buf.getText();
        let pauses = 0;
        if (sliced)
          await snap.prepare(3, async () => {
            pauses++;
          });
        expect(snap.text, `seed ${seed}`).toBe(taken);
        expect(snap.length).toBe(taken.length);
        if (sliced) expect(pauses).toBe(Math.ceil(snap.lines.length / 3));
        // the snapshot's text is not taken for the buffer's, which moved on
        expect(buf.getText()).toBe(now);
      }
    }
  });
});
