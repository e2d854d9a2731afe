import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, constants as zlib } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { formatManifest } from "../../server/src/engine/ledger/sealedManifest";
import { SEGMENT_MAX_LINES } from "../../server/src/engine/ledger/segmentBounds";
import { writeCheckedCache } from "../../server/src/io/checkedCache";
import {
  decodeSegment,
  encodedHeader,
  encodeSegment,
  folderSegmentNames,
  readManifest,
  readSegmentFile,
  readSegments,
  readSegmentSet,
  refreshSealedCopy,
  remedyFor,
  SEALED_COPY,
  type SegmentFile,
  SegmentMissingError,
  segmentIntact,
  segmentName,
  segmentNames,
  SegmentReadError,
  SegmentRefusedError,
  sealedLines,
  sealedManifestPath,
  segmentsDir,
  writeSegment,
} from "../../server/src/io/ledger/segments";
import { writeBlob } from "../../server/src/io/ledger/sealedRef";
import { git } from "../support/gitRepository";

/**
 * Sealed segments read and written in process (docs/LEDGER.md "Segments"): the folder and the manifest
 * that name them, what a damaged, swapped or oversized segment gives, the lines every reader sees, and the
 * decoded copy the index follows.
 */

const LEDGER = ".orchestration/agent_trace.jsonl";
const FOLDER = ".orchestration/agent_trace.segments";
const MANIFEST = ".orchestration/agent_trace.sealed";
const COPY_MANIFEST = ".orchestration/.cache/sealed.manifest";
const FOLDER_REMEDY = "restore it from git (`git checkout -- <path>`)";
const FETCH_REMEDY = "fetch it again with `intent ledger fetch`";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A workspace folder with `.orchestration/`; in a fresh git repository when `inGit`. */
function workspace(inGit = false): string {
  const root = mkdtempSync(join(tmpdir(), "sealed-segments-"));
  roots.push(root);
  mkdirSync(join(root, ".orchestration"));
  if (inGit) git(root, "init", "-q");
  return root;
}

const lines = (...texts: string[]) => texts.map((t) => Buffer.from(t));
/** A record-like line with hex in it, so that the segment has a binary column after its text. */
const hexLine = (i: number) => `{"id":"00000000-0000-4000-a000-${String(i).padStart(12, "0")}","n":${i}}`;

function folderSegment(root: string, texts: string[], after: string | null = null): string {
  return writeSegment(root, LEDGER, encodeSegment(lines(...texts), after, null, null));
}

interface Entry {
  name: string;
  blob: string;
  lines: number;
}

/** Stores segment bytes as a blob; the manifest entry that names it (not yet written). */
function blobEntry(root: string, bytes: Buffer, count = encodedHeader(bytes).lines): Entry {
  return { name: segmentName(bytes), blob: writeBlob(root, bytes), lines: count };
}

function writeManifest(root: string, entries: Entry[]): void {
  writeFileSync(join(root, MANIFEST), formatManifest(entries.map((e) => ({ ...e, from: null, until: null }))));
}

/** Segment bytes whose text is `count` raw lines while the header declares `declared`. */
function forged(count: number, declared: number, textBytes?: number): Buffer {
  const body = Buffer.from('["r",""]\n'.repeat(count));
  const text = brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } });
  const header = {
    format: "intent-lsp/ledger-segment",
    version: 1,
    after: null,
    lines: declared,
    from: null,
    until: null,
    text_bytes: textBytes ?? text.length,
  };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), text]);
}

/** A SegmentFile as readers build it, for bytes held in memory (read from the folder). */
function inMemory(bytes: Buffer, over: Partial<SegmentFile> = {}): SegmentFile {
  const name = segmentName(bytes);
  const rel = `${FOLDER}/${name}.seg`;
  return { name, rel, file: rel, header: encodedHeader(bytes), bytes, bodyAt: bytes.indexOf(0x0a) + 1, line: 1, ...over };
}

const text = (ls: Iterable<{ bytes: Buffer }>) => [...ls].map((l) => l.bytes.toString());
const copyText = (root: string) => readFileSync(join(root, SEALED_COPY), "utf8");

