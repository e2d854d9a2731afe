/**
 * Reads `active_intents.yaml` in any dialect we have seen (docs/INTENTS.md "What it reads and writes") and reports every problem at the
 * node that causes it. Never throws: a broken file yields problems and the intents that are still sound.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair, type YAMLMap } from "yaml";
import { lineStarts, positionAt } from "../lines";
import { nestingMessage, yamlNestingProblem } from "../nesting";
import { samplePath, compileScope, scopeMatches, validateGlob } from "../scope";
import {
  DEFAULT_CRITERION_TIMEOUT_SECONDS,
  INTENT_ID_PATTERN,
  INTENT_STATUSES,
  type Criterion,
  makeCatalogue,
  type Intent,
  type IntentStatus,
  type LoadResult,
  type Problem,
  type ProblemSeverity,
  type RelatedSpec,
  type Span,
} from "./model";

const FIELDS: Record<string, string> = {
  id: "id",
  name: "name",
  status: "status",
  owned_scope: "owned_scope",
  ownedScope: "owned_scope",
  constraints: "constraints",
  acceptance_criteria: "acceptance_criteria",
  acceptanceCriteria: "acceptance_criteria",
  related_specs: "related_specs",
  relatedSpecs: "related_specs",
  parent_intent: "parent_intent",
  parentIntent: "parent_intent",
  tags: "tags",
  version: "version",
  created_at: "created_at",
  createdAt: "created_at",
  updated_at: "updated_at",
  updatedAt: "updated_at",
  description: "description",
};

const STATUS_ALIASES: Record<string, IntentStatus> = { COMPLETED: "COMPLETE", ABORTED: "ARCHIVED" };

export function loadIntents(text: string): LoadResult {
  const lines = new LineCounter();
  const problems: Problem[] = [];
  let starts: number[] | undefined; // computed on the first problem: a sound file never needs them
  const report = (severity: ProblemSeverity, span: Span, message: string) => {
    starts ??= lineStarts(text);
    const end = Math.min(text.length, Math.max(span.start, span.end));
    problems.push({ severity, message, span, start: positionAt(starts, Math.min(span.start, end), text), end: positionAt(starts, end, text) });
  };
  const done = (intents: Intent[]): LoadResult => ({
    catalogue: makeCatalogue(intents),
    problems: problems.sort((a, b) => a.span.start - b.span.start),
    hasErrors: problems.some((p) => p.severity === "error"),
  });

  const tooDeep = yamlNestingProblem(text);
  if (tooDeep) {
    report("error", { start: tooDeep.offset, end: tooDeep.offset + 1 }, `active_intents.yaml is ${nestingMessage()}.`);
    return done([]);
  }
  try {
    return readCatalogue(yamlText(text), lines, report, done);
  } catch (err) {
    // the nesting bound keeps the parser's recursion shallow; this is the last line of defence, never a crash
    problems.length = 0;
    report(
      "error",
      { start: 0, end: Math.min(text.length, 1) },
      `active_intents.yaml could not be read (${(err as Error).message}); nothing in it is in force until it is fixed.`,
    );
    return done([]);
  }
}

/**
 * The text as the YAML parser should see it: a lone CR is a line break in YAML 1.2 and in the editor, but
 * not to the parser. Replacing it with LF keeps every offset, so positions stay those of the editor's lines.
 */
export function yamlText(text: string): string {
  return text.includes("\r") ? text.replace(/\r(?!\n)/g, "\n") : text;
}

