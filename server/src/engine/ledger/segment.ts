/**
 * The sealed segment's format (docs/LEDGER.md "Segments"): older ledger lines, encoded so that a segment is
 * a fraction of their size and decodes back to exactly the same bytes. Exact bytes keep every promise of
 * the ledger: `prev` still hashes the line as written, `intent verify` checks the chain as it always did,
 * and `intent export` hands other Agent Trace tools the records their writers wrote.
 *
 * A record line whose text is what `JSON.stringify` writes for it is stored as a compact record:
 * - a string value of at least MIN_SHARED characters seen earlier in the segment (a path, a model id, a
 *   session or intent url, a revision, a `pre_hash` that an earlier record pinned as its `post_hash`) is a
 *   reference to its first occurrence: BACKREF + its number in base 36;
 * - our `prev`, when it is the hash of the line before (as every appender writes it), is the number 0: the
 *   decoder hashes the line it has just produced.
 * Any other line (another tool's formatting, a blank or torn line, a string that starts with a marker) is
 * stored as written. The compression of the whole segment (io/ledger/segments.ts) does the rest.
 */
import { METADATA_KEY } from "@shared/agentTrace";
import { bytesHash } from "../hashing";
import { isBlankBytes } from "./blankLine";

export const SEGMENT_FORMAT = "intent-lsp/ledger-segment";
export const SEGMENT_VERSION = 1;

/** The first line of a segment file, stored uncompressed so that ordering segments reads no body. */
export interface SegmentHeader {
  format: typeof SEGMENT_FORMAT;
  version: number;
  /** The segment that was newest when this one was sealed (its name), or null for the first. */
  after: string | null;
  /** Lines in the segment (records, and the blank, foreign or torn lines among them). */
  lines: number;
  /** Timestamps of the first and the last record, as written; null when no line has one. */
  from: string | null;
  until: string | null;
  /** Bytes of the compressed text after the header line; the binary column follows them. */
  text_bytes: number;
}

/** Strings shorter than this are cheaper written again than referenced. */
const MIN_SHARED = 8;
const BACKREF = "\u0001";
/** The form of a line stored as written: valid UTF-8 text, or base64 bytes. */
const RAW_TEXT = "r";
const RAW_BYTES = "b";

export class SegmentFormatError extends Error {
  override name = "SegmentFormatError";
}

/**
 * Hex strings are stored as bytes in the segment's binary column (`column`), in the order the encoder
 * meets them, and the text holds a marker: hex does not compress, and as text it costs twice its bytes.
 */
const HEX_FORMS: readonly { marker: string; test: RegExp; bytes: number; toHex: (hex: string) => string; fromHex: (s: string) => string }[] = [
  { marker: "\u0002", test: /^sha256:[0-9a-f]{64}$/, bytes: 32, toHex: (s) => s.slice(7), fromHex: (h) => `sha256:${h}` },
  {
    marker: "\u0003",
    test: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    bytes: 16,
    toHex: (s) => s.replace(/-/g, ""),
    fromHex: (h) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
  },
  { marker: "\u0004", test: /^[0-9a-f]{8}$/, bytes: 4, toHex: (s) => s, fromHex: (h) => h },
  { marker: "\u0005", test: /^[0-9a-f]{40}$/, bytes: 20, toHex: (s) => s, fromHex: (h) => h },
];
/** A string starting with one of these would be read as a marker: its line is stored as written. */
const MARKER_START = /^[\u0001-\u0005]/;

/** Encodes one segment's lines, in order: `encode` returns the text of each; `column` collects their hex as bytes. */
export class SegmentEncoder {
  private readonly shared = new Map<string, number>();
  private prevHash: string | null = null;
  readonly column: Buffer[] = [];

  encode(line: Uint8Array): string {
    const compact = this.compact(line);
    this.chain(line);
    return compact ?? raw(line);
  }

  private chain(line: Uint8Array): void {
    if (!isBlankBytes(line)) this.prevHash = bytesHash(line);
  }

