/**
 * Builds the Agent Trace v0.1.0 record intent-lsp appends after a write (docs/LEDGER.md). Pure: the caller
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
  type PersonMetadata,
  type ToolCallMetadata,
  type TraceFile,
  type MutationClass,
  type Range,
  type ScopeVerdict,
  type TraceRecord,
  type VcsType,
} from "@shared/agentTrace";
import { contentHash, fileHash, lineHash, normalizeLines } from "../hashing";
import { changedSpans, isValidChange, type LineChange, type Span } from "../lineChange";
import type { MovedLines } from "../lineage";
import { splitByUntyped, UNTYPED_REASONS, type UntypedSpan } from "../untypedLines";

export interface LineSpan {
  /** 1-based, inclusive. */
  start_line: number;
  /** 1-based, inclusive. */
  end_line: number;
}

/** One file of a record: what it is now and how its lines got there. */
export interface RecordFileInput {
  /** Workspace-relative path with forward slashes. */
  path: string;
  /** File content after the change; null when the change deleted the file. */
  content: string | null;
  /** `content` split into lines (`splitLines`), when the caller has them: a large file is not split again. */
  lines?: readonly string[];
  /**
   * How the lines changed (see `lineChange.ts`). When given, the record claims exactly the lines it does not
   * carry, and stores the line map so readers can carry every other line's owner across this record.
   */
  change?: LineChange;
  /** Lines (of `content`) the change produced, when no `change` is known; see `changedRanges`. Must be empty for a deletion. */
  ranges?: readonly LineSpan[];
  mutationClass: MutationClass;
  /** Whole-file hash before the change (`fileHash`); null when the file did not exist. */
  preHash: string | null;
  scope: ScopeVerdict;
  /** The path the content was moved from (a rename or move seen as it happened); `preHash` is its content then. */
  movedFrom?: string;
  /** The hash of the file on disk when it is not `content` (an agent's tool wrote `content`, then another writer changed the file). */
  onDiskHash?: string;
  /** Lines of `change`'s new ones taken from other files' content (engine/lineage.ts `findMovedBlocks`): not claimed. */
  movedIn?: readonly MovedLines[];
  /** Lines of `content` (0-based) the person did not type (engine/untypedLines.ts): claimed with an `unknown` contributor. */
  untyped?: readonly UntypedSpan[];
}

export interface BuildRecordInput extends RecordFileInput {
  /** Further files written by the same act (a shell command that changed several files), after the first. */
  otherFiles?: readonly RecordFileInput[];
  contributor: { type: ContributorType; modelId?: string };
  sessionId: string;
  toolVersion: string;
  intentId?: string | null;
  /** VCS revision the working tree was based on; `vcs` is written only when this is given. */
  revision?: string;
  vcsType?: VcsType;
  /** The agent's tool call that made the change (a shell command), kept for the reader. */
  toolCall?: ToolCallMetadata;
  /** The person, for a human contributor's change (never written for an AI's). */
  person?: PersonMetadata;
  /** Injected for tests; default now. */
  now?: Date;
  /** Injected for tests; default a fresh uuid v4. */
  id?: string;
  /** A re-attribution (docs/LEDGER.md): the records whose lines this record claims again, content unchanged. */
  reattributes?: readonly string[];
}

/**
 * The records one act's files are written in (docs/LEDGER.md "One act, several files"): a record's files all
 * share its intent, so files that fall under several intents (each auto-selected by the only in-progress
 * intent that owns it, with none selected) are split into one record per intent. Files with the same intent
 * (or none) share a record; records come in the order their intent first appears, files in their own order.
 */
export function recordGroups<T>(files: readonly T[], intentOf: (file: T) => string | null): { intentId: string | null; files: T[] }[] {
  const groups = new Map<string | null, T[]>();
  for (const file of files) {
    const id = intentOf(file);
    const group = groups.get(id);
    if (group) group.push(file);
    else groups.set(id, [file]);
  }
  return [...groups].map(([intentId, grouped]) => ({ intentId, files: grouped }));
}