describe("where a ledger's segments are", () => {
  it.each([
    [".orchestration/agent_trace.jsonl", ".orchestration/agent_trace.segments", ".orchestration/agent_trace.sealed"],
    ["a.jsonl.d/trace.jsonl", "a.jsonl.d/trace.segments", "a.jsonl.d/trace.sealed"],
    ["trace.log", "trace.log.segments", "trace.log.sealed"],
  ])("%s keeps its segments in %s and its manifest in %s", (ledger, folder, manifest) => {
    expect(segmentsDir(ledger)).toBe(folder);
    expect(sealedManifestPath(ledger)).toBe(manifest);
  });

  it("reads no manifest as no entries, and a manifest's entries and problems", () => {
    const root = workspace();
    expect(readManifest(root, LEDGER)).toEqual({ entries: [], problems: [] });
    writeFileSync(join(root, MANIFEST), `${formatManifest([{ name: "a".repeat(64), blob: "1".repeat(40), lines: 2, from: null, until: null }])}junk\n`);
    expect(readManifest(root, LEDGER)).toEqual({
      entries: [{ name: "a".repeat(64), blob: "1".repeat(40), lines: 2, from: null, until: null, line: 2 }],
      problems: [{ line: 3, message: expect.stringContaining("not a segment entry") }],
    });
  });

  it("names the folder's segment files, sorted, and the manifest's entries, each once", () => {
    const root = workspace();
    expect(folderSegmentNames(root, LEDGER)).toEqual([]);
    const b = folderSegment(root, ['{"n":2}']);
    const a = folderSegment(root, ['{"n":1}']);
    writeFileSync(join(root, FOLDER, "notes.txt"), "x");
    writeFileSync(join(root, FOLDER, `${"A".repeat(64)}.seg`), "x");
    writeFileSync(join(root, FOLDER, `${"a".repeat(63)}.seg`), "x");
    writeFileSync(join(root, FOLDER, `${"c".repeat(64)}.segx`), "x");
    const more = [3, 4, 5, 6, 7, 8].map((n) => folderSegment(root, [`{"n":${n}}`]));
    const sorted = [a, b, ...more].sort();
    // written again out of order: neither the order written nor its reverse (nor, but by a 1 in 40,320 chance, a folder's hash order) is the sorted one
    const bytes = sorted.map((n) => readFileSync(join(root, FOLDER, `${n}.seg`)));
    for (const n of sorted) rmSync(join(root, FOLDER, `${n}.seg`));
    for (const i of [3, 0, 6, 1, 7, 2, 5, 4]) writeFileSync(join(root, FOLDER, `${sorted[i]}.seg`), bytes[i]!);
    expect(folderSegmentNames(root, LEDGER)).toEqual(sorted);
    writeManifest(root, [
      { name: "f".repeat(64), blob: "1".repeat(40), lines: 1 },
      { name: sorted[1]!, blob: "1".repeat(40), lines: 1 },
      { name: "0".repeat(64), blob: "1".repeat(40), lines: 1 },
    ]);
    expect(segmentNames(root, LEDGER)).toEqual(["0".repeat(64), ...sorted, "f".repeat(64)]);
    expect(segmentNames(root, LEDGER)).toHaveLength(10);
  });

  it("takes a file where the folder should be as no folder, and refuses a folder that leads outside the workspace", () => {
    const root = workspace();
    writeFileSync(join(root, FOLDER), "not a folder");
    expect(folderSegmentNames(root, LEDGER)).toEqual([]);
    rmSync(join(root, FOLDER));
    const outside = workspace();
    symlinkSync(outside, join(root, FOLDER));
    expect(() => folderSegmentNames(root, LEDGER)).toThrow(/outside the workspace/);
  });
});

