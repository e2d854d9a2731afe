/**
 * The rules a hook call judges by, built from the workspace's rule files as read for the call, with the
 * errors that deny every write while they last. The hook service (cli/hookService.ts) keeps the rules of each
 * workspace with the texts they were built from, eight workspaces at most, and answers a call whose rule files
 * hold exactly those texts with the same rules: built from the same texts they are the same, and the scope
 * index they hold answers a path it was asked before from memory and the next ones through its index, where a
 * call with rules of its own tests every glob of the catalogue. A hook's own process builds them for its call.
 */
import { buildRules, type Rules } from "../../engine/rules";
import { ruleFileProblems, type RuleFileProblem } from "../../engine/ruleFileProblems";
import { type RuleFileTexts, sameRuleTexts } from "../../engine/workspaceFiles";
import { KeptPerWorkspace } from "../hookProcess";
import { loadIntentsCached } from "../intents/catalogueCache";

export interface GateRules {
  rules: Rules;
  /** Errors in the rule files (intents first): while there is one, every write is denied. */
  brokenRules: RuleFileProblem | undefined;
}

const kept = new KeptPerWorkspace<RuleFileTexts, GateRules>(sameRuleTexts);

/** The rules of the workspace at `root` whose rule files hold `texts` (as `readRuleFiles` read them for this call). */
export function gateRules(root: string, texts: RuleFileTexts): GateRules {
  return kept.get(root, texts, () => {
    // no last-good catalogue: a broken file must deny (fail closed)
    const rules = buildRules(texts, {}, undefined, (text) => loadIntentsCached(root, text));
    return { rules, brokenRules: ruleFileProblems(rules, texts).find((p) => p.severity === "error") };
  });
}
