import type { ActiveIntentResult, RevertResult } from "@shared/commands";
import { Commands } from "@shared/commands";
import { intentMark } from "../engine/describe";
import { percent } from "../engine/authorship";

/**
 * The one-line answer a workspace command gives the person who ran it (`window/showMessage`), besides its
 * return value: clients that run commands by name (Helix's `:lsp-workspace-command`, a code action) show
 * nothing of a return value. Clients that show the result in their own UI pass `quiet: true`.
 */
export function commandAnswer(command: string, result: unknown): string {
  const r = (result ?? {}) as Record<string, unknown>;
  switch (command) {
    case Commands.selectIntent:
      return `intent-lsp: selected ${String(r.selected)} for this workspace.`;
    case Commands.clearIntent:
      return "intent-lsp: selection cleared (auto-selection applies again).";
    case Commands.amendScope:
      return `intent-lsp: added ${String(r.glob)} to ${String(r.amended)}'s scope.`;
    case Commands.transition:
      return `intent-lsp: ${String(r.id)} is now ${String(r.status)}.`;
    case Commands.ignorePath:
      return r.added ? `intent-lsp: added ${String(r.ignored)} to .intentignore.` : `intent-lsp: ${String(r.ignored)} was already in .intentignore.`;
    case Commands.listIntents:
      return listAnswer(Array.isArray(result) ? (result as { id: string; status: string; selected: boolean }[]) : []);
    case Commands.activeIntent:
      return activeAnswer(result as ActiveIntentResult);
    case Commands.showContext:
      return `intent-lsp: context of ${String(r.id)}: ${String(r.bytes)} bytes${r.omitted ? " (some omitted to fit)" : ""}.`;
    case Commands.blame:
      return blameAnswer(String(r.path), Array.isArray(r.lines) ? (r.lines as BlameAnswerRow[]) : []);
    case Commands.regenerateMap:
      return `intent-lsp: ${String(r.path)} ${r.changed ? "regenerated" : "was already up to date"} (${String(r.intents)} intents).`;
    case Commands.verifyLedger:
      return verifyAnswer(r);
    case Commands.verifyCriteria: {
      const failed = Array.isArray(r.failed) ? (r.failed as { criterion: string; why: string }[]) : [];
      if (r.cancelled) return `intent-lsp: verification of ${String(r.id)} was cancelled.`;
      return failed.length
        ? `intent-lsp: ${String(r.id)}: ✗ ${failed.length} of ${String(r.total)} criteria failed: ${failed.map((f) => `"${f.criterion}" (${f.why})`).join(", ")}.`
        : `intent-lsp: ${String(r.id)}: ✓ ${String(r.total)}/${String(r.total)} criteria verified.`;
    }
    case Commands.listDrift: {
      const runs = Array.isArray(r.runs) ? (r.runs as { text: string }[]) : [];
      return `intent-lsp: ${String(r.message)}${runs.length ? ` ${runs.map((x) => x.text).join("; ")}.` : ""}`;
    }
    case Commands.report: {
      const l = r.lines as { total: number; ai: number; untraced: number };
      return `intent-lsp: wrote the report to ${String(r.file)}: AI wrote ${percent(l.ai, l.total)} of ${l.total} lines; ${l.untraced} untraced (${percent(l.untraced, l.total)}).`;
    }
    case Commands.revert:
      return revertAnswer(result as RevertResult);
    default:
      return `intent-lsp: ${command} done.`;
  }
}

function listAnswer(intents: readonly { id: string; status: string; selected: boolean }[]): string {
  if (!intents.length) return "intent-lsp: no intents in .orchestration/active_intents.yaml.";
  return `intent-lsp: ${intents.map((i) => `${i.id} ${i.status}${i.selected ? " (selected)" : ""}`).join(", ")}.`;
}

function activeAnswer(r: ActiveIntentResult): string {
  const where = r.path ?? "this workspace";
  if (r.exempt) return `intent-lsp: ${where} is exempt from scope checks.`;
  if (!r.intent) return `intent-lsp: edits to ${where} count under no intent (none selected, none auto-selected).`;
  const problem =
    r.problem === "out-of-scope" ? `, but ${where} is out of its scope` : r.problem === "intent-not-in-progress" ? ", which is not in progress" : "";
  return `intent-lsp: edits to ${where} count under ${r.intent.id} (${r.how})${problem}.`;
}

interface BlameAnswerRow {
  line: number;
  kind: string;
  intent?: string;
  model?: string;
  person?: string;
  contributor?: string;
  outOfScope?: boolean;
}

function blameAnswer(path: string, rows: readonly BlameAnswerRow[]): string {
  const said = rows
    .slice(0, 5)
    .map((row) =>
      row.kind === "traced"
        ? `L${row.line} ${intentMark(row.intent, row.outOfScope === true)} · ${row.model ?? row.person ?? row.contributor ?? "?"}`
        : `L${row.line} ${row.kind}`,
    );
  return `intent-lsp: ${path}: ${said.join("; ")}${rows.length > 5 ? `; … ${rows.length - 5} more lines` : ""}.`;
}

function revertAnswer(r: RevertResult): string {
  const lines = r.reverted.reduce((n, f) => n + f.lines.length, 0);
  const files = r.reverted.length;
  const alone = r.leftAlone.length ? `; ${r.leftAlone.length} line(s) of it left alone (since edited, moved, or found by content only)` : "";
  if (!r.patch) return `intent-lsp: nothing to revert: no line of it survives as it was written${alone}.`;
  if (r.applied) return `intent-lsp: reverted ${lines} line(s) in ${files} file(s)${alone}; your next save records the change as yours.`;
  return `intent-lsp: ${lines} line(s) to take back in ${files} file(s)${alone}; run it again with "apply": true to write them.`;
}

function verifyAnswer(r: Record<string, unknown>): string {
  const problems = Array.isArray(r.problems) ? (r.problems as { line: number; message: string }[]) : [];
  if (r.ok) return `intent-lsp: ${String(r.path)} verified: ${String(r.records)} records, no problems.`;
  const first = problems[0];
  return `intent-lsp: ${String(r.path)}: ${problems.length} problem(s) in ${String(r.records)} records${first ? `; line ${first.line}: ${first.message}` : ""}. Run "intent verify" in a terminal for the full list.`;
}
