/**
 * Recording one change in the ledger: the step shared by the editor's save and the agent hooks' PostToolUse,
 * so both write the same record for the same change and skip the same duplicates. A change of several files
 * under several intents is one record per intent, appended together.
 */
import type { MutationClass, PersonMetadata, ScopeVerdict, ToolCallMetadata, TraceRecord } from "@shared/agentTrace";
import type { ContributorType } from "@shared/settings";
import { verdictIntentId, type Verdict } from "../../engine/gate";
import { headRevision } from "../git";
import { fileHash } from "../../engine/hashing";
import { appendWorkspaceRecords } from "./append";
import { diffTexts, type LineChange } from "../../engine/lineChange";
import { buildRecord, recordGroups, type RecordFileInput } from "../../engine/ledger/record";
import type { MovedLines } from "../../engine/lineage";
import type { UntypedSpan } from "../../engine/untypedLines";

/** One file a change wrote. */
export interface FileWrite {
  path: string;
  /** Content after the change (null: the file was deleted). */
  content: string | null;
  /** `content` split into lines (`splitLines`), when the writer has them (the editor's buffer). */
  lines?: readonly string[];
  /** Content before the change (null: the file did not exist). */
  before: string | null;
  /**
   * How the lines changed, when the writer knows it exactly (the editor's tracked edits, an edit whose place
   * is known); otherwise the two texts are diffed.
   */
  change?: LineChange;
  verdict: Verdict;
  /**
   * The path the content was moved from (a rename or move seen as it happened): `before` is then that path's
   * content before the move, and the record is due even when nothing else changed (docs/LEDGER.md).
   */
  movedFrom?: string;
  /** Lines of `change` taken from other files' content (engine/lineage.ts `findMovedBlocks`). */
  movedIn?: readonly MovedLines[];
  /** The hash of the file on disk when another writer changed it after the agent's tool wrote `content`. */
  onDiskHash?: string;
  /** Lines of `content` the person did not type, though the editor reported them (engine/untypedLines.ts). */
  untyped?: readonly UntypedSpan[];
}

export interface ChangeToRecord extends FileWrite {
  root: string;
  ledgerPath: string;
  /**
   * Further files the same act wrote (a shell command, the files a cut gives pasted blocks back to): recorded
   * in the same record as the files judged under the same intent, in a record of their own intent otherwise.
   */
  otherFiles?: readonly FileWrite[];
  contributor: { type: ContributorType; modelId?: string };
  sessionId: string;
  toolVersion: string;
  toolCall?: ToolCallMetadata;
  /** The person behind a human contributor (the editor's saves). */
  person?: PersonMetadata;
  /**
   * Whether the ledger's newest record of `path` already pins exactly this content (an agent hook recorded
   * it, or the same post hook ran twice). Only the newest counts: returning to older content is a change.
   */
  alreadyRecorded: (path: string, postHash: string) => boolean;
  /**
   * The same question asked again once the ledger's lock is held (the ledger read on to its end): true for
   * every due file means another writer recorded this very change meanwhile (two hooks of one write at
   * once), and nothing is appended.
   */
  recordedUnderLock?: (path: string, postHash: string) => Promise<boolean>;
  now?: Date;
}

export type RecordOutcome =
  | {
      written: true;
      /** The records appended, one per intent the due files were judged under; the first names the first due file (`path` when it is due). */
      records: { id: string; line: string }[];
    }
  | { written: false; reason: "unchanged" | "duplicate" };

/**
 * The records a change would append, one per intent its files were judged under (a record's files all share
 * its intent: engine/ledger/record.ts `recordGroups`), or why none is due. Synchronous, so callers can show
 * them at once.
 */