function readCatalogue(text: string, lines: LineCounter, report: Report, done: (intents: Intent[]) => LoadResult): LoadResult {
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false });
  for (const err of doc.errors) {
    report("error", { start: err.pos[0], end: err.pos[1] }, `YAML syntax error: ${firstLine(err.message)}`);
  }
  if (doc.errors.length) return done([]);

  const root = doc.contents;
  const whole = { start: 0, end: Math.min(text.length, 1) };
  if (!isMap(root)) {
    report("error", root ? spanOf(root) : whole, "Expected a mapping with an `active_intents:` list.");
    return done([]);
  }
  const lists = root.items.filter((p) => isScalar(p.key) && (p.key.value === "active_intents" || p.key.value === "intents"));
  if (lists.length > 1) {
    report("error", spanOf(lists[1]!.key as Node), "The intents are listed twice (`active_intents:` or `intents:` appears more than once); keep one list.");
    return done([]);
  }
  const replaced = text.indexOf("\uFFFD");
  if (replaced !== -1) {
    report(
      "warning",
      { start: replaced, end: replaced + 1 },
      "This file holds U+FFFD replacement characters: it was probably not saved as UTF-8 (bytes that are not UTF-8 are read as \uFFFD). Save it as UTF-8.",
    );
  }
  let listPair = findPair(root, "active_intents");
  if (!listPair) {
    listPair = findPair(root, "intents");
    if (listPair) {
      report("warning", spanOf(listPair.key as Node), "Older dialect: rename `intents:` to `active_intents:` (it is read as is for now).");
    }
  }
  if (!listPair) {
    report("error", spanOf(root), "Missing `active_intents:` (a list of intents).");
    return done([]);
  }
  const list = listPair.value;
  if (list === null || (isScalar(list) && list.value === null)) return done([]);
  if (!isSeq(list)) {
    report("error", spanOf(list as Node), "`active_intents` must be a list of intents.");
    return done([]);
  }

  const intents: Intent[] = [];
  const seen = new Map<string, Span>();
  for (const item of list.items) {
    if (!isMap(item)) {
      report("error", spanOf(item as Node), "Each intent must be a mapping with at least id, name, status and owned_scope.");
      continue;
    }
    const intent = readIntent(item, lines, report);
    if (!intent) continue;
    const idNode = findPair(item, "id")!.value as Node;
    const first = seen.get(intent.id);
    if (first) {
      const line = lines.linePos(first.start).line;
      report("error", spanOf(idNode), `Duplicate intent id ${intent.id} (first defined on line ${line}). Ids must be unique.`);
      continue;
    }
    seen.set(intent.id, spanOf(idNode));
    intents.push(intent);
  }
  checkParents(intents, list.items as Node[], report);
  return done(intents);
}

type Report = (severity: ProblemSeverity, span: Span, message: string) => void;

function readIntent(item: YAMLMap, lines: LineCounter, report: Report): Intent | undefined {
  const fields = new Map<string, Pair>();
  let ok = true;
  for (const pair of item.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
    const canonical = key === undefined ? undefined : FIELDS[key];
    if (!canonical) {
      report("warning", spanOf(pair.key as Node), `Unknown field \`${key ?? "?"}\` (ignored).`);
      continue;
    }
    if (canonical !== key) {
      report("warning", spanOf(pair.key as Node), `Older dialect: \`${key}\` is read as \`${canonical}\`.`);
    }
    const first = fields.get(canonical);
    if (first) {
      // which one counts is the parser's whim: a duplicated status or scope must not pass unnoticed
      const line = lines.linePos(spanOf(first.key as Node).start).line;
      report("error", spanOf(pair.key as Node), `\`${canonical}\` is given twice in this intent (first on line ${line}); keep one.`);
      ok = false;
      continue;
    }
    fields.set(canonical, pair);
  }
  const itemSpan = spanOf(item);
  const fail = (span: Span, message: string) => {
    report("error", span, message);
    ok = false;
  };
  const valueSpan = (field: string) => {
    const p = fields.get(field);
    return p ? spanOf((p.value ?? p.key) as Node) : itemSpan;
  };
  const scalar = (field: string): unknown => {
    const v = fields.get(field)?.value;
    return isScalar(v) ? v.value : v === undefined || v === null ? undefined : v;
  };

  const id = scalar("id");
  if (typeof id !== "string" || !INTENT_ID_PATTERN.test(id)) {
    fail(
      valueSpan("id"),
      id === undefined ? "Intent has no `id`." : `Bad intent id ${JSON.stringify(String(id))}: ids look like INT-001 (letters, dash, 3+ digits).`,
    );
  }
  const label = typeof id === "string" ? id : "This intent";

  const name = scalar("name");
  if (typeof name !== "string" || name.trim().length < 3 || name.length > 200) {
    fail(valueSpan("name"), name === undefined ? `${label} has no \`name\`.` : `${label}: name must be 3 to 200 characters.`);
  }

  const rawStatus = scalar("status");
  let status: IntentStatus | undefined;
  if (typeof rawStatus === "string" && (INTENT_STATUSES as readonly string[]).includes(rawStatus)) {
    status = rawStatus as IntentStatus;
  } else if (typeof rawStatus === "string" && STATUS_ALIASES[rawStatus]) {
    status = STATUS_ALIASES[rawStatus];
    report("warning", valueSpan("status"), `Older dialect: status ${rawStatus} is read as ${status}.`);
  } else {
    fail(
      valueSpan("status"),
      rawStatus === undefined
        ? `${label} has no \`status\`; use one of ${INTENT_STATUSES.join(", ")}.`
        : `${label}: bad status ${JSON.stringify(String(rawStatus))}; use one of ${INTENT_STATUSES.join(", ")}.`,
    );
  }

  const scopePair = fields.get("owned_scope");
  const ownedScope = stringList(scopePair, report, `${label}: owned_scope`);
  if (!scopePair || ownedScope.length === 0) {
    fail(valueSpan("owned_scope"), `${label}: owned_scope must list at least one glob (e.g. "src/api/**").`);
  } else if (isSeq(scopePair.value)) {
    for (const node of scopePair.value.items) {
      if (!isScalar(node) || typeof node.value !== "string") continue;
      const why = validateGlob(node.value);
      if (why) fail(spanOf(node), `${label}: invalid glob: ${why}.`);
    }
  }

  if (!ok || typeof id !== "string" || typeof name !== "string" || !status) return undefined;
  const parent = scalar("parent_intent");
  const version = scalar("version");
  const criteria = readCriteria(fields.get("acceptance_criteria"), lines, report, `${label}: acceptance_criteria`);
  return {
    id,
    name,
    status,
    ownedScope,
    constraints: stringList(fields.get("constraints"), report, `${label}: constraints`),
    acceptanceCriteria: criteria.list.map(criterionText),
    criteria: criteria.list,
    criteriaValid: criteria.valid,
    relatedSpecs: relatedSpecs(fields.get("related_specs")),
    parentIntent: typeof parent === "string" && parent ? parent : null,
    tags: stringList(fields.get("tags"), report, `${label}: tags`),
    version: typeof version === "number" ? version : undefined,
    createdAt: dateString(scalar("created_at")),
    updatedAt: dateString(scalar("updated_at")),
    span: itemSpan,
    line: lines.linePos(itemSpan.start).line - 1,
  };
}

