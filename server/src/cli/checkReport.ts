/** Four faces of `intent check`'s findings: text for people, JSON for scripts, SARIF for code scanning, GitHub annotations. */
import { oneLine } from "../engine/terminalText";
import { countedFindings, summarize, type Finding, type FindingCode, type FindingSeverity } from "../engine/check";
import { INTENT_LSP_VERSION } from "../version";

export const CHECK_FORMATS = ["text", "json", "sarif", "github", "markdown"] as const;
export type CheckFormat = (typeof CHECK_FORMATS)[number];

export interface CheckReport {
  /**
   * The workspace's folder within the repository ("" at the top, else "app/"): GitHub resolves annotation and
   * SARIF paths against the repository root, while findings are workspace-relative like the ledger's paths.
   */
  repoPrefix: string;
  base: string;
  baseRevision: string;
  staged: boolean;
  checkedFiles: number;
  checkedLines: number;
  findings: Finding[];
}

export function formatReport(report: CheckReport, format: Exclude<CheckFormat, "markdown">): string {
  switch (format) {
    case "text":
      return textReport(report);
    case "json": {
      const { repoPrefix: _, ...rest } = report;
      return `${JSON.stringify({ ...rest, summary: summarize(report.findings) }, null, 2)}\n`;
    }
    case "sarif":
      return `${JSON.stringify(sarifReport(report), null, 2)}\n`;
    case "github":
      return report.findings.map((f) => githubLine({ ...f, path: report.repoPrefix + f.path })).join("");
  }
}

function where(f: Finding): string {
  return `${f.path}:${f.startLine}${f.column ? `:${f.column}` : ""}${f.endLine > f.startLine ? `-${f.endLine}` : ""}`;
}

function textReport(r: CheckReport): string {
  const lines = r.findings.map((f) => `${oneLine(where(f))}: ${f.severity} ${f.code}: ${oneLine(f.message)}`);
  const against = `${r.staged ? "staged changes" : "working tree"} vs ${oneLine(r.base)}`;
  lines.push(`${countedFindings(r.findings, plural)} in ${plural(r.checkedLines, "changed line")} of ${plural(r.checkedFiles, "file")} (${against}).`);
  return `${lines.join("\n")}\n`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

// --- SARIF 2.1.0 ---------------------------------------------------------------------------------------

const RULES: Record<FindingCode, { name: string; text: string }> = {
  "out-of-scope": { name: "OutOfScope", text: "A changed line's file is outside the scope of the intent it was written under." },
  "intent-not-in-progress": { name: "IntentNotInProgress", text: "A changed line was written under an intent that is not IN_PROGRESS." },
  "no-active-intent": { name: "NoActiveIntent", text: "A changed line was written with no intent selected and none could be auto-selected." },
  "untraced-change": { name: "UntracedChange", text: "A changed line that no Agent Trace record explains, in a file an in-progress intent owns." },
  "unowned-change": { name: "UnownedChange", text: "A changed line that no Agent Trace record explains, in a file no in-progress intent owns." },
  "intent-schema": { name: "IntentSchema", text: "A problem in .orchestration/active_intents.yaml." },
};
const RULE_IDS = Object.keys(RULES) as FindingCode[];

const SARIF_LEVEL: Record<FindingSeverity, "error" | "warning" | "note"> = { error: "error", warning: "warning", information: "note", hint: "note" };

function sarifReport(r: CheckReport): object {
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "intent-lsp",
            version: INTENT_LSP_VERSION,
            rules: RULE_IDS.map((id) => ({ id, name: RULES[id].name, shortDescription: { text: RULES[id].text } })),
          },
        },
        results: r.findings.map((f) => ({
          ruleId: f.code,
          ruleIndex: RULE_IDS.indexOf(f.code),
          level: SARIF_LEVEL[f.severity],
          message: { text: f.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: (r.repoPrefix + f.path).split("/").map(encodeURIComponent).join("/"), uriBaseId: "%SRCROOT%" },
                region: { startLine: f.startLine, endLine: f.endLine, ...(f.column ? { startColumn: f.column } : {}) },
              },
            },
          ],
          ...(f.recordId || f.intentId
            ? { properties: { ...(f.recordId ? { traceRecord: f.recordId } : {}), ...(f.intentId ? { intent: f.intentId } : {}) } }
            : {}),
        })),
      },
    ],
  };
}

// --- GitHub workflow commands --------------------------------------------------------------------------

const GITHUB_COMMAND: Record<FindingSeverity, string> = { error: "error", warning: "warning", information: "notice", hint: "notice" };

/** `::error file=…,line=…,endLine=…,title=…::message`, escaped as the Actions runner expects. */
function githubLine(f: Finding): string {
  const props = [
    `file=${prop(f.path)}`,
    `line=${f.startLine}`,
    `endLine=${f.endLine}`,
    ...(f.column ? [`col=${f.column}`] : []),
    `title=${prop(`intent-lsp ${f.code}`)}`,
  ];
  return `::${GITHUB_COMMAND[f.severity]} ${props.join(",")}::${data(f.message)}\n`;
}

const data = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const prop = (s: string) => data(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
