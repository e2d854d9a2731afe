import { open } from "node:fs/promises";
import { join } from "node:path";
import { parseLedgerLines } from "./read";

const CHUNK = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * Whether any of the ledgers already pins `path` to the content whose hash is `postHash` — the question an
 * agent's post-write hook asks once per write. A hook is a fresh process, so building the index would parse
 * the whole ledger every time; instead the bytes are searched for the hash (memchr-fast) and only the lines
 * that contain it are parsed. Reads in chunks: memory stays flat however large the ledger is.
 */
export async function ledgerHasPostHash(root: string, ledgerPaths: readonly string[], path: string, postHash: string): Promise<boolean> {
  const needle = Buffer.from(postHash);
  for (const ledger of ledgerPaths) {
    const handle = await open(join(root, ledger), "r").catch(() => undefined);
    if (!handle) continue;
    try {
      let carry = Buffer.alloc(0);
      for (;;) {
        const buf = Buffer.alloc(CHUNK);
        const { bytesRead } = await handle.read(buf, 0, CHUNK, null);
        const data = Buffer.concat([carry, buf.subarray(0, bytesRead)]);
        const end = bytesRead === 0 ? data.length : data.lastIndexOf(NEWLINE) + 1;
        if (linesPin(data.subarray(0, end), needle, path, postHash)) return true;
        if (bytesRead === 0) break;
        carry = Buffer.from(data.subarray(end));
      }
    } finally {
      await handle.close();
    }
  }
  return false;
}

function linesPin(data: Buffer, needle: Buffer, path: string, postHash: string): boolean {
  for (let at = data.indexOf(needle); at !== -1; at = data.indexOf(needle, at + needle.length)) {
    const start = data.lastIndexOf(NEWLINE, at) + 1;
    const next = data.indexOf(NEWLINE, at);
    const line = data.subarray(start, next === -1 ? data.length : next).toString("utf8");
    if (parseLedgerLines(line, 1).entries.some((e) => e.path === path && e.postHash === postHash)) return true;
  }
  return false;
}

/**
 * The whole-file hash the ledger's newest record of `path` pins (null: it recorded a deletion; undefined:
 * no record of `path` states one). Newest means last in the file: appends are in causal order. Read from the
 * end in chunks, parsing only lines that name the path, so the usual answer (the file was recorded a moment
 * ago) costs one chunk however large the ledger is.
 */
export async function ledgerNewestPostHash(ledgerFile: string, path: string): Promise<string | null | undefined> {
  const handle = await open(ledgerFile, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const needle = Buffer.from(JSON.stringify(path));
    let position = (await handle.stat()).size;
    let carry = Buffer.alloc(0); // the start of a line whose beginning lies in the next chunk back
    while (position > 0) {
      const size = Math.min(CHUNK, position);
      position -= size;
      const buf = Buffer.alloc(size);
      await handle.read(buf, 0, size, position);
      const data = Buffer.concat([buf, carry]);
      // complete lines: after the first newline, unless we reached the start of the file
      const firstNewline = data.indexOf(NEWLINE);
      if (position > 0 && firstNewline === -1) {
        carry = data; // one line longer than a chunk: keep going back
        continue;
      }
      const from = position === 0 ? 0 : firstNewline + 1;
      const lines = data.subarray(from);
      for (let end = lines.length; end > 0; ) {
        const start = lines.lastIndexOf(NEWLINE, end - 1) + 1;
        const line = lines.subarray(start, end);
        if (line.indexOf(needle) !== -1) {
          const entries = parseLedgerLines(line.toString("utf8"), 1).entries.filter((e) => e.path === path);
          if (entries.length) return entries[0]!.postHash;
        }
        end = start - 1;
      }
      carry = Buffer.from(data.subarray(0, from));
    }
    return undefined;
  } finally {
    await handle.close();
  }
}