function stringList(pair: Pair | undefined, report: Report, what: string): string[] {
  const v = pair?.value;
  if (v === undefined || v === null || (isScalar(v) && v.value === null)) return [];
  if (isScalar(v) && typeof v.value === "string") return [v.value];
  if (!isSeq(v)) {
    report("error", spanOf(v as Node), `${what} must be a list of strings.`);
    return [];
  }
  const out: string[] = [];
  for (const node of v.items) {
    if (isScalar(node) && (typeof node.value === "string" || typeof node.value === "number")) out.push(String(node.value));
    else report("warning", spanOf(node as Node), `${what}: expected a string here (ignored).`);
  }
  return out;
}

const CRITERION_KEYS = new Set(["run", "name", "timeout"]);
/** A day: a longer limit is almost certainly a unit mistake (minutes or milliseconds for seconds). */
const MAX_CRITERION_TIMEOUT_SECONDS = 86_400;

/**
 * `acceptance_criteria`: sentences a person confirms and `{ run, name?, timeout? }` commands. A criterion
 * that cannot be read is an error at its node, and the intent's criteria are then not valid as a whole: a
 * verification that silently skipped the broken one would pass for the wrong reason.
 */
function readCriteria(pair: Pair | undefined, lines: LineCounter, report: Report, what: string): { list: Criterion[]; valid: boolean } {
  const v = pair?.value;
  const lineOf = (node: Node) => lines.linePos(spanOf(node).start).line - 1;
  if (v === undefined || v === null || (isScalar(v) && v.value === null)) return { list: [], valid: true };
  if (isScalar(v) && typeof v.value === "string") return { list: [{ kind: "confirm", text: v.value, line: lineOf(v) }], valid: true };
  if (!isSeq(v)) {
    report("error", spanOf(v as Node), `${what} must be a list of sentences or { run: COMMAND } items.`);
    return { list: [], valid: false };
  }
  const list: Criterion[] = [];
  let valid = true;
  const fail = (node: Node, message: string) => {
    report("error", spanOf(node), message);
    valid = false;
  };
  for (const node of v.items as Node[]) {
    if (isScalar(node) && (typeof node.value === "string" || typeof node.value === "number")) {
      list.push({ kind: "confirm", text: String(node.value), line: lineOf(node) });
      continue;
    }
    if (!isMap(node)) {
      fail(node, `${what}: expected a sentence or a mapping { run: COMMAND, name?: TEXT, timeout?: SECONDS } here.`);
      continue;
    }
    const get = (key: string) => (node.items as Pair[]).find((p) => isScalar(p.key) && p.key.value === key);
    for (const p of node.items as Pair[]) {
      const key = isScalar(p.key) ? String(p.key.value) : "?";
      if (!CRITERION_KEYS.has(key))
        report("warning", spanOf(p.key as Node), `${what}: unknown key \`${key}\` in a criterion (ignored; a criterion has run, name and timeout).`);
    }
    const runPair = get("run");
    const run = runPair && isScalar(runPair.value) ? runPair.value.value : undefined;
    if (!runPair) {
      fail(node, `${what}: a criterion given as a mapping needs \`run: COMMAND\` (a sentence is written as plain text).`);
      continue;
    }
    if (typeof run !== "string" || !run.trim()) {
      fail((runPair.value ?? runPair.key) as Node, `${what}: \`run\` must be a non-empty command (run from the workspace root by your shell).`);
      continue;
    }
    const namePair = get("name");
    const name = namePair && isScalar(namePair.value) ? namePair.value.value : undefined;
    if (namePair && (typeof name !== "string" || !name.trim())) {
      fail((namePair.value ?? namePair.key) as Node, `${what}: \`name\` must be non-empty text.`);
      continue;
    }
    const timeoutPair = get("timeout");
    const timeout = timeoutPair && isScalar(timeoutPair.value) ? timeoutPair.value.value : undefined;
    if (timeoutPair && (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0 || timeout > MAX_CRITERION_TIMEOUT_SECONDS)) {
      fail(
        (timeoutPair.value ?? timeoutPair.key) as Node,
        `${what}: \`timeout\` must be a number of seconds above 0 and at most ${MAX_CRITERION_TIMEOUT_SECONDS} (default ${DEFAULT_CRITERION_TIMEOUT_SECONDS}).`,
      );
      continue;
    }
    list.push({
      kind: "run",
      run,
      ...(typeof name === "string" ? { name: name.trim() } : {}),
      timeoutSeconds: typeof timeout === "number" ? timeout : DEFAULT_CRITERION_TIMEOUT_SECONDS,
      line: lineOf(node),
    });
  }
  return { list, valid };
}