/** Thrown for input that would produce a record whose line numbers do not describe `content`. */
export class RecordInputError extends Error {
  override name = "RecordInputError";
}

export function buildRecord(input: BuildRecordInput): TraceRecord {
  const conversationBase = {
    url: SESSION_URN_PREFIX + encodeURIComponent(input.sessionId),
    contributor: contributorOf(input.contributor),
  };
  const intentId = input.intentId ?? null;
  const related = intentId ? [{ type: "intent", url: INTENT_URN_PREFIX + encodeURIComponent(intentId) }] : undefined;

  const files: TraceFile[] = [];
  const details: FileDetails[] = [];
  for (const file of [input, ...(input.otherFiles ?? [])]) {
    const built = buildFile(file);
    const conversation: Conversation = { ...conversationBase, ranges: built.ranges };
    if (related) conversation.related = related;
    files.push({ path: file.path, conversations: [conversation] });
    details.push(built.details);
  }

  const [first, ...others] = details;
  const ours: IntentLspMetadata = {
    intent_id: intentId,
    mutation_class: input.mutationClass,
    ...first!,
    scope: input.scope,
    ...(others.length
      ? { other_files: others.map((d, i) => ({ ...d, mutation_class: input.otherFiles![i]!.mutationClass, scope: input.otherFiles![i]!.scope })) }
      : {}),
    ...(input.toolCall ? { tool_call: input.toolCall } : {}),
    ...(input.reattributes ? { reattributes: [...input.reattributes] } : {}),
    ...(input.person && input.contributor.type !== "ai" && (input.person.name || input.person.email || input.person.email_hash)
      ? { person: input.person }
      : {}),
  };

  // Key order follows the spec's example so records read naturally in the ledger.
  const record: TraceRecord = {
    version: AGENT_TRACE_VERSION,
    id: input.id ?? randomUUID(),
    timestamp: (input.now ?? new Date()).toISOString(),
    ...(input.revision ? { vcs: { type: input.vcsType ?? "git", revision: input.revision } } : {}),
    tool: { name: TOOL_NAME, version: input.toolVersion },
    files,
    metadata: { [METADATA_KEY]: ours },
  };
  return record;
}

/** Our per-file metadata: hashes that pin the content, and the line map when the change is known. */
type FileDetails = Pick<
  IntentLspMetadata,
  | "pre_hash"
  | "post_hash"
  | "line_hashes"
  | "line_count"
  | "carried"
  | "reformatted"
  | "reformatted_hashes"
  | "moved_from"
  | "moved_lines"
  | "on_disk_hash"
  | "untyped"
>;

