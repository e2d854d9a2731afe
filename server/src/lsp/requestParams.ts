import { ErrorCodes, ResponseError } from "vscode-languageserver";

/**
 * The shape checks of the requests the server answers: params that are not what the protocol (or a
 * command's documented arguments) gives them are answered with InvalidParams naming the param, before any
 * handler reads them, so that InternalError is left for real faults.
 */

type Params = Record<string, unknown>;

/** A param that does not have its shape: what was sent where, and what the request needs instead. */
export function invalidParam(where: string, param: string, expected: string, got: unknown): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidParams, `${where}: "${param}" must be ${expected}; got ${shown(got)}.`);
}

function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

const isObject = (v: unknown): v is Params => typeof v === "object" && v !== null && !Array.isArray(v);
const isUinteger = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

function textDocument(method: string, params: Params): void {
  const doc = params.textDocument;
  if (!isObject(doc) || typeof doc.uri !== "string") throw invalidParam(method, "textDocument", 'a text document identifier such as {"uri":"file:///…"}', doc);
}

function position(method: string, value: unknown, param: string): void {
  if (!isObject(value) || !isUinteger(value.line) || !isUinteger(value.character))
    throw invalidParam(method, param, 'a position such as {"line":0,"character":0} (non-negative integers)', value);
}

function range(method: string, value: unknown, param: string): void {
  if (!isObject(value)) throw invalidParam(method, param, 'a range such as {"start":{"line":0,"character":0},"end":{"line":0,"character":0}}', value);
  position(method, value.start, `${param}.start`);
  position(method, value.end, `${param}.end`);
}

function codeActionContext(method: string, value: unknown): void {
  if (!isObject(value) || !Array.isArray(value.diagnostics)) throw invalidParam(method, "context", 'a code action context such as {"diagnostics":[]}', value);
  value.diagnostics.forEach((d, i) => {
    if (!isObject(d)) throw invalidParam(method, `context.diagnostics[${i}]`, "a diagnostic with a range and a message", d);
    range(method, d.range, `context.diagnostics[${i}].range`);
    if (typeof d.message !== "string") throw invalidParam(method, `context.diagnostics[${i}].message`, "a string", d.message);
  });
}

/** The params each checked request needs, by its method. */
const CHECKS: Record<string, (method: string, params: Params) => void> = {
  "textDocument/hover": (m, p) => {
    textDocument(m, p);
    position(m, p.position, "position");
  },
  "textDocument/codeLens": textDocument,
  "textDocument/inlayHint": (m, p) => {
    textDocument(m, p);
    range(m, p.range, "range");
  },
  "textDocument/codeAction": (m, p) => {
    textDocument(m, p);
    range(m, p.range, "range");
    codeActionContext(m, p.context);
  },
  "textDocument/willSaveWaitUntil": textDocument,
  "workspace/executeCommand": (m, p) => {
    if (typeof p.command !== "string") throw invalidParam(m, "command", 'a command name such as "intent.blame"', p.command);
    if (p.arguments !== undefined && !Array.isArray(p.arguments)) throw invalidParam(m, "arguments", "a list of arguments", p.arguments);
  },
};

/** `handler`, answering InvalidParams when its params do not have the shape `method` needs. */
export function checkedParams<P, A extends unknown[], R>(method: string, handler: (params: P, ...rest: A) => R): (params: P, ...rest: A) => R {
  const check = CHECKS[method];
  if (!check) throw new Error(`requestParams: no shape check for ${method}`);
  return (params, ...rest) => {
    if (!isObject(params)) throw invalidParam(method, "params", "an object", params);
    check(method, params);
    return handler(params, ...rest);
  };
}

/** The type each command argument has wherever a command takes it. */
const ARGUMENT_TYPES: Record<string, [expected: string, test: (v: unknown) => boolean]> = {
  uri: ['a document URI such as "file:///…"', (v) => typeof v === "string"],
  path: ['a workspace-relative path such as "src/api/weather.ts"', (v) => typeof v === "string"],
  id: ['an intent id such as "INT-001"', (v) => typeof v === "string"],
  intentId: ['an intent id such as "INT-001"', (v) => typeof v === "string"],
  intent: ['an intent id such as "INT-001"', (v) => typeof v === "string"],
  to: ['a status such as "COMPLETE"', (v) => typeof v === "string"],
  glob: ['a glob such as "docs/**"', (v) => typeof v === "string"],
  hash: ["a content hash", (v) => typeof v === "string"],
  out: ['a file path such as "reports/insight.html"', (v) => typeof v === "string"],
  startLine: ["a 0-based line number (a non-negative integer)", isUinteger],
  endLine: ["a 0-based line number (a non-negative integer)", isUinteger],
  budget: ["a whole number of bytes, at least 256", (v) => isUinteger(v) && v >= 256],
  start: ["true or false", (v) => typeof v === "boolean"],
  quiet: ["true or false", (v) => typeof v === "boolean"],
  html: ["true or false", (v) => typeof v === "boolean"],
  apply: ["true or false", (v) => typeof v === "boolean"],
};

/**
 * A command's first argument: an object of named arguments, or an intent id as typed by hand. Every named
 * argument a command takes is checked for its type here, so each command reads only well-typed values.
 */
export function checkCommandArguments(command: string, args: readonly unknown[] | undefined): void {
  const first = args?.[0];
  if (first === undefined || first === null || typeof first === "string") return;
  if (!isObject(first)) throw invalidParam(command, "arguments[0]", 'an object of named arguments such as {"id":"INT-001"}, or an intent id', first);
  for (const [key, [expected, test]] of Object.entries(ARGUMENT_TYPES)) {
    if (first[key] !== undefined && !test(first[key])) throw invalidParam(command, key, expected, first[key]);
  }
}
