/**
 * Lenient ledger reader (docs/LEDGER.md "Reading"): every dialect seen in the wild becomes flat `TraceEntry`s,
 * one per attributed range. Nothing here throws on bad input; a line that cannot be used is reported with
 * its line number and skipped. Runs over million-record ledgers, so entries are kept small: strings that
 * repeat across records are shared through a `StringPool`, and nothing of the parsed JSON is retained.
 */
import type { ContributorType } from "@shared/agentTrace";
import { INTENT_URN_PREFIX, METADATA_KEY } from "@shared/agentTrace";
import { LINE_HASH_HEX_LENGTH } from "../hashing";
import { isValidChange, type LineChange, type Segment, type Span } from "../lineChange";
import { isBlankLine } from "./blankLine";
import { INTENT_ID_PATTERN } from "../intents/model";
import type { MovedLines } from "../lineage";
import { UNTYPED_REASONS } from "../untypedLines";

/** Which writer's shape a record has; decides how fields are read and how `verify` treats it. */
export type Dialect = "spec" | "older" | "flat" | "reference";

export interface EntryContributor {
  readonly type: ContributorType;
  readonly modelId?: string;
  /** The person's name a human contributor's record carries (our metadata's `person.name`). */
  readonly name?: string;
  /** Why an `unknown` contributor's lines are not the person's who saved them (our metadata's `untyped`). */
  readonly why?: string;
}

/**
 * One attributed range of one file of one record. `startLine`/`endLine` are 0 for a file-level entry: a
 * record that names the file without ranges (flat records, deletions). For flat records `contentHash` is then
 * the whole-file hash.
 */
export interface TraceEntry {
  recordId: string;
  /** 1-based ledger line the record is on. */
  line: number;
  timestamp: string;
  /** Workspace-relative, forward slashes, no `./` prefix. */
  path: string;
  startLine: number;
  endLine: number;
  contentHash?: string;
  /**
   * Our per-line hashes for this range, packed: 4 bytes per line as a latin1 string; read them with
   * `splitLineHashes`. One packed string instead of an array of hex strings is ~6× smaller, which matters
   * at a million entries.
   */
  lineHashes?: string;
  contributor: EntryContributor;
  intentId?: string;
  /** Conversation url. */
  url?: string;
  toolName?: string;
  /** The agent's tool that ran the change, when the record names one (`tool_call.tool`: a shell command's, `Bash`). */
  toolCall?: string;
  revision?: string;
  mutationClass?: string;
  preHash?: string | null;
  postHash?: string | null;
  scope?: string;
  dialect: Dialect;
  /**
   * The record's line map for this file (see `IntentLspMetadata.carried`), shared by the file's entries:
   * how every line not in the record's ranges carried over from the content before. Absent in records of
   * other tools and of intent-lsp before 0.2. `oldCount` is a lower bound (the records do not store it).
   */
  change?: LineChange;
  /** Per-line hashes of `change.reformatted` lines, packed as `lineHashes` is. */
  reformattedHashes?: string;
  /** The path this file's content was moved from (`moved_from`, see `engine/lineage.ts`). */
  movedFrom?: string;
  /** Lines taken from other files' content (`moved_lines`): cut or copied there, pasted here. */
  movedIn?: MovedLines[];
  /**
   * An entry of another path, read for this one because its content came from there (engine/lineage.ts):
   * its record's chain is followed, its ranges are never re-anchored by content on this path.
   */
  borrowed?: true;
  /**
   * Borrowed from a path git names (io/gitSources.ts): one this path was renamed from, or one it was split
   * from. Lines their last recorded content holds and this path's own records leave unexplained keep their
   * owners there (engine/attribution.ts): by a diff of the two contents for a rename, whole blocks only for a
   * split. A split-from file is never read as an earlier version of this one.
   */
  gitNamed?: GitNaming;
  /**
   * Stands for a rename git shows and nobody recorded (engine/lineage.ts `renameEntry`): the content the
   * rename commit gave this path, as line hashes, and the path it came from. No record of the ledger.
   */
  renamedFrom?: { path: string; lineHashes: readonly string[] };
}