function buildFile(file: RecordFileInput): { ranges: Range[]; details: FileDetails } {
  // raw or normalized lines alike: contentHash and lineHash normalize each line they hash
  const lines = file.content === null ? [] : (file.lines ?? normalizeLines(file.content));
  const spans: readonly (LineSpan & { why?: string })[] = file.change
    ? splitByUntyped(claimedSpans(file.change, file.movedIn), file.untyped ?? []).map((s) => ({
        start_line: s.start + 1,
        end_line: s.end + 1,
        ...(s.why ? { why: UNTYPED_REASONS[s.why] } : {}),
      }))
    : (file.ranges ?? []);
  checkRanges(file, spans, lines.length);
  if (file.change) checkChange(file, file.change, lines.length);

  const ranges: Range[] = spans.map((r) => ({
    start_line: r.start_line,
    end_line: r.end_line,
    content_hash: contentHash(lines.slice(r.start_line - 1, r.end_line)),
    // the conversation's contributor says who made the change; these lines it cannot vouch for
    ...(r.why ? { contributor: { type: "unknown" as const } } : {}),
  }));
  const untyped = spans.filter((r) => r.why).map((r) => [r.start_line, r.end_line, r.why!] as [number, number, string]);
  const details: FileDetails = {
    pre_hash: file.preHash,
    post_hash: file.content === null ? null : fileHash(file.content),
    line_hashes: spans.map((r) => lines.slice(r.start_line - 1, r.end_line).map(lineHash)),
  };
  if (file.change) {
    const c = file.change;
    details.line_count = c.newCount;
    details.carried = c.carried.map((s) => [s.oldStart + 1, s.newStart + 1, s.length]);
    if (c.reformatted.length) {
      details.reformatted = c.reformatted.map((r) => [r.start + 1, r.end + 1]);
      details.reformatted_hashes = c.reformatted.map((r) => lines.slice(r.start, r.end + 1).map(lineHash));
    }
  }
  if (file.movedFrom !== undefined) details.moved_from = file.movedFrom;
  if (file.onDiskHash !== undefined) details.on_disk_hash = file.onDiskHash;
  if (untyped.length) details.untyped = untyped;
  if (file.change && file.movedIn?.length) {
    details.moved_lines = file.movedIn.map((m) => ({
      from: m.from,
      pre_hash: m.preHash,
      carried: m.runs.map((r) => [r.oldStart + 1, r.newStart + 1, r.length] as [number, number, number]),
    }));
  }
  return { ranges, details };
}

/** The lines a record claims: those its line map does not carry, less those moved in from other files. */
function claimedSpans(change: LineChange, movedIn: readonly MovedLines[] | undefined): Span[] {
  const spans = changedSpans(change);
  if (!movedIn?.length) return spans;
  const moved = new Set<number>();
  for (const m of movedIn) for (const r of m.runs) for (let k = 0; k < r.length; k++) moved.add(r.newStart + k);
  const out: Span[] = [];
  for (const s of spans) {
    for (let l = s.start; l <= s.end; l++) {
      if (moved.has(l)) continue;
      const last = out[out.length - 1];
      if (last && last.end === l - 1) last.end = l;
      else out.push({ start: l, end: l });
    }
  }
  return out;
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

function checkRanges(input: RecordFileInput, spans: readonly LineSpan[], lineCount: number): void {
  const where = `record for ${input.path}`;
  if (input.content === null && spans.length > 0) {
    throw new RecordInputError(`${where}: a deleted file has no lines, but ${spans.length} range(s) were given; pass ranges: []`);
  }
  for (const r of spans) {
    const ok = Number.isInteger(r.start_line) && Number.isInteger(r.end_line) && r.start_line >= 1 && r.end_line >= r.start_line;
    if (!ok) throw new RecordInputError(`${where}: range ${r.start_line}-${r.end_line} is not a 1-based start ≤ end pair`);
    if (r.end_line > lineCount) {
      throw new RecordInputError(
        `${where}: range ${r.start_line}-${r.end_line} ends past the file's ${lineCount} line(s); compute ranges from the content being recorded`,
      );
    }
  }
}

function checkChange(input: RecordFileInput, change: LineChange, lineCount: number): void {
  if (!isValidChange(change) || change.newCount > lineCount) {
    throw new RecordInputError(
      `record for ${input.path}: the line map does not describe the content (${change.newCount} lines mapped, ${lineCount} in the file); build it from the content being recorded`,
    );
  }
}

/**
 * The line map of a re-attribution (docs/LEDGER.md "Re-attribution"): the content does not change, lines
 * `start..end` (1-based) are claimed by the record, every other line is carried where it is.
 */
export function reattributionChange(lineCount: number, start: number, end: number): LineChange {
  const carried = [];
  if (start > 1) carried.push({ oldStart: 0, newStart: 0, length: start - 1 });
  if (end < lineCount) carried.push({ oldStart: end, newStart: end, length: lineCount - end });
  return { oldCount: lineCount, newCount: lineCount, carried, reformatted: [] };
}