describe("reading one segment", () => {
  it("reads a folder segment with its header, where its body starts, on line 1 of its file", () => {
    const root = workspace();
    const name = folderSegment(root, ['{"n":1}', '{"n":2}']);
    const rel = `${FOLDER}/${name}.seg`;
    const s = readSegmentFile(root, LEDGER, name);
    const bytes = readFileSync(join(root, rel));
    expect(s).toEqual({ name, rel, file: rel, header: encodedHeader(bytes), bytes, bodyAt: bytes.indexOf(0x0a) + 1, line: 1 });
    expect(s.header).toMatchObject({ lines: 2, after: null });
    expect(text(sealedLines([s]))).toEqual(['{"n":1}', '{"n":2}']);
  });

  it("reads a segment the manifest names from its blob, shown on the manifest's line", () => {
    const root = workspace(true);
    const bytes = encodeSegment(lines('{"n":1}'), null, null, null);
    const other = blobEntry(root, encodeSegment(lines('{"n":0}'), null, null, null));
    const entry = blobEntry(root, bytes);
    writeManifest(root, [other, entry]);
    const s = readSegmentFile(root, LEDGER, entry.name);
    expect(s).toEqual({
      name: entry.name,
      rel: `refs/intent/ledger:${entry.name}.seg`,
      file: MANIFEST,
      header: encodedHeader(bytes),
      bytes,
      bodyAt: bytes.indexOf(0x0a) + 1,
      line: 3,
      entry: { ...entry, from: null, until: null, line: 3 },
    });
  });

  it("says a segment is in neither place, and that a blob is not in this clone, on the manifest's first such line", () => {
    const root = workspace(true);
    const name = "e".repeat(64);
    expect(() => readSegmentFile(root, LEDGER, name)).toThrow(
      expect.objectContaining({ name: "SegmentReadError", message: `${FOLDER}/${name}.seg: no such segment`, file: `${FOLDER}/${name}.seg`, line: 1 }),
    );
    writeManifest(root, [
      { name: "d".repeat(64), blob: "2".repeat(40), lines: 1 },
      { name, blob: "1".repeat(40), lines: 3 },
    ]);
    let err: unknown;
    try {
      readSegmentFile(root, LEDGER, name);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SegmentMissingError);
    expect(err).toMatchObject({
      name: "SegmentMissingError",
      file: MANIFEST,
      line: 3,
      message: "segment eeeeeeeeeeee (3 lines) is not in this clone: fetch the sealed history with `intent ledger fetch` (git fetch origin refs/intent/ledger)",
    });
  });

  it.each([
    ["no header line", Buffer.from("no newline at all"), "no header line"],
    ["a header that is not JSON", Buffer.from("{nope\nbody"), "its first line is not a segment header (invalid JSON)"],
  ])("refuses %s, saying how to restore it", (_what, bytes, problem) => {
    const root = workspace(true);
    const name = segmentName(bytes);
    mkdirSync(join(root, FOLDER));
    writeFileSync(join(root, FOLDER, `${name}.seg`), bytes);
    const rel = `${FOLDER}/${name}.seg`;
    expect(() => readSegmentFile(root, LEDGER, name)).toThrow(
      expect.objectContaining({ name: "SegmentReadError", message: `${rel}: ${problem}; ${FOLDER_REMEDY}`, file: rel, line: 1 }),
    );
    rmSync(join(root, FOLDER), { recursive: true });
    writeManifest(root, [{ name: "0".repeat(64), blob: "1".repeat(40), lines: 1 }, blobEntry(root, bytes, 1)]);
    expect(() => readSegmentFile(root, LEDGER, name)).toThrow(
      expect.objectContaining({ message: `refs/intent/ledger:${name}.seg: ${problem}; ${FETCH_REMEDY}`, file: MANIFEST, line: 3 }),
    );
  });

  it("throws what is not a missing file: a folder where a segment file should be", () => {
    const root = workspace();
    const name = "a".repeat(64);
    mkdirSync(join(root, FOLDER, `${name}.seg`), { recursive: true });
    expect(() => readSegmentFile(root, LEDGER, name)).toThrow(/not a regular file/);
    expect(() => readSegmentSet(root, LEDGER)).toThrow(/not a regular file/);
  });
});