/** How git names an earlier path of a file's content. */
export type GitNaming = "renamed" | "split";

export interface UnreadableLine {
  line: number;
  message: string;
}

export interface ParseResult {
  entries: TraceEntry[];
  unreadable: UnreadableLine[];
  /** Lines that were records (of any dialect), including records with no usable file. */
  records: number;
}

/**
 * The most lines a record may claim for one file (docs/LEDGER.md "Reading"): a range, a `line_count`, a
 * `carried` or `reformatted` run beyond it is not a claim about a text file intent-lsp attributes, and
 * replaying it would cost memory and time in proportion to the claim, not to the file. Five million lines
 * keeps the largest replay step near 80 MB and a fraction of a second.
 */
export const MAX_LINE = 5_000_000;

/** A recorded path that names a pseudo-file on purpose (not worth a report), however it is spelled. */
function isPseudoPath(raw: unknown): boolean {
  return typeof raw === "string" && PSEUDO_PATHS.has(raw.replace(/^\.\//, ""));
}

/** Paths that trace tools use for things that are not files; never attributed. */
export const PSEUDO_PATHS: ReadonlySet<string> = new Set([".shell-history"]);

const SEMVER = /^\d+\.\d+\.\d+$/;
const HEX = /^[0-9a-f]*$/;
/** A URI scheme or a Windows drive: what a workspace-relative path never starts with. */
export const SCHEME_OR_DRIVE = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/**
 * Shares equal strings and contributor objects between entries. JSON.parse allocates every string afresh;
 * on a ledger where 10⁶ records name a few thousand paths, models and sessions, sharing is most of the
 * memory saving.
 */
export class StringPool {
  private readonly strings = new Map<string, string>();
  private readonly contributors = new Map<string, EntryContributor>();
  private readonly paths = new Map<string, string | null>();

  /** `cleanPath`, memoized and interned: a ledger names the same few thousand paths over and over. */
  path(raw: unknown): string | undefined {
    if (typeof raw !== "string") return undefined;
    let clean = this.paths.get(raw);
    if (clean === undefined) {
      const c = cleanPath(raw);
      clean = c === undefined ? null : this.intern(c);
      this.paths.set(raw, clean);
    }
    return clean ?? undefined;
  }

  /**
   * `keep`: whether strings are interned (the index's own pool, whose entries live as long as it does); a pool
   * for entries read back and soon dropped does not pay for it (a lookup per field of a million records).
   */
  constructor(private readonly keep = true) {}

  intern(s: string): string {
    if (!this.keep) return s;
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    this.strings.set(s, s);
    return s;
  }

  contributor(type: ContributorType, modelId: string | undefined, name?: string, why?: string): EntryContributor {
    const key = modelId === undefined && name === undefined && why === undefined ? type : `${type}\u0000${modelId ?? ""}\u0000${name ?? ""}\u0000${why ?? ""}`;
    let c = this.contributors.get(key);
    if (!c) {
      c = Object.freeze({
        type,
        ...(modelId === undefined ? {} : { modelId }),
        ...(name === undefined ? {} : { name }),
        ...(why === undefined ? {} : { why }),
      });
      this.contributors.set(key, c);
    }
    return c;
  }
}

/**
 * Parses ledger text whose first line is ledger line `firstLineNumber` (1-based). Empty lines are skipped;
 * a last line without newline is parsed like any other (callers that follow a growing file pass complete
 * lines only).
 */
export function parseLedgerLines(text: string, firstLineNumber: number, pool: StringPool = new StringPool()): ParseResult {
  const out: ParseResult = { entries: [], unreadable: [], records: 0 };
  let start = 0;
  let lineNumber = firstLineNumber;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (end > start) parseLine(text.slice(start, end), lineNumber, pool, out);
    start = end + 1;
    lineNumber++;
  }
  return out;
}

function parseLine(raw: string, lineNumber: number, pool: StringPool, out: ParseResult): void {
  if (isBlankLine(raw)) return;
  let obj: unknown;
  try {
    obj = JSON.parse(raw);
  } catch (e) {
    out.unreadable.push({
      line: lineNumber,
      message: `not valid JSON (${(e as Error).message}); the line is skipped — fix or remove it by hand, intent-lsp never rewrites the ledger`,
    });
    return;
  }
  const dialect = detectDialect(obj);
  if (!dialect) {
    out.unreadable.push({
      line: lineNumber,
      message: "JSON but not an Agent Trace record (no `files` array, nor `file_path` of a flat record); the line is skipped",
    });
    return;
  }
  out.records++;
  if (dialect === "flat") flattenFlat(obj as JsonObject, lineNumber, pool, out);
  else flattenNested(obj as JsonObject, dialect, lineNumber, pool, out);
}

/** Recognizes a record's dialect, or undefined when the value is not a trace record at all. */
export function detectDialect(obj: unknown): Dialect | undefined {
  if (!isObject(obj)) return undefined;
  if (Array.isArray(obj["files"])) {
    const version = obj["version"];
    if (typeof version !== "string" || obj["files"].some((f) => isObject(f) && "relative_path" in f && !("path" in f))) return "older";
    return SEMVER.test(version) ? "spec" : "reference";
  }
  return typeof obj["file_path"] === "string" ? "flat" : undefined;
}

/**
 * The workspace-relative form of a recorded path, or undefined when it does not name a real file inside the
 * workspace (pseudo-paths, absolute paths, `..`, URLs, directories).
 */
export function cleanPath(raw: unknown): string | undefined {
  if (typeof raw !== "string" || raw === "" || CONTROL_CHARS.test(raw)) return undefined;
  const p = raw.includes("\\") ? raw.replace(/\\/g, "/") : raw;
  if (p.startsWith("/") || p.startsWith("~") || SCHEME_OR_DRIVE.test(p) || p.endsWith("/")) return undefined;
  const parts: string[] = [];
  for (const part of p.split("/")) {
    if (part === "..") return undefined;
    if (part !== "" && part !== ".") parts.push(part);
  }
  const clean = parts.join("/");
  return clean === "" || PSEUDO_PATHS.has(clean) ? undefined : clean;
}

/** The per-line hashes of an entry's range, as `lineHash` returns them (one per line of the range). */
export function splitLineHashes(entry: Pick<TraceEntry, "lineHashes">): string[] {
  const s = entry.lineHashes;
  if (!s) return [];
  const hex = Buffer.from(s, "latin1").toString("hex");
  const out = new Array<string>(hex.length / LINE_HASH_HEX_LENGTH);
  for (let i = 0; i < out.length; i++) out[i] = hex.slice(i * LINE_HASH_HEX_LENGTH, (i + 1) * LINE_HASH_HEX_LENGTH);
  return out;
}

// ---------------------------------------------------------------------------------------------------------

export type JsonObject = Record<string, unknown>;

/** Fields shared by every entry of one record. */
interface RecordFields {
  recordId: string;
  line: number;
  timestamp: string;
  intentId: string | undefined;
  toolName: string | undefined;
  toolCall: string | undefined;
  revision: string | undefined;
  mutationClass: string | undefined;
  preHash: string | null | undefined;
  postHash: string | null | undefined;
  scope: string | undefined;
  dialect: Dialect;
}

function flattenNested(obj: JsonObject, dialect: Dialect, lineNumber: number, pool: StringPool, out: ParseResult): void {
  const ours = isObject(obj["metadata"]) && isObject(obj["metadata"][METADATA_KEY]) ? obj["metadata"][METADATA_KEY] : undefined;
  const first = recordFields(obj, ours, dialect, lineNumber, pool);
  const others = ours && Array.isArray(ours["other_files"]) ? ours["other_files"] : [];
  const files = obj["files"] as unknown[];
  const person = personName(ours, pool);

  for (let fi = 0; fi < files.length; fi++) {
    const file = files[fi];
    if (!isObject(file)) continue;
    // Our metadata describes files[0] at its top level and files[1..] in `other_files`; a file without its
    // own details is never pinned to another file's hashes.
    const details = fi === 0 ? ours : isObject(others[fi - 1]) ? (others[fi - 1] as JsonObject) : undefined;
    const shared =
      fi === 0
        ? first
        : details
          ? { ...first, preHash: hashOrNull(details["pre_hash"]), postHash: hashOrNull(details["post_hash"]), scope: str(details["scope"]) ?? first.scope }
          : { ...first, preHash: undefined, postHash: undefined };
    const lineHashes = details && Array.isArray(details["line_hashes"]) ? details["line_hashes"] : undefined;
    const untyped = details ? untypedOf(details["untyped"]) : undefined;
    const rawPath = file["path"] ?? file["relative_path"];
    const path = pool.path(rawPath);
    if (path === undefined) {
      if (!isPseudoPath(rawPath))
        out.unreadable.push({
          line: lineNumber,
          message: `files[${fi}].path ${JSON.stringify(rawPath)?.slice(0, 200)} is not a workspace-relative file path (absolute, "..", a URL, a folder or control characters); that file is skipped`,
        });
      continue;
    }
    const oversized = details ? oversizedClaim(details, file) : undefined;
    if (oversized) {
      out.unreadable.push({ line: lineNumber, message: oversizedMessage(first.recordId, fi, path, oversized) });
      continue;
    }
    const map = details ? lineMapOf(details) : undefined;
    const movedFrom = details ? pool.path(details["moved_from"]) : undefined;
    const movedIn = details && map ? movedLinesOf(details["moved_lines"], pool, map.change.newCount) : undefined;
    const conversations = Array.isArray(file["conversations"]) ? file["conversations"] : [];
    let ranged = false;
    let firstContributor: EntryContributor | undefined;
    let firstUrl: string | undefined;
    let fileIntent: string | undefined;

    for (let ci = 0; ci < conversations.length; ci++) {
      const conv = conversations[ci];
      if (!isObject(conv)) continue;
      const convContributor = contributorOf(conv["contributor"], pool, person);
      const url = typeof conv["url"] === "string" ? pool.intern(conv["url"]) : undefined;
      const intentId = shared.intentId ?? intentFromRelated(conv["related"], pool);
      firstContributor ??= convContributor;
      firstUrl ??= url;
      fileIntent ??= intentId;
      const ranges = Array.isArray(conv["ranges"]) ? conv["ranges"] : [];

      for (let ri = 0; ri < ranges.length; ri++) {
        const range = ranges[ri];
        const where = `files[${fi}].conversations[${ci}].ranges[${ri}]`;
        const span = rangeSpan(range);
        if (!span) {
          out.unreadable.push({
            line: lineNumber,
            message: `${where} of ${path} has no valid start_line/end_line (integers from 1 to ${MAX_LINE}, start ≤ end); that range is skipped`,
          });
          continue;
        }
        ranged = true;
        const r = range as JsonObject;
        const contributor =
          r["contributor"] !== undefined ? contributorOf(r["contributor"], pool, person, untyped?.get(`${span[0]}-${span[1]}`)) : convContributor;
        const hashes = ci === 0 && lineHashes ? packLineHashes(lineHashes[ri], span[1] - span[0] + 1) : undefined;
        const contentHash = typeof r["content_hash"] === "string" ? r["content_hash"] : undefined;
        out.entries.push(
          withSource(
            makeEntry(shared, path, span[0], span[1], contentHash, hashes, contributor, intentId, url, ci === 0 ? map : undefined),
            movedFrom,
            path,
            ci === 0 ? movedIn : undefined,
          ),
        );
      }
    }
    // A file named without ranges still says something about the file (deletion, new content hash).
    if (!ranged) {
      const contributor = firstContributor ?? pool.contributor("unknown", undefined);
      out.entries.push(
        withSource(makeEntry(shared, path, 0, 0, undefined, undefined, contributor, shared.intentId ?? fileIntent, firstUrl, map), movedFrom, path, movedIn),
      );
    }
  }
}

/**
 * What a file's details (our metadata) claim beyond the sizes a record may claim, said for a report; undefined
 * when every size is within bounds. Bounds: `MAX_LINE` for every count and run end; the record's own
 * `line_count` for its ranges and for the new side of its `carried` and `reformatted` runs. Only numbers are
 * checked here; a map malformed otherwise is dropped by `lineMapOf` as before.
 */
export function oversizedClaim(details: JsonObject, file: unknown): string | undefined {
  const count = details["line_count"];
  if (typeof count === "number" && count > MAX_LINE) return `line_count ${count}`;
  const limit = Number.isInteger(count) && (count as number) >= 0 ? (count as number) : MAX_LINE;
  const carried = details["carried"];
  if (Array.isArray(carried)) {
    for (const t of carried) {
      if (!Array.isArray(t) || t.length !== 3 || !t.every((v) => typeof v === "number")) continue;
      const [o, n, len] = t as number[];
      if (o! + len! - 1 > MAX_LINE || n! + len! - 1 > limit) return `a carried run [${o}, ${n}, ${len}]`;
    }
  }
  const reformatted = details["reformatted"];
  if (Array.isArray(reformatted)) {
    for (const r of reformatted) {
      if (Array.isArray(r) && typeof r[1] === "number" && r[1] > limit) return `a reformatted run [${r[0]}, ${r[1]}]`;
    }
  }
  if (!Number.isInteger(count) || !isObject(file) || !Array.isArray(file["conversations"])) return undefined;
  for (const conv of file["conversations"]) {
    if (!isObject(conv) || !Array.isArray(conv["ranges"])) continue;
    for (const range of conv["ranges"]) {
      // one past line_count: the last line of a file that ends without a newline, as some writers count it
      if (isObject(range) && typeof range["end_line"] === "number" && range["end_line"] > limit + 1)
        return `a range ending at line ${range["end_line"]} of a ${limit}-line file`;
    }
  }
  return undefined;
}

function oversizedMessage(recordId: string, fileIndex: number, path: string, claim: string): string {
  return `record ${JSON.stringify(recordId).slice(0, 80)} claims ${claim} for files[${fileIndex}] ${path}, more than a record may claim (${MAX_LINE.toLocaleString("en-US")} lines, or the record's own line_count); that file's part of the record is skipped`;
}

/** The report of every file of a nested record whose details claim more lines than a record may (for `intent verify`). */
export function oversizedClaims(obj: JsonObject): string[] {
  const ours = isObject(obj["metadata"]) && isObject(obj["metadata"][METADATA_KEY]) ? obj["metadata"][METADATA_KEY] : undefined;
  const files = obj["files"];
  if (!ours || !Array.isArray(files)) return [];
  const others = Array.isArray(ours["other_files"]) ? ours["other_files"] : [];
  const out: string[] = [];
  files.forEach((file, fi) => {
    const details = fi === 0 ? ours : others[fi - 1];
    const claim = isObject(details) && isObject(file) ? oversizedClaim(details, file) : undefined;
    if (claim)
      out.push(oversizedMessage(str(obj["id"]) ?? "", fi, String(cleanPath(file["path"] ?? file["relative_path"]) ?? JSON.stringify(file["path"])), claim));
  });
  return out;
}

/** Largest line map read from a record; anything bigger is not a map a writer of ours would produce. */
const MAX_MAP_SEGMENTS = 1_000_000;

/**
 * The line map of one file's details, or undefined when absent or not well formed (a ledger is read, never
 * trusted: a malformed map makes the record one without a map, attributed by content as older records are).
 */
function lineMapOf(details: JsonObject): { change: LineChange; reformattedHashes?: string } | undefined {
  const count = details["line_count"];
  const carried = details["carried"];
  if (!Number.isInteger(count) || (count as number) < 0 || !Array.isArray(carried) || carried.length > MAX_MAP_SEGMENTS) return undefined;
  const segments: Segment[] = [];
  let oldCount = 0;
  for (const t of carried) {
    if (!Array.isArray(t) || t.length !== 3 || !t.every((v) => Number.isInteger(v) && v >= 1)) return undefined;
    segments.push({ oldStart: t[0] - 1, newStart: t[1] - 1, length: t[2] });
    oldCount = Math.max(oldCount, t[0] - 1 + t[2]);
  }
  const rawReformatted = Array.isArray(details["reformatted"]) ? details["reformatted"] : [];
  const reformatted: Span[] = [];
  for (const r of rawReformatted) {
    if (!Array.isArray(r) || r.length !== 2 || !r.every((v) => Number.isInteger(v) && v >= 1)) return undefined;
    reformatted.push({ start: r[0] - 1, end: r[1] - 1 });
  }
  const change: LineChange = { oldCount, newCount: count as number, carried: segments, reformatted };
  if (!isValidChange(change)) return undefined;
  const hashes = Array.isArray(details["reformatted_hashes"]) ? details["reformatted_hashes"] : [];
  const packed = reformatted.map((r, i) => packLineHashes(hashes[i], r.end - r.start + 1));
  const reformattedHashes = reformatted.length && packed.every((p) => p !== undefined) ? packed.join("") : undefined;
  return reformattedHashes === undefined ? { change } : { change, reformattedHashes };
}

function flattenFlat(obj: JsonObject, lineNumber: number, pool: StringPool, out: ParseResult): void {
  const path = pool.path(obj["file_path"]);
  if (path === undefined) return;
  const shared = recordFields(obj, undefined, "flat", lineNumber, pool);
  const hash = typeof obj["content_hash"] === "string" ? obj["content_hash"] : undefined;
  // A flat record's content_hash is the whole file after the write, i.e. what we call post_hash.
  if (shared.postHash === undefined) shared.postHash = hash;
  const contributor = contributorOf(obj["contributor"], pool);
  out.entries.push(makeEntry(shared, path, 0, 0, hash, undefined, contributor, shared.intentId, undefined));
}

function recordFields(obj: JsonObject, ours: JsonObject | undefined, dialect: Dialect, lineNumber: number, pool: StringPool): RecordFields {
  const vcs = isObject(obj["vcs"]) ? obj["vcs"] : undefined;
  const revision = vcs ? (str(vcs["revision"]) ?? str(vcs["revision_id"])) : undefined;
  const tool = isObject(obj["tool"]) ? obj["tool"] : undefined;
  const toolName = tool ? str(tool["name"]) : undefined;
  const toolCall = isObject(ours?.["tool_call"]) ? str(ours["tool_call"]["tool"]) : undefined;
  const intentId = str(ours?.["intent_id"]) ?? str(obj["intent_id"]) ?? intentFromRelated(obj["related"], pool);
  const mutationClass = str(ours?.["mutation_class"]) ?? str(obj["classification"]);
  const scope = str(ours?.["scope"]);
  return {
    recordId: str(obj["id"]) ?? "",
    line: lineNumber,
    timestamp: str(obj["timestamp"]) ?? "",
    intentId: intentId === undefined ? undefined : pool.intern(intentId),
    toolName: toolName === undefined ? undefined : pool.intern(toolName),
    toolCall: toolCall === undefined ? undefined : pool.intern(toolCall),
    revision: revision === undefined ? undefined : pool.intern(revision),
    mutationClass: mutationClass === undefined ? undefined : pool.intern(mutationClass),
    preHash: hashOrNull(ours?.["pre_hash"]),
    postHash: hashOrNull(ours?.["post_hash"]),
    scope: scope === undefined ? undefined : pool.intern(scope),
    dialect,
  };
}

// All entries are created with every key in the same order so V8 gives them one shape (smaller, faster).
function makeEntry(
  f: RecordFields,
  path: string,
  startLine: number,
  endLine: number,
  contentHash: string | undefined,
  lineHashes: string | undefined,
  contributor: EntryContributor,
  intentId: string | undefined,
  url: string | undefined,
  map: { change: LineChange; reformattedHashes?: string } | undefined = undefined,
): TraceEntry {
  return {
    recordId: f.recordId,
    line: f.line,
    timestamp: f.timestamp,
    path,
    startLine,
    endLine,
    contentHash,
    lineHashes,
    contributor,
    intentId,
    url,
    toolName: f.toolName,
    toolCall: f.toolCall,
    revision: f.revision,
    mutationClass: f.mutationClass,
    preHash: f.preHash,
    postHash: f.postHash,
    scope: f.scope,
    dialect: f.dialect,
    change: map?.change,
    reformattedHashes: map?.reformattedHashes,
  };
}

/** An entry whose file was moved from another path (never from itself). */
function withSource(entry: TraceEntry, movedFrom: string | undefined, path: string, movedIn?: MovedLines[]): TraceEntry {
  if (movedFrom !== undefined && movedFrom !== path) entry.movedFrom = movedFrom;
  if (movedIn?.length) entry.movedIn = movedIn;
  return entry;
}

/**
 * `moved_lines` of one file's details, or undefined when absent or not well formed (then the lines are
 * what `ranges` and `carried` say, as for a reader that does not know the field).
 */
function movedLinesOf(raw: unknown, pool: StringPool, newCount: number): MovedLines[] | undefined {
  if (!Array.isArray(raw) || raw.length > 1000) return undefined;
  const out: MovedLines[] = [];
  for (const m of raw) {
    if (!isObject(m)) return undefined;
    const from = pool.path(m["from"]);
    const preHash = typeof m["pre_hash"] === "string" ? m["pre_hash"] : undefined;
    const carried = m["carried"];
    if (from === undefined || preHash === undefined || !Array.isArray(carried) || carried.length > MAX_MAP_SEGMENTS) return undefined;
    const runs: Segment[] = [];
    for (const t of carried) {
      if (!Array.isArray(t) || t.length !== 3 || !t.every((v) => Number.isInteger(v) && v >= 1 && v <= MAX_LINE)) return undefined;
      if (t[1] - 1 + t[2] > newCount) return undefined;
      runs.push({ oldStart: t[0] - 1, newStart: t[1] - 1, length: t[2] });
    }
    out.push({ from, preHash, runs });
  }
  return out;
}

function rangeSpan(range: unknown): [number, number] | undefined {
  if (!isObject(range)) return undefined;
  const s = range["start_line"];
  const e = range["end_line"];
  if (!Number.isInteger(s) || !Number.isInteger(e)) return undefined;
  const start = s as number;
  const end = e as number;
  return start >= 1 && end >= start && end <= MAX_LINE ? [start, end] : undefined;
}

/**
 * `person` names the human of a record (our metadata): it goes with human contributors only, never an AI.
 * `why` says why an `unknown` range is not the person's (our metadata's `untyped`).
 */
function contributorOf(raw: unknown, pool: StringPool, person?: string, why?: string): EntryContributor {
  if (!isObject(raw)) return pool.contributor("unknown", undefined);
  const model = contributorModel(raw);
  const type = contributorType(raw);
  return pool.contributor(
    type,
    model === undefined ? undefined : pool.intern(model),
    type === "human" ? person : undefined,
    type === "unknown" ? why : undefined,
  );
}

/**
 * Our metadata's `untyped` (`[start_line, end_line, why]`), by "start-end": only intent-lsp's own sentences
 * are kept, so that what a hover or blame repeats is never text a record brought in.
 */
function untypedOf(raw: unknown): Map<string, string> | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out = new Map<string, string>();
  for (const u of raw) {
    if (!Array.isArray(u) || u.length !== 3 || typeof u[2] !== "string" || !UNTYPED_SENTENCES.has(u[2])) continue;
    out.set(`${u[0]}-${u[1]}`, u[2]);
  }
  return out;
}

