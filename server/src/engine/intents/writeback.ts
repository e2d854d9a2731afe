/**
 * Changes to `active_intents.yaml` as minimal text edits located with the yaml Document API, so
 * comments, key order, quoting and indentation outside the edited node stay byte for byte as they were.
 */
import { isMap, isScalar, isSeq, parseDocument, type Node, type Pair, type YAMLMap, type YAMLSeq } from "yaml";
import { checkTransition } from "./lifecycle";
import { loadIntents, yamlText } from "./load";
import { yamlNestingProblem } from "../nesting";
import type { IntentStatus } from "./model";
import { normalizeGlob, validateGlob } from "../scope";

export interface TextEdit {
  start: number;
  end: number;
  newText: string;
}

export type WriteResult = { ok: true; text: string; edits: TextEdit[] } | { ok: false; reason: string };

export function amendScope(original: string, intentId: string, glob: string, now: Date): WriteResult {
  const text = yamlText(original); // same offsets; edits made on it apply to the original
  const why = validateGlob(glob);
  if (why) return { ok: false, reason: `Cannot add to ${intentId}'s scope: ${why}.` };
  const located = locate(text, intentId);
  if ("reason" in located) return { ok: false, reason: located.reason };
  const { item } = located;
  const pair = field(item, "owned_scope", "ownedScope");
  const value = pair?.value as Node | undefined;
  // Stryker disable next-line LogicalOperator: a present owned_scope always has a value node (an empty one is a null scalar), so "or" and "and" agree
  if (!pair || !value) return { ok: false, reason: `${intentId} has no owned_scope to amend; add one by hand.` };
  // Stryker disable next-line StringLiteral: what stands for a non-scalar item is only compared with a glob, which it never equals
  const existing = isSeq(value) ? value.items.map((n) => (isScalar(n) ? String(n.value) : "")) : [String((value as { value?: unknown }).value)];
  if (existing.some((g) => normalizeGlob(g) === normalizeGlob(glob))) {
    return { ok: false, reason: `${glob} is already in ${intentId}'s scope.` };
  }

  let edit: TextEdit;
  if (isSeq(value) && value.flow) edit = appendToFlowSeq(text, value, glob);
  else if (isSeq(value) && value.items.length) edit = appendToBlockSeq(text, value, glob);
  else {
    // A bare scalar or an empty block: rewrite just this value as a flow list.
    const r = value.range!;
    const items = existing.filter((g) => g && g !== "null").map((g) => quoteLike(text, value, g));
    // an empty value sits right after the colon: the list needs the space a value is written after
    const lead = r[0] === r[1] ? " " : "";
    edit = { start: r[0], end: r[1], newText: `${lead}[${[...items, quoteLike(text, value, glob)].join(", ")}]` };
  }
  return finish(original, intentId, [edit, touchUpdatedAt(text, item, now)], (i) => i.ownedScope.includes(glob));
}

export function transition(original: string, intentId: string, to: IntentStatus, now: Date): WriteResult {
  const text = yamlText(original);
  const loaded = loadIntents(original);
  const intent = loaded.catalogue.byId.get(intentId);
  if (!intent) return { ok: false, reason: notFound(intentId, loaded.hasErrors) };
  const check = checkTransition(intentId, intent.status, to);
  if (!check.ok) return { ok: false, reason: check.reason };
  const located = locate(text, intentId);
  // Stryker disable next-line ConditionalExpression,StringLiteral,ObjectLiteral,BooleanLiteral: loadIntents found the intent in this text, so locate finds it too
  if ("reason" in located) return { ok: false, reason: located.reason };
  const status = field(located.item, "status")!.value as Node;
  const edit = { start: status.range![0], end: status.range![1], newText: to };
  // Stryker disable next-line ConditionalExpression: a status edit always reads back; the round-trip check guards against a wrong edit, and one is tested through amendScope
  return finish(original, intentId, [edit, touchUpdatedAt(text, located.item, now)], (i) => i.status === to);
}

/** Applies edits (non-overlapping) back to front, then re-reads the result to prove it says what we meant. */
function finish(text: string, intentId: string, raw: TextEdit[], applied: (i: { ownedScope: string[]; status: string }) => boolean): WriteResult {
  // new lines end the way the file's lines end
  // Stryker disable next-line StringLiteral: a file with no line break is written in flow style, whose edits hold none, so the end of line it would get never shows
  const eol = text.includes("\r\n") ? "\r\n" : text.includes("\r") && !text.includes("\n") ? "\r" : "\n";
  // Stryker disable next-line ConditionalExpression,StringLiteral: replacing line breaks by "\n" changes nothing, so skipping it is only quicker
  const edits = eol === "\n" ? raw : raw.map((e) => ({ ...e, newText: e.newText.replace(/\r?\n/g, eol) }));
  const next = applyEdits(text, edits);
  const check = loadIntents(next).catalogue.byId.get(intentId);
  // an intent the catalogue refused before the edit (its name too short, say) and still refuses: the file's errors come first
  if (!check && !loadIntents(text).catalogue.byId.has(intentId)) return { ok: false, reason: notFound(intentId, true) };
  // Stryker disable ConditionalExpression,LogicalOperator,BlockStatement,ObjectLiteral,BooleanLiteral,StringLiteral: a guard against this module's own mistakes, which no known file trips (an intent refused before the edit is told above)
  if (!check || !applied(check)) {
    return { ok: false, reason: `Internal error: the edit to ${intentId} did not round-trip; the file was left untouched. Please report this.` };
  }
  // Stryker restore ConditionalExpression,LogicalOperator,BlockStatement,ObjectLiteral,BooleanLiteral,StringLiteral
  return { ok: true, text: next, edits };
}

