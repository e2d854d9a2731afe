/**
 * Text that comes from agents, people and repositories (paths, reasons, intent names, model ids) written
 * into Markdown (AGENT.md, intent_map.md, `intent check`'s pull request summary): always as text, never as
 * markup. A path holding a line break must not start a line of its own in a file the next agent reads as
 * instructions; a model id must not become an image fetched from another host, a link, or a team mention.
 */
import { oneLine } from "./terminalText";

export { oneLine };

/** Markdown text that cannot open or close HTML: one line, `&`, `<` and `>` as entities. */
export function plainText(s: string): string {
  return oneLine(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * The characters that open markup in the middle of a line on GitHub: emphasis and strikethrough, code,
 * links and images, HTML and entities, table columns, math (`$`), headings' `#`. A backslash makes each
 * literal (CommonMark escapes every ASCII punctuation character so).
 */
const MARKUP = /[\\`*_~[\]!<>&|$#]/g;
const ZERO_WIDTH_JOINER = "\u200d";

/**
 * Inline Markdown text (a table cell, a sentence) that renders as exactly these characters: every
 * character that opens markup backslash-escaped, so no emphasis, link, image, HTML tag, entity, math or
 * column break. GitHub finds @mentions and bare URLs (`https://…`, `www.…`, `a@b.c`) in the rendered
 * text as well, where backslashes no longer stand: a zero-width joiner after `@`, after `:` before `//`
 * and after `www` before `.` keeps them from matching while they read the same.
 */
export function inlineText(s: string): string {
  return oneLine(s)
    .replace(/@/g, `@${ZERO_WIDTH_JOINER}`)
    .replace(/:(?=\/\/)/g, `:${ZERO_WIDTH_JOINER}`)
    .replace(/(www)(?=\.)/gi, `$1${ZERO_WIDTH_JOINER}`)
    .replace(MARKUP, "\\$&");
}

/** A Markdown code span holding `s` literally: a fence longer than any run of backticks inside it. */
export function codeSpan(s: string): string {
  const text = oneLine(s);
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") || text === "" ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * A code span in a GFM table cell: a table splits its row at every `|` before it finds code spans, and
 * takes `\|` as a `|` inside them.
 */
export function codeCell(s: string): string {
  return codeSpan(s).replace(/\|/g, "\\|");
}
