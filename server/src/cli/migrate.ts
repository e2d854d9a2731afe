import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { relative, resolve } from "node:path";
import { AGENT_TRACE_VERSION, INTENT_URN_PREFIX, METADATA_KEY, MUTATION_CLASSES, SESSION_URN_PREFIX, type TraceRecord } from "@shared/agentTrace";
import { writeFileAtomic } from "../engine/atomicWrite";
import { bytesHash } from "../engine/hashing";
import { normalizeModelId } from "../engine/hooks/recordWrite";
import { detectDialect, isBlankLine, type Dialect } from "../engine/ledger/read";
import { validateRecord } from "../engine/ledger/schema";
import { readOptional } from "../engine/workspaceFiles";
import { CliError, parse, ROOT_OPTION, type Command } from "./args";
import { openWorkspace } from "./workspace";

const DEFAULT_OUT = ".orchestration/agent_trace.migrated.jsonl";

const USAGE = `intent migrate [--from FILE] [--out FILE] [--force] [--root DIR]

Converts a ledger written in older dialects (relative_path / entity_type records, flat intent_id / file_path
records, the reference implementation's version "1.0") into Agent Trace ${AGENT_TRACE_VERSION} records, in a NEW file
with a fresh tamper-evident chain. The original is never touched: review the result (\`intent verify --ledger
FILE\`), then replace the ledger with it yourself if you want to.

  --from FILE   the ledger to read (default: the workspace's ledger)
  --out FILE    where to write (default: ${DEFAULT_OUT}); refused if it exists, unless --force`;

type Json = Record<string, unknown>;

export interface MigrationResult {
  lines: string[];
  counts: Record<Dialect, number>;
  skipped: { line: number; reason: string }[];
}

/** Converts every line; records of other tools already in the spec's shape are kept byte for byte. */
export function migrateLedger(text: string): MigrationResult {
  const result: MigrationResult = { lines: [], counts: { spec: 0, older: 0, flat: 0, reference: 0 }, skipped: [] };
  text.split("\n").forEach((raw, i) => {
    const lineNo = i + 1;
    if (isBlankLine(raw)) return;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (e) {
      result.skipped.push({ line: lineNo, reason: `not valid JSON (${(e as Error).message})` });
      return;
    }
    const dialect = detectDialect(obj);
    if (!dialect) {
      result.skipped.push({ line: lineNo, reason: "not an Agent Trace record" });
      return;
    }
    result.counts[dialect]++;
    const prev = result.lines.length ? bytesHash(result.lines[result.lines.length - 1]!) : null;
    if (dialect === "spec") {
      result.lines.push(rechain(raw, obj as Json, prev));
      return;
    }
    const record = dialect === "flat" ? fromFlat(obj as Json, prev, lineNo) : fromNested(obj as Json, dialect, prev, lineNo);
    const errors = validateRecord(record);
    if (errors.length) {
      result.counts[dialect]--;
      result.skipped.push({ line: lineNo, reason: `could not be expressed as a valid ${AGENT_TRACE_VERSION} record: ${errors.join("; ")}` });
      return;
    }
    result.lines.push(JSON.stringify(record));
  });
  return result;
}

