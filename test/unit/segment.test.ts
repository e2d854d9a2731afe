import { brotliDecompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { bytesHash } from "../../server/src/engine/hashing";
import { orderSegments, SegmentDecoder, SegmentEncoder } from "../../server/src/engine/ledger/segment";
import { encodeSegment } from "../../server/src/io/ledger/segments";

/** The sealed segment's format: whatever goes in comes back byte for byte; our records come back from a compact form. */

function record(i: number, prev: string | null): string {
  const r = buildRecord({
    path: `src/file${i % 3}.ts`,
    content: "a\nb\nc\n",
    ranges: [{ start_line: 1, end_line: 2 }],
    contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" },
    sessionId: "s-1",
    toolVersion: "0.1.0",
    mutationClass: "INTENT_EVOLUTION",
    preHash: i === 0 ? null : bytesHash(`content ${i}`),
    scope: "PASS",
    intentId: "INT-001",
    revision: "0123456789abcdef0123456789abcdef01234567",
    now: new Date(Date.UTC(2026, 0, 1, 0, i)),
    id: `00000000-0000-4000-a000-${String(i).padStart(12, "0")}`,
  });
  (r.metadata!["dev.intent-lsp"] as { prev: string | null }).prev = prev;
  return JSON.stringify(r);
}

function roundTrip(lines: readonly Buffer[]): { out: Buffer[]; compact: string[] } {
  const encoder = new SegmentEncoder();
  const compact = lines.map((l) => encoder.encode(l));
  const decoder = new SegmentDecoder(Buffer.concat(encoder.column));
  const out = compact.map((c, i) => decoder.decode(c, `line ${i + 1}`));
  expect(decoder.columnDone).toBe(true);
  return { out, compact };
}

describe("segment format", () => {
  it("gives back our chained records exactly, stored without their hex and with prev derived", () => {
    const lines: Buffer[] = [];
    let prev: string | null = null;
    for (let i = 0; i < 5; i++) {
      const line = record(i, prev);
      lines.push(Buffer.from(line));
      prev = bytesHash(line);
    }
    const { out, compact } = roundTrip(lines);
    expect(out.map(String)).toEqual(lines.map(String));
    for (const c of compact.slice(1)) {
      expect(c).not.toMatch(/[0-9a-f]{32}/);
      expect(c).toContain('"prev":0');
    }
  });

  it("gives back any other line exactly: foreign formatting, a prev that breaks the chain, marker-like strings, blank, torn and non-UTF-8 lines", () => {
    const odd = [
      '{ "version": "0.1.0", "files": [] }',
      record(1, `sha256:${"ab".repeat(32)}`),
      '{"files":[],"note":"\\u0001 looks like a reference"}',
      '{"files":[],"metadata":{"dev.intent-lsp":{"prev":0}}}',
      '{"__proto__":{"x":1},"files":[]}',
      '{"2":"integer keys reorder","1":"in JSON.parse"}',
      "   ",
      '{"version":"0.1.0","id":"torn',
      "not json at all",
    ].map((s) => Buffer.from(s));
    odd.push(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    const { out } = roundTrip(odd);
    expect(out.map((b) => b.toString("hex"))).toEqual(odd.map((b) => b.toString("hex")));
  });

  it("writes the hex of a segment once, as bytes, after the compressed text", () => {
    const lines = [Buffer.from(record(0, null)), Buffer.from(record(1, null))];
    const bytes = encodeSegment(lines, null, null, null);
    const nl = bytes.indexOf(0x0a);
    const header = JSON.parse(bytes.subarray(0, nl).toString());
    expect(header).toMatchObject({ format: "intent-lsp/ledger-segment", version: 1, after: null, lines: 2 });
    const text = brotliDecompressSync(bytes.subarray(nl + 1, nl + 1 + header.text_bytes)).toString();
    expect(text).not.toMatch(/[0-9a-f]{20}/);
  });

  it("orders segments after the one each was sealed after; two sealed after the same one by their first record", () => {
    const s = (name: string, after: string | null, from: string) => ({ name, header: { after, from } });
    const order = orderSegments([s("d", "b", "2026-03"), s("c", "a", "2026-02-02"), s("b", "a", "2026-02-01"), s("a", null, "2026-01")]);
    expect(order.map((x) => x.name)).toEqual(["a", "b", "c", "d"]);
  });
});