/** A criterion as one line of text: a sentence as written, a command by its name, else as `run: COMMAND`. */
export function criterionText(c: Criterion): string {
  return c.kind === "confirm" ? c.text : (c.name ?? `run: ${c.run}`);
}

function relatedSpecs(pair: Pair | undefined): RelatedSpec[] {
  const v = pair?.value;
  if (!isSeq(v)) return [];
  const out: RelatedSpec[] = [];
  for (const node of v.items) {
    if (isScalar(node) && typeof node.value === "string") out.push({ type: "file", ref: node.value });
    else if (isMap(node)) {
      const ref = node.get("ref") ?? node.get("path");
      if (typeof ref === "string") out.push({ type: String(node.get("type") ?? "file"), ref });
    }
  }
  return out;
}

/** Warnings for parents that do not exist and child scopes that reach outside their parent's scope. */
function checkParents(intents: Intent[], items: Node[], report: Report) {
  const byId = new Map(intents.map((i) => [i.id, i]));
  // one pass over the items, not one per child: a catalogue of thousands of children stays linear
  const nodeAt = new Map(items.filter((n) => isMap(n)).map((n) => [spanOf(n).start, n as YAMLMap]));
  for (const intent of intents) {
    if (!intent.parentIntent) continue;
    const node = nodeAt.get(intent.span.start);
    const parentPair = node && (findPair(node, "parent_intent") ?? findPair(node, "parentIntent"));
    const at = parentPair ? spanOf(parentPair.value as Node) : intent.span;
    const parent = byId.get(intent.parentIntent);
    if (!parent) {
      report("warning", at, `${intent.id}: parent_intent ${intent.parentIntent} is not in this file.`);
      continue;
    }
    const parentScope = compileScope(parent.ownedScope);
    const outside = intent.ownedScope.filter((g) => !g.startsWith("!") && !scopeMatches(parentScope, samplePath(g)));
    if (outside.length) {
      report(
        "warning",
        at,
        `${intent.id}: scope ${outside.map((g) => `"${g}"`).join(", ")} lies outside parent ${parent.id}'s scope (${parent.ownedScope.join(", ")}).`,
      );
    }
  }
}

/** The effective constraints of an intent: its own, then each ancestor's (a child inherits its parent's constraints). */
export function inheritedConstraints(intent: Intent, byId: ReadonlyMap<string, Intent>): string[] {
  const out = [...intent.constraints];
  const seen = new Set([intent.id]);
  let parent = intent.parentIntent ? byId.get(intent.parentIntent) : undefined;
  while (parent && !seen.has(parent.id)) {
    seen.add(parent.id);
    for (const c of parent.constraints) if (!out.includes(c)) out.push(c);
    parent = parent.parentIntent ? byId.get(parent.parentIntent) : undefined;
  }
  return out;
}

function findPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair | undefined;
}

function spanOf(node: Node | null | undefined): Span {
  const r = node?.range;
  return r ? { start: r[0], end: r[1] } : { start: 0, end: 0 };
}

function dateString(v: unknown): string | undefined {
  if (v instanceof Date) return v.toISOString();
  return typeof v === "string" ? v : undefined;
}

function firstLine(s: string): string {
  return s.split("\n")[0];
}