/** Our own records get `prev` re-pointed into the new file; other tools' spec records stay as they were. */
function rechain(raw: string, obj: Json, prev: string | null): string {
  const metadata = isObject(obj["metadata"]) ? obj["metadata"] : undefined;
  const ours = metadata && isObject(metadata[METADATA_KEY]) ? metadata[METADATA_KEY] : undefined;
  if (!ours || !("prev" in ours)) return raw;
  return JSON.stringify({ ...obj, metadata: { ...metadata, [METADATA_KEY]: { ...ours, prev } } });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const INTENT_ID = /^[A-Z]+-\d{3,}$/;
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

function fromNested(obj: Json, dialect: Dialect, prev: string | null, lineNo: number): TraceRecord {
  let intentId: string | undefined;
  const files = (obj["files"] as unknown[]).filter(isObject).map((f) => ({
    path: str(f["path"]) ?? str(f["relative_path"]) ?? "",
    conversations: (Array.isArray(f["conversations"]) ? f["conversations"] : []).filter(isObject).map((c) => {
      const related = relatedOf(c["related"]);
      intentId ??= related.intent;
      const url = str(c["url"]);
      return {
        ...(url ? { url: HAS_SCHEME.test(url) ? url : SESSION_URN_PREFIX + encodeURIComponent(url) } : {}),
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

function fromFlat(obj: Json, prev: string | null, lineNo: number): TraceRecord {
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
function base(obj: Json): Omit<TraceRecord, "files"> {
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

function migratedMetadata(obj: Json, dialect: Dialect, lineNo: number, prev: string | null, ours: Json): TraceRecord["metadata"] {
  const original = isObject(obj["metadata"]) ? obj["metadata"] : {};
  const id = str(obj["id"]);
  return {
    ...original,
    // Only what the original says; unknown hashes stay absent (null would claim "no file").
    [METADATA_KEY]: { ...ours, scope: "UNCHECKED", prev, migrated_from: { dialect, line: lineNo, ...(id && !UUID.test(id) ? { id } : {}) } } as never,
  };
}

function contributorOf(raw: unknown): { type: "human" | "ai" | "mixed" | "unknown"; model_id?: string } {
  if (!isObject(raw)) return { type: "unknown" };
  const t = (str(raw["type"]) ?? str(raw["entity_type"]) ?? "").toLowerCase();
  const type = t === "ai" || t === "human" || t === "mixed" ? t : "unknown";
  const model = normalizeModelId(str(raw["model_id"]) ?? str(raw["model_identifier"]));
  return model ? { type, model_id: model } : { type };
}

/** `related` of older tools: intents (also filed as "specification" with an intent id), and other references. */
function relatedOf(raw: unknown): { intent?: string; list: { type: string; url: string }[] } {
  const out: { intent?: string; list: { type: string; url: string }[] } = { list: [] };
  if (!Array.isArray(raw)) return out;
  for (const r of raw.filter(isObject)) {
    const value = str(r["url"]) ?? str(r["value"]);
    if (!value) continue;
    const bare = value.startsWith(INTENT_URN_PREFIX) ? decodeURIComponent(value.slice(INTENT_URN_PREFIX.length)) : value;
    if (INTENT_ID.test(bare) || r["type"] === "intent") {
      out.intent ??= bare;
      out.list.push({ type: "intent", url: INTENT_URN_PREFIX + encodeURIComponent(bare) });
    } else {
      out.list.push({ type: str(r["type"]) ?? "reference", url: HAS_SCHEME.test(value) ? value : `urn:intent-lsp:path:${encodeURI(value)}` });
    }
  }
  return out;
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

export const migrateCommand: Command = {
  usage: USAGE,
  async run(argv, io) {
    const { values } = parse("migrate", argv, { ...ROOT_OPTION, from: { type: "string" }, out: { type: "string" }, force: { type: "boolean" } });
    const ws = openWorkspace(io, values.root);
    const from = values.from ? resolve(io.cwd, values.from) : resolve(ws.root, ws.rules.settings.ledgerPath);
    const out = values.out ? resolve(io.cwd, values.out) : resolve(ws.root, DEFAULT_OUT);
    const show = (p: string) => relative(io.cwd, p) || p;
    if (from === out) throw new CliError(`--out must differ from the ledger being migrated (${show(from)}); migrate never rewrites the original`, 2);
    const text = readOptional(from);
    if (text === undefined) throw new CliError(`${show(from)}: no such file; pass --from FILE`);
    if (existsSync(out) && !values.force) throw new CliError(`${show(out)} already exists; pass --force to replace it, or --out FILE`);

    const result = migrateLedger(text);
    writeFileAtomic(out, result.lines.length ? `${result.lines.join("\n")}\n` : "");
    for (const s of result.skipped) io.err(`${show(from)}:${s.line}: skipped: ${s.reason}\n`);
    const c = result.counts;
    io.out(
      `Wrote ${result.lines.length} records to ${show(out)} (converted: ${c.older} older, ${c.flat} flat, ${c.reference} reference; ` +
        `kept: ${c.spec} already ${AGENT_TRACE_VERSION}). ${show(from)} is unchanged; check the result with \`intent verify --ledger ${show(out)}\`.\n`,
    );
    return result.skipped.length ? 1 : 0;
  },
};
