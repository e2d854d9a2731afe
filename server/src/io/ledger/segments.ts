/**
 * Sealed segments (docs/LEDGER.md "Segments"), each a header line and the brotli-compressed compact lines
 * (engine/ledger/segment.ts), named by the SHA-256 of its bytes. A segment is found in one of two places:
 * a blob of git's that the working tree's manifest (`<ledger>.sealed`) names, kept alive by the ref
 * `refs/intent/ledger` (io/ledger/sealedRef.ts), or a file `<ledger>.segments/<name>.seg` beside the live
 * ledger (a workspace outside git, `--store folder`, or a ledger sealed before the ref existed).
 * Readers see every segment's lines, in order, before the live file's: `sealedLines` for streams (verify,
 * export, compact) and `refreshSealedCopy` for the index, which follows a decoded copy in the cache folder
 * like any other ledger file.
 */
import { sealedManifestPath, segmentsDir } from "../../engine/workspaceFiles";
import { createHash } from "node:crypto";
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, constants as zlib } from "node:zlib";
import {
  orderSegments,
  parseSegmentHeader,
  SEGMENT_FORMAT,
  SEGMENT_NAME,
  SEGMENT_VERSION,
  SegmentDecoder,
  SegmentEncoder,
  SegmentFormatError,
  type SegmentHeader,
} from "../../engine/ledger/segment";
import { isBlankBytes } from "../../engine/ledger/blankLine";
import {
  countedLinesProblem,
  countLinesUpTo,
  declaredLinesProblem,
  manifestLinesProblem,
  SEGMENT_MAX_TEXT_BYTES,
  textTooLargeProblem,
} from "../../engine/ledger/segmentBounds";
import { LRUCache } from "lru-cache";
import { describeEntries, parseManifest, type ManifestEntry, type ParsedManifest } from "../../engine/ledger/sealedManifest";
import { CACHE_DIR, workspaceCacheDir } from "../cacheDir";
import { type CacheKind, readCheckedCache, writeCheckedCache } from "../checkedCache";
import { checkOwnRead, ownFilePath, readOwnFile, replaceOwnFile, writeAllSync } from "../ownFiles";
import { readRegularBytes } from "../regularFiles";
import { readBlob, SEALED_REF } from "./sealedRef";

export const SEGMENT_EXTENSION = ".seg";
/** The decoded copy of every segment's lines, which the index follows (rebuilt when the segments change). */
export const SEALED_COPY = `${CACHE_DIR}/sealed.jsonl`;
/** What the decoded copy was made from and what it holds (refreshSealedCopy), a checked cache. */
const SEALED_MANIFEST = `${CACHE_DIR}/sealed.manifest`;
/** Brotli's quality for the text part: its hex is in the column, so a middle quality is near the best. */
const COMPRESSION_QUALITY = 7;

export { sealedManifestPath, segmentsDir };

export function readManifest(root: string, ledgerPath: string): ParsedManifest {
  const text = readOwnFile(root, sealedManifestPath(ledgerPath));
  return text === undefined ? { entries: [], problems: [] } : parseManifest(text);
}

export interface SegmentFile {
  name: string;
  /** Where it was read: the file's workspace-relative path, or `refs/intent/ledger:<name>.seg`. */
  rel: string;
  /** The workspace file a problem with it is shown on: the segment file, or the manifest that names it. */
  file: string;
  header: SegmentHeader;
  bytes: Buffer;
  /** Where the compressed body starts in `bytes`. */
  bodyAt: number;
  /** The line of `file` a problem with it is shown on: the manifest line that names it, or 1. */
  line: number;
  /** The manifest entry it was read through, when it was read from git. */
  entry?: ManifestEntry;
}

export class SegmentReadError extends Error {
  override name = "SegmentReadError";
  constructor(
    message: string,
    /** The workspace file the problem is shown on, and its line there. */
    readonly file: string,
    readonly line = 1,
  ) {
    super(message);
  }
}

/**
 * A segment refused before any of its lines is decoded (engine/ledger/segmentBounds.ts): it declares more
 * than a segment may hold, or holds other lines than it declares. Readers skip it and warn.
 */
