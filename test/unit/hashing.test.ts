import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bytesHash, contentHash, fileHash, fileHashSteps, lineHash, normalizeLine, normalizeLines } from "../../server/src/engine/hashing";

const sha = (s: string) => `sha256:${createHash("sha256").update(s).digest("hex")}`;

describe("normalizeLines", () => {
  it("turns CRLF into LF and strips trailing spaces and tabs per line", () => {
    expect(normalizeLines("a  \r\n\tb\t \r\nc")).toEqual(["a", "\tb", "c"]);
  });
  it("keeps leading whitespace and inner whitespace", () => {
    expect(normalizeLines("  x  y  ")).toEqual(["  x  y"]);
  });
  it("gives a final empty line for a final newline", () => {
    expect(normalizeLines("a\n")).toEqual(["a", ""]);
    expect(normalizeLines("")).toEqual([""]);
  });
  it("leaves a lone CR inside a line alone (only CRLF is a line ending)", () => {
    expect(normalizeLine("a\rb")).toBe("a\rb");
    expect(normalizeLine("a \r")).toBe("a");
  });
});

describe("contentHash", () => {
  it("is sha256 of the normalized lines joined with \\n", () => {
    expect(contentHash(["a", "b"])).toBe(sha("a\nb"));
    expect(contentHash(["a  ", "b\t\r"])).toBe(sha("a\nb"));
  });
  it("of no lines is the hash of the empty string", () => {
    expect(contentHash([])).toBe(sha(""));
  });
  it("does not depend on line endings or trailing whitespace", () => {
    expect(contentHash("x \r\ny\t".split("\n"))).toBe(contentHash(["x", "y"]));
  });
});

describe("fileHash", () => {
  it('treats "a\\n" as the lines ["a", ""]', () => {
    expect(fileHash("a\n")).toBe(contentHash(["a", ""]));
    expect(fileHash("a\n")).toBe(sha("a\n"));
    expect(fileHash("a\n")).not.toBe(fileHash("a"));
  });
  it("matches the flat-dialect fixture hashes (sha256 of 'test' and 'foo')", () => {
    expect(fileHash("test")).toBe("sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    expect(fileHash("foo")).toBe("sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae");
  });
  it("equals contentHash(normalizeLines(text)) for CRLF text", () => {
    const text = "one \r\ntwo\r\n";
    expect(fileHash(text)).toBe(contentHash(normalizeLines(text)));
    expect(fileHash(text)).toBe(fileHash("one\ntwo\n"));
  });
});

describe("fileHashSteps", () => {
  /** Runs the steps to the end, counting the pauses. */
  function run(text: string, sliceChars: number): { hash: string; pauses: number } {
    const steps = fileHashSteps(text, sliceChars);
    let pauses = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) pauses++;
    return { hash: r.value, pauses };
  }

  it("gives fileHash's hash in slices, whatever the line endings, trailing blanks and slice size", () => {
    const pieces = ["a", "b ", "\t", "\r\n", "\n", "\r", "é", "😀", "  x"];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 300; n++) {
      let text = "";
      for (let k = next() % 40; k > 0; k--) text += pieces[next() % pieces.length];
      const expected = contentHash(normalizeLines(text));
      for (const size of [1, 2, 3, 7, Infinity]) expect(run(text, size).hash, JSON.stringify(text)).toBe(expected);
    }
  });

  it("pauses between slices of a large text, and gives the same hash as fileHash", () => {
    const text = Array.from({ length: 200_000 }, (_, i) => `line ${i}  `).join("\r\n");
    const { hash, pauses } = run(text, 100_000);
    expect(pauses).toBeGreaterThan(10);
    expect(hash).toBe(contentHash(normalizeLines(text)));
    expect(fileHash(text)).toBe(hash);
  });
});

describe("lineHash", () => {
  it("is the first 8 hex chars of sha256 of the normalized line", () => {
    expect(lineHash("foo  ")).toBe(createHash("sha256").update("foo").digest("hex").slice(0, 8));
    expect(lineHash("foo")).toMatch(/^[0-9a-f]{8}$/);
  });
  it("differs for different lines", () => {
    expect(lineHash("a")).not.toBe(lineHash("b"));
  });
});

describe("bytesHash", () => {
  it("hashes raw bytes without normalization", () => {
    expect(bytesHash("a \r")).toBe(sha("a \r"));
    expect(bytesHash(Buffer.from("x"))).toBe(sha("x"));
  });
});