  private compact(line: Uint8Array): string | undefined {
    const text = Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString("utf8");
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isObject(value) || JSON.stringify(value) !== text || !Buffer.from(text, "utf8").equals(line)) return undefined;
    const ours = ourMetadata(value);
    if (ours && "prev" in ours) {
      if (typeof ours["prev"] === "number") return undefined; // 0 is the marker of a derived prev
      if (ours["prev"] !== null && ours["prev"] === this.prevHash) ours["prev"] = 0;
    }
    const added: string[] = [];
    const columnLength = this.column.length;
    const out = this.share(value, added);
    if (out === undefined) {
      for (const s of added) this.shared.delete(s);
      this.column.length = columnLength;
      return undefined;
    }
    return JSON.stringify(out);
  }

  /** The value with repeated strings replaced by references; undefined when a string looks like a marker. */
  private share(value: unknown, added: string[]): unknown {
    if (typeof value === "string") return this.shareString(value, added);
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const v of value) {
        const s = this.share(v, added);
        if (s === undefined) return undefined;
        out.push(s);
      }
      return out;
    }
    if (isObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (k === "__proto__") return undefined; // an own "__proto__" key would not survive being rebuilt
        const s = this.share(v, added);
        if (s === undefined) return undefined;
        out[k] = s;
      }
      return out;
    }
    return value;
  }

  private shareString(value: string, added: string[]): string | undefined {
    if (MARKER_START.test(value)) return undefined;
    if (value.length < MIN_SHARED) return value;
    const n = this.shared.get(value);
    if (n !== undefined) return BACKREF + n.toString(36);
    const form = HEX_FORMS.find((f) => f.test.test(value));
    // a line hash is short and rarely repeats: it goes to the column without a place in the shared table
    if (!form || form.bytes > 4) {
      this.shared.set(value, this.shared.size);
      added.push(value);
    }
    if (!form) return value;
    this.column.push(Buffer.from(form.toHex(value), "hex"));
    return form.marker;
  }
}

/** Decodes one segment's lines, in order, back into the exact bytes that were sealed. */
export class SegmentDecoder {
  private readonly shared: string[] = [];
  private prevHash: string | null = null;
  private at = 0;

  /** `column`: the segment's binary column, read from the start as lines are decoded. */
  constructor(private readonly column: Uint8Array) {}

  /** `where` names the line for an error (segment and line). */
  decode(compact: string, where: string): Buffer {
    let value: unknown;
    try {
      value = JSON.parse(compact);
    } catch {
      throw new SegmentFormatError(`${where}: not a compact ledger line (invalid JSON); the segment is damaged — restore it from git`);
    }
    let line: Buffer;
    if (Array.isArray(value) && value.length === 2 && typeof value[1] === "string" && (value[0] === RAW_TEXT || value[0] === RAW_BYTES)) {
      line = value[0] === RAW_TEXT ? Buffer.from(value[1], "utf8") : Buffer.from(value[1], "base64");
    } else if (isObject(value)) {
      const record = this.expand(value, where) as Record<string, unknown>;
      const ours = ourMetadata(record);
      if (ours && ours["prev"] === 0) ours["prev"] = this.prevHash;
      line = Buffer.from(JSON.stringify(record), "utf8");
    } else {
      throw new SegmentFormatError(`${where}: neither a compact record nor a raw line; the segment is damaged — restore it from git`);
    }
    if (!isBlankBytes(line)) this.prevHash = bytesHash(line);
    return line;
  }

  /** Whether every byte of the column was read (a segment that decodes with bytes left over is damaged). */
  get columnDone(): boolean {
    return this.at === this.column.length;
  }

  private expand(value: unknown, where: string): unknown {
    if (typeof value === "string") return this.expandString(value, where);
    if (Array.isArray(value)) return value.map((v) => this.expand(v, where));
    if (isObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.expand(v, where);
      return out;
    }
    return value;
  }