export class SegmentRefusedError extends SegmentReadError {
  override name = "SegmentRefusedError";
}

/** A segment the manifest names whose blob this clone does not have (its ref was never fetched). */
export class SegmentMissingError extends SegmentReadError {
  override name = "SegmentMissingError";
  constructor(
    readonly entries: readonly ManifestEntry[],
    file: string,
  ) {
    super(
      `${describeEntries(entries)} ${entries.length === 1 ? "is" : "are"} not in this clone: fetch the sealed history with \`intent ledger fetch\` (git fetch origin ${SEALED_REF})`,
      file,
      Math.min(...entries.map((e) => e.line)),
    );
  }
}

/** Names of the sealed segments, in the segments folder or named by the manifest (sorted, each once). */
export function segmentNames(root: string, ledgerPath: string): string[] {
  const names = new Set(folderSegmentNames(root, ledgerPath));
  for (const e of readManifest(root, ledgerPath).entries) names.add(e.name);
  return [...names].sort();
}

/** Names of the segment files in the segments folder; empty when there is none. */
export function folderSegmentNames(root: string, ledgerPath: string): string[] {
  const dir = segmentsDir(ledgerPath);
  let entries: string[];
  try {
    checkOwnRead(root, dir);
    entries = readdirSync(join(root, dir));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return [];
    throw e;
  }
  // Stryker disable next-line MethodExpression: equivalent for the sort: readdirSync gives the names sorted already (libuv's scandir sorts them), and the filter and map keep their order
  return entries
    .filter((f) => f.endsWith(SEGMENT_EXTENSION) && SEGMENT_NAME.test(f.slice(0, -SEGMENT_EXTENSION.length)))
    .map((f) => f.slice(0, -SEGMENT_EXTENSION.length))
    .sort();
}

/**
 * Reads one segment and its header, from the segments folder or else from git as the manifest names it;
 * throws SegmentReadError saying what is wrong with it and what to do.
 */
export function readSegmentFile(root: string, ledgerPath: string, name: string): SegmentFile {
  const rel = `${segmentsDir(ledgerPath)}/${name}${SEGMENT_EXTENSION}`;
  checkOwnRead(root, rel);
  let bytes: Buffer | undefined;
  try {
    bytes = readRegularBytes(join(root, rel));
  } catch (e) {
    // Stryker disable next-line ConditionalExpression,StringLiteral: unreachable defence for ENOTDIR: checkOwnRead above refuses a path under a file (it has no landing in the workspace) before this read
    if ((e as NodeJS.ErrnoException).code !== "ENOENT" && (e as NodeJS.ErrnoException).code !== "ENOTDIR") throw e;
  }
  if (bytes) return withHeader(name, rel, rel, bytes, 1);
  const manifest = sealedManifestPath(ledgerPath);
  const entry = readManifest(root, ledgerPath).entries.find((e) => e.name === name);
  if (!entry) throw new SegmentReadError(`${rel}: no such segment`, rel);
  const blob = readBlob(root, entry.blob);
  if (!blob) throw new SegmentMissingError([entry], manifest);
  return { ...withHeader(name, `${SEALED_REF}:${name}${SEGMENT_EXTENSION}`, manifest, blob, entry.line), entry };
}

function withHeader(name: string, rel: string, file: string, bytes: Buffer, line: number): SegmentFile {
  const nl = bytes.indexOf(0x0a);
  const header = nl === -1 ? "no header line" : parseSegmentHeader(bytes.subarray(0, nl).toString("utf8"));
  if (typeof header === "string") throw new SegmentReadError(`${rel}: ${header}; ${remedyFor({ rel, file })}`, file, line);
  return { name, rel, file, header, bytes, bodyAt: nl + 1, line };
}

/**
 * The segments, in the order readers read them (engine/ledger/segment.ts `orderSegments`). Throws the
 * first damaged one's error, or one error naming every segment this clone lacks.
 */
export function readSegments(root: string, ledgerPath: string): SegmentFile[] {
  const { segments, damaged } = readSegmentSet(root, ledgerPath);
  if (damaged.length) throw damaged[0];
  return segments;
}

