import type { Step } from "./generator";
import type { Prng } from "./prng";

/**
 * The order in which the events of one step reach the server (the `order` rows). An editor's watcher, the
 * agent's hook and the editor's own notifications race each other; whatever order they arrive in, hover
 * must say what `intent blame` says, and no record may claim lines its writer did not change.
 */
export type ArrivalOrder =
  /** as the generator draws the step (the reload in one notification, before or after the record) */
  | "plain"
  /** an agent's write to an open file, reloaded with one didChange per hunk, all before its record lands */
  | "hunks-each-before-record"
  /** the client's didChangeWatchedFiles, then the reload, then the record */
  | "watcher-reload-record"
  /** the reload, the client's didChangeWatchedFiles, then the record */
  | "reload-watcher-record"
  /** the record, the client's didChangeWatchedFiles, then the reload */
  | "record-watcher-reload"
  /** an agent's write to a closed file that the editor opens and saves at once, before the record lands */
  | "open-save-before-record"
  /** a person's save followed at once by didClose and didOpen, before the save is handled */
  | "save-close-open"
  /** a file-level step (fileOps.ts): the client's didChangeWatchedFiles (old path deleted, new created, files changed) between the move and its record */
  | "watcher-move-record"
  /** the move, its record, then the client's didChangeWatchedFiles */
  | "move-record-watcher"
  /** an agent's move: the editor opens the new path before the record lands */
  | "open-before-record"
  /** a block cut from one file and pasted into another: the cut saved first, or the paste */
  | "cut-saved-first"
  | "paste-saved-first";

const OPEN_AGENT: readonly ArrivalOrder[] = ["hunks-each-before-record", "watcher-reload-record", "reload-watcher-record", "record-watcher-reload"];

/** The order of a step's events: half the time as drawn, else one of the orders that fit its path. */
export function drawArrival(rng: Prng, step: Step, open: boolean): ArrivalOrder {
  if (!rng.chance(0.5)) return "plain";
  if (step.actor.door === "editor") return step.kind === "create" ? "plain" : "save-close-open";
  if (open && step.via !== "agent-closed") return rng.pick(OPEN_AGENT);
  return step.kind === "create" ? "plain" : "open-save-before-record";
}

/** The order of a file-level step's events (fileOps.ts). */
export function drawFileOpArrival(rng: Prng, step: Step): ArrivalOrder {
  const op = step.op!;
  if (op.kind === "block") return op.cut ? (op.cutSavedFirst ? "cut-saved-first" : "paste-saved-first") : "plain";
  if (op.kind === "refactor") return op.tool === "shell" ? "plain" : op.cutFirst ? "cut-saved-first" : "paste-saved-first";
  if (!rng.chance(0.5)) return "plain";
  if (op.kind === "rename" && op.how !== "git" && op.how !== "editor" && rng.chance(0.3)) return "open-before-record";
  return rng.chance(0.5) ? "watcher-move-record" : "move-record-watcher";
}
