/**
 * Content hashing as docs/LEDGER.md defines it: CRLF→LF, trailing spaces/tabs stripped from every line, lines
 * joined with `\n`, SHA-256. The normalization makes hashes survive editors that change line endings or trim
 * whitespace on save, which are not authorship changes.
 */
import { createHash } from "node:crypto";

export const HASH_PREFIX = "sha256:";
/** Hex digits kept by `lineHash`; 32 bits is plenty to re-anchor within one file, and keeps records small. */
export const LINE_HASH_HEX_LENGTH = 8;

const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;

/** One line as it is hashed: a single trailing CR (from CRLF) and trailing spaces/tabs removed. */
export function normalizeLine(line: string): string {
  let end = line.length;
  if (end > 0 && line.charCodeAt(end - 1) === CR) end--;
  while (end > 0) {
    const c = line.charCodeAt(end - 1);
    if (c !== SPACE && c !== TAB) break;
    end--;
  }
  return end === line.length ? line : line.slice(0, end);
}

/**
 * The line model every part shares, the LSP's: CRLF, LF and a lone CR each end a line. A final line break
 * yields a final empty line: "a\n" → ["a", ""].
 */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Splits text into normalized lines (see `splitLines`, `normalizeLine`). */
export function normalizeLines(text: string): string[] {
  const lines = splitLines(text);
  for (let i = 0; i < lines.length; i++) lines[i] = normalizeLine(lines[i]!);
  return lines;
}

/** Lines hashed per `update` call: one call per line costs more than the hashing itself on large files. */
const HASH_BATCH = 4096;

/** `sha256:<hex>` of the lines, each normalized, joined with `\n` (no trailing newline added). */
export function contentHash(lines: readonly string[]): string {
  const h = createHash("sha256");
  const batch: string[] = [];
  for (let start = 0; start < lines.length; start += HASH_BATCH) {
    const end = Math.min(lines.length, start + HASH_BATCH);
    batch.length = 0;
    for (let i = start; i < end; i++) batch.push(normalizeLine(lines[i]!));
    h.update(start > 0 ? `\n${batch.join("\n")}` : batch.join("\n"));
  }
  return HASH_PREFIX + h.digest("hex");
}

/** Text normalization leaves as it is: no CR, and no line (the last included) ending in a space or a tab. */
function isNormal(text: string): boolean {
  // indexOf scans are far faster than a regular expression over a large text
  const last = text.charCodeAt(text.length - 1);
  return text.indexOf("\r") === -1 && text.indexOf(" \n") === -1 && text.indexOf("\t\n") === -1 && last !== SPACE && last !== TAB;
}

/** Whole-file hash (`pre_hash`/`post_hash`, flat records' `content_hash`). */
export function fileHash(text: string): string {
  // text already in normal form is its own normalized join: hashed in one call
  if (isNormal(text)) return HASH_PREFIX + createHash("sha256").update(text).digest("hex");
  return contentHash(splitLines(text));
}

/** Short hash of one normalized line, used to re-anchor single lines; not a content proof on its own. */
export function lineHash(line: string): string {
  return createHash("sha256").update(normalizeLine(line)).digest("hex").slice(0, LINE_HASH_HEX_LENGTH);
}

/** `sha256:` of raw bytes: the ledger chain (`prev`) hashes lines exactly as stored, without normalization. */
export function bytesHash(bytes: Uint8Array | string): string {
  return HASH_PREFIX + createHash("sha256").update(bytes).digest("hex");
}