/**
 * The segments that can be read, in reading order, and the errors of those that cannot (no header, not
 * in the folder or the manifest). Throws one error naming every segment this clone lacks.
 */
export function readSegmentSet(root: string, ledgerPath: string): { segments: SegmentFile[]; damaged: SegmentReadError[] } {
  const read: SegmentFile[] = [];
  const missing: SegmentMissingError[] = [];
  const damaged: SegmentReadError[] = [];
  for (const name of segmentNames(root, ledgerPath)) {
    try {
      read.push(readSegmentFile(root, ledgerPath, name));
    } catch (e) {
      if (e instanceof SegmentMissingError) missing.push(e);
      else if (e instanceof SegmentReadError) damaged.push(e);
      else throw e;
    }
  }
  if (missing.length)
    throw new SegmentMissingError(
      missing.flatMap((m) => m.entries).sort((a, b) => a.line - b.line),
      missing[0]!.file,
    );
  return { segments: orderSegments(read), damaged };
}

/** Whether the file's bytes still hash to its name (a changed byte anywhere does not). */
export function segmentIntact(segment: SegmentFile): boolean {
  return segmentName(segment.bytes) === segment.name;
}

/** A segment's name: the SHA-256 of its bytes, in hex. */
export function segmentName(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The header of segment bytes this process just encoded (encodeSegment). */
export function encodedHeader(bytes: Buffer): SegmentHeader {
  const header = parseSegmentHeader(bytes.subarray(0, bytes.indexOf(0x0a)).toString("utf8"));
  if (typeof header === "string") throw new Error(`an encoded segment's header: ${header}`);
  return header;
}

export interface SealedLine {
  bytes: Buffer;
  segment: SegmentFile;
  /** 1-based line of the segment. */
  line: number;
}

/**
 * Every segment's lines in reading order. A record line that an earlier segment already holds (two
 * branches that each sealed the lines they shared) is read once. A refused segment (SegmentRefusedError)
 * is handed to `onRefused` and skipped when it is given, and thrown otherwise.
 */
export function* sealedLines(segments: readonly SegmentFile[], onRefused?: (e: SegmentRefusedError) => void): Generator<SealedLine> {
  const seen = new Set<string>();
  for (const segment of segments) {
    let n = 0;
    let lines: Generator<Buffer>;
    try {
      lines = decodeSegment(segment);
    } catch (e) {
      if (!(e instanceof SegmentRefusedError) || !onRefused) throw e;
      onRefused(e);
      continue;
    }
    for (const bytes of lines) {
      n++;
      if (!isBlankBytes(bytes)) {
        const digest = createHash("sha256").update(bytes).digest().toString("latin1");
        if (seen.has(digest)) continue;
        seen.add(digest);
      }
      yield { bytes, segment, line: n };
    }
  }
}

/**
 * What this process found of each segment it checked, by the SHA-256 of its bytes: the problem that
 * refuses it, or null when it holds what it declares. A segment is checked once however often it is read.
 */
const checked = new LRUCache<string, { problem: string | null }>({ max: 1000 });

/**
 * A segment's lines, decoded to the bytes that were sealed. Throws SegmentRefusedError, before any line is
 * decoded, for a segment that declares or holds more than it may (engine/ledger/segmentBounds.ts).
 */
export function decodeSegment(segment: SegmentFile): Generator<Buffer> {
  const textEnd = segment.bodyAt + segment.header.text_bytes;
  const refuse = (problem: string) => new SegmentRefusedError(`${segment.rel}: ${problem}; ${refusedRemedy(segment)}`, segment.file, segment.line);
  const declared = segment.entry && manifestLinesProblem(segment.entry.lines, segment.header.lines);
  if (declared) throw refuse(declared);
  const key = segmentName(segment.bytes);
  const known = checked.get(key);
  if (known?.problem) throw refuse(known.problem);
  const problem = declaredLinesProblem(segment.header.lines);
  if (problem) {
    checked.set(key, { problem });
    throw refuse(problem);
  }
  if (textEnd > segment.bytes.length)
    throw new SegmentReadError(`${segment.rel}: shorter than its header says; ${remedyFor(segment)}`, segment.file, segment.line);
  let body: Buffer;
  try {
    body = brotliDecompressSync(segment.bytes.subarray(segment.bodyAt, textEnd), { maxOutputLength: SEGMENT_MAX_TEXT_BYTES });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      checked.set(key, { problem: textTooLargeProblem() });
      throw refuse(textTooLargeProblem());
    }
    throw new SegmentReadError(`${segment.rel}: its body does not decompress (${(e as Error).message}); ${remedyFor(segment)}`, segment.file, segment.line);
  }
  if (!known) {
    const counted = countedLinesProblem(countLinesUpTo(body, segment.header.lines), segment.header.lines);
    checked.set(key, { problem: counted ?? null });
    if (counted) throw refuse(counted);
  }
  return decodeLines(segment, body, textEnd);
}

