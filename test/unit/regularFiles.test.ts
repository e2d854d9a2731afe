import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { NotRegularFileError, readRegularBytes } from "../../server/src/io/regularFiles";

describe("readRegularBytes", () => {
  const dir = mkdtempSync(join(tmpdir(), "intent-regular-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([0, 1, 100, 64 * 1024, 64 * 1024 + 1, 300_000])("reads a %d-byte file whole, byte for byte", (size) => {
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) % 256;
    const path = join(dir, `f${size}`);
    writeFileSync(path, bytes);
    const read = readRegularBytes(path);
    expect(read.length).toBe(size);
    expect(read.equals(bytes)).toBe(true);
  });

  it("refuses a FIFO without blocking", () => {
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    expect(() => readRegularBytes(fifo)).toThrow(NotRegularFileError);
  });
});