/** Applies edits back to front; edits at the same offset land in the order given (the first one first). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  const order = edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.start - a.e.start || b.i - a.i);
  for (const { e } of order) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}

function locate(text: string, intentId: string): { item: YAMLMap } | { reason: string } {
  if (yamlNestingProblem(text)) return { reason: "active_intents.yaml is nested too deeply to be edited safely; fix it first (`intent status` shows where)." };
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: a file with a duplicate key is refused either way, here or by the round-trip check (loadIntents reports it)
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length) return { reason: `active_intents.yaml has a syntax error (${doc.errors[0].message.split("\n")[0]}); fix it first.` };
  const root = doc.contents;
  // Stryker disable next-line BooleanLiteral: a list is returned as its node whether or not scalars are kept
  const list = isMap(root) ? (root.get("active_intents", true) ?? root.get("intents", true)) : undefined;
  if (!isSeq(list)) return { reason: "active_intents.yaml has no `active_intents:` list." };
  const item = list.items.find((n) => isMap(n) && n.get("id") === intentId) as YAMLMap | undefined;
  return item ? { item } : { reason: notFound(intentId, false) };
}

const notFound = (id: string, broken: boolean) =>
  broken ? `${id} is not among the valid intents; active_intents.yaml has errors to fix first.` : `No intent ${id} in active_intents.yaml.`;

function field(map: YAMLMap, ...keys: string[]): Pair | undefined {
  return map.items.find((p) => isScalar(p.key) && keys.includes(String(p.key.value))) as Pair | undefined;
}

function appendToFlowSeq(text: string, seq: YAMLSeq, glob: string): TextEdit {
  const last = seq.items[seq.items.length - 1] as Node | undefined;
  const quoted = quoteLike(text, (last ?? seq) as Node, glob);
  if (last?.range) return { start: last.range[1], end: last.range[1], newText: `, ${quoted}` };
  const close = text.lastIndexOf("]", seq.range![1]);
  return { start: close, end: close, newText: quoted };
}

function appendToBlockSeq(text: string, seq: YAMLSeq, glob: string): TextEdit {
  const last = seq.items[seq.items.length - 1] as Node;
  const lineStart = text.lastIndexOf("\n", last.range![0] - 1) + 1;
  const dash = text.indexOf("-", lineStart);
  const indent = text.slice(lineStart, dash);
  const eol = text.indexOf("\n", last.range![1]);
  const line = `${indent}- ${quoteLike(text, last, glob)}`;
  return eol === -1 ? { start: text.length, end: text.length, newText: `\n${line}` } : { start: eol + 1, end: eol + 1, newText: `${line}\n` };
}

function touchUpdatedAt(text: string, item: YAMLMap, now: Date): TextEdit {
  // Stryker disable next-line Regex: toISOString always ends in ".sssZ", so the anchor changes nothing
  const stamp = now.toISOString().replace(/\.\d{3}Z$/, "Z");
  const pair = field(item, "updated_at", "updatedAt");
  const value = pair?.value as Node | undefined;
  if (value?.range) {
    const q = text[value.range[0]];
    const wrapped = q === '"' || q === "'" ? `${q}${stamp}${q}` : stamp;
    return { start: value.range[0], end: value.range[1], newText: wrapped };
  }
  const camel = !!field(item, "ownedScope");
  const key = camel ? "updatedAt" : "updated_at";
  if (item.flow) {
    // right after the last entry (or its trailing comma), so that the spacing before `}` stays where it was
    let at = text.lastIndexOf("}", item.range![1]);
    while (/\s/.test(text[at - 1]!)) at--;
    return { start: at, end: at, newText: `${text[at - 1] === "," ? " " : ", "}${key}: ${stamp}` };
  }
  const first = item.items[0].key as Node;
  // Stryker disable next-line ArithmeticOperator: the first key is followed by its colon, so a line break is never found one character later
  const indent = " ".repeat(first.range![0] - (text.lastIndexOf("\n", first.range![0] - 1) + 1));
  const lastPair = item.items[item.items.length - 1];
  // after the line holding the intent's last character (a block list's range runs on past its final newline)
  let last = ((lastPair.value ?? lastPair.key) as Node).range![1];
  // Stryker disable next-line ConditionalExpression,EqualityOperator: the text before an intent holds at least `active_intents:`, so the walk back stops before offset 0
  while (last > 0 && /\s/.test(text[last - 1]!)) last--;
  const eol = text.indexOf("\n", last);
  const line = `${indent}${key}: ${stamp}`;
  return eol === -1 ? { start: text.length, end: text.length, newText: `\n${line}` } : { start: eol + 1, end: eol + 1, newText: `${line}\n` };
}

const PLAIN_SAFE = /^[A-Za-z0-9_./-][A-Za-z0-9_./*{},-]*$/;

/** Quote a new value the way its neighbour is quoted, falling back to double quotes where plain is unsafe. */
function quoteLike(text: string, neighbour: Node, value: string): string {
  // Stryker disable next-line StringLiteral: parsed nodes always carry their range
  const q = neighbour.range ? text[neighbour.range[0]] : '"';
  if (q === "'") return `'${value.replace(/'/g, "''")}'`;
  if (q !== '"' && q !== "[" && PLAIN_SAFE.test(value) && !/[{},]/.test(value)) return value;
  return JSON.stringify(value);
}