export function prepareRecords(change: ChangeToRecord): TraceRecord[] | { skip: "unchanged" | "duplicate" } {
  const due: FileWrite[] = [];
  let skip: "unchanged" | "duplicate" = "unchanged";
  for (const file of [change, ...(change.otherFiles ?? [])]) {
    // Lines only deleted still change the file: record it (no ranges) so its new post_hash is explained. An
    // unchanged file is recorded only for lines moved into it (a paste its cut, recorded later, explains).
    const same = file.content !== null && file.before !== null && fileHash(file.content) === fileHash(file.before);
    if (same && file.movedFrom === undefined && !file.movedIn?.length) continue;
    if (file.content !== null && change.alreadyRecorded(file.path, fileHash(file.content))) {
      skip = "duplicate";
      continue;
    }
    due.push(file);
  }
  if (due.length === 0) return { skip };
  const revision = headRevision(change.root);
  return recordGroups(due, (f) => verdictIntentId(f.verdict)).map(({ intentId, files: [first, ...others] }) =>
    buildRecord({
      ...recordFile(first!),
      ...(others.length ? { otherFiles: others.map(recordFile) } : {}),
      contributor: change.contributor,
      sessionId: change.sessionId,
      toolVersion: change.toolVersion,
      intentId,
      revision,
      ...(change.toolCall ? { toolCall: change.toolCall } : {}),
      ...(change.person ? { person: change.person } : {}),
      now: change.now,
    }),
  );
}

/** The one record a change of one file would append (an editor's save), or why none is due. */
export function prepareRecord(change: Omit<ChangeToRecord, "otherFiles"> & { otherFiles?: never }): TraceRecord | { skip: "unchanged" | "duplicate" } {
  const records = prepareRecords(change);
  return "skip" in records ? records : records[0]!;
}

function recordFile(file: FileWrite): RecordFileInput {
  return {
    path: file.path,
    content: file.content,
    ...(file.lines && file.content !== null ? { lines: file.lines } : {}),
    ...(file.content === null ? { ranges: [] } : { change: file.change ?? diffTexts(file.before, file.content) }),
    mutationClass: mutationClass(file.path, file.before, file.content),
    preHash: file.before === null ? null : fileHash(file.before),
    scope: scopeVerdict(file.verdict),
    ...(file.movedFrom !== undefined ? { movedFrom: file.movedFrom } : {}),
    ...(file.onDiskHash !== undefined ? { onDiskHash: file.onDiskHash } : {}),
    ...(file.movedIn?.length && file.change ? { movedIn: file.movedIn } : {}),
    ...(file.untyped?.length && file.change ? { untyped: file.untyped } : {}),
  };
}

/** Appends a change's records (`prepareRecords`) together: one lock, one write. */
export async function recordChange(change: ChangeToRecord): Promise<RecordOutcome> {
  const records = prepareRecords(change);
  if ("skip" in records) return { written: false, reason: records.skip };
  const recheck = change.recordedUnderLock;
  const due = recheck ? [change, ...(change.otherFiles ?? [])].filter((f): f is FileWrite & { content: string } => f.content !== null) : [];
  const stillDue = recheck && due.length ? async () => !(await everyRecorded(due, recheck)) : undefined;
  const results = await appendWorkspaceRecords(change.root, change.ledgerPath, records, stillDue ? { stillDue } : {});
  if (results.length === 0) return { written: false, reason: "duplicate" };
  return { written: true, records: records.map((r, i) => ({ id: r.id, line: results[i]!.line })) };
}

async function everyRecorded(
  files: readonly (FileWrite & { content: string })[],
  recorded: (path: string, postHash: string) => Promise<boolean>,
): Promise<boolean> {
  for (const f of files) if (!(await recorded(f.path, fileHash(f.content)))) return false;
  return true;
}

export function scopeVerdict(v: Verdict): ScopeVerdict {
  switch (v.kind) {
    case "allowed":
      return "PASS";
    case "exempt":
      return "EXEMPT";
    case "out-of-scope":
      return "OUT_OF_SCOPE";
    case "intent-not-in-progress":
      return "INTENT_NOT_IN_PROGRESS";
    case "no-active-intent":
      return "NO_INTENT";
  }
}

const DOC = /\.(md|mdx|markdown|rst|adoc|txt)$/i;
const CONFIG = /(\.(json|jsonc|ya?ml|toml|ini|cfg|conf|env)|(^|\/)(Dockerfile|Makefile|\.[a-z]+rc))$/i;

/** A coarse class from the path and whether the file was created or deleted; good enough to filter by. */
export function mutationClass(path: string, before: string | null, after: string | null): MutationClass {
  if (after === null) return "FILE_DELETION";
  if (before === null) return "FILE_CREATION";
  if (DOC.test(path)) return "DOCUMENTATION";
  if (CONFIG.test(path)) return "CONFIGURATION";
  return "INTENT_EVOLUTION";
}
