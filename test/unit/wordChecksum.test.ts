import { describe, expect, it } from "vitest";
import { fnv1a64 } from "../../server/src/engine/fnv1a64";
import { wordChecksum } from "../../server/src/engine/wordChecksum";

/** The launcher's and the caches' fast hashes detect the damage a cache file meets. */
describe("fast checksums", () => {
  const bytes = Buffer.from(Array.from({ length: 1027 }, (_, i) => (i * 131 + 7) & 0xff));

  it("wordChecksum changes with every single flipped bit, a zeroed copy, a cut and a longer copy", () => {
    const sum = wordChecksum(bytes);
    expect(sum).toMatch(/^[0-9a-f]{16}$/);
    for (let at = 0; at < bytes.length; at++) {
      for (const bit of [0x01, 0x80]) {
        const flipped = Buffer.from(bytes);
        flipped[at] = flipped[at]! ^ bit;
        expect(wordChecksum(flipped), `byte ${at}`).not.toBe(sum);
      }
    }
    expect(wordChecksum(Buffer.alloc(bytes.length))).not.toBe(sum);
    expect(wordChecksum(bytes.subarray(0, 1024))).not.toBe(sum);
    expect(wordChecksum(Buffer.concat([bytes, Buffer.alloc(4)]))).not.toBe(sum);
    // the same bytes at an offset that is not a multiple of 4 (read as a copy of the words)
    expect(wordChecksum(Buffer.concat([Buffer.alloc(1), bytes]).subarray(1))).toBe(sum);
  });

  it("wordChecksum of a Buffer at an odd offset in Node's shared pool is that of its own bytes", () => {
    // small Buffers share one pool: the bytes of `odd` sit in it at an offset that is not a multiple of 4
    const own = Buffer.from(bytes.subarray(100, 164)).reverse();
    const odd = Buffer.from(`${"z".repeat(5)}${own.toString("latin1")}`, "latin1").subarray(5);
    expect(odd.buffer.byteLength).toBeGreaterThan(odd.length);
    expect(odd.byteOffset % 4).not.toBe(0);
    expect(wordChecksum(odd)).toBe(wordChecksum(new Uint8Array(own)));
  });

  it("fnv1a64 is 64-bit FNV-1a of a text's code units", () => {
    expect(fnv1a64("")).toBe("cbf29ce484222325");
    expect(fnv1a64("a")).toBe("af63dc4c8601ec8c");
    expect(fnv1a64("foobar")).toBe("85944171f73967e8");
  });
});
