/**
 * Content hashing as docs/LEDGER.md defines it: CRLF→LF, trailing spaces/tabs stripped from every line, lines
 * joined with `\n`, SHA-256. The normalization makes hashes survive editors that change line endings or trim
 * whitespace on save, which are not authorship changes.
 */
import { createHash, hash } from "node:crypto";

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
  // one-shot hashing of one joined string: most calls hash a range or a small file, where a Hash object
  // per call costs more than the hashing
  if (lines.length <= HASH_BATCH) {
    const normalized = new Array<string>(lines.length);
    for (let i = 0; i < lines.length; i++) normalized[i] = normalizeLine(lines[i]!);
    return HASH_PREFIX + hash("sha256", normalized.join("\n"), "hex");
  }
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

/**
 * Whole-file hashes of the last few large texts: one save asks for the hash of the same text (and of the
 * text before it, and of the file read back from disk) in several places. A string is immutable, so the
 * hash of an equal string is the same; comparing two equal large strings costs far less than hashing one.
 */
const recentHashes: { text: string; hash: string }[] = [];
const RECENT_HASHES = 4;
/** Below this length hashing is cheap and not worth remembering. */
const REMEMBER_FROM = 1 << 16;

function remembered(text: string): string | undefined {
  if (text.length < REMEMBER_FROM) return undefined;
  for (const r of recentHashes) if (r.text.length === text.length && r.text === text) return r.hash;
  return undefined;
}

function remember(text: string, hash: string): string {
  if (text.length < REMEMBER_FROM) return hash;
  recentHashes.unshift({ text, hash });
  if (recentHashes.length > RECENT_HASHES) recentHashes.pop();
  return hash;
}

/** Whole-file hash (`pre_hash`/`post_hash`, flat records' `content_hash`). */
export function fileHash(text: string): string {
  const known = remembered(text);
  if (known) return known;
  const steps = fileHashSteps(text, Infinity);
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}

/**
 * `fileHash` in slices of about `sliceChars` characters, each ending at a line break, pausing (yielding)
 * between them, so that a caller can let other work run while a very large text is hashed. The result is
 * remembered as `fileHash`'s is.
 */
export function* fileHashSteps(text: string, sliceChars: number): Generator<void, string> {
  const known = remembered(text);
  if (known) return known;
  const h = createHash("sha256");
  let start = 0;
  while (start < text.length) {
    // cut after a LF, so that a CRLF stays whole and no surrogate pair is split
    const cut = sliceChars >= text.length - start ? -1 : text.indexOf("\n", start + sliceChars);
    const end = cut === -1 ? text.length : cut + 1;
    const slice = text.slice(start, end);
    // a slice already in normal form is its own normalized join: hashed as it is. Each slice is checked on
    // its own, so that no step scans the whole text (a slice ends at a LF, so " \n" inside it covers its
    // last line)
    if (isNormal(slice)) h.update(slice);
    else {
      const lines = splitLines(slice);
      // a slice ending at a line break: its last (empty) line is the start of the next slice
      if (end < text.length) lines.pop();
      for (let i = 0; i < lines.length; i++) lines[i] = normalizeLine(lines[i]!);
      h.update(end < text.length ? `${lines.join("\n")}\n` : lines.join("\n"));
    }
    start = end;
    if (start < text.length) yield;
  }
  return remember(text, HASH_PREFIX + h.digest("hex"));
}

/** Short hash of one normalized line, used to re-anchor single lines; not a content proof on its own. */
export function lineHash(line: string): string {
  return hash("sha256", normalizeLine(line), "hex").slice(0, LINE_HASH_HEX_LENGTH);
}

/** `sha256:` of raw bytes, without normalization. */
export function bytesHash(bytes: Uint8Array | string): string {
  return HASH_PREFIX + createHash("sha256").update(bytes).digest("hex");
}

/**
 * What the ledger chain hashes of a line (without its "\n"): its bytes as written, less one final carriage
 * return. git stores the ledger with "\n" line ends and a CRLF checkout (`core.autocrlf`) adds "\r" to each
 * line, so the chain must be the same in both.
 */
export function chainBytes(line: Uint8Array): Uint8Array {
  return line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line;
}

/** The `prev` a record written after `line` carries: `sha256:` of its `chainBytes`. */
export function chainHash(line: Uint8Array | string): string {
  return bytesHash(typeof line === "string" ? line.replace(/\r$/, "") : chainBytes(line));
}
