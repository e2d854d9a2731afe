/** Reading the files that shape the rules, as texts for the engine's pure `buildRules`. */
import { join } from "node:path";
import { RULE_FILES, type RuleFileTexts } from "../engine/workspaceFiles";
import { readOptional } from "./optionalFile";

/** Reads whichever rule files exist. Missing files are simply absent; other read errors propagate. */
export function readRuleFiles(root: string): RuleFileTexts {
  const out: RuleFileTexts = {};
  for (const file of RULE_FILES) {
    const text = readOptional(join(root, file));
    if (text !== undefined) out[file] = text;
  }
  return out;
}
