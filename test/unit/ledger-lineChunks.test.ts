import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lineChunks } from "../../server/src/io/ledger/lineChunks";
import { prng } from "../support/protocolFuzz";

/**
 * The one reader of ledger files in runs of whole lines (io/ledger/lineChunks.ts): each read lands after the
 * line the last one cut. Whatever the chunk size, the line lengths and the buffers (one reused, or one of its
 * own per chunk), the chunks are the file's complete lines in order, each at its offset, and what is left is
 * the bytes after the last newline.
 */

const dir = mkdtempSync(join(tmpdir(), "line-chunks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Lines of 0 to `longest` bytes (some multibyte), each ending in "\n" but the last, which may not. */
function randomText(rnd: () => number, longest: number): string {
  const lines: string[] = [];
  for (let n = Math.floor(rnd() * 40); n > 0; n--) {
    let line = "";
    for (let k = Math.floor(rnd() * longest); k > 0; k--) line += rnd() < 0.05 ? "é" : String.fromCharCode(97 + Math.floor(rnd() * 26));
    lines.push(line);
  }
  return lines.join("\n") + (rnd() < 0.5 ? "\n" : "");
}

/** Every chunk `lineChunks` yields for `[from, to)` of `file`, each copied as it comes or kept as yielded, and its return. */
async function read(file: string, from: number, to: number, chunkBytes: number, fresh: boolean, copy: boolean) {
  const handle = await open(file, "r");
  try {
    const chunks: { bytes: Buffer; offset: number }[] = [];
    const it = lineChunks(handle, from, to, chunkBytes, fresh ? (size) => Buffer.from(new SharedArrayBuffer(size)) : undefined);
    for (;;) {
      const next = await it.next();
      if (next.done) return { chunks, rest: next.value };
      chunks.push({ bytes: copy ? Buffer.from(next.value.bytes) : next.value.bytes, offset: next.value.offset });
    }
  } finally {
    await handle.close();
  }
}

describe("lineChunks", () => {
  it("yields the file's complete lines in order, each chunk at its offset, whatever the sizes and buffers (300 seeded cases)", async () => {
    const rnd = prng(20261130);
    for (let c = 0; c < 300; c++) {
      const bytes = Buffer.from(randomText(rnd, rnd() < 0.2 ? 200 : 20), "utf8");
      const file = join(dir, `case-${c}.jsonl`);
      writeFileSync(file, bytes);
      const from = rnd() < 0.3 ? bytes.indexOf(0x0a) + 1 : 0;
      const chunkBytes = 1 + Math.floor(rnd() * 64);
      const fresh = rnd() < 0.5;
      // a chunk read into one reused buffer is valid until the next read: copied as it comes; one read into a
      // buffer of its own stays valid, and is kept as yielded
      const { chunks, rest } = await read(file, from, bytes.length, chunkBytes, fresh, !fresh);
      const whole = bytes.subarray(from);
      const lastNewline = whole.lastIndexOf(0x0a);
      const where = `case ${c} (from ${from}, chunks of ${chunkBytes}, ${fresh ? "fresh" : "reused"} buffers)`;
      expect(Buffer.concat(chunks.map((k) => k.bytes)).equals(whole.subarray(0, lastNewline + 1)), where).toBe(true);
      expect(rest.equals(whole.subarray(lastNewline + 1)), where).toBe(true);
      let offset = from;
      for (const k of chunks) {
        expect(k.offset, where).toBe(offset);
        expect(k.bytes.length > 0 && k.bytes[k.bytes.length - 1] === 0x0a, where).toBe(true);
        offset += k.bytes.length;
      }
    }
  });

  it("a buffer of its own per chunk is shared memory when asked for: no chunk is a copy of another's buffer", async () => {
    const file = join(dir, "shared.jsonl");
    const text = Array.from({ length: 50 }, (_, i) => `{"line":${i}}`).join("\n");
    writeFileSync(file, text);
    const { chunks } = await read(file, 0, text.length, 64, true, false);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((k) => k.bytes.buffer instanceof SharedArrayBuffer)).toBe(true);
    expect(new Set(chunks.map((k) => k.bytes.buffer)).size).toBe(chunks.length);
  });
});
