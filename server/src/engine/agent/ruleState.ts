/**
 * The state of the rules as an agent's shell command may change it: the rule files' fingerprints, each
 * intent's status and the selections. Taken before a shell command and again after it, so that a change
 * of the rules by the command (however it was spelled, whatever the gate guessed) is told to the agent and
 * the user right after it ran.
 */
import { RULE_FILES } from "../workspaceFiles";

export interface RuleState {
  /** Each rule file's content hash (null: absent). */
  files: Record<string, string | null>;
  /** Each intent's status, by id. */
  statuses: Record<string, string>;
  /** The workspace selection (null: none). */
  workspaceSelection: string | null;
  /** The session's own selection (null: cleared; absent: it follows the workspace's). */
  sessionSelection?: string | null;
}

/** What changed between two states, as clauses for a sentence; empty when nothing did. */
export function ruleChanges(before: RuleState, after: RuleState): string[] {
  const out: string[] = [];
  for (const file of RULE_FILES) {
    const was = before.files[file] ?? null;
    const now = after.files[file] ?? null;
    if (was === now) continue;
    const how = was === null ? "created" : now === null ? "deleted" : "changed";
    const statuses = file.endsWith("active_intents.yaml") ? statusChanges(before.statuses, after.statuses) : [];
    out.push(`${file} ${how}${statuses.length ? ` (${statuses.join(", ")})` : ""}`);
  }
  if (before.workspaceSelection !== after.workspaceSelection)
    out.push(`the workspace selection changed (${said(before.workspaceSelection)} → ${said(after.workspaceSelection)})`);
  if (before.sessionSelection !== after.sessionSelection)
    out.push(`this session's selection changed (${said(before.sessionSelection)} → ${said(after.sessionSelection)})`);
  return out;
}

function statusChanges(before: Record<string, string>, after: Record<string, string>): string[] {
  const ids = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return ids.filter((id) => before[id] !== after[id]).map((id) => `${id}: ${before[id] ?? "absent"} → ${after[id] ?? "absent"}`);
}

const said = (s: string | null | undefined) => (s === undefined ? "the workspace's" : s === null ? "none" : s);

/** The sentence for the agent (and the user) after a shell command changed the rules. */
export function ruleChangeReport(changes: readonly string[]): string | undefined {
  if (!changes.length) return undefined;
  return `intent-lsp: this command changed intent-lsp's rules: ${changes.join("; ")}. Which intent may write where is the user's decision: tell the user what changed, and undo it unless the user asked for exactly this.`;
}