  private expandString(value: string, where: string): string {
    if (value.startsWith(BACKREF)) {
      const s = this.shared[Number.parseInt(value.slice(1), 36)];
      if (s === undefined) throw new SegmentFormatError(`${where}: a reference to a string the segment never wrote; the segment is damaged`);
      return s;
    }
    const form = value.length === 1 ? HEX_FORMS.find((f) => f.marker === value) : undefined;
    if (form) {
      if (this.at + form.bytes > this.column.length) throw new SegmentFormatError(`${where}: the segment's binary column ends early; the segment is damaged`);
      const s = form.fromHex(Buffer.from(this.column.buffer, this.column.byteOffset + this.at, form.bytes).toString("hex"));
      this.at += form.bytes;
      if (form.bytes > 4) this.shared.push(s);
      return s;
    }
    if (value.length >= MIN_SHARED) this.shared.push(value);
    return value;
  }
}

/** The header line's values, checked; a message saying what is wrong otherwise. */
export function parseSegmentHeader(text: string): SegmentHeader | string {
  let h: unknown;
  try {
    h = JSON.parse(text);
  } catch {
    return "its first line is not a segment header (invalid JSON)";
  }
  if (!isObject(h) || h["format"] !== SEGMENT_FORMAT) return `its first line is not a ${SEGMENT_FORMAT} header`;
  if (h["version"] !== SEGMENT_VERSION) return `segment version ${JSON.stringify(h["version"])} is not ${SEGMENT_VERSION}: a newer intent-lsp wrote it`;
  const after = h["after"];
  if (after !== null && (typeof after !== "string" || !SEGMENT_NAME.test(after))) return "its header's `after` is not a segment name";
  const count = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 0;
  if (!count(h["lines"])) return "its header's `lines` is not a count";
  if (!count(h["text_bytes"])) return "its header's `text_bytes` is not a count";
  const time = (v: unknown) => (typeof v === "string" ? v : null);
  return {
    format: SEGMENT_FORMAT,
    version: SEGMENT_VERSION,
    after,
    lines: h["lines"] as number,
    from: time(h["from"]),
    until: time(h["until"]),
    text_bytes: h["text_bytes"] as number,
  };
}

/** A segment's name: the hex SHA-256 of its file's bytes, so two branches' segments never collide. */
export const SEGMENT_NAME = /^[0-9a-f]{64}$/;

/**
 * The order readers read segments in: each after the one it was sealed after, segments sealed on two
 * branches after the same one by their first timestamp, then name. A segment whose predecessor is missing
 * starts a chain of its own (`intent verify` reports the gap).
 */
export function orderSegments<T extends { name: string; header: Pick<SegmentHeader, "after" | "from"> }>(segments: readonly T[]): T[] {
  const byName = new Map(segments.map((s) => [s.name, s]));
  const children = new Map<string | null, T[]>();
  for (const s of segments) {
    const parent = s.header.after !== null && byName.has(s.header.after) ? s.header.after : null;
    const list = children.get(parent) ?? [];
    list.push(s);
    children.set(parent, list);
  }
  const key = (s: T) => `${s.header.from ?? ""}\u0000${s.name}`;
  const ready = [...(children.get(null) ?? [])];
  const out: T[] = [];
  while (ready.length) {
    ready.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    const next = ready.shift()!;
    out.push(next);
    ready.push(...(children.get(next.name) ?? []));
  }
  return out;
}

/** The timestamp a ledger line's record states, when the line is a JSON object with one. */
export function lineTimestamp(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) && typeof value["timestamp"] === "string" ? value["timestamp"] : undefined;
  } catch {
    return undefined;
  }
}

function raw(line: Uint8Array): string {
  const bytes = Buffer.from(line.buffer, line.byteOffset, line.byteLength);
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? JSON.stringify([RAW_TEXT, text]) : JSON.stringify([RAW_BYTES, bytes.toString("base64")]);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function ourMetadata(record: Record<string, unknown>): Record<string, unknown> | undefined {
  const metadata = record["metadata"];
  if (!isObject(metadata)) return undefined;
  const ours = metadata[METADATA_KEY];
  return isObject(ours) ? ours : undefined;
}
