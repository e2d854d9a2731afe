import type { MutationClass, ScopeVerdict, TraceRecord } from "@shared/agentTrace";
import type { ContributorType } from "@shared/settings";
import type { Verdict } from "../gate";
import { headRevision } from "../git";
import { fileHash } from "../hashing";
import { appendWorkspaceRecord } from "./append";
import { buildRecord, changedRanges } from "./record";

/**
 * Recording one change of one file in the ledger: the step shared by the editor's save and the agent
 * hooks' PostToolUse, so both write the same record for the same change and skip the same duplicates.
 */

export interface ChangeToRecord {
  root: string;
  ledgerPath: string;
  path: string;
  /** Content after the change (null: the file was deleted). */
  content: string | null;
  /** Content before the change (null: the file did not exist). */
  before: string | null;
  /** 1-based line numbers of `content` that the change produced. */
  changedLines: readonly number[];
  verdict: Verdict;
  contributor: { type: ContributorType; modelId?: string };
  sessionId: string;
  toolVersion: string;
  /** Ask the ledger whether this exact content is already recorded for this path. */
  alreadyRecorded: (path: string, postHash: string) => boolean;
  now?: Date;
}

export type RecordOutcome = { written: true; id: string; line: string } | { written: false; reason: "unchanged" | "duplicate" };

/** The record a change would append, or why none is due. Synchronous, so callers can show it at once. */
export function prepareRecord(change: ChangeToRecord): TraceRecord | { skip: "unchanged" | "duplicate" } {
  // Lines only deleted still change the file: record it (no ranges) so its new post_hash is explained.
  if (change.content !== null && change.before !== null && fileHash(change.content) === fileHash(change.before)) return { skip: "unchanged" };
  if (change.content !== null && change.alreadyRecorded(change.path, fileHash(change.content))) return { skip: "duplicate" };
  const verdict = change.verdict;
  const intentId = verdict.kind === "allowed" || verdict.kind === "out-of-scope" || verdict.kind === "intent-not-in-progress" ? verdict.intent.id : null;
  return buildRecord({
    path: change.path,
    content: change.content,
    ranges: change.content === null ? [] : changedRanges(change.changedLines),
    contributor: change.contributor,
    sessionId: change.sessionId,
    toolVersion: change.toolVersion,
    mutationClass: mutationClass(change.path, change.before, change.content),
    preHash: change.before === null ? null : fileHash(change.before),
    scope: scopeVerdict(verdict),
    intentId,
    revision: headRevision(change.root),
    now: change.now,
  });
}

export async function recordChange(change: ChangeToRecord): Promise<RecordOutcome> {
  const record = prepareRecord(change);
  if ("skip" in record) return { written: false, reason: record.skip };
  const result = await appendWorkspaceRecord(change.root, change.ledgerPath, record);
  return { written: true, id: record.id, line: result.line };
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
