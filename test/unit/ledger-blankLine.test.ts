import { describe, expect, it } from "vitest";
import { isBlankBytes, isBlankLine } from "../../server/src/engine/ledger/blankLine";

describe("the ledger's blank line", () => {
  it("is empty or only spaces, tabs and carriage returns, over text and bytes alike", () => {
    for (const line of ["", " ", "\t", "\r", " \t\r ", "\r\r"]) {
      expect(isBlankLine(line)).toBe(true);
      expect(isBlankBytes(Buffer.from(line))).toBe(true);
    }
    for (const line of ["x", " {}", "\u00a0", "\f", "\v", " \t\r-"]) {
      expect(isBlankLine(line)).toBe(false);
      expect(isBlankBytes(Buffer.from(line))).toBe(false);
    }
  });

  it("looks only at the asked part of a buffer", () => {
    const bytes = Buffer.from('{"a":1}\n \t\n{"b":2}');
    expect(isBlankBytes(bytes, 8, 10)).toBe(true);
    expect(isBlankBytes(bytes, 7, 11)).toBe(false);
  });
});
