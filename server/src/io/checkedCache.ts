/**
 * The envelope of every cache file intent-lsp keeps in the workspace's cache folder and later trusts: a
 * cache is checked before it is trusted, and a damaged one is rebuilt. A crash after a rename can leave a
 * file zeroed at its full length; a disk or a person can truncate it, append to it or flip a byte in it. A
 * JSON or binary decoder may read such bytes as other numbers without failing, so each file carries its
 * name, its format, the length of what it holds and a checksum of it, and a reader that finds any of them
 * wrong sees no cache at all (then the caller counts, parses or walks again, and writes the cache anew).
 *
 * Layout: one line of ASCII, `intent-lsp-cache NAME FORMAT CHECKSUM LENGTH DIGEST`, padded with spaces to a
 * multiple of 8 bytes (so that typed arrays in the payload stay aligned), then exactly LENGTH bytes of
 * payload. CHECKSUM is `hmac-sha256` (node:crypto) or `keyed-words` (engine/wordChecksum.ts, four bytes at a
 * time: for a file read on every hook's and CLI call's path, which does not load crypto, and which a
 * catalogue of a thousand intents makes half a megabyte), both keyed with this user's cache key.
 */
import { createHmac } from "node:crypto";
import { cacheKey } from "./cacheKey";
import { wordChecksum } from "../engine/wordChecksum";
import { readOwnBytes, writeOwnFile } from "./ownFiles";

const MAGIC = "intent-lsp-cache";
/** The longest header line a reader looks for: a longer one is not ours. */
const MAX_HEADER = 256;

/** What a cache file is: its name (never another cache's), its format, and how its payload is checked. */
export interface CacheKind {
  name: string;
  format: number;
  checksum: "sha256" | "words";
}

/** What a header calls each checksum: both are keyed with this user's cache key (io/cacheKey.ts). */
const LABELS = { sha256: "hmac-sha256", words: "keyed-words" } as const;

/**
 * The payload's checksum under this user's cache key: a cache made elsewhere (shipped in a repository,
 * copied from another machine) never checks, however whole it is. `words` keys the word checksum with the
 * key as the bytes before the payload: a secret starting state, which no one without the key can reach.
 */
function digest(kind: CacheKind, parts: readonly Uint8Array[]): string {
  const key = cacheKey();
  if (kind.checksum === "words") return wordChecksum(Buffer.concat([key, ...parts]));
  const h = createHmac("sha256", key);
  for (const p of parts) h.update(p);
  return h.digest("hex");
}

function headerLine(kind: CacheKind, length: number, sum: string): Buffer {
  const line = `${MAGIC} ${kind.name} ${kind.format} ${LABELS[kind.checksum]} ${length} ${sum}`;
  return Buffer.from(`${line.padEnd(Math.ceil((line.length + 1) / 8) * 8 - 1, " ")}\n`, "latin1");
}

/** The bytes of a cache file holding `payload` (given in parts, as if joined). */
export function sealCache(kind: CacheKind, payload: readonly Uint8Array[]): Uint8Array[] {
  const length = payload.reduce((n, p) => n + p.length, 0);
  return [headerLine(kind, length, digest(kind, payload)), ...payload];
}

/** The payload of a cache file's bytes when they are whole and of `kind`; undefined for anything else. */
export function openCache(kind: CacheKind, bytes: Buffer): Buffer | undefined {
  const end = bytes.subarray(0, MAX_HEADER).indexOf(0x0a);
  if (end < 0 || (end + 1) % 8 !== 0) return undefined;
  const fields = bytes.toString("latin1", 0, end).trimEnd().split(" ");
  if (fields.length !== 6) return undefined;
  const [magic, name, format, checksum, length, sum] = fields;
  if (magic !== MAGIC || name !== kind.name || format !== String(kind.format) || checksum !== LABELS[kind.checksum]) return undefined;
  const payload = bytes.subarray(end + 1);
  if (length !== String(payload.length)) return undefined;
  return digest(kind, [payload]) === sum ? payload : undefined;
}

/** Whether `bytes` are a whole cache file of the name `name`, of whichever format and checksum it states. */
export function isWholeCache(bytes: Buffer, name: string): boolean {
  const fields = bytes
    .toString("latin1", 0, Math.max(0, bytes.subarray(0, MAX_HEADER).indexOf(0x0a)))
    .trimEnd()
    .split(" ");
  const checksum = fields[3] === LABELS.sha256 ? "sha256" : fields[3] === LABELS.words ? "words" : undefined;
  if (checksum === undefined) return false;
  return openCache({ name, format: Number(fields[2]), checksum }, bytes) !== undefined;
}

/**
 * The payload of the cache file `rel` when it is there, whole and of `kind`; undefined when it is absent,
 * damaged, of another format or cannot be read safely (any of which means: rebuild it).
 */
export function readCheckedCache(root: string, rel: string, kind: CacheKind): Buffer | undefined {
  try {
    const bytes = readOwnBytes(root, rel);
    return bytes && openCache(kind, bytes);
  } catch {
    return undefined;
  }
}

/**
 * Writes the cache file `rel` durably (a fresh temporary file, flushed, then renamed: io/ownFiles.ts), so a
 * crash leaves the old file or the new one. False when it cannot be written (a read-only checkout): the
 * cache is then rebuilt next time.
 */
export function writeCheckedCache(root: string, rel: string, kind: CacheKind, payload: string | readonly Uint8Array[]): boolean {
  try {
    writeOwnFile(root, rel, sealCache(kind, typeof payload === "string" ? [Buffer.from(payload, "utf8")] : payload));
    return true;
  } catch {
    return false;
  }
}
