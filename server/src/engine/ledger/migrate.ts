/**
 * `intent migrate` (docs/CLI.md and docs/AGENTS.md): older-dialect records rewritten as Agent Trace records, read with the same
 * helpers as the lenient reader (read.ts), so a field means the same when migrated as when read. The result
 * is a new ledger with a fresh `prev` chain; the original is never touched.
 */
import { randomUUID } from "node:crypto";
import { AGENT_TRACE_VERSION, INTENT_URN_PREFIX, METADATA_KEY, MUTATION_CLASSES, SESSION_URN_PREFIX, type TraceRecord } from "@shared/agentTrace";
import { normalizeModelId } from "../contributor";
import { chainHash } from "../hashing";
import {
  contributorModel,
  contributorType,
  decodeURIComponentSafe,
  detectDialect,
  intentIdOf,
  isObject,
  str,
  type Dialect,
  type JsonObject,
  SCHEME_OR_DRIVE,
} from "./read";
import { isBlankLine } from "./blankLine";

interface MigrationResult {
  lines: string[];
  counts: Record<Dialect, number>;
  /** Lines not carried over, with the reason; the rest of the file is migrated all the same. */
  skipped: { line: number; reason: string }[];
}

/** A record that cannot be expressed as it stands; only its own line is skipped. */
export class UnmigratableRecord extends Error {}

/** Schema violations of a record ("<json pointer>: <problem>"); empty when it is valid. */
export type RecordValidator = (record: unknown) => string[];

/**
 * Converts every line; records of other tools already in the spec's shape are kept byte for byte. Each
 * converted record must pass `validate` (the Agent Trace schema, loaded by io/ledger/schema.ts).
 */
export function migrateLedger(text: string, validate: RecordValidator): MigrationResult {
  const result: MigrationResult = { lines: [], counts: { spec: 0, older: 0, flat: 0, reference: 0 }, skipped: [] };
  text.split("\n").forEach((raw, i) => {
    const lineNo = i + 1;
    if (isBlankLine(raw)) return;
    try {
      const converted = migrateLine(raw, lineNo, result.lines.length ? chainHash(result.lines[result.lines.length - 1]!) : null, validate);
      result.lines.push(converted.line);
      result.counts[converted.dialect]++;
    } catch (e) {
      result.skipped.push({ line: lineNo, reason: e instanceof UnmigratableRecord ? e.message : `could not be converted (${(e as Error).message})` });
    }
  });
  return result;
}

/**
 * One ledger line as a spec record (what `intent migrate` makes of it): spec records as they are (ours with
 * `prev` re-pointed to `prev`), other dialects converted; throws `UnmigratableRecord` with the reason when it
 * cannot be one. `intent export` converts the other dialects' lines it hands out with it.
 */
export function migrateLine(raw: string, lineNo: number, prev: string | null, validate: RecordValidator): { line: string; dialect: Dialect } {
  let obj: unknown;
  try {
    obj = JSON.parse(raw);
  } catch (e) {
    throw new UnmigratableRecord(`not valid JSON (${(e as Error).message})`);
  }
  const dialect = detectDialect(obj);
  if (!dialect) throw new UnmigratableRecord("not an Agent Trace record");
  if (dialect === "spec") return { line: rechain(raw, obj as JsonObject, prev), dialect };
  const record = dialect === "flat" ? fromFlat(obj as JsonObject, prev, lineNo) : fromNested(obj as JsonObject, dialect, prev, lineNo);
  const errors = validate(record);
  if (errors.length) throw new UnmigratableRecord(`could not be expressed as a valid ${AGENT_TRACE_VERSION} record: ${errors.join("; ")}`);
  return { line: JSON.stringify(record), dialect };
}

