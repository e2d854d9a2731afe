/** Settings = defaults < `.orchestration/config.jsonc` < client settings (docs/ARCHITECTURE.md "The language server's surface"). */
import { findNodeAtLocation, parse, parseTree, printParseErrorCode, type ParseError } from "jsonc-parser";
import { DiagnosticCodes, type DiagnosticCode } from "@shared/diagnosticCodes";
import { defaultSettings, RECORD_EMAIL, type Settings, type Severity } from "@shared/settings";
import type { Span } from "./intents/model";
import { jsonNestingProblem, nestingMessage } from "./nesting";
import { isSafeRelative } from "./paths";
import { patternCostProblem } from "./patternLimits";

export interface SettingsProblem {
  message: string;
  span: Span;
}

export interface ParsedConfig {
  values: Partial<Settings>;
  problems: SettingsProblem[];
}

const SEVERITIES: readonly Severity[] = ["error", "warning", "information", "hint", "off"];
const CONTRIBUTORS = ["human", "ai", "mixed", "unknown"] as const;

/** Reads config.jsonc. A malformed file yields problems with offsets and whatever values are sound. */
export function parseConfig(original: string): ParsedConfig {
  // a byte-order mark is not JSON, but editors on Windows write one: read it as the space it displays as
  const text = original.charCodeAt(0) === 0xfeff ? ` ${original.slice(1)}` : original;
  const tooDeep = jsonNestingProblem(text);
  if (tooDeep) return { values: {}, problems: [{ message: `config.jsonc is ${nestingMessage()}`, span: { start: tooDeep.offset, end: tooDeep.offset + 1 } }] };
  const errors: ParseError[] = [];
  const raw = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const problems: SettingsProblem[] = errors.map((e) => ({
    message: `config.jsonc: ${describeParseError(printParseErrorCode(e.error))}`,
    span: { start: e.offset, end: e.offset + Math.max(1, e.length) },
  }));
  const whole = { start: 0, end: Math.min(1, text.length) };
  if (raw === undefined || raw === null) return { values: {}, problems };
  if (typeof raw !== "object" || Array.isArray(raw)) {
    return { values: {}, problems: [...problems, { message: "config.jsonc must hold one JSON object.", span: whole }] };
  }
  const { values, issues } = sanitize(raw as Record<string, unknown>);
  const atPattern = exemptPatternSpans(text, (raw as Record<string, unknown>)["exempt"]);
  // Offsets of individual keys are not needed to be useful: name the key, point at the file start.
  return {
    values,
    problems: [...problems, ...issues.map((message) => ({ message: `config.jsonc: ${message}`, span: atPattern.get(message) ?? locateKey(text, message) ?? whole }))],
  };
}

/** Why each of `exempt`'s patterns cannot be used, by index. */
function exemptProblems(patterns: readonly string[]): { index: number; message: string }[] {
  const out: { index: number; message: string }[] = [];
  patterns.forEach((p, index) => {
    const why = patternCostProblem(p, { braces: false });
    if (why) out.push({ index, message: `"exempt" pattern ${index + 1} is not used: ${why}.` });
  });
  return out;
}

/** Where in the text each refused `exempt` pattern is, keyed by its message, so the diagnostic sits on it. */
function exemptPatternSpans(text: string, exempt: unknown): Map<string, Span> {
  const out = new Map<string, Span>();
  if (!Array.isArray(exempt) || !exempt.every((p) => typeof p === "string")) return out;
  const bad = exemptProblems(exempt as string[]);
  if (!bad.length) return out;
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  for (const { index, message } of bad) {
    const node = tree && findNodeAtLocation(tree, ["exempt", index]);
    if (node) out.set(message, { start: node.offset, end: node.offset + node.length });
  }
  return out;
}

