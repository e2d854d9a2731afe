/** Settings = defaults < `.orchestration/config.jsonc` < client settings (docs/ARCHITECTURE.md "The language server's surface"). */
import { findNodeAtLocation, parse, parseTree, printParseErrorCode, type ParseError } from "jsonc-parser";
import { defaultSettings, settingsSchema, type SettingSchema, type Settings } from "@shared/settings";
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
    problems: [
      ...problems,
      ...issues.map((message) => ({ message: `config.jsonc: ${message}`, span: atPattern.get(message) ?? locateKey(text, message) ?? whole })),
    ],
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

/**
 * Keeps only the values that follow the settings schema (@shared/settings `settingsSchema`), saying why each
 * rejected one was dropped. Used for config.jsonc and client settings alike. A map (`severity`) is kept entry
 * by entry; an empty string where a string is optional is an editor's empty field, so it is left out.
 */
export function sanitize(raw: Record<string, unknown>): { values: Partial<Settings>; issues: string[] } {
  const values: Record<string, unknown> = {};
  const issues: string[] = [];
  const properties: Readonly<Record<string, SettingSchema>> = settingsSchema.properties;
  for (const [key, v] of Object.entries(raw)) {
    const schema = Object.hasOwn(properties, key) ? properties[key]! : undefined;
    if (!schema) issues.push(`unknown setting "${key}" (ignored).`);
    else if (isMap(schema)) values[key] = mapEntries(key, schema, v, issues);
    else if (!conforms(schema, v)) issues.push(`"${key}" must be ${expected(schema, true)}.`);
    else if (key === "exempt") {
      const bad = exemptProblems(v as string[]);
      values[key] = (v as string[]).filter((_, i) => !bad.some((b) => b.index === i));
      issues.push(...bad.map((b) => b.message));
    } else values[key] = withoutEmptyOptionals(schema, v);
  }
  return { values: values as Partial<Settings>, issues };
}

function isMap(schema: SettingSchema): boolean {
  return schema.type === "object" && typeof schema.additionalProperties === "object";
}

/** A map's well-formed entries; each bad key or value is named. */
function mapEntries(key: string, schema: SettingSchema, v: unknown, issues: string[]): Record<string, unknown> | undefined {
  const valueSchema = schema.additionalProperties as SettingSchema;
  if (!v || typeof v !== "object" || Array.isArray(v)) {
    issues.push(`"${key}" must map ${schema.propertyNames?.title ?? "names"} to ${expected(valueSchema, false)}.`);
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [name, x] of Object.entries(v)) {
    if (schema.propertyNames && !conforms(schema.propertyNames, name)) issues.push(`unknown ${singular(schema.propertyNames.title)} "${name}" in "${key}".`);
    else if (!conforms(valueSchema, x)) issues.push(`"${key}.${name}" must be ${expected(valueSchema, true)}.`);
    else out[name] = x;
  }
  return out;
}

/** Whether `v` follows `schema` (the subset of JSON Schema that `SettingSchema` describes). */
function conforms(schema: SettingSchema, v: unknown): boolean {
  switch (schema.type) {
    case "boolean":
      return typeof v === "boolean";
    case "string":
      if (typeof v !== "string") return false;
      if (schema.enum && !schema.enum.includes(v)) return false;
      return schema.format !== "workspace-relative-path" || isSafeRelative(v);
    case "integer":
      return (
        Number.isSafeInteger(v) &&
        (schema.minimum === undefined || (v as number) >= schema.minimum) &&
        (schema.maximum === undefined || (v as number) <= schema.maximum)
      );
    case "array":
      return Array.isArray(v) && (!schema.items || v.every((x) => conforms(schema.items!, x)));
    case "object": {
      if (!v || typeof v !== "object" || Array.isArray(v)) return false;
      const o = v as Record<string, unknown>;
      const props = schema.properties ?? {};
      if ((schema.required ?? []).some((k) => o[k] === undefined)) return false;
      return Object.entries(o).every(([k, x]) =>
        Object.hasOwn(props, k)
          ? conforms(props[k]!, x)
          : typeof schema.additionalProperties === "object"
            ? conforms(schema.additionalProperties, x)
            : schema.additionalProperties !== false,
      );
    }
  }
}

/** What a value must be, said from the schema: in a sentence (`top`) or inside an object's signature. */
function expected(schema: SettingSchema, top: boolean): string {
  switch (schema.type) {
    case "boolean":
      return top ? "true or false" : "true | false";
    case "string":
      if (schema.enum) return top ? `one of ${schema.enum.join(", ")}` : schema.enum.map((e) => `"${e}"`).join(" | ");
      if (schema.format === "workspace-relative-path") return "a workspace-relative path";
      return "string";
    case "integer":
      return top ? `a whole number from ${schema.minimum ?? "any"} to ${schema.maximum ?? "any"}` : `${schema.minimum ?? ""}..${schema.maximum ?? ""}`;
    case "array":
      return `a list of ${schema.items?.title ?? "values"}`;
    case "object": {
      const required = schema.required ?? [];
      const fields = Object.entries(schema.properties ?? {}).map(([k, p]) => `"${k}"${required.includes(k) ? "" : "?"}: ${expected(p, false)}`);
      return `{ ${fields.join(", ")} }`;
    }
  }
}

/** "diagnostic codes" → "diagnostic code". */
function singular(title: string | undefined): string {
  return (title ?? "name").replace(/s$/, "");
}

function withoutEmptyOptionals(schema: SettingSchema, v: unknown): unknown {
  if (schema.type !== "object" || !schema.properties) return v;
  const required = schema.required ?? [];
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([k, x]) => x !== "" || required.includes(k)));
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
