/**
 * Re-recording saved lines under the intent that owns them (docs/LEDGER.md "Re-attribution"): one appended
 * record that claims the lines again, content unchanged; the record that explained them before stays as it
 * is. The quick fix for a line recorded out of scope (or under an intent not in progress), and for a change
 * no record explains.
 */
import type { PersonMetadata } from "@shared/agentTrace";
import type { ContributorType } from "@shared/settings";
import { writerPerson } from "../../engine/contributor";
import { attribute, contentLineCount } from "../../engine/attribution";
import { isProblem, judge, verdictMessage } from "../../engine/gate";
import { fileHash, splitLines } from "../../engine/hashing";
import { buildRecord, reattributionChange } from "../../engine/ledger/record";
import type { TraceEntry } from "../../engine/ledger/read";
import type { Rules } from "../../engine/rules";
import { headRevision } from "../git";
import { appendWorkspaceRecord } from "./append";
import { mutationClass } from "./recordChange";

export interface ReattributeRequest {
  root: string;
  ledgerPath: string;
  /** Workspace-relative. */
  path: string;
  /** The file's content on disk, which the line numbers refer to. */
  text: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  intentId: string;
  rules: Rules;
  /** The ledger's entries for `path`. */
  entries: readonly TraceEntry[];
  /** Who vouches for lines no record explains (the session's contributor). */
  contributor: { type: ContributorType; modelId?: string };
  /** The person re-recording (their identity settings, else git's): named for lines nobody recorded. */
  person?: PersonMetadata;
  sessionId: string;
  toolVersion: string;
}

export class ReattributeError extends Error {
  override name = "ReattributeError";
}

/** Appends the re-attribution record; its id. Throws `ReattributeError` when the lines cannot be re-recorded so. */
export async function reattributeLines(req: ReattributeRequest): Promise<string> {
  const { path, startLine: start, endLine: end } = req;
  const lines = splitLines(req.text);
  const count = contentLineCount(lines);
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start || end > count) {
    throw new ReattributeError(`lines ${start}–${end} are not lines of ${path} (${count} lines on disk); save the file and try the quick fix again`);
  }
  const verdict = judge(path, req.rules, { intentId: req.intentId, source: "session" });
  if (verdict.kind === "exempt") throw new ReattributeError(`${path} is in .intentignore; its lines need no record`);
  if (isProblem(verdict)) throw new ReattributeError(`cannot re-record ${path} under ${req.intentId}: ${verdictMessage(path, verdict)}`);

  // who explains the lines now: the same attribution `intent check` and blame use
  const owners = attribute(req.entries, lines)
    .slice(start - 1, end)
    .map((a) => a?.entry);
  const ids = new Set(owners.map((e) => e?.recordId));
  if (ids.size > 1) throw new ReattributeError(`lines ${start}–${end} of ${path} come from more than one record; re-record each finding on its own`);
  const previous = owners[0];
  const hash = fileHash(req.text);
  const record = buildRecord({
    path,
    content: req.text,
    change: reattributionChange(count, start, end),
    mutationClass: mutationClass(path, req.text, req.text),
    preHash: hash,
    scope: "PASS",
    // the lines' writer stays who wrote them; lines nobody recorded are vouched for by whoever re-records them
    contributor: previous
      ? { type: previous.contributor.type, ...(previous.contributor.modelId ? { modelId: previous.contributor.modelId } : {}) }
      : req.contributor,
    // and its person stays the person who wrote them
    person: previous ? writerPerson(previous.contributor.name, req.person) : req.person,
    sessionId: req.sessionId,
    toolVersion: req.toolVersion,
    intentId: req.intentId,
    revision: headRevision(req.root),
    reattributes: previous ? [previous.recordId] : [],
  });
  await appendWorkspaceRecord(req.root, req.ledgerPath, record);
  return record.id;
}
