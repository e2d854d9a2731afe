import { join } from "node:path";
import { openRegular } from "../regularFiles";
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
    const handle = await openRegular(join(root, ledger)).catch(() => undefined);
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
