import { join } from "node:path";
import { readRegularText } from "./regularFiles";

/** Where intent-lsp's workspace files live (DESIGN §2), relative to the workspace root. */
export const ORCHESTRATION_DIR = ".orchestration";
export const INTENTS_FILE = ".orchestration/active_intents.yaml";
export const CONFIG_FILE = ".orchestration/config.jsonc";
export const ROOT_IGNORE_FILE = ".intentignore";
export const ORCHESTRATION_IGNORE_FILE = ".orchestration/.intentignore";
export const SESSIONS_DIR = ".orchestration/.sessions";
export const AGENT_NOTES_FILE = ".orchestration/AGENT.md";
export const INTENT_MAP_FILE = ".orchestration/intent_map.md";

/** The files that shape the rules; a change to any of them means reloading. */
export const RULE_FILES = [INTENTS_FILE, CONFIG_FILE, ROOT_IGNORE_FILE, ORCHESTRATION_IGNORE_FILE] as const;
export type RuleFile = (typeof RULE_FILES)[number];

export type RuleFileTexts = Partial<Record<RuleFile, string>>;

/** Reads whichever rule files exist. Missing files are simply absent; other read errors propagate. */
export function readRuleFiles(root: string): RuleFileTexts {
  const out: RuleFileTexts = {};
  for (const file of RULE_FILES) {
    const text = readOptional(join(root, file));
    if (text !== undefined) out[file] = text;
  }
  return out;
}

/**
 * A file's text, or undefined when it does not exist. Anything but a regular file (a FIFO, a device) is an
 * error, thrown at once: reading it could block or never end.
 */
export function readOptional(path: string): string | undefined {
  try {
    return readRegularText(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw err;
  }
}