const UNTYPED_SENTENCES: ReadonlySet<string> = new Set(Object.values(UNTYPED_REASONS));

/** Our metadata's `person.name`, as one line of at most 200 characters; undefined when absent or empty. */
function personName(ours: JsonObject | undefined, pool: StringPool): string | undefined {
  const person = ours?.["person"];
  const name = isObject(person)
    ? str(person["name"])
        ?.replace(/[\u0000-\u001f\u007f]/g, " ")
        .trim()
        .slice(0, 200)
    : undefined;
  return name ? pool.intern(name) : undefined;
}

/** A contributor's type in any dialect (`type`, or the older `entity_type`), in any case; else "unknown". */
export function contributorType(contributor: JsonObject): ContributorType {
  const raw = contributor["type"] ?? contributor["entity_type"];
  if (typeof raw !== "string") return "unknown";
  const t = raw.toLowerCase();
  return t === "ai" || t === "human" || t === "mixed" ? t : "unknown";
}

/** A contributor's model id as recorded (`model_id`, or the older `model_identifier`). */
export function contributorModel(contributor: JsonObject): string | undefined {
  return str(contributor["model_id"]) ?? str(contributor["model_identifier"]);
}

/**
 * Intent id from a `related` list: `{type:"intent", url:"urn:intent:ID"}` (ours), `{type:"intent", value:"ID"}`
 * (older dialect), or any entry whose value/url is an intent id (older tools filed intents as "specification").
 */
