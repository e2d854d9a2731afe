import { isProblem, verdictMessage, type Verdict } from "../engine/gate";
import { recordChange, type RecordOutcome } from "../engine/ledger/recordChange";
import { noteLesson } from "../engine/lessons";
import type { TrackedDocument } from "./documents";
import type { WorkspaceContext } from "./workspace";

/** What a save recorded: taken synchronously when didSave arrives, before any await lets typing move on. */
export interface SavedSnapshot {
  path: string;
  content: string;
  before: string;
  /** 1-based lines of `content` edited since the previous save. */
  changedLines: number[];
  verdict: Verdict;
}

export function snapshotSave(doc: TrackedDocument): SavedSnapshot | undefined {
  const verdict = doc.verdict();
  if (!doc.ctx || doc.path === undefined || !verdict || verdict.kind === "exempt" || doc.ctx.ruleFileOf(doc.path)) return undefined;
  const changedLines: number[] = [];
  for (const b of doc.edits.blocks()) for (let l = b.start; l <= b.end; l++) changedLines.push(l + 1);
  return { path: doc.path, content: doc.doc.getText(), before: doc.baseline, changedLines, verdict };
}

/**
 * DESIGN §4 "On save": one record for the lines changed since the last save (skipped if an agent hook
 * already recorded this exact content), and a lesson in AGENT.md when the save landed out of scope.
 */
export async function recordSave(ctx: WorkspaceContext, saved: SavedSnapshot, toolVersion: string): Promise<RecordOutcome> {
  const settings = ctx.rules.settings;
  await ctx.ledger.poll(); // see a record an agent just wrote, so its content is not recorded twice
  const outcome = await recordChange({
    root: ctx.root,
    ledgerPath: settings.ledgerPath,
    path: saved.path,
    content: saved.content,
    before: saved.before,
    changedLines: saved.changedLines,
    verdict: saved.verdict,
    contributor: settings.contributor,
    sessionId: ctx.session.id,
    toolVersion,
    alreadyRecorded: (p, h) => ctx.ledger.hasPostHash(p, h),
  });
  const v = saved.verdict;
  if (outcome.written && isProblem(v) && v.kind === "out-of-scope") {
    noteLesson(ctx.root, { path: saved.path, intentId: v.intent.id, text: `saved outside the scope of ${v.intent.id}. ${verdictMessage(saved.path, v)}` });
  }
  return outcome;
}
