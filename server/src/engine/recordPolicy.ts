/**
 * Which changes go into the ledger (docs/LEDGER.md; docs/ARCHITECTURE.md "Save → ledger append"): the one answer for the editor's saves and
 * the agent hooks' writes, so a file is recorded by both doors or by neither.
 */
import type { Rules } from "./rules";
import { RULE_FILES, SESSIONS_DIR } from "./workspaceFiles";

const RULES = new Set<string>(RULE_FILES);

/**
 * intent-lsp's own files: the rule files, the ledger and the session files. An agent's change to them needs
 * the user's approval (the gate asks), and no change to them is work under an intent.
 */
export function isIntentLspFile(path: string, rules: Pick<Rules, "settings">): boolean {
  return RULES.has(path) || path === rules.settings.ledgerPath || path.startsWith(`${SESSIONS_DIR}/`);
}

/** A change to `path` is recorded unless the path is exempt from scope checks or is one of intent-lsp's own files. */
export function shouldRecord(path: string, rules: Pick<Rules, "settings" | "ignore">): boolean {
  return !rules.ignore.ignores(path) && !isIntentLspFile(path, rules);
}