/** Our own records get `prev` re-pointed into the new file; other tools' spec records stay as they were. */
function rechain(raw: string, obj: JsonObject, prev: string | null): string {
  const metadata = isObject(obj["metadata"]) ? obj["metadata"] : undefined;
  const ours = metadata && isObject(metadata[METADATA_KEY]) ? metadata[METADATA_KEY] : undefined;
  if (!ours || !("prev" in ours)) return raw;
  return JSON.stringify({ ...obj, metadata: { ...metadata, [METADATA_KEY]: { ...ours, prev } } });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

function fromNested(obj: JsonObject, dialect: Dialect, prev: string | null, lineNo: number): TraceRecord {
  let intentId: string | undefined;
  const files = (obj["files"] as unknown[]).filter(isObject).map((f) => ({
    path: str(f["path"]) ?? str(f["relative_path"]) ?? "",
    conversations: (Array.isArray(f["conversations"]) ? f["conversations"] : []).filter(isObject).map((c) => {
      const related = relatedOf(c["related"]);
      intentId ??= related.intent;
      const url = str(c["url"]);
      return {
        ...(url ? { url: SCHEME_OR_DRIVE.test(url) ? url : SESSION_URN_PREFIX + encodeURIComponent(url) } : {}),
        contributor: contributorOf(c["contributor"]),
        ranges: (Array.isArray(c["ranges"]) ? c["ranges"] : []).filter(isObject).map((r) => ({
          start_line: r["start_line"] as number,
          end_line: r["end_line"] as number,
          ...(str(r["content_hash"]) ? { content_hash: str(r["content_hash"])! } : {}),
        })),
        ...(related.list.length ? { related: related.list } : {}),
      };
    }),
  }));
  return {
    ...base(obj),
    files,
    metadata: migratedMetadata(obj, dialect, lineNo, prev, { intent_id: intentId ?? null }),
  };
}

function fromFlat(obj: JsonObject, prev: string | null, lineNo: number): TraceRecord {
  const intentId = str(obj["intent_id"]) ?? relatedOf(obj["related"]).intent ?? null;
  const classification = str(obj["classification"]);
  return {
    ...base(obj),
    files: [
      {
        path: str(obj["file_path"])!,
        conversations: [
          {
            contributor: contributorOf(obj["contributor"]),
            ranges: [], // a flat record names the whole file: its hash becomes post_hash
            ...(intentId ? { related: [{ type: "intent", url: INTENT_URN_PREFIX + encodeURIComponent(intentId) }] } : {}),
          },
        ],
      },
    ],
    metadata: migratedMetadata(obj, "flat", lineNo, prev, {
      intent_id: intentId,
      ...(classification && (MUTATION_CLASSES as readonly string[]).includes(classification) ? { mutation_class: classification } : {}),
      ...(str(obj["content_hash"]) ? { post_hash: str(obj["content_hash"]) } : {}),
    }),
  };
}

/** id, timestamp, vcs and tool, carried over where they are valid in the spec's terms. */
function base(obj: JsonObject): Omit<TraceRecord, "files"> {
  const id = str(obj["id"]);
  const vcs = isObject(obj["vcs"]) ? obj["vcs"] : undefined;
  const revision = vcs ? (str(vcs["revision"]) ?? str(vcs["revision_id"])) : undefined;
  const vcsType = vcs && ["git", "jj", "hg", "svn"].includes(vcs["type"] as string) ? (vcs["type"] as "git") : "git";
  const tool = isObject(obj["tool"]) ? obj["tool"] : undefined;
  return {
    version: AGENT_TRACE_VERSION,
    id: id && UUID.test(id) ? id : randomUUID(),
    timestamp: str(obj["timestamp"]) ?? new Date(0).toISOString(),
    ...(revision ? { vcs: { type: vcsType, revision } } : {}),
    ...(tool && str(tool["name"]) ? { tool: { name: str(tool["name"])!, ...(str(tool["version"]) ? { version: str(tool["version"])! } : {}) } } : {}),
  };
}

function migratedMetadata(obj: JsonObject, dialect: Dialect, lineNo: number, prev: string | null, ours: JsonObject): TraceRecord["metadata"] {
  const original = isObject(obj["metadata"]) ? obj["metadata"] : {};
  const id = str(obj["id"]);
  return {
    ...original,
    // Only what the original says; unknown hashes stay absent (null would claim "no file").
    [METADATA_KEY]: { ...ours, scope: "UNCHECKED", prev, migrated_from: { dialect, line: lineNo, ...(id && !UUID.test(id) ? { id } : {}) } } as never,
  };
}

/** The contributor as read.ts reads it, with the model named the models.dev way. */
function contributorOf(raw: unknown): { type: "human" | "ai" | "mixed" | "unknown"; model_id?: string } {
  if (!isObject(raw)) return { type: "unknown" };
  const type = contributorType(raw);
  const model = normalizeModelId(contributorModel(raw));
  return model ? { type, model_id: model } : { type };
}

/** `related` of older tools: intents (also filed as "specification" with an intent id), and other references. */
function relatedOf(raw: unknown): { intent?: string; list: { type: string; url: string }[] } {
  const out: { intent?: string; list: { type: string; url: string }[] } = { list: [] };
  if (!Array.isArray(raw)) return out;
  for (const r of raw.filter(isObject)) {
    const value = str(r["url"]) ?? str(r["value"]);
    if (!value) continue;
    const bare = intentIdOf(value) ?? looseIntent(value, r["type"] === "intent");
    if (bare !== undefined) {
      out.intent ??= bare;
      out.list.push({ type: "intent", url: INTENT_URN_PREFIX + encodeURIComponent(bare) });
    } else {
      out.list.push({ type: str(r["type"]) ?? "reference", url: SCHEME_OR_DRIVE.test(value) ? value : `urn:intent-lsp:path:${encodeURI(value)}` });
    }
  }
  return out;
}

/**
 * The intent an entry typed "intent" names outside the id pattern (`urn:intent:weather`, `weather`). A url
 * whose escapes do not decode cannot be carried over faithfully: that record is skipped and reported.
 */
function looseIntent(value: string, typedIntent: boolean): string | undefined {
  if (!typedIntent) return undefined;
  if (!value.startsWith(INTENT_URN_PREFIX)) return value;
  const decoded = decodeURIComponentSafe(value.slice(INTENT_URN_PREFIX.length));
  if (decoded === undefined) throw new UnmigratableRecord(`related url "${value}" is not a valid intent URN (a malformed %-escape)`);
  return decoded;
}