function* decodeLines(segment: SegmentFile, body: Buffer, textEnd: number): Generator<Buffer> {
  const decoder = new SegmentDecoder(segment.bytes.subarray(textEnd));
  let start = 0;
  let n = 0;
  while (start < body.length) {
    const nl = body.indexOf(0x0a, start);
    const end = nl === -1 ? body.length : nl;
    n++;
    try {
      yield decoder.decode(body.subarray(start, end).toString("utf8"), `${segment.rel}:${n}`);
    } catch (e) {
      if (e instanceof SegmentFormatError) throw new SegmentReadError(e.message, segment.file, segment.line);
      throw e;
    }
    start = end + 1;
  }
  if (n !== segment.header.lines || !decoder.columnDone)
    throw new SegmentReadError(
      `${segment.rel}: holds other lines than its header says (${n} of ${segment.header.lines}); ${remedyFor(segment)}`,
      segment.file,
      segment.line,
    );
}

/** What restores a damaged segment: git's copy of the file, or the blob fetched again. */
export function remedyFor(segment: Pick<SegmentFile, "rel" | "file">): string {
  return segment.rel === segment.file ? "restore it from git (`git checkout -- <path>`)" : "fetch it again with `intent ledger fetch`";
}

/** What to do about a refused segment: restore or fetch it, or drop it when no compaction wrote it. */
function refusedRemedy(segment: Pick<SegmentFile, "rel" | "file">): string {
  const drop = segment.rel === segment.file ? "remove the file" : `remove its line from ${segment.file}`;
  return `${remedyFor(segment)}, or ${drop} if no \`intent ledger compact\` wrote it`;
}

/** Lines that would make a segment readers refuse (engine/ledger/segmentBounds.ts): seal them in parts. */
export class SegmentTooLargeError extends Error {
  override name = "SegmentTooLargeError";
}

/** A segment file's bytes for these lines (each without its newline), sealed after `after`. */
export function encodeSegment(lines: readonly Buffer[], after: string | null, from: string | null, until: string | null): Buffer {
  if (declaredLinesProblem(lines.length)) throw new SegmentTooLargeError(`${lines.length} lines are more than a segment may hold`);
  const encoder = new SegmentEncoder();
  // line by line, measured before they are joined: text near the cap is longer than a string may be
  const parts = lines.map((l) => Buffer.from(`${encoder.encode(l)}\n`));
  const size = parts.reduce((n, p) => n + p.length, 0);
  // Stryker disable next-line EqualityOperator: equivalent in what is kept: a text of exactly the cap is read whole (readers' maxOutputLength is inclusive) and sealed whole, or refused here and sealed in halves (compact.ts), the same lines either way
  if (size > SEGMENT_MAX_TEXT_BYTES) throw new SegmentTooLargeError(`${lines.length} lines encode to ${size} bytes of text, more than a segment may hold`);
  const body = Buffer.concat(parts, size);
  const text = brotliCompressSync(body, {
    params: { [zlib.BROTLI_PARAM_QUALITY]: COMPRESSION_QUALITY, [zlib.BROTLI_PARAM_LGWIN]: 24, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
  const header: SegmentHeader = { format: SEGMENT_FORMAT, version: SEGMENT_VERSION, after, lines: lines.length, from, until, text_bytes: text.length };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), text, ...encoder.column]);
}