describe("reading every segment", () => {
  it("reads the segments in the order they were sealed, whatever their names", () => {
    const root = workspace();
    const names: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 4; i++) {
      after = folderSegment(root, [`{"n":${i}}`], after);
      names.push(after);
    }
    expect(readSegments(root, LEDGER).map((s) => s.name)).toEqual(names);
    expect(text(sealedLines(readSegments(root, LEDGER)))).toEqual(['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}']);
  });

  it("names every segment the clone lacks in one error, by their manifest lines, and keeps the damaged ones apart", () => {
    const root = workspace(true);
    const good = blobEntry(root, encodeSegment(lines('{"n":1}'), null, null, null));
    const damaged = blobEntry(root, Buffer.from("no header"), 1);
    writeManifest(root, [good, { name: "f".repeat(64), blob: "1".repeat(40), lines: 2 }, damaged, { name: "0".repeat(64), blob: "2".repeat(40), lines: 3 }]);
    expect(() => readSegmentSet(root, LEDGER)).toThrow(
      expect.objectContaining({
        name: "SegmentMissingError",
        file: MANIFEST,
        line: 3,
        entries: [expect.objectContaining({ line: 3 }), expect.objectContaining({ line: 5 })],
        message: "2 segments (5 lines) are not in this clone: fetch the sealed history with `intent ledger fetch` (git fetch origin refs/intent/ledger)",
      }),
    );
    writeManifest(root, [good, damaged]);
    const set = readSegmentSet(root, LEDGER);
    expect(set.segments.map((s) => s.name)).toEqual([good.name]);
    expect(set.damaged.map((e) => [e.file, e.line, e.message])).toEqual([
      [MANIFEST, 3, `refs/intent/ledger:${damaged.name}.seg: no header line; ${FETCH_REMEDY}`],
    ]);
    expect(() => readSegments(root, LEDGER)).toThrow(`refs/intent/ledger:${damaged.name}.seg: no header line`);
    writeManifest(root, [good]);
    expect(readSegments(root, LEDGER).map((s) => s.name)).toEqual([good.name]);
  });

  it("tells a segment whose bytes hash to its name from one whose bytes do not", () => {
    const root = workspace(true);
    const first = blobEntry(root, encodeSegment(lines('{"n":1}'), null, null, null));
    const second = blobEntry(root, encodeSegment(lines('{"n":2}'), null, null, null));
    expect(segmentName(Buffer.from("abc"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // a manifest line that names the first segment's blob for the second: well-formed, but not its bytes
    writeManifest(root, [first, { ...second, blob: first.blob }]);
    const [a, b] = ["first", "second"].map((_, i) => readSegmentFile(root, LEDGER, [first, second][i]!.name));
    expect(segmentIntact(a!)).toBe(true);
    expect(segmentIntact(b!)).toBe(false);
  });

  it("gives the header of bytes it encoded, and refuses bytes with no header", () => {
    const bytes = encodeSegment(lines('{"n":1}', '{"n":2}'), "a".repeat(64), "2026-01-01", "2026-01-02");
    expect(encodedHeader(bytes)).toMatchObject({ after: "a".repeat(64), lines: 2, from: "2026-01-01", until: "2026-01-02" });
    expect(() => encodedHeader(Buffer.from("{}\n"))).toThrow("an encoded segment's header: its first line is not a intent-lsp/ledger-segment header");
  });
});

describe("the lines readers see", () => {
  it("reads a record two segments hold once, blank lines each time, numbered by their segment's lines", () => {
    const first = inMemory(encodeSegment(lines('{"a":1}', "", '{"b":2}'), null, null, null));
    const second = inMemory(encodeSegment(lines('{"b":2}', "", '{"c":3}'), first.name, null, null));
    const seen = [...sealedLines([first, second])].map((l) => [l.bytes.toString(), l.segment.name, l.line]);
    expect(seen).toEqual([
      ['{"a":1}', first.name, 1],
      ["", first.name, 2],
      ['{"b":2}', first.name, 3],
      ["", second.name, 2],
      ['{"c":3}', second.name, 3],
    ]);
  });

  it("gives back lines with hex exactly, from the binary column", () => {
    const ls = [hexLine(1), hexLine(2), "{ not json"];
    const s = inMemory(encodeSegment(lines(...ls), null, null, null));
    expect(s.bytes.length).toBeGreaterThan(s.bodyAt + s.header.text_bytes);
    expect(text(sealedLines([s]))).toEqual(ls);
  });

  it("hands a refused segment to onRefused and reads the others, and throws it when there is no onRefused", () => {
    const refused = inMemory(forged(20, 19));
    const good = inMemory(encodeSegment(lines('{"n":1}'), null, null, null));
    const seen: SegmentRefusedError[] = [];
    expect(text(sealedLines([refused, good], (e) => seen.push(e)))).toEqual(['{"n":1}']);
    expect(seen.map((e) => [e.name, e.file, e.line, e.message])).toEqual([
      [
        "SegmentRefusedError",
        refused.file,
        1,
        `${refused.rel}: it holds more lines than its header declares (19); ${FOLDER_REMEDY}, or remove the file if no \`intent ledger compact\` wrote it`,
      ],
    ]);
    expect(() => [...sealedLines([good, refused])]).toThrow(SegmentRefusedError);
  });

  it("throws a damaged segment's error even when refused ones are handed on", () => {
    const damaged = inMemory(forged(3, 3), { header: { ...encodedHeader(forged(3, 3)), text_bytes: 2 } });
    expect(() => [...sealedLines([damaged], () => {})]).toThrow(SegmentReadError);
    expect(() => [...sealedLines([damaged], () => {})]).not.toThrow(SegmentRefusedError);
  });
});

describe("what a segment may expand to", () => {
  const refusal = (s: SegmentFile, problem: string) =>
    expect.objectContaining({
      name: "SegmentRefusedError",
      file: s.file,
      line: s.line,
      message: `${s.rel}: ${problem}; ${FETCH_REMEDY}, or remove its line from ${MANIFEST} if no \`intent ledger compact\` wrote it`,
    });
  const viaManifest = (bytes: Buffer, lines: number, over: Partial<SegmentFile> = {}) =>
    inMemory(bytes, {
      rel: `refs/intent/ledger:${segmentName(bytes)}.seg`,
      file: MANIFEST,
      line: 4,
      entry: { name: segmentName(bytes), blob: "1".repeat(40), lines, from: null, until: null, line: 4 },
      ...over,
    });

  it.each([
    ["one more line than it declares", 11, 10, "it holds more lines than its header declares (10)"],
    ["one line fewer than it declares", 9, 10, "it holds 9 lines, fewer than its header declares (10)"],
    [
      "more lines than a segment may hold",
      2,
      SEGMENT_MAX_LINES + 1,
      `its header declares ${SEGMENT_MAX_LINES + 1} lines, more than a segment may hold (${SEGMENT_MAX_LINES})`,
    ],
  ])("refuses a segment that holds %s, before decoding a line", (_what, count, declared, problem) => {
    const s = viaManifest(forged(count, declared), declared);
    expect(() => decodeSegment(s)).toThrow(refusal(s, problem));
  });

  it("reads a segment that holds exactly what it declares", () => {
    expect([...decodeSegment(inMemory(forged(10, 10)))].map(String)).toEqual(new Array(10).fill(""));
  });

  it("throws an error of the engine's own (a line nested past the call stack) as it is, not as a damaged line", () => {
    const text = brotliCompressSync(Buffer.from(`{"a":${"[".repeat(200_000)}${"]".repeat(200_000)}}\n`));
    const header = { format: "intent-lsp/ledger-segment", version: 1, after: null, lines: 1, from: null, until: null, text_bytes: text.length };
    const s = inMemory(Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), text]));
    expect(() => [...decodeSegment(s)]).toThrow(expect.objectContaining({ name: "RangeError", message: "Maximum call stack size exceeded" }));
  });

  it("reads a last line that has no newline after it", () => {
    const text = brotliCompressSync(Buffer.from('["r","a"]\n["r","b"]'));
    const header = { format: "intent-lsp/ledger-segment", version: 1, after: null, lines: 2, from: null, until: null, text_bytes: text.length };
    const s = inMemory(Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), text]));
    expect([...decodeSegment(s)].map(String)).toEqual(["a", "b"]);
  });

  it("refuses a manifest line whose count is not its segment's header's, whatever the segment holds", () => {
    const s = viaManifest(forged(10, 10), 11);
    expect(() => decodeSegment(s)).toThrow(refusal(s, "the manifest line says 11 lines, the segment's header 10"));
    expect([...decodeSegment(viaManifest(forged(10, 10), 10))]).toHaveLength(10);
  });

  it("says a segment is shorter than its header, or that its body does not decompress, as damage rather than refusal", () => {
    const short = forged(3, 3);
    const header = encodedHeader(short);
    const cut = inMemory(short, { header: { ...header, text_bytes: header.text_bytes + 1 } });
    expect(() => decodeSegment(cut)).toThrow(
      expect.objectContaining({ name: "SegmentReadError", message: `${cut.rel}: shorter than its header says; ${FOLDER_REMEDY}`, file: cut.file, line: 1 }),
    );
    const garbled = Buffer.concat([short.subarray(0, short.indexOf(0x0a) + 1), Buffer.alloc(header.text_bytes, 0xff)]);
    const g = viaManifest(garbled, 3);
    expect(() => decodeSegment(g)).toThrow(
      expect.objectContaining({
        name: "SegmentReadError",
        message: expect.stringMatching(new RegExp(`^${g.rel.replace(/[.]/g, "\\.")}: its body does not decompress \\(.+\\); ${FETCH_REMEDY}$`)),
        file: MANIFEST,
        line: 4,
      }),
    );
  });

  it("says which line of a segment is damaged, and that a segment ends before its binary column does", () => {
    const bytes = encodeSegment(lines(hexLine(1), hexLine(2)), null, null, null);
    const s = inMemory(bytes.subarray(0, bytes.length - 3));
    expect(() => [...decodeSegment(s)]).toThrow(
      expect.objectContaining({
        name: "SegmentReadError",
        message: `${s.rel}:2: the segment's binary column ends early; the segment is damaged`,
        file: s.file,
        line: 1,
      }),
    );
    const long = inMemory(Buffer.concat([bytes, Buffer.from([1, 2])]));
    expect(() => [...decodeSegment(long)]).toThrow(
      expect.objectContaining({ name: "SegmentReadError", message: `${long.rel}: holds other lines than its header says (2 of 2); ${FOLDER_REMEDY}` }),
    );
  });

  it("refuses text that expands past the cap, without holding it", () => {
    const header = { format: "intent-lsp/ledger-segment", version: 1, after: null, lines: 1, from: null, until: null, text_bytes: BOMB.length };
    const s = viaManifest(Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), BOMB]), 1);
    expect(() => decodeSegment(s)).toThrow(refusal(s, "its text expands to more than 536870912 bytes, more than a segment may hold"));
    // checked once: the same bytes are refused again from what was found, whatever their header is read as
    expect(() => decodeSegment({ ...s, header: { ...s.header, text_bytes: 0 } })).toThrow(
      refusal(s, "its text expands to more than 536870912 bytes, more than a segment may hold"),
    );
  }, 180_000);

  it("checks a segment once: the same bytes give what the first check found", () => {
    const bytes = forged(30, 29);
    const s = inMemory(bytes);
    expect(() => decodeSegment(s)).toThrow(SegmentRefusedError);
    // read again with a header that would agree with what it holds: still refused, from the first check
    expect(() => decodeSegment({ ...s, header: { ...s.header, lines: 30 } })).toThrow(
      expect.objectContaining({ name: "SegmentRefusedError", message: expect.stringContaining("it holds more lines than its header declares (29)") }),
    );
    // a header over the cap is remembered too: the same bytes read with a header that agrees are still refused
    const over = inMemory(forged(3, SEGMENT_MAX_LINES + 2));
    expect(() => decodeSegment(over)).toThrow(SegmentRefusedError);
    expect(() => decodeSegment({ ...over, header: { ...over.header, lines: 3 } })).toThrow(
      expect.objectContaining({ name: "SegmentRefusedError", message: expect.stringContaining(`its header declares ${SEGMENT_MAX_LINES + 2} lines`) }),
    );
    const ok = inMemory(forged(31, 31));
    expect([...decodeSegment(ok)]).toHaveLength(31);
    // found whole once: not counted again, so a header read as another count meets the line-by-line check
    expect(() => [...decodeSegment({ ...ok, header: { ...ok.header, lines: 32 } })]).toThrow(
      expect.objectContaining({ name: "SegmentReadError", message: `${ok.rel}: holds other lines than its header says (31 of 32); ${FOLDER_REMEDY}` }),
    );
  });

  it("says what restores a segment and what drops it, by where it was read", () => {
    expect(remedyFor({ rel: "x.seg", file: "x.seg" })).toBe(FOLDER_REMEDY);
    expect(remedyFor({ rel: "refs/intent/ledger:x.seg", file: MANIFEST })).toBe(FETCH_REMEDY);
  });

  // 540 MB of text made in one synchronous call: tens of seconds that block the test process on a loaded
  // machine, so `npm run soak` runs it, not `npm test`
  it.runIf(!!process.env["INTENT_LSP_SOAK"])(
    "seals no text longer than a segment may hold, however long a string may be",
    () => {
      // each byte is written as the six characters \u0001: 540 MB of text from 0.9 MB of line
      const line = Buffer.alloc(900_000, 1);
      expect(() => encodeSegment(new Array(100).fill(line), null, null, null)).toThrow(
        expect.objectContaining({ name: "SegmentTooLargeError", message: "100 lines encode to 540000900 bytes of text, more than a segment may hold" }),
      );
    },
    180_000,
  );

  it("encodes no segment readers would refuse", () => {
    expect(() => encodeSegment(new Array(SEGMENT_MAX_LINES + 1).fill(Buffer.alloc(0)), null, null, null)).toThrow(
      `${SEGMENT_MAX_LINES + 1} lines are more than a segment may hold`,
    );
  });
});

