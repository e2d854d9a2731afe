import { describe, expect, it } from "vitest";
import { describeEntries, formatManifest, MANIFEST_HEADER, parseManifest } from "../../server/src/engine/ledger/sealedManifest";

const A = "a".repeat(64);
const B = "b".repeat(64);
const BLOB1 = "1".repeat(40);
const BLOB2 = "2".repeat(64);

describe("the sealed manifest", () => {
  it("reads back what it writes, each segment once, in order", () => {
    const entries = [
      { name: A, blob: BLOB1, lines: 18000, from: "2026-01-03T10:00:00.000Z", until: "2026-01-31T23:59:00.000Z" },
      { name: B, blob: BLOB2, lines: 2, from: null, until: null },
    ];
    const text = formatManifest(entries);
    expect(text.split("\n")[0]).toBe(MANIFEST_HEADER);
    expect(parseManifest(text)).toEqual({ entries: entries.map((e, i) => ({ ...e, line: i + 2 })), problems: [] });
  });

  it("takes a union merge's lines as they come: duplicates once, blank and comment lines skipped, CRLF tolerated", () => {
    const line = `${A} ${BLOB1} 3 2026-01-03T10:00:00Z 2026-01-04T10:00:00Z`;
    const parsed = parseManifest(`# header\r\n${line}\r\n\r\n${line}\n${B} ${BLOB2} 1 - -\n`);
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries.map((e) => [e.name, e.line])).toEqual([
      [A, 2],
      [B, 5],
    ]);
  });

  it("names every line that is not an entry, and reads the others", () => {
    const parsed = parseManifest(
      [
        `${A} ${BLOB1} 3 - -`,
        "not an entry",
        `${B} --upload-pack=x 1 - -`,
        `${"c".repeat(63)} ${BLOB1} 1 - -`,
        `${B} ${BLOB1} many - -`,
        `${B} ${BLOB1} 1 $(touch) -`,
      ].join("\n"),
    );
    expect(parsed.entries.map((e) => e.name)).toEqual([A]);
    expect(parsed.problems.map((p) => p.line)).toEqual([2, 3, 4, 5, 6]);
  });

  it("says which records a set of segments holds", () => {
    expect(describeEntries([{ name: A, lines: 1, from: null, until: null }])).toBe("segment aaaaaaaaaaaa (1 line)");
    expect(
      describeEntries([
        { name: A, lines: 10, from: "2026-02-01T00:00:00Z", until: "2026-02-28T00:00:00Z" },
        { name: B, lines: 5, from: "2026-01-03T00:00:00Z", until: "2026-01-31T00:00:00Z" },
      ]),
    ).toBe("2 segments (15 lines, 2026-01-03 to 2026-02-28)");
  });
});
