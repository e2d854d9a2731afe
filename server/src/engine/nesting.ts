import { createScanner } from "jsonc-parser";

/**
 * How deeply a rule file nests, measured before it is parsed. The YAML and JSONC parsers recurse once per
 * level, so a few kilobytes of brackets overflow the stack; the files we read need four or five levels.
 * These scans are iterative, linear in the text, and stop at the first place that goes too deep, so the
 * problem is reported there and the parser never sees the text.
 */

/** Far beyond any real intents file or config.jsonc, far below what overflows the parsers' stacks. */
export const MAX_NESTING = 64;

export interface NestingProblem {
  /** Offset of the character that opened the level past the limit. */
  offset: number;
  depth: number;
}

export function nestingMessage(max = MAX_NESTING): string {
  return `nested more than ${max} levels deep here (lists and mappings inside each other); this file needs only a few levels, so nothing in it is read until the nesting is removed`;
}

// jsonc-parser's SyntaxKind values (a const enum, which isolated modules cannot import)
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const EOF = 17;

/** The first place where JSON(C) brackets nest deeper than `max`; strings and comments are skipped by the scanner. */
export function jsonNestingProblem(text: string, max = MAX_NESTING): NestingProblem | undefined {
  const scanner = createScanner(text, false);
  let depth = 0;
  for (let kind: number = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    if (kind === OPEN_BRACE || kind === OPEN_BRACKET) {
      if (++depth > max) return { offset: scanner.getTokenOffset(), depth };
    } else if (kind === CLOSE_BRACE || kind === CLOSE_BRACKET) {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}

const isBreak = (c: string | undefined) => c === "\n" || c === "\r";
const isBlank = (c: string | undefined) => c === undefined || c === " " || c === "\t" || isBreak(c);

/**
 * The first place where YAML nests deeper than `max`: flow brackets, plus block collections counted by the
 * columns of their indicators (`- `, `? `, `key:`) as the indentation opens and closes them. It may count
 * a level the parser would not (it is a bound, not a parser), never one less per column of indentation, and
 * skips quoted scalars, block scalars (`|`, `>`) and comments, whose text holds no structure.
 */
export function yamlNestingProblem(text: string, max = MAX_NESTING): NestingProblem | undefined {
  const blocks: number[] = []; // columns of the open block collections, increasing
  let flow = 0;
  let quote: '"' | "'" | undefined;
  let lineStart = 0;
  let atLineStart = true;
  /** A node may start here (after indentation, an indicator, a comma in flow). */
  let nodeStart = true;
  /** Column where the current key-or-scalar began, for `key:`. */
  let tokenColumn = 0;
  /** Lines indented more than this are a block scalar's text; -2 when not in one. */
  let blockScalarParent = -2;
  const n = text.length;
  const depthAt = (offset: number) => (blocks.length + flow > max ? { offset, depth: blocks.length + flow } : undefined);
  const endOfLine = (from: number) => {
    let k = from;
    while (k < n && !isBreak(text[k])) k++;
    return k;
  };

  let i = 0;
  while (i < n) {
    const c = text[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') i += 2;
      else if (c === quote && quote === "'" && text[i + 1] === "'") i += 2;
      else {
        if (c === quote) quote = undefined;
        else if (isBreak(c)) lineStart = c === "\r" && text[i + 1] === "\n" ? i + 2 : i + 1;
        i++;
      }
      continue;
    }
    if (isBreak(c)) {
      i += c === "\r" && text[i + 1] === "\n" ? 2 : 1;
      lineStart = i;
      atLineStart = true;
      continue;
    }
    if (atLineStart) {
      let k = i;
      while (k < n && text[k] === " ") k++;
      const column = k - lineStart;
      if (k >= n || isBreak(text[k]) || text[k] === "#") {
        i = text[k] === "#" ? endOfLine(k) : k; // blank or comment-only lines close nothing
        continue;
      }
      if (blockScalarParent > -2) {
        if (column > blockScalarParent) {
          i = endOfLine(k);
          continue;
        }
        blockScalarParent = -2;
      }
      atLineStart = false;
      nodeStart = true;
      i = k;
      if (flow === 0) {
        if (column === 0 && (text.startsWith("---", k) || text.startsWith("...", k)) && isBlank(text[k + 3])) {
          blocks.length = 0;
          i = k + 3;
          continue;
        }
        if (column === 0 && text[k] === "%") {
          i = endOfLine(k);
          continue;
        }
        while (blocks.length && blocks[blocks.length - 1]! > column) blocks.pop();
      }
      continue;
    }
    if (c === " " || c === "\t") {
      i++;
      continue;
    }
    if (c === "#" && (nodeStart || isBlank(text[i - 1]))) {
      i = endOfLine(i);
      continue;
    }
    const column = i - lineStart;
    if (flow > 0) {
      if (c === "[" || c === "{") {
        flow++;
        const p = depthAt(i);
        if (p) return p;
        nodeStart = true;
      } else if (c === "]" || c === "}") {
        flow--;
        nodeStart = false;
      } else if (c === ",") {
        nodeStart = true;
      } else if ((c === '"' || c === "'") && nodeStart) {
        quote = c;
        nodeStart = false;
      } else if (c === ":" || c === "?") {
        nodeStart = true;
      } else {
        nodeStart = false;
      }
      i++;
      continue;
    }
    if (nodeStart) {
      if ((c === "-" || c === "?" || c === ":") && isBlank(text[i + 1])) {
        if (c !== ":" && (!blocks.length || blocks[blocks.length - 1]! < column)) {
          blocks.push(column);
          const p = depthAt(i);
          if (p) return p;
        }
        i++;
        continue;
      }
      if (c === "[" || c === "{") {
        flow = 1;
        const p = depthAt(i);
        if (p) return p;
        i++;
        continue;
      }
      if (c === "|" || c === ">") {
        blockScalarParent = blocks.length ? blocks[blocks.length - 1]! : -1;
        i = endOfLine(i);
        continue;
      }
      if (c === "&" || c === "!") {
        while (i < n && !isBlank(text[i])) i++; // an anchor or tag comes before the node itself
        continue;
      }
      tokenColumn = column;
      nodeStart = false;
      if (c === '"' || c === "'") quote = c;
      i++;
      continue;
    }
    if (c === ":" && isBlank(text[i + 1])) {
      // the scalar before it was a key: a mapping at the key's column
      if (!blocks.length || blocks[blocks.length - 1]! < tokenColumn) {
        blocks.push(tokenColumn);
        const p = depthAt(i);
        if (p) return p;
      }
      nodeStart = true;
    }
    i++;
  }
  return undefined;
}
