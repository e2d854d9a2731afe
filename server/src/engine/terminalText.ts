/**
 * Text from a repository or a ledger (model ids, intent names, person names, paths, file lines) shown in a
 * terminal as text: a control character could otherwise set the clipboard (OSC 52), clear the screen or move
 * the cursor, and a bidi override could show a line other than the one it holds. Each such character is
 * written as a visible escape, as JSON writes it (`\n`, `\t`, `\u001b`), so that the escaped text of a JSON
 * string stays the same JSON.
 */

/** C0 controls, DEL, C1 controls, the line and paragraph separators, and the bidi embeddings, overrides and isolates. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, but for the line breaks and tabs a whole output lays its lines and columns out with. */
const UNSAFE_IN_OUTPUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function visible(c: string): string {
  if (c === "\n") return "\\n";
  if (c === "\r") return "\\r";
  if (c === "\t") return "\\t";
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/** One field of a line (a name, a path, a message): every control character escaped, line breaks and tabs too. */
export function oneLine(s: string): string {
  return s.replace(UNSAFE, visible);
}

/**
 * A whole output (its fields escaped or not): the line breaks and tabs kept, every other control character
 * escaped. JSON output passes unchanged in meaning: such characters can only stand inside its strings.
 */
export function terminalOutput(s: string): string {
  return s.replace(UNSAFE_IN_OUTPUT, visible);
}

/**
 * A hook's answer: JSON whose strings (a denial's reason, a briefing) an agent shows in its terminal once
 * it has parsed them, so each string is escaped as `terminalOutput` escapes a whole output. An answer that
 * is not JSON is escaped as a whole.
 */
export function hookAnswerText(stdout: string): string {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return terminalOutput(stdout);
  }
  return `${JSON.stringify(escapeStrings(value))}${stdout.endsWith("\n") ? "\n" : ""}`;
}

function escapeStrings(value: unknown): unknown {
  if (typeof value === "string") return terminalOutput(value);
  if (Array.isArray(value)) return value.map(escapeStrings);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [terminalOutput(k), escapeStrings(v)]));
  }
  return value;
}
