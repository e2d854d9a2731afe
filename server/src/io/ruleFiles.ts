/** Reading the files that shape the rules, as texts for the engine's pure `buildRules`. */
import { RULE_FILES, type RuleFile, type RuleFileTexts } from "../engine/workspaceFiles";
import { readOwnFile } from "./ownFiles";

/**
 * Reads whichever rule files exist. Missing files are simply absent; other read errors propagate, and so
 * does a rule file that leads outside the workspace (or through a dangling link): what lies outside never
 * becomes a rule, nor a quoted line in a problem message. `files`: only these (a command that needs the
 * settings alone reads `config.jsonc`).
 */
export function readRuleFiles(root: string, files: readonly RuleFile[] = RULE_FILES): RuleFileTexts {
  const out: RuleFileTexts = {};
  for (const file of files) {
    const text = readOwnFile(root, file);
    if (text !== undefined) out[file] = text;
  }
  return out;
}
