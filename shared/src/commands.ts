/** Command ids accepted by `workspace/executeCommand`. Clients bind UI to these; never rename one. */
export const Commands = {
  selectIntent: "intent.selectIntent",
  clearIntent: "intent.clearIntent",
  amendScope: "intent.amendScope",
  transition: "intent.transition",
  ignorePath: "intent.ignorePath",
  listIntents: "intent.listIntents",
  activeIntent: "intent.activeIntent",
  showContext: "intent.showContext",
  blame: "intent.blame",
  regenerateMap: "intent.regenerateMap",
  verifyLedger: "intent.verifyLedger",
  reRecord: "intent.reRecord",
  /** `{id, uri}`: run an intent's runnable acceptance criteria now (the person clicked "Verify"), with progress. */
  verifyCriteria: "intent.verifyCriteria",
  /** `{id, uri}`: the lines in an intent's scope that drifted (docs/INTENTS.md "Acceptance criteria", **Drift**). */
  listDrift: "intent.listDrift",
  report: "intent.report",
  /** `{uri?, intent, apply?}`: `intent revert --intent ID [--apply] --json` (docs/CLI.md "intent revert"). */
  revert: "intent.revert",
} as const;

export type CommandId = (typeof Commands)[keyof typeof Commands];
export const allCommands: CommandId[] = Object.values(Commands);

/**
 * `intent.activeIntent` `{uri}`: the intent an edit to that file counts under now and how it was chosen, as
 * a status bar shows it. `intent` is null with `how: "none"`; `problem` is the diagnostic code the file's
 * edits get (null when they are allowed or exempt); `owners` are the intents whose scope holds the file.
 */
export interface ActiveIntentResult {
  path: string | null;
  intent: { id: string; name: string; status: string } | null;
  how: "selected" | "auto-selected" | "none";
  problem: "out-of-scope" | "intent-not-in-progress" | "no-active-intent" | null;
  exempt: boolean;
  owners: string[];
}

/**
 * `intent.report` `{uri?, out?, path?, html?}`: writes `intent report`'s page (to `out`, workspace-relative
 * or absolute inside the workspace; default `.orchestration/.cache/report.html`) and says where. `path`
 * is a glob the numbers are restricted to; `html: true` also returns the page.
 */
export interface ReportResult {
  /** Workspace-relative. */
  path: string;
  /** Absolute. */
  file: string;
  lines: { total: number; ai: number; human: number; mixed: number; unknown: number; untraced: number; outOfScope: number };
  html?: string;
}

/**
 * `intent.revert` `{uri?, intent, apply?}`: what `intent revert --intent ID --json` prints (`apply: true`:
 * `--apply`). Lines are 1-based, those of the files as they are now.
 */
export interface RevertResult {
  /** The lines taken out, per file. */
  reverted: { path: string; lines: number[] }[];
  /** The intent's lines that stay, and why: since edited by someone else, moved here, or found by content only. */
  leftAlone: { path: string; line: number; reason: "edited" | "moved" | "ambiguous"; why: string; text: string }[];
  /** What could not be put back, and why. */
  notes: { path: string; line: number; note: string }[];
  /** The unified diff of the change, as `git apply` takes it ("" when nothing changes). */
  patch: string;
  /** True when the files were written. */
  applied: boolean;
}