describe("writing a segment", () => {
  it("compresses the text as docs/LEDGER.md says (Brotli quality 7, 16 MB window), so that any clone seals the same lines to the same name", () => {
    const ls = [hexLine(1), '{"path":"src/a.ts","n":1}', '{"path":"src/a.ts","n":2}', "", "torn"];
    const bytes = encodeSegment(lines(...ls), null, null, null);
    const s = inMemory(bytes);
    const textPart = bytes.subarray(s.bodyAt, s.bodyAt + s.header.text_bytes);
    const plain = brotliDecompressSync(textPart);
    expect(textPart).toEqual(brotliCompressSync(plain, { params: { [zlib.BROTLI_PARAM_QUALITY]: 7, [zlib.BROTLI_PARAM_LGWIN]: 24 } }));
    expect(plain.toString().split("\n")).toHaveLength(ls.length + 1);
  });

  it("writes it under its name in the folder, and keeps an identical one", () => {
    const root = workspace();
    const bytes = encodeSegment(lines('{"n":1}'), null, null, null);
    const name = writeSegment(root, LEDGER, bytes);
    expect(name).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(readFileSync(join(root, FOLDER, `${name}.seg`))).toEqual(bytes);
    expect(writeSegment(root, LEDGER, bytes)).toBe(name);
    expect(folderSegmentNames(root, LEDGER)).toEqual([name]);
  });
});

