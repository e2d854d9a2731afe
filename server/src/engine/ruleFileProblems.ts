import { lineStarts, positionAt } from "./lines";
import type { Rules } from "./rules";
import { CONFIG_FILE, INTENTS_FILE, type RuleFileTexts } from "./workspaceFiles";

/**
 * The problems in the files that shape the rules, with file:line:col as people look them up. The agent gate
 * fails closed on any error here (a broken file must not loosen the rules), `intent status` lists them all.
 */
export interface RuleFileProblem {
  file: typeof INTENTS_FILE | typeof CONFIG_FILE;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  severity: "error" | "warning";
  message: string;
}

/** `texts`: the rule files `rules` were built from (config.jsonc problems carry offsets into its text). */
export function ruleFileProblems(rules: Rules, texts: RuleFileTexts): RuleFileProblem[] {
  const out: RuleFileProblem[] = rules.intents.problems.map((p) => ({
    file: INTENTS_FILE,
    line: p.start.line + 1,
    column: p.start.character + 1,
    severity: p.severity,
    message: p.message,
  }));
  // config.jsonc problems are errors as the editor shows them ("settings-invalid"), unless that is turned down
  const configSeverity = rules.settings.severity["settings-invalid"] === "error" ? "error" : "warning";
  const configText = texts[CONFIG_FILE] ?? "";
  for (const p of rules.config.problems) {
    const message = p.message.replace(/^config\.jsonc: /, ""); // the file is named by `file`
    out.push({ file: CONFIG_FILE, ...lineAndColumn(configText, p.span.start), severity: configSeverity, message });
  }
  return out;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const p = positionAt(lineStarts(text), Math.min(offset, text.length));
  return { line: p.line + 1, column: p.character + 1 };
}