/** Writes a segment through the own-file writer; its name. An identical segment already there is kept. */
export function writeSegment(root: string, ledgerPath: string, bytes: Buffer): string {
  const name = segmentName(bytes);
  replaceOwnFile(root, `${segmentsDir(ledgerPath)}/${name}${SEGMENT_EXTENSION}`, (fd) => writeAllSync(fd, bytes));
  return name;
}

/** A refused segment, as readers warn of it: the workspace file and line it is shown on, and why. */
export interface RefusedSegment {
  file: string;
  line: number;
  message: string;
}

export interface SealedCopy {
  /** The copy's workspace-relative path. */
  path: string;
  /** The segments the copy leaves out because they were refused. */
  refused: RefusedSegment[];
}

/**
 * Brings the decoded copy of the segments up to date: rebuilt (atomically) when the segments the folder
 * and the manifest name changed, emptied when there are none. A refused segment is left out of the copy
 * and named in the note beside it, so that later calls warn of it without reading it again. Undefined when
 * the cache folder cannot be used (then segments are not indexed; `intent verify` and `intent export`
 * still read them). Throws when a segment is missing or damaged past its first line (the copy stays as
 * it was).
 */
export function refreshSealedCopy(root: string, ledgerPath: string): SealedCopy | undefined {
  const sources = sealedSources(root, ledgerPath);
  const dir = workspaceCacheDir(root, { create: sources.length > 0 });
  if (!dir) return undefined;
  // nothing sealed and no copy: nothing to read, nor to write
  if (sources.length === 0 && copyStat(root) === undefined) return { path: SEALED_COPY, refused: [] };
  const kept = readCopyManifest(root);
  if (kept && kept.sources === sources && copyHolds(root, kept)) return { path: SEALED_COPY, refused: kept.refused };
  const { segments, damaged } = sources ? readSegmentSet(root, ledgerPath) : { segments: [], damaged: [] };
  const refused: RefusedSegment[] = damaged.map((e) => ({ file: e.file, line: e.line, message: e.message }));
  const sum = createHash("sha256");
  replaceOwnFile(root, SEALED_COPY, (fd) => {
    let batch: Buffer[] = [];
    let size = 0;
    const flush = () => {
      const bytes = Buffer.concat(batch);
      sum.update(bytes);
      writeAllSync(fd, bytes);
      batch = [];
      size = 0;
    };
    for (const { bytes } of sealedLines(segments, (e) => refused.push({ file: e.file, line: e.line, message: e.message }))) {
      batch.push(bytes, NEWLINE);
      // Stryker disable AssignmentOperator,ArithmeticOperator,ConditionalExpression,EqualityOperator: cost only: the size of a batch decides how many writes make the copy, not its bytes (a copy of more than one batch is tested)
      size += bytes.length + 1;
      if (size >= 1 << 20) flush();
      // Stryker restore AssignmentOperator,ArithmeticOperator,ConditionalExpression,EqualityOperator
    }
    flush();
  });
  writeCopyManifest(root, { sources, refused, sha256: sum.digest("hex"), stat: copyStat(root) });
  return { path: SEALED_COPY, refused };
}

/**
 * What the decoded copy is built from: each folder segment's name, each manifest entry's name, blob and
 * lines (a manifest line that names another blob or count is another segment to check).
 */
function sealedSources(root: string, ledgerPath: string): string {
  const folder = folderSegmentNames(root, ledgerPath).map((n) => `${n} folder`);
  const manifest = readManifest(root, ledgerPath).entries.map((e) => `${e.name} ${e.blob} ${e.lines}`);
  // Stryker disable next-line MethodExpression,StringLiteral: cost only: unsorted, reordered manifest lines read as other sources and the copy is made again with the same lines; unseparated, the entries still read as one list, since each has a fixed form (64 hex digits, then " folder" or a blob and a count) and the text ends with the last
  return [...folder, ...manifest].sort().join("\n");
}

