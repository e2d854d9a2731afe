/**
 * Which changes go into the ledger (docs/LEDGER.md; docs/ARCHITECTURE.md "Save → ledger append"): the one answer for the editor's saves and
 * the agent hooks' writes, so a file is recorded by both doors or by neither.
 */
import type { Rules } from "./rules";
import { ORCHESTRATION_DIR, RULE_FILES, sealedManifestPath, segmentsDir } from "./workspaceFiles";

const RULES = new Set<string>(RULE_FILES);

/**
 * intent-lsp's own files: the rule files, everything under `.orchestration/` (the session files, the
 * caches the gate and the reports trust once their checksum holds, the adoption point), and the ledger with
 * its sealed manifest, segments folder and lock. An agent's change to them needs the user's approval (the
 * gate asks, as it does for a shell command that names them), and no change to them is work under an intent.
 */
export function isIntentLspFile(path: string, rules: Pick<Rules, "settings">): boolean {
  const ledger = rules.settings.ledgerPath;
  return (
    RULES.has(path) ||
    within(path, ORCHESTRATION_DIR) ||
    path === ledger ||
    within(path, `${ledger}.lock`) ||
    path === sealedManifestPath(ledger) ||
    within(path, segmentsDir(ledger))
  );
}

/** Whether `path` is `dir` or inside it. */
function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

/** A change to `path` is recorded unless the path is exempt from scope checks or is one of intent-lsp's own files. */
export function shouldRecord(path: string, rules: Pick<Rules, "settings" | "ignore">): boolean {
  return !rules.ignore.ignores(path) && !isIntentLspFile(path, rules);
}
