import { describe, expect, it } from "vitest";
import { countTextLines, textLines } from "../../server/src/engine/lines";

describe("countTextLines", () => {
  // `intent stats` counts a file no record names with countTextLines, and `intent blame` prints textLines rows
  const texts = [
    "",
    "a",
    "a\n",
    "\n",
    "\n\n",
    "a\nb",
    "a\nb\n",
    "a\r\nb\r\n",
    "a\rb\r",
    "a\r",
    "\r",
    "\r\n",
    "a\n\r",
    "a\r\r\n",
    "a\n\n\n",
    "\r\n\r\nx",
    "é\u2028z\n",
  ];

  it.each(texts.map((t) => [JSON.stringify(t), t]))("counts %s as textLines does", (_, text) => {
    expect(countTextLines(text)).toBe(textLines(text).length);
  });

  it("counts a final line break as the end of the last line, not a new one", () => {
    expect(countTextLines("a\nb\n")).toBe(2);
    expect(countTextLines("a\r\nb")).toBe(2);
    expect(countTextLines("a\n\n")).toBe(2);
    expect(countTextLines("")).toBe(1);
  });
});
