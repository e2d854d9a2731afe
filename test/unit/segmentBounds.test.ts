import { describe, expect, it } from "vitest";
import { countLinesUpTo, declaredLinesProblem, SEGMENT_MAX_LINES } from "../../server/src/engine/ledger/segmentBounds";
import { encodeSegment, SegmentTooLargeError } from "../../server/src/io/ledger/segments";

describe("what a segment may expand to", () => {
  it("counts a text's lines no further than one past what the header declares", () => {
    const text = Buffer.from("x\n".repeat(2_000_000));
    expect(countLinesUpTo(text, 10)).toBe(11);
    expect(countLinesUpTo(text, 1_999_999)).toBe(2_000_000);
    expect(countLinesUpTo(text, 2_000_000)).toBe(2_000_000);
    expect(countLinesUpTo(Buffer.from("a\nb"), 5)).toBe(2);
  });

  it("holds at most SEGMENT_MAX_LINES lines, and an encoder never writes more", () => {
    expect(declaredLinesProblem(SEGMENT_MAX_LINES)).toBeUndefined();
    expect(declaredLinesProblem(SEGMENT_MAX_LINES + 1)).toBe("its header declares 1000001 lines, more than a segment may hold (1000000)");
    const lines = new Array<Buffer>(SEGMENT_MAX_LINES + 1).fill(Buffer.alloc(0));
    expect(() => encodeSegment(lines, null, null, null)).toThrow(SegmentTooLargeError);
  });
});
