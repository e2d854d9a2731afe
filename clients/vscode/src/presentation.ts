// What the extension shows, made from the server's answers: plain data in, plain data out (no vscode
// import), so it is unit-tested without an editor.
import type { ActiveIntentResult, RevertResult } from "@shared/commands";
import type { BlameRow, IntentRow } from "./server";

/**
 * The status-bar item for an answer of intent.activeIntent: `$(target) INT-003 · auto-selected`,
 * `$(warning) INT-001 · selected` when the file's edits have a problem, `$(circle-slash) No intent · none`.
 */
export function statusText(r: ActiveIntentResult): { text: string; tooltip: string; warn: boolean } {
  const warn = r.problem !== null;
  const icon = warn ? "$(warning)" : r.intent ? "$(target)" : "$(circle-slash)";
  const text = `${icon} ${r.intent ? r.intent.id : "No intent"} · ${r.how}`;
  const lines: string[] = [];
  if (!r.intent) lines.push("No intent counts for edits here: none is selected, and not exactly one intent in progress owns this file.");
  else if (r.how === "auto-selected")
    lines.push(`${r.intent.id} — ${r.intent.name} (${r.intent.status}), auto-selected: the only intent in progress that owns this file.`);
  else lines.push(`${r.intent.id} — ${r.intent.name} (${r.intent.status}), selected.`);
  if (r.path) {
    if (r.exempt) lines.push(`${r.path} is exempt from scope checks.`);
    else if (r.problem === "out-of-scope") lines.push(`${r.path} is outside ${r.intent?.id}'s scope.`);
    else if (r.problem === "intent-not-in-progress") lines.push(`${r.intent?.id} is not in progress.`);
    if (r.owners.length) lines.push(`Owned by ${r.owners.join(", ")}.`);
  }
  lines.push("Click to choose an intent.");
  return { text, tooltip: lines.join("\n"), warn };
}

export interface IntentPick {
  label: string;
  description: string;
  detail?: string;
  id: string;
  /** Select with `start: true` (the server starts or resumes it first). */
  start: boolean;
}

/**
 * The quick pick of intents to select: every intent that can be selected, in catalogue order, the selected
 * one checked and the owners of the current file marked; "Start and select" for pending ones.
 */
export function intentPicks(intents: readonly IntentRow[], active: ActiveIntentResult | undefined): IntentPick[] {
  const picks: IntentPick[] = [];
  for (const i of intents) {
    const how = i.selectAs;
    if (!how) continue; // the server offers no closed work (complete, archived)
    const verb = how === "start" ? "Start and select " : how === "resume" ? "Resume and select " : "";
    const owns = active?.path && active.owners.includes(i.id);
    picks.push({
      label: `${i.selected ? "$(check) " : ""}${verb}${i.id} — ${i.name}`,
      description: `${i.status} · ${i.owned_scope.join(", ")}`,
      ...(owns ? { detail: `$(file) owns ${active!.path}` } : {}),
      id: i.id,
      start: how !== "select",
    });
  }
  return picks;
}

/** Verbs of the lifecycle moves, by target status, as the palette and the Intents view name them. */
export const MOVES = {
  start: { to: "IN_PROGRESS", title: "Start" },
  complete: { to: "COMPLETE", title: "Complete" },
  block: { to: "BLOCKED", title: "Block" },
  archive: { to: "ARCHIVED", title: "Archive" },
} as const;
export type Move = keyof typeof MOVES;

/** The Intents view's context value: what the inline actions' `when` clauses test (`to-COMPLETE` …). */
export function intentContextValue(i: IntentRow): string {
  return ["intent", ...(i.selectAs ? ["selectable"] : []), ...i.transitions.map((t) => `to-${t}`)].join(" ");
}

/** The Intents view's line for an intent: `INT-001 — Build Weather API`, `IN_PROGRESS · src/api/**`. */
export function intentTreeLabel(i: IntentRow): { label: string; description: string; tooltip: string } {
  return {
    label: `${i.id} — ${i.name}`,
    description: `${i.selected ? "selected · " : ""}${i.status} · ${i.owned_scope.join(", ")}`,
    tooltip: `${i.id} — ${i.name}\nStatus: ${i.status}\nScope: ${i.owned_scope.join(", ")}\n${i.files.length} file(s) in the ledger`,
  };
}

/** One blame row as a quick-pick item: `L10  INT-001 · ai · anthropic/claude-sonnet-4-5`. */
export function blameItem(row: BlameRow): { label: string; description: string; detail?: string } {
  if (row.kind === "beforeAdoption") {
    // as `intent blame` says it: the line predates the ledger, its author is git's
    return {
      label: `L${row.line}  before adoption`,
      description: row.git ? `${row.git.name} (git) · ${row.git.date.slice(0, 10)}` : "as it was when intent-lsp was taken up",
    };
  }
  if (row.kind !== "traced") {
    const what = { edited: "edited, not saved yet", untraced: "untraced: no ledger record covers it", indexing: "indexing the ledger…" }[row.kind] ?? row.kind;
    return { label: `L${row.line}`, description: what };
  }
  const who = [row.contributor, row.model ?? row.person].filter(Boolean).join(" · ");
  return {
    label: `L${row.line}  ${row.intent ?? "no intent"}${row.outOfScope ? " (out of scope)" : ""}`,
    description: who,
    ...(row.timestamp || row.traceId ? { detail: [row.timestamp, row.traceId && `trace ${row.traceId}`].filter(Boolean).join(" · ") } : {}),
  };
}

/**
 * VS Code says who wrote a block once: with the CodeLens above the block (it carries the time and opens the
 * blame; a hint at the end of the block's first line would repeat it and widen the line). The inlay hint
 * stands in only where no CodeLens shows: `editor.codeLens` or `intentLsp.codeLens.enabled` off.
 */
export function blockHintsWanted(editorCodeLens: boolean, intentCodeLens: boolean): boolean {
  return !(editorCodeLens && intentCodeLens);
}

/** "5 lines to take back, 2 left alone" ("taken back" once written): what a revert of an intent's work does. */
export function revertCounts(r: RevertResult): string {
  const taken = r.reverted.reduce((n, f) => n + f.lines.length, 0);
  return `${taken} line${taken === 1 ? "" : "s"} ${r.applied ? "taken back" : "to take back"}, ${r.leftAlone.length} left alone`;
}

/**
 * The preview of a revert: the lines taken out per file, every line left alone with the reason and every
 * note, as `#` comments above the patch (`git apply` skips what comes before the first `diff --git`).
 */
export function revertPreview(id: string, r: RevertResult): string {
  // a path or a name from the repository never breaks a comment line
  const flat = (s: string) => s.replace(/[\r\n]+/g, " ");
  const head = [`# Revert of ${flat(id)}'s work: ${revertCounts(r)}`];
  for (const f of r.reverted) head.push(`# ${flat(f.path)}: takes back line(s) ${f.lines.join(", ")}`);
  for (const l of r.leftAlone) head.push(`# ${flat(l.path)}:${l.line}: left alone (${l.reason}): ${flat(l.why)}`);
  for (const n of r.notes) head.push(`# ${flat(n.path)}:${n.line}: note: ${flat(n.note)}`);
  return `${head.join("\n")}\n\n${r.patch}`;
}
