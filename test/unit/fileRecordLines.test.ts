import { existsSync, mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LineRef } from "../../server/src/engine/ledger/recordLines";
import { FileRecordLines } from "../../server/src/io/ledger/fileRecordLines";

/**
 * Reading indexed records back from the ledger file (io/ledger/fileRecordLines.ts): a line comes back only
 * from the file that was indexed, only where it starts and ends as indexed; anything else comes back as
 * nothing and says the file is not as indexed. The descriptor it keeps between reads follows the path.
 */

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "file-record-lines-"));
  file = join(dir, "agent_trace.jsonl");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Where each line of `text` is, as an index records it. */
function refsOf(text: string): LineRef[] {
  const refs: LineRef[] = [];
  let offset = 0;
  for (const line of text.split("\n").slice(0, -1)) {
    refs.push({ offset, length: Buffer.byteLength(line) });
    offset += Buffer.byteLength(line) + 1;
  }
  return refs;
}

/** The ledger as indexed: its lines, where they are, and a reader held to the file's identity now. */
function indexed(text: string) {
  writeFileSync(file, text);
  const { dev, ino } = statSync(file);
  const changes = { notAsIndexed: 0 };
  const lines = new FileRecordLines(
    file,
    () => ({ dev, ino }),
    () => changes.notAsIndexed++,
  );
  const read = (refs = refsOf(text)) => lines.read(refs).map((b) => b?.toString("utf8"));
  return { refs: refsOf(text), read, changes };
}

const TEXT = '{"a":1}\n{"bb":22}\n{"ccc":333}\n';
const LINES = ['{"a":1}', '{"bb":22}', '{"ccc":333}'];

describe("FileRecordLines", () => {
  it("reads the lines where the index says they are", () => {
    const { read, changes } = indexed(TEXT);
    expect(read()).toEqual(LINES);
    expect(read()).toEqual(LINES); // again, through the descriptor it kept
    expect(changes.notAsIndexed).toBe(0);
  });

  it("never reads a ledger replaced by another file, though it holds the very same bytes", () => {
    for (const readFirst of [false, true]) {
      const { read } = indexed(TEXT);
      if (readFirst) expect(read()).toEqual(LINES); // the old file's descriptor is kept
      writeFileSync(`${file}.new`, TEXT);
      renameSync(`${file}.new`, file);
      expect(read(), `read before the replacement: ${readFirst}`).toEqual([undefined, undefined, undefined]);
    }
  });

  it("reads nothing once the ledger's path names no file, though it read the file a moment ago", () => {
    const { read } = indexed(TEXT);
    expect(read()).toEqual(LINES);
    unlinkSync(file);
    expect(read()).toEqual([undefined, undefined, undefined]);
  });

  it("gives nothing back for a line written anew in place where it no longer starts or ends as indexed, and says so", () => {
    // the same file (its identity) rewritten: each line one byte longer or shorter than indexed
    const { read, refs, changes } = indexed(TEXT);
    const { ino } = statSync(file);
    // the second line's bytes end where indexed, after a newline there, but it starts a byte later
    writeFileSync(file, '{"a":1}x\n{"b":22}\n{"ccc":333}\n');
    expect(statSync(file).ino).toBe(ino);
    expect(read(refs)).toEqual([undefined, undefined, '{"ccc":333}']);
    expect(changes.notAsIndexed).toBe(1);
    // the second line starts where indexed but goes on past its indexed end
    writeFileSync(file, '{"a":1}\n{"bb":222}\n{"cc":333}\n');
    expect(read(refs)).toEqual(['{"a":1}', undefined, undefined]);
    expect(changes.notAsIndexed).toBe(2);
  });

  it.runIf(existsSync("/proc/self/fd"))("closes the ledger once reads stop", async () => {
    const { read } = indexed(TEXT);
    const open = () =>
      readdirSync("/proc/self/fd").some((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === file;
        } catch {
          return false;
        }
      });
    expect(read()).toEqual(LINES);
    expect(open()).toBe(true);
    await expect.poll(open, { timeout: 10_000, interval: 100 }).toBe(false);
  });
});