describe("the decoded copy the index follows", () => {
  it("is nothing, and writes nothing, without a .orchestration folder or without segments", () => {
    const bare = mkdtempSync(join(tmpdir(), "sealed-segments-"));
    roots.push(bare);
    expect(refreshSealedCopy(bare, LEDGER)).toBeUndefined();
    const root = workspace();
    expect(refreshSealedCopy(root, LEDGER)).toBeUndefined();
    expect(existsSync(join(root, ".orchestration/.cache"))).toBe(false);
    mkdirSync(join(root, ".orchestration/.cache"));
    expect(refreshSealedCopy(root, LEDGER)).toEqual({ path: SEALED_COPY, refused: [] });
    expect(existsSync(join(root, SEALED_COPY))).toBe(false);
    expect(existsSync(join(root, COPY_MANIFEST))).toBe(false);
  });

  it("holds every segment's lines in order, each record once; emptied when the segments are gone", () => {
    const root = workspace();
    const a = folderSegment(root, ['{"n":1}', '{"n":2}']);
    folderSegment(root, ['{"n":2}', "", '{"n":3}'], a);
    expect(refreshSealedCopy(root, LEDGER)).toEqual({ path: SEALED_COPY, refused: [] });
    expect(copyText(root)).toBe('{"n":1}\n{"n":2}\n\n{"n":3}\n');
    rmSync(join(root, FOLDER), { recursive: true });
    expect(refreshSealedCopy(root, LEDGER)).toEqual({ path: SEALED_COPY, refused: [] });
    expect(copyText(root)).toBe("");
  });

  it("holds every line of segments larger than one write", () => {
    const root = workspace();
    const big = (tag: string) => Array.from({ length: 700 }, (_, i) => `{"${tag}":${i},"pad":"${"x".repeat(1000)}"}`);
    const a = folderSegment(root, big("a"));
    folderSegment(root, big("b"), a);
    refreshSealedCopy(root, LEDGER);
    expect(copyText(root)).toBe(`${[...big("a"), ...big("b")].join("\n")}\n`);
  });

  it("leaves out a refused segment and names it; later calls name it without reading it", () => {
    const root = workspace(true);
    const good = blobEntry(root, encodeSegment(lines('{"n":1}'), null, null, null));
    const forgedBytes = forged(40, 39);
    const bad = blobEntry(root, forgedBytes, 39);
    writeManifest(root, [good, bad]);
    const refused = [
      {
        file: MANIFEST,
        line: 3,
        message: `refs/intent/ledger:${bad.name}.seg: it holds more lines than its header declares (39); ${FETCH_REMEDY}, or remove its line from ${MANIFEST} if no \`intent ledger compact\` wrote it`,
      },
    ];
    expect(refreshSealedCopy(root, LEDGER)).toEqual({ path: SEALED_COPY, refused });
    expect(copyText(root)).toBe('{"n":1}\n');
    // both blobs gone: a call that read the segments again would find them missing
    for (const e of [good, bad]) rmSync(join(root, ".git/objects", e.blob.slice(0, 2), e.blob.slice(2)));
    expect(refreshSealedCopy(root, LEDGER)).toEqual({ path: SEALED_COPY, refused });
    // a manifest line that names another count is another segment to check
    writeManifest(root, [good, { ...bad, lines: 40 }]);
    expect(() => refreshSealedCopy(root, LEDGER)).toThrow(SegmentMissingError);
  });

  it("names a damaged segment it leaves out, and throws for a segment the clone lacks, keeping the copy", () => {
    const root = workspace(true);
    const good = blobEntry(root, encodeSegment(lines('{"n":1}'), null, null, null));
    const damaged = blobEntry(root, Buffer.from("no header"), 1);
    writeManifest(root, [good, damaged]);
    expect(refreshSealedCopy(root, LEDGER)).toEqual({
      path: SEALED_COPY,
      refused: [{ file: MANIFEST, line: 3, message: `refs/intent/ledger:${damaged.name}.seg: no header line; ${FETCH_REMEDY}` }],
    });
    expect(copyText(root)).toBe('{"n":1}\n');
    writeManifest(root, [good, { name: "f".repeat(64), blob: "1".repeat(40), lines: 1 }]);
    expect(() => refreshSealedCopy(root, LEDGER)).toThrow(SegmentMissingError);
    expect(copyText(root)).toBe('{"n":1}\n');
  });

  it("makes a copy that was written to again from the segments, and trusts one only touched", () => {
    const root = workspace();
    folderSegment(root, ['{"n":1}']);
    refreshSealedCopy(root, LEDGER);
    writeFileSync(join(root, SEALED_COPY), '{"forged":1}\n');
    expect(refreshSealedCopy(root, LEDGER)).toEqual({ path: SEALED_COPY, refused: [] });
    expect(copyText(root)).toBe('{"n":1}\n');
    writeFileSync(join(root, SEALED_COPY), '{"n":2}\n');
    refreshSealedCopy(root, LEDGER);
    expect(copyText(root)).toBe('{"n":1}\n');
    rmSync(join(root, SEALED_COPY));
    refreshSealedCopy(root, LEDGER);
    expect(copyText(root)).toBe('{"n":1}\n');
  });

  it("never trusts a copy it cannot read: a FIFO where it was is neither read nor written", () => {
    const root = workspace();
    folderSegment(root, ['{"n":1}']);
    refreshSealedCopy(root, LEDGER);
    rmSync(join(root, SEALED_COPY));
    execFileSync("mkfifo", [join(root, SEALED_COPY)]);
    expect(() => refreshSealedCopy(root, LEDGER)).toThrow(`${SEALED_COPY} is a FIFO (named pipe), where intent-lsp expects a regular file`);
    expect(lstatSync(join(root, SEALED_COPY)).isFIFO()).toBe(true);
  });

  it.skipIf(process.getuid?.() === 0)("never trusts a copy it cannot read: one this user may not read is made again", () => {
    const root = workspace();
    folderSegment(root, ['{"n":1}']);
    refreshSealedCopy(root, LEDGER);
    writeFileSync(join(root, SEALED_COPY), '{"n":2}\n');
    chmodSync(join(root, SEALED_COPY), 0);
    expect(refreshSealedCopy(root, LEDGER)).toEqual({ path: SEALED_COPY, refused: [] });
    // made again with the mode of the file it replaces
    chmodSync(join(root, SEALED_COPY), 0o600);
    expect(copyText(root)).toBe('{"n":1}\n');
  });

  it("trusts a copy whose bytes still hash to what was written, and notes its identity again", () => {
    const root = workspace(true);
    const entry = blobEntry(root, encodeSegment(lines('{"n":1}'), null, null, null));
    writeManifest(root, [entry]);
    refreshSealedCopy(root, LEDGER);
    const manifestBefore = readFileSync(join(root, COPY_MANIFEST));
    utimesSync(join(root, SEALED_COPY), new Date(2000, 0, 1), new Date(2000, 0, 1));
    // the blob gone: the copy is trusted (by its hash) or the call throws
    rmSync(join(root, ".git/objects", entry.blob.slice(0, 2), entry.blob.slice(2)));
    expect(refreshSealedCopy(root, LEDGER)).toEqual({ path: SEALED_COPY, refused: [] });
    const manifestAfter = readFileSync(join(root, COPY_MANIFEST));
    expect(manifestAfter.equals(manifestBefore)).toBe(false);
    expect(refreshSealedCopy(root, LEDGER)).toEqual({ path: SEALED_COPY, refused: [] });
    expect(readFileSync(join(root, COPY_MANIFEST)).equals(manifestAfter)).toBe(true);
    expect(copyText(root)).toBe('{"n":1}\n');
  });

  it("makes the copy again when its manifest is not one it wrote", () => {
    const root = workspace(true);
    const entry = blobEntry(root, encodeSegment(lines('{"n":1}'), null, null, null));
    writeManifest(root, [entry]);
    refreshSealedCopy(root, LEDGER);
    // the copy's manifest as it is now: its noted identity is the copy's, so a note that passes is trusted without a rebuild
    const current = () => JSON.parse(readFileSync(join(root, COPY_MANIFEST), "utf8").split("\n").slice(1).join("\n")) as Record<string, unknown>;
    const kind = { name: "sealed-manifest", format: 3, checksum: "sha256" as const };
    const bad = { file: MANIFEST, line: 9, message: "a note that was never written" };
    const variants: ((kept: Record<string, unknown>) => Record<string, unknown>)[] = [
      (kept) => ({ ...kept, refused: [bad], sources: 7 }),
      (kept) => ({ ...kept, refused: { 0: bad } }),
      (kept) => ({ ...kept, refused: [bad, null] }),
      (kept) => ({ ...kept, refused: [bad, "x"] }),
      (kept) => ({ ...kept, refused: [{ ...bad, file: 1 }] }),
      (kept) => ({ ...kept, refused: [{ ...bad, line: 1.5 }] }),
      (kept) => ({ ...kept, refused: [{ ...bad, message: null }] }),
      (kept) => ({ ...kept, refused: [bad], sha256: 1 }),
    ];
    for (const variant of variants) {
      const v = variant(current());
      expect(writeCheckedCache(root, COPY_MANIFEST, kind, JSON.stringify(v))).toBe(true);
      expect(refreshSealedCopy(root, LEDGER), JSON.stringify(v)).toEqual({ path: SEALED_COPY, refused: [] });
    }
    expect(writeCheckedCache(root, COPY_MANIFEST, kind, JSON.stringify({ ...current(), refused: [bad] }))).toBe(true);
    expect(refreshSealedCopy(root, LEDGER)).toEqual({ path: SEALED_COPY, refused: [bad] });
    expect(writeCheckedCache(root, COPY_MANIFEST, kind, "{not json")).toBe(true);
    expect(refreshSealedCopy(root, LEDGER)).toEqual({ path: SEALED_COPY, refused: [] });
  });
});

