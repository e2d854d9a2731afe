/**
 * Builds the Agent Trace v0.1.0 record intent-lsp appends after a write (DESIGN §2.2). Pure: the caller
 * passes the file content, clock and ids can be injected for tests. `prev` is left for the appender, which
 * is the only place that knows the ledger's last line.
 */
import { randomUUID } from "node:crypto";
import {
  AGENT_TRACE_VERSION,
  INTENT_URN_PREFIX,
  METADATA_KEY,
  SESSION_URN_PREFIX,
  TOOL_NAME,
  type Contributor,
  type ContributorType,
  type Conversation,
  type IntentLspMetadata,
  type MutationClass,
  type Range,
  type ScopeVerdict,
  type TraceRecord,
  type VcsType,
} from "@shared/agentTrace";
import { contentHash, fileHash, lineHash, normalizeLines } from "../hashing";

export interface LineSpan {
  /** 1-based, inclusive. */
  start_line: number;
  /** 1-based, inclusive. */
  end_line: number;
}

export interface BuildRecordInput {
  /** Workspace-relative path with forward slashes. */
  path: string;
  /** File content after the change; null when the change deleted the file. */
  content: string | null;
  /** Lines (of `content`) the change produced; see `changedRanges`. Must be empty for a deletion. */
  ranges: readonly LineSpan[];
  contributor: { type: ContributorType; modelId?: string };
  sessionId: string;
  toolVersion: string;
  mutationClass: MutationClass;
  /** Whole-file hash before the change (`fileHash`); null when the file did not exist. */
  preHash: string | null;
  scope: ScopeVerdict;
  intentId?: string | null;
  /** VCS revision the working tree was based on; `vcs` is written only when this is given. */
  revision?: string;
  vcsType?: VcsType;
  /** Injected for tests; default now. */
  now?: Date;
  /** Injected for tests; default a fresh uuid v4. */
  id?: string;
}

/** Thrown for input that would produce a record whose line numbers do not describe `content`. */
export class RecordInputError extends Error {
  override name = "RecordInputError";
}

export function buildRecord(input: BuildRecordInput): TraceRecord {
  const lines = input.content === null ? [] : normalizeLines(input.content);
  checkRanges(input, lines.length);

  const ranges: Range[] = input.ranges.map((r) => ({
    start_line: r.start_line,
    end_line: r.end_line,
    content_hash: contentHash(lines.slice(r.start_line - 1, r.end_line)),
  }));
  const lineHashes = input.ranges.map((r) => lines.slice(r.start_line - 1, r.end_line).map(lineHash));

  const conversation: Conversation = {
    url: SESSION_URN_PREFIX + encodeURIComponent(input.sessionId),
    contributor: contributorOf(input.contributor),
    ranges,
  };
  const intentId = input.intentId ?? null;
  if (intentId) conversation.related = [{ type: "intent", url: INTENT_URN_PREFIX + encodeURIComponent(intentId) }];

  const ours: IntentLspMetadata = {
    intent_id: intentId,
    mutation_class: input.mutationClass,
    pre_hash: input.preHash,
    post_hash: input.content === null ? null : fileHash(input.content),
    scope: input.scope,
    line_hashes: lineHashes,
  };

  // Key order follows the spec's example so records read naturally in the ledger.
  const record: TraceRecord = {
    version: AGENT_TRACE_VERSION,
    id: input.id ?? randomUUID(),
    timestamp: (input.now ?? new Date()).toISOString(),
    ...(input.revision ? { vcs: { type: input.vcsType ?? "git", revision: input.revision } } : {}),
    tool: { name: TOOL_NAME, version: input.toolVersion },
    files: [{ path: input.path, conversations: [conversation] }],
    metadata: { [METADATA_KEY]: ours },
  };
  return record;
}

/**
 * Sorted, merged 1-based spans covering the given line numbers (duplicates and any order accepted):
 * [3,1,2,7,8] → [{1..3},{7..8}].
 */
export function changedRanges(lineNumbers: readonly number[]): LineSpan[] {
  const sorted = [...new Set(lineNumbers)].sort((a, b) => a - b);
  const spans: LineSpan[] = [];
  for (const n of sorted) {
    if (!Number.isInteger(n) || n < 1) throw new RecordInputError(`changedRanges: line number ${n} is not a 1-based integer`);
    const last = spans[spans.length - 1];
    if (last && n === last.end_line + 1) last.end_line = n;
    else spans.push({ start_line: n, end_line: n });
  }
  return spans;
}

function contributorOf(c: BuildRecordInput["contributor"]): Contributor {
  return c.modelId ? { type: c.type, model_id: c.modelId } : { type: c.type };
}

function checkRanges(input: BuildRecordInput, lineCount: number): void {
  const where = `record for ${input.path}`;
  if (input.content === null && input.ranges.length > 0) {
    throw new RecordInputError(`${where}: a deleted file has no lines, but ${input.ranges.length} range(s) were given; pass ranges: []`);
  }
  for (const r of input.ranges) {
    const ok = Number.isInteger(r.start_line) && Number.isInteger(r.end_line) && r.start_line >= 1 && r.end_line >= r.start_line;
    if (!ok) throw new RecordInputError(`${where}: range ${r.start_line}-${r.end_line} is not a 1-based start ≤ end pair`);
    if (r.end_line > lineCount) {
      throw new RecordInputError(`${where}: range ${r.start_line}-${r.end_line} ends past the file's ${lineCount} line(s); compute ranges from the content being recorded`);
    }
  }
}
