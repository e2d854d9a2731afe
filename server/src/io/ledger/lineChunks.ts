/**
 * Reading a ledger file as runs of whole lines, chunk by chunk: the one reader under the follower (which
 * indexes what was appended) and the verifier (which checks every line), so both see the same lines
 * whatever the chunk size, and memory stays flat on a ledger of any length.
 */
import type { FileHandle } from "node:fs/promises";

const NEWLINE = 0x0a;

export interface LineChunk {
  /** Whole lines, each ending in "\n". Valid only until the next chunk is read: copy what you keep. */
  bytes: Buffer;
  /** File offset of `bytes[0]`. */
  offset: number;
}

/**
 * Yields the whole lines of `[from, to)` in chunks of about `chunkBytes` (a longer line comes whole, in a
 * chunk of its own), yielding to the event loop between reads so that an editor keeps answering. Returns the
 * bytes after the last newline: a line still being written, or a final line without one.
 *
 * Each read lands right after the line the last one cut, so a chunk is never copied whole. By default every
 * chunk is read into one buffer (valid until the next chunk); `fresh` gives each chunk a buffer of its own
 * instead (one in memory another thread shares, for a chunk handed to a worker while the next is read).
 */
export async function* lineChunks(
  handle: FileHandle,
  from: number,
  to: number,
  chunkBytes: number,
  fresh?: (size: number) => Buffer,
): AsyncGenerator<LineChunk, Buffer, void> {
  let position = from;
  let offset = from;
  let carry: Buffer = Buffer.alloc(0);
  // one buffer for the whole read: a fresh megabyte per chunk left the process's memory fragmented long
  // after indexing a large ledger
  let reused: Buffer | undefined;
  while (position < to) {
    const want = Math.min(chunkBytes, to - position);
    const size = carry.length + want;
    let buffer: Buffer;
    if (fresh) buffer = fresh(size);
    else {
      if (!reused || reused.length < size) reused = Buffer.allocUnsafe(Math.max(size, chunkBytes));
      buffer = reused;
    }
    carry.copy(buffer, 0);
    const { bytesRead } = await handle.read(buffer, carry.length, want, position);
    if (bytesRead === 0) break; // cut while reading: the caller's next look at the file notices
    position += bytesRead;
    const data = buffer.subarray(0, carry.length + bytesRead);
    const lastNewline = data.lastIndexOf(NEWLINE);
    if (lastNewline === -1) {
      carry = Buffer.from(data); // a copy: the buffer is read into again
      continue;
    }
    yield { bytes: data.subarray(0, lastNewline + 1), offset };
    offset += lastNewline + 1;
    // a copy: a subarray would pin the whole chunk in memory until the next read
    carry = Buffer.from(data.subarray(lastNewline + 1));
    if (position < to) await new Promise((resolve) => setImmediate(resolve));
  }
  return carry;
}

/** Calls `each` for every line of `chunk` (without its newline), in order. */
export function forEachLine(chunk: Buffer, each: (line: Buffer) => void): void {
  let start = 0;
  for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
    each(chunk.subarray(start, nl));
    start = nl + 1;
  }
}