/**
 * Brotli text that expands to 528 MiB of newlines (33 × 16 MiB, quality 5, window 24), past
 * SEGMENT_MAX_TEXT_BYTES: made once with zlib's createBrotliCompress and kept here, since making it takes seconds.
 */
const BOMB = Buffer.from(
  "z///fwAkFOKxQHLv//n//w+ABEAcFoDu/T////8BkACIwwLQvf/n//8/ABIAcVgAuvf//P//B0ACIA4LQPf+n////wBIAMRhAeje//P//x8ACYA4LADd+3/+" +
    "//8DIAEQhwWge//P//9/ACQA4rAAdO//+f//D4AEQBwWgO79P////wGQAIjDAtC9/+f//z8AEgBxWAC69//8//8HQAIgDgtA9/6f////AEgAxGEB6N7/8///" +
    "HwAJgDgsAN37f/7//wMgARCHBaB7/8///38AJADisAB07//5//8PgARAHBaA7v0/////AZAAiMMC0L3/5///PwASAHFYALr3//z//wdAAiAOC0D3/p////8A" +
    "SADEYQHo3v/z//8fAAmAOCwA3ft//v//AyABEIcFoHv/z///fwAkAOKwAHTv//n//w+ABEAcFoDu/T////8BkACIwwLQvf/n//8/ABIAcVgAuvf//P//B0AC" +
    "IA4LQPf+n////wBIAMRhAeje//P//x8ACYA4LADd+3/+//8DIAEQhwWge//P//9/ACQA4rAAdO//Bw==",
  "base64",
);
