/** Where intent-lsp's workspace files live (docs/INTENTS.md "What it reads and writes"), relative to the workspace root. */
export const ORCHESTRATION_DIR = ".orchestration";
export const INTENTS_FILE = ".orchestration/active_intents.yaml";
export const CONFIG_FILE = ".orchestration/config.jsonc";
export const ROOT_IGNORE_FILE = ".intentignore";
export const ORCHESTRATION_IGNORE_FILE = ".orchestration/.intentignore";
export const SESSIONS_DIR = ".orchestration/.sessions";
/** What intent-lsp can rebuild (the ledger's index, the parsed catalogue, the reports' caches). */
export const CACHE_DIR = ".orchestration/.cache";
export const AGENT_NOTES_FILE = ".orchestration/AGENT.md";
export const INTENT_MAP_FILE = ".orchestration/intent_map.md";
/** The adoption point `intent init` records: the commit whose code predates the ledger (engine/adoption.ts). */
export const ADOPTION_FILE = ".orchestration/adoption.json";

/** The files that shape the rules; a change to any of them means reloading. */
export const RULE_FILES = [INTENTS_FILE, CONFIG_FILE, ROOT_IGNORE_FILE, ORCHESTRATION_IGNORE_FILE] as const;
export type RuleFile = (typeof RULE_FILES)[number];

export type RuleFileTexts = Partial<Record<RuleFile, string>>;

/** Whether two readings of the rule files hold the same: each file absent in both, or the same text in both. */
export function sameRuleTexts(a: RuleFileTexts, b: RuleFileTexts): boolean {
  return RULE_FILES.every((f) => a[f] === b[f]);
}

/** The folder that holds a ledger's sealed segments, relative to the workspace root. */
export function segmentsDir(ledgerPath: string): string {
  return `${ledgerPath.replace(/\.jsonl$/, "")}.segments`;
}

/** The manifest that names the segments stored in git, relative to the workspace root. */
export function sealedManifestPath(ledgerPath: string): string {
  return `${ledgerPath.replace(/\.jsonl$/, "")}.sealed`;
}