function intentFromRelated(related: unknown, pool: StringPool): string | undefined {
  if (!Array.isArray(related)) return undefined;
  for (const r of related) {
    if (!isObject(r)) continue;
    const id = intentIdOf(r["url"]) ?? intentIdOf(r["value"]);
    if (id !== undefined) return pool.intern(id);
    if (r["type"] === "intent") {
      const loose = str(r["value"]) ?? str(r["url"]);
      if (loose !== undefined) return pool.intern(loose);
    }
  }
  return undefined;
}

/** The intent id a `related` url or value names (`urn:intent:ID` or a bare ID), if it names a valid one. */
export function intentIdOf(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  const rest = v.startsWith(INTENT_URN_PREFIX) ? v.slice(INTENT_URN_PREFIX.length) : undefined;
  const id = rest === undefined ? v : (decodeURIComponentSafe(rest) ?? rest);
  return INTENT_ID_PATTERN.test(id) ? id : undefined;
}

/** Packs valid line hashes for a range of `expectedLength` lines; anything else is ignored, not trusted. */
function packLineHashes(raw: unknown, expectedLength: number): string | undefined {
  if (!Array.isArray(raw) || raw.length !== expectedLength) return undefined;
  // One check over the joined text instead of one per line: this runs for every range of a large ledger.
  // Non-strings join to something that fails the length or the hex check.
  const hex = raw.join("");
  if (hex.length !== expectedLength * LINE_HASH_HEX_LENGTH || !HEX.test(hex)) return undefined;
  return Buffer.from(hex, "hex").toString("latin1");
}

function hashOrNull(v: unknown): string | null | undefined {
  if (v === null) return null;
  return typeof v === "string" ? v : undefined;
}

/** A non-empty string, or undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `decodeURIComponent`, or undefined for a malformed escape (ledgers are read, never trusted). */
export function decodeURIComponentSafe(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
