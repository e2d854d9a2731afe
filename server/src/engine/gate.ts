/**
 * The one rule (docs/ARCHITECTURE.md "Sessions and the active intent"): may an edit to `path` be made now, and under which intent?
 * The editor's diagnostics, the agent hooks and `intent check` all ask this function.
 */
import type { Intent, IntentStatus } from "./intents/model";
import type { Rules } from "./rules";
import { oneLine } from "./terminalText";

export interface Selection {
  intentId: string;
  /** Where the selection came from: this session's own choice or the workspace's. */
  source: "session" | "workspace";
  /**
   * The file that holds the selection exists but cannot be read as one (half-written, hand-broken, not a
   * file), and why: which intent is selected is not known, so none is (`intentId` is empty) and none is guessed.
   */
  unreadable?: string;
}

export type Verdict =
  | { kind: "exempt" }
  | { kind: "allowed"; intent: Intent; auto: boolean }
  | { kind: "out-of-scope"; intent: Intent; owners: Intent[] }
  | { kind: "intent-not-in-progress"; intent: Intent; owners: Intent[] }
  | { kind: "no-active-intent"; owners: Intent[]; missingSelection?: string; unreadableSelection?: string };

export type ProblemVerdict = Exclude<Verdict, { kind: "exempt" } | { kind: "allowed" }>;

/**
 * The intent a write judged by `v` is recorded under (a record's `intent_id`): the one it was allowed under
 * (selected, or the only in-progress owner when none is), or the one it was judged against and found out of
 * scope or not in progress; null for an exempt path and for a write under no intent.
 */
export function verdictIntentId(v: Verdict): string | null {
  return v.kind === "allowed" || v.kind === "out-of-scope" || v.kind === "intent-not-in-progress" ? v.intent.id : null;
}

export function judge(path: string, rules: Rules, selection: Selection | undefined): Verdict {
  if (rules.ignore.ignores(path)) return { kind: "exempt" };
  const owners = () => rules.scopes.owners(path);
  const selected = selection ? rules.catalogue.byId.get(selection.intentId) : undefined;
  let active = selected;
  let auto = false;
  if (!active) {
    // a selection nobody can read is no choice to fall back from: it is said, never replaced by a guess,
    // until someone selects again (a selection of an intent no longer in the file falls back, as none does)
    const candidates = rules.settings.autoSelect && selection?.unreadable === undefined ? owners().filter((i) => i.status === "IN_PROGRESS") : [];
    if (candidates.length !== 1) {
      const unknown =
        selection?.unreadable !== undefined ? { unreadableSelection: selection.unreadable } : selection ? { missingSelection: selection.intentId } : {};
      return { kind: "no-active-intent", owners: owners(), ...unknown };
    }
    active = candidates[0];
    auto = true;
  }
  if (active.status !== "IN_PROGRESS") return { kind: "intent-not-in-progress", intent: active, owners: owners() };
  if (!auto && !rules.scopes.owns(active, path)) return { kind: "out-of-scope", intent: active, owners: owners() };
  return { kind: "allowed", intent: active, auto };
}

export const isProblem = (v: Verdict): v is ProblemVerdict => v.kind !== "exempt" && v.kind !== "allowed";

const STATUS_ADVICE: Record<Exclude<IntentStatus, "IN_PROGRESS">, string> = {
  PENDING: "it has not been started. Start it, or select an intent that is in progress",
  BLOCKED: "it is blocked. Resume it once the blocker is resolved, or select another intent",
  COMPLETE: "it is complete, so its work is closed. Select another intent, or create one for this change",
  ARCHIVED: "it is archived. Select another intent, or create one for this change",
};

/**
 * The sentence users and agents read; one text for the editor, the hooks and CI. One line, whatever the
 * intents file or the path holds: a name with a line break or a bidi override must not make an agent or a
 * terminal read a second sentence the rules never said (engine/terminalText.ts).
 */
export function verdictMessage(path: string, v: ProblemVerdict): string {
  return oneLine(verdictSentence(path, v));
}

function verdictSentence(path: string, v: ProblemVerdict): string {
  switch (v.kind) {
    case "out-of-scope":
      return `${path} is outside the scope of ${v.intent.id} (${v.intent.name}): ${v.intent.ownedScope.join(", ")}.${ownerHint(v.owners)}`;
    case "intent-not-in-progress":
      return `${v.intent.id} (${v.intent.name}) is ${v.intent.status}: ${STATUS_ADVICE[v.intent.status as keyof typeof STATUS_ADVICE]}.`;
    case "no-active-intent": {
      if (v.unreadableSelection !== undefined)
        return `${v.unreadableSelection}, so which intent is selected is not known. Select again (\`intent select ID\`) before editing.${ownerHint(v.owners)}`;
      const lead = v.missingSelection
        ? `The selected intent ${v.missingSelection} is not in active_intents.yaml`
        : v.owners.filter((o) => o.status === "IN_PROGRESS").length > 1
          ? `No intent selected, and several in-progress intents own ${path}`
          : `No intent selected for ${path}`;
      return `${lead}. Select an intent before editing.${ownerHint(v.owners)}`;
    }
  }
}

function ownerHint(owners: Intent[]): string {
  if (!owners.length) return " No intent owns this file.";
  return ` Owned by ${owners.map((o) => `${o.id} (${o.status})`).join(", ")}.`;
}
