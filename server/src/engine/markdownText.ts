/**
 * Text that comes from agents and people (paths, reasons, intent names) written into intent-lsp's own
 * Markdown files (AGENT.md, intent_map.md): always as text, never as markup. A path holding a line break
 * must not start a line of its own in a file the next agent reads as instructions.
 */

const LINE_BREAKING = /[\u0000-\u001f\u007f\u0085\u2028\u2029]/g;

/** One line of text: control characters and line separators as visible escapes (`\n`, `\u0000`). */
export function oneLine(s: string): string {
  return s.replace(LINE_BREAKING, (c) => {
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    if (c === "\t") return "\\t";
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/** Markdown text that cannot open or close HTML: one line, `&`, `<` and `>` as entities. */
export function plainText(s: string): string {
  return oneLine(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A Markdown code span holding `s` literally: a fence longer than any run of backticks inside it. */
export function codeSpan(s: string): string {
  const text = oneLine(s);
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") || text === "" ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}