function isRefused(v: unknown): v is RefusedSegment {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent left out: null makes the field reads below throw, which readCopyManifest's catch turns into the same "no manifest", and any other non-object has no string `file`; always true, a kept note of refused segments is never trusted and they are checked again: cost only
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r["file"] === "string" && Number.isInteger(r["line"]) && typeof r["message"] === "string";
}

/**
 * What the decoded copy was made from and what it holds: its sources (sealedSources), the segments it left
 * out, the SHA-256 of its bytes, and its identity, size and times when written. A copy whose `lstat` still says all of them is trusted without
 * reading it; any other (written to, cut, replaced) is trusted only when its bytes still hash to `sha256`
 * (and its identity is noted again), else made again from the segments.
 */
interface CopyManifest {
  sources: string;
  /** The segments the copy leaves out, refused when it was made: later calls warn of them without reading them. */
  refused: RefusedSegment[];
  sha256: string;
  stat: string | undefined;
}

const COPY_MANIFEST_KIND: CacheKind = { name: "sealed-manifest", format: 3, checksum: "sha256" };

function copyStat(root: string): string | undefined {
  // Stryker disable BlockStatement: the catch block is equivalent emptied (a function that ends without a return gives undefined too); the try block emptied (no copy ever) fails the tests that make a copy again
  try {
    const st = lstatSync(ownFilePath(root, SEALED_COPY));
    return JSON.stringify([st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs]);
  } catch {
    return undefined;
  }
  // Stryker restore BlockStatement
}

function copyHolds(root: string, kept: CopyManifest): boolean {
  const stat = copyStat(root);
  // Stryker disable next-line ConditionalExpression: cost only: with no copy the read below fails and gives the same false; always false, every copy is made again with the same lines
  if (stat === undefined) return false;
  // Stryker disable next-line ConditionalExpression: the false form is cost only (an unchanged copy is hashed again, and matches); the true form, which trusts a changed copy, fails "makes a copy that was written to again" (test/unit/sealedSegments.test.ts), and Stryker switches off both forms of a line together
  if (stat === kept.stat) return true;
  let bytes: Buffer;
  // Stryker disable BlockStatement,BooleanLiteral: the catch is an outcome no test can observe as root (the user these tests run as here): only a regular file this user may not read gets there, and "never trusts a copy it cannot read: one this user may not read" covers it for any other user; the try block emptied fails the tests that hash a copy
  try {
    bytes = readRegularBytes(ownFilePath(root, SEALED_COPY));
  } catch {
    return false;
  }
  // Stryker restore BlockStatement,BooleanLiteral
  if (createHash("sha256").update(bytes).digest("hex") !== kept.sha256) return false;
  writeCopyManifest(root, { ...kept, stat });
  return true;
}

function readCopyManifest(root: string): CopyManifest | undefined {
  // Stryker disable BlockStatement: the catch block is equivalent emptied (a function that ends without a return gives undefined too); the try block emptied (no manifest ever) fails the tests that trust a kept copy
  try {
    const m = JSON.parse(readCheckedCache(root, SEALED_MANIFEST, COPY_MANIFEST_KIND)?.toString("utf8") ?? "null") as CopyManifest | null;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: the checks of `m`, `sources` and `refused`'s kind are equivalent left out (null and a non-array throw on the reads after them, which the catch turns into "no manifest"; a `sources` that is no string never equals sealedSources' text, so the copy is made again); the forms that let a bad `refused` or `sha256` through fail "makes the copy again when its manifest is not one it wrote", and Stryker switches off a line's forms together
    return m && typeof m.sources === "string" && Array.isArray(m.refused) && m.refused.every(isRefused) && typeof m.sha256 === "string" ? m : undefined;
  } catch {
    return undefined;
  }
  // Stryker restore BlockStatement
}

function writeCopyManifest(root: string, m: CopyManifest): void {
  // when it cannot be written, the next process makes the copy again
  writeCheckedCache(root, SEALED_MANIFEST, COPY_MANIFEST_KIND, JSON.stringify(m));
}

const NEWLINE = Buffer.from("\n");
