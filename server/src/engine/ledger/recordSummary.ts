/**
 * What the index needs from a record line, and nothing more: for each entry `parseLedgerLines` would make,
 * its path, intent and post hash, and the record's timestamp. Indexing a million records is mostly this, so
 * it skips what only queries need (ranges, line hashes, contributors, urls) and makes no entry objects.
 *
 * Only the common shape is read here, our own records and other well-formed spec records; any line that is
 * not one (other dialects, invalid JSON or ranges, intents named only through `related`) is left to
 * `parseLedgerLines`, the one reader, so every line ends up described exactly as it describes it. The unit
 * tests hold the two to the same answers on every dialect.
 */
import { METADATA_KEY } from "@shared/agentTrace";
import { detectDialect, isObject, MAX_LINE, oversizedClaim, parseLedgerLines, str, type JsonObject, type ParseResult, type StringPool } from "./read";

export interface SummaryVisitor {
  /** One entry of the record, in the order `parseLedgerLines` makes them. */
  entry(path: string, intentId: string | undefined, postHash: string | null | undefined): void;
}

export interface LineSummary {
  /** The line is a trace record (of any dialect), with or without usable entries. */
  record: boolean;
  timestamp: string;
  /** Set when the line was read by `parseLedgerLines` (its entries were visited already). */
  parsed?: ParseResult;
}

const NOT_RECORD: LineSummary = { record: false, timestamp: "" };

/** The clean paths of the record being summarized, in one array used again for every record. */
const filePaths: (string | undefined)[] = [];

/** Visits the entries of one ledger line (`lineNumber` 1-based); unreadable lines come back in `parsed`. */
export function summarizeLine(text: string, lineNumber: number, pool: StringPool, visit: SummaryVisitor): LineSummary {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    return viaParser(text, lineNumber, pool, visit);
  }
  if (!isObject(obj) || !Array.isArray(obj["files"]) || detectDialect(obj) !== "spec") return viaParser(text, lineNumber, pool, visit);
  const files = obj["files"] as unknown[];
  const ours = isObject(obj["metadata"]) && isObject(obj["metadata"][METADATA_KEY]) ? obj["metadata"][METADATA_KEY] : undefined;
  const shared = str(ours?.["intent_id"]) ?? str(obj["intent_id"]);
  if (shared === undefined && obj["related"] !== undefined) return viaParser(text, lineNumber, pool, visit);
  const intentId = shared;
  // a first pass checks that nothing here needs the full reader, so that no entry is visited twice
  // (a file whose path is not a workspace path is reported by the full reader); it keeps each file's clean
  // path for the second, as cleaning one is a lookup by the whole path
  const paths = filePaths;
  paths.length = 0;
  for (const file of files) {
    if (!isObject(file)) {
      paths.push(undefined);
      continue;
    }
    const path = plainFile(file, shared) ? pool.path(file["path"] ?? file["relative_path"]) : undefined;
    if (path === undefined) return viaParser(text, lineNumber, pool, visit);
    paths.push(path);
  }
  // a record claiming more lines than a record may is reported by the full reader
  if (ours && claimsTooMuch(ours, files)) return viaParser(text, lineNumber, pool, visit);
  const postHash = hashOrNull(ours?.["post_hash"]);
  const others = ours && Array.isArray(ours["other_files"]) ? ours["other_files"] : [];
  for (let fi = 0; fi < files.length; fi++) {
    const file = files[fi];
    const path = paths[fi];
    if (path === undefined || !isObject(file)) continue;
    // our metadata describes files[0] at its top level and files[1..] in `other_files`, as the full reader
    // reads them: a file one act wrote second (a shell command's, a cut's pasted file) pins its content too
    const other = fi === 0 ? undefined : others[fi - 1];
    const post = fi === 0 ? postHash : isObject(other) ? hashOrNull(other["post_hash"]) : undefined;
    let ranges = 0;
    for (const conv of Array.isArray(file["conversations"]) ? file["conversations"] : []) {
      if (!isObject(conv) || !Array.isArray(conv["ranges"])) continue;
      for (let r = 0; r < conv["ranges"].length; r++) visit.entry(path, intentId, post);
      ranges += conv["ranges"].length;
    }
    // a file named without ranges is one file-level entry
    if (ranges === 0) visit.entry(path, intentId, post);
  }
  return { record: true, timestamp: str(obj["timestamp"]) ?? "" };
}

/**
 * A file whose entries this module can tell without the full reader: conversations in a list, each range
 * valid, and no intent that would have to come from a conversation's `related`.
 */
function plainFile(file: JsonObject, sharedIntent: string | undefined): boolean {
  const conversations = file["conversations"];
  if (conversations === undefined) return true;
  if (!Array.isArray(conversations)) return false;
  for (const conv of conversations) {
    if (!isObject(conv)) continue;
    if (sharedIntent === undefined && conv["related"] !== undefined) return false;
    const ranges = conv["ranges"];
    if (ranges === undefined) continue;
    if (!Array.isArray(ranges)) return false;
    for (const range of ranges) if (!validRange(range)) return false;
  }
  return true;
}

function claimsTooMuch(ours: JsonObject, files: readonly unknown[]): boolean {
  if (oversizedClaim(ours, files[0])) return true;
  const others = Array.isArray(ours["other_files"]) ? ours["other_files"] : [];
  return others.some((details, i) => isObject(details) && oversizedClaim(details, files[i + 1]) !== undefined);
}

function validRange(range: unknown): boolean {
  if (!isObject(range)) return false;
  const s = range["start_line"];
  const e = range["end_line"];
  return Number.isInteger(s) && Number.isInteger(e) && (s as number) >= 1 && (e as number) >= (s as number) && (e as number) <= MAX_LINE;
}

function hashOrNull(v: unknown): string | null | undefined {
  if (v === null) return null;
  return typeof v === "string" ? v : undefined;
}

function viaParser(text: string, lineNumber: number, pool: StringPool, visit: SummaryVisitor): LineSummary {
  const parsed = parseLedgerLines(text, lineNumber, pool);
  for (const e of parsed.entries) visit.entry(e.path, e.intentId, e.postHash);
  if (parsed.records === 0) return { ...NOT_RECORD, parsed };
  return { record: true, timestamp: parsed.entries[0]?.timestamp ?? "", parsed };
}
