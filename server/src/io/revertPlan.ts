/**
 * `intent revert` from start to end, for both doors (the CLI's `intent revert`, the editor's `intent.revert`):
 * the candidate files, each file's plan and revert (engine/revert.ts), the patch, and the files written. One
 * function computes what either door shows, so the two cannot disagree.
 */
import type { RevertResult } from "@shared/commands";
import type { TraceEntry } from "../engine/ledger/read";
import { planFileRevert, revertFile, selects, unifiedDiff, wantedContents, type FilePlan, type FileRevert, type RevertSelector } from "../engine/revert";
import type { WorkspaceLedger } from "./ledger/workspaceLedger";
import { contentsByHash, fileRevertInput, revertCandidates, writeReverted } from "./revert";

/** What reverting a contributor's work would do, computed from the files on disk and the ledger as read. */
export interface RevertPlan {
  /** False when no record of the ledger matches the selector: there is nothing to revert. */
  matched: boolean;
  /** The files with something to say (lines taken out, lines left alone, notes), in path order. */
  files: { plan: FilePlan; revert: FileRevert }[];
  /** The files whose text the revert changes. */
  changed: FileRevert[];
  /** Every file's unified diff, as `git apply` takes it. */
  patch: string;
}

/** Plans the revert of the selected contributor's work in the workspace at `root`; writes nothing. */
export function planRevert(root: string, ledger: WorkspaceLedger, selector: RevertSelector): RevertPlan {
  const selected = (e: TraceEntry) => selects(selector, e);
  const { matched, paths } = revertCandidates(root, ledger, selected);
  if (!matched) return { matched, files: [], changed: [], patch: "" };
  const inputs = paths.flatMap((p) => fileRevertInput(root, ledger, p) ?? []);
  const plans = inputs.map((input) => planFileRevert(input, selector));
  const contents = contentsByHash(root, wantedContents(plans));
  const reverts = plans.map((plan, i) => revertFile(plan, inputs[i]!.text, contents));
  return {
    matched,
    files: plans
      .map((plan, i) => ({ plan, revert: reverts[i]! }))
      .filter(({ plan, revert }) => plan.reverted.length || plan.leftAlone.length || revert.notes.length),
    changed: reverts.filter((r) => r.after !== r.before),
    patch: reverts.map(unifiedDiff).join(""),
  };
}

/** Writes every changed file of the plan in place (`--apply`); appends nothing to the ledger. */
export function applyRevert(root: string, plan: RevertPlan): void {
  for (const r of plan.changed) writeReverted(root, r.path, r.after);
}

/** The plan as `intent revert --json` prints it and `intent.revert` answers. */
export function revertResult(plan: RevertPlan, applied: boolean): RevertResult {
  return {
    reverted: plan.files.filter(({ plan: p }) => p.reverted.length).map(({ plan: p }) => ({ path: p.path, lines: p.reverted })),
    leftAlone: plan.files.flatMap(({ plan: p }) => p.leftAlone.map((l) => ({ path: p.path, ...l }))),
    notes: plan.files.flatMap(({ revert }) => revert.notes.map((n) => ({ path: revert.path, ...n }))),
    patch: plan.patch,
    applied,
  };
}