/** Keeps only well-typed values, saying why each rejected one was dropped. Used for config.jsonc and client settings alike. */
export function sanitize(raw: Record<string, unknown>): { values: Partial<Settings>; issues: string[] } {
  const values: Partial<Settings> = {};
  const issues: string[] = [];
  for (const [key, v] of Object.entries(raw)) {
    switch (key) {
      case "autoSelect":
        if (typeof v === "boolean") values.autoSelect = v;
        else issues.push(`"autoSelect" must be true or false.`);
        break;
      case "exempt":
        if (Array.isArray(v) && v.every((s) => typeof s === "string")) {
          const bad = exemptProblems(v as string[]);
          values.exempt = (v as string[]).filter((_, i) => !bad.some((b) => b.index === i));
          issues.push(...bad.map((b) => b.message));
        } else issues.push(`"exempt" must be a list of gitignore patterns.`);
        break;
      case "ledgerPath":
        if (typeof v === "string" && isSafeRelative(v)) values.ledgerPath = v;
        else issues.push(`"ledgerPath" must be a workspace-relative path.`);
        break;
      case "contributor": {
        const c = v as { type?: unknown; modelId?: unknown } | null;
        if (c && typeof c === "object" && CONTRIBUTORS.includes(c.type as never) && (c.modelId === undefined || typeof c.modelId === "string")) {
          values.contributor = { type: c.type as Settings["contributor"]["type"], ...(c.modelId ? { modelId: c.modelId as string } : {}) };
        } else issues.push(`"contributor" must be { "type": ${CONTRIBUTORS.map((t) => `"${t}"`).join(" | ")}, "modelId"?: string }.`);
        break;
      }
      case "identity": {
        const c = v as Record<string, unknown> | null;
        const ok = c && typeof c === "object" && !Array.isArray(c) && Object.entries(c).every(([k, x]) => (k === "name" || k === "email" ? typeof x === "string" : k === "recordEmail" ? RECORD_EMAIL.includes(x as never) : false));
        // "" is an editor's empty field (VS Code's default): not set, so git's identity applies
        if (ok) values.identity = Object.fromEntries(Object.entries(c).filter(([, x]) => x !== "")) as unknown as Settings["identity"];
        else issues.push(`"identity" must be { "name"?: string, "email"?: string, "recordEmail"?: ${RECORD_EMAIL.map((t) => `"${t}"`).join(" | ")} }.`);
        break;
      }
      case "severity": {
        if (!v || typeof v !== "object") {
          issues.push(`"severity" must map diagnostic codes to ${SEVERITIES.join(" | ")}.`);
          break;
        }
        const sev: Partial<Record<DiagnosticCode, Severity>> = {};
        for (const [code, s] of Object.entries(v)) {
          if (!(DiagnosticCodes as readonly string[]).includes(code)) issues.push(`unknown diagnostic code "${code}" in "severity".`);
          else if (!SEVERITIES.includes(s as Severity)) issues.push(`"severity.${code}" must be one of ${SEVERITIES.join(", ")}.`);
          else sev[code as DiagnosticCode] = s as Severity;
        }
        values.severity = sev as Settings["severity"];
        break;
      }
      case "inlayHints":
      case "codeLens": {
        const enabled = (v as { enabled?: unknown } | null)?.enabled;
        if (typeof enabled === "boolean") values[key] = { enabled };
        else issues.push(`"${key}" must be { "enabled": true | false }.`);
        break;
      }
      default:
        issues.push(`unknown setting "${key}" (ignored).`);
    }
  }
  return { values, issues };
}

/**
 * Later layers win, key by key; `severity` merges per code and `exempt` lists add up, so exempting `docs/**`
 * keeps `.orchestration/**` exempt (a `!.orchestration/**` pattern takes it back).
 */
export function mergeSettings(...layers: Partial<Settings>[]): Settings {
  let out: Settings = { ...defaultSettings, severity: { ...defaultSettings.severity }, identity: { ...defaultSettings.identity } };
  for (const layer of layers) {
    out = {
      ...out,
      ...layer,
      severity: { ...out.severity, ...(layer.severity ?? {}) },
      identity: { ...out.identity, ...(layer.identity ?? {}) },
      exempt: [...out.exempt, ...(layer.exempt ?? [])],
    };
  }
  return out;
}

function locateKey(text: string, message: string): Span | undefined {
  const key = /"([^"]+)"/.exec(message)?.[1]?.split(".").pop();
  if (!key) return undefined;
  const at = text.indexOf(`"${key}"`);
  return at === -1 ? undefined : { start: at, end: at + key.length + 2 };
}

function describeParseError(code: string): string {
  const plain: Record<string, string> = {
    InvalidSymbol: "invalid character",
    InvalidNumberFormat: "invalid number",
    PropertyNameExpected: "a property name was expected",
    ValueExpected: "a value was expected",
    ColonExpected: "a colon was expected",
    CommaExpected: "a comma was expected",
    CloseBraceExpected: "a closing } was expected",
    CloseBracketExpected: "a closing ] was expected",
    EndOfFileExpected: "unexpected text after the object",
    UnexpectedEndOfString: "unterminated string",
    UnexpectedEndOfComment: "unterminated comment",
  };
  return `syntax error: ${plain[code] ?? code}`;
}
