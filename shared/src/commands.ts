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
