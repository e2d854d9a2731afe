import type { TraceRecord } from "@shared/agentTrace";
import { isProblem, verdictMessage, type Verdict } from "../engine/gate";
import { appendWorkspaceRecord } from "../engine/ledger/append";
import { parseLedgerLines, type TraceEntry } from "../engine/ledger/read";
import { prepareRecord } from "../engine/ledger/recordChange";
import { noteLesson } from "../engine/lessons";
import { textLines } from "../engine/lines";
import { shouldRecord } from "../engine/recordPolicy";
import type { TrackedDocument } from "./documents";
import type { WorkspaceContext } from "./workspaceContext";

/**
 * DESIGN §4 "On save": one record for the lines changed since the last save, skipped when the ledger
 * already holds this exact content (an agent hook recorded it), and a lesson when it landed out of scope.
 * The record is prepared synchronously when didSave arrives — before any await lets typing move on — so
 * hover and CodeLens can show it while the append waits for its lock.
 */
export interface PreparedSave {
  path: string;
  record: TraceRecord;
  /** The record's entries, for attribution before the ledger is read back. */
  entries: TraceEntry[];
  verdict: Verdict;
}

export function prepareSave(doc: TrackedDocument, toolVersion: string): PreparedSave | undefined {
  const { ctx, path } = doc;
  const verdict = doc.verdict();
  if (!ctx || path === undefined || !verdict || !shouldRecord(path, ctx.rules)) return undefined;
  // the empty "line" after a final newline is not a line of text (as for the hooks' diffs): never recorded
  const content = doc.doc.getText();
  const lastLine = textLines(content).length;
  const changedLines: number[] = [];
  for (const b of doc.edits.blocks()) for (let l = b.start; l <= b.end && l < lastLine; l++) changedLines.push(l + 1);
  const settings = ctx.rules.settings;
  const record = prepareRecord({
    root: ctx.root,
    ledgerPath: settings.ledgerPath,
    path,
    content,
    before: doc.baseline,
    changedLines,
    verdict,
    contributor: settings.contributor,
    sessionId: ctx.session.id,
    toolVersion,
    alreadyRecorded: (p, h) => ctx.ledger.hasPostHash(p, h),
  });
  if ("skip" in record) return undefined;
  return { path, record, entries: parseLedgerLines(JSON.stringify(record), 0).entries, verdict };
}

/** `poll` reads the ledger through the server, so whatever else it brings re-attributes open documents too. */
export async function writeSave(ctx: WorkspaceContext, save: PreparedSave, poll: () => Promise<void>): Promise<boolean> {
  await poll(); // an agent hook may have recorded this very content a moment ago
  const postHash = save.record.metadata?.["dev.intent-lsp"]?.post_hash;
  if (postHash && ctx.ledger.hasPostHash(save.path, postHash)) return false;
  await appendWorkspaceRecord(ctx.root, ctx.ledger.ledgerPath, save.record);
  const v = save.verdict;
  if (isProblem(v) && v.kind === "out-of-scope") {
    noteLesson(ctx.root, { path: save.path, intentId: v.intent.id, text: `saved outside the scope of ${v.intent.id}. ${verdictMessage(save.path, v)}` });
  }
  return true;
}

