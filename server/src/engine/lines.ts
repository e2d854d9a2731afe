import { splitLines } from "./hashing";

/**
 * The lines of a text as people count them, for blame and for the lines a write produced: `splitLines`
 * (CRLF, LF and a lone CR each end a line), where a final line break ends the last line rather than
 * starting an empty one ("a\nb\n" has two lines). An empty text is one empty line. The hashes still cover
 * the full split, so attribution is computed over `splitLines` and read through these numbers.
 */
export function textLines(text: string): string[] {
  const lines = splitLines(text);
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** `textLines(text).length`, counted without making the lines (a file's count needs no strings). */
export function countTextLines(text: string): number {
  let breaks = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === LF) breaks++;
    else if (c === CR) {
      breaks++;
      if (text.charCodeAt(i + 1) === LF) i++;
    }
  }
  const last = text.charCodeAt(text.length - 1);
  // a final line break ends the last line rather than starting another
  return breaks > 0 && (last === LF || last === CR) ? breaks : breaks + 1;
}

const LF = 0x0a;
const CR = 0x0d;

/** Offsets where each line starts, lines ending as in `splitLines` (CRLF, LF or a lone CR). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) starts.push(i + 1);
    else if (c === 0x0d) {
      if (text.charCodeAt(i + 1) === 0x0a) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}

/**
 * The 0-based line and character of `offset` (clamped into the text), as an editor counts them. With the
 * text, an offset inside a line break (the LF of a CRLF) is the end of its line: positions past a line's
 * last character are not positions in it.
 */
export function positionAt(starts: readonly number[], offset: number, text?: string): { line: number; character: number } {
  let lo = 0;
  let hi = starts.length - 1;
  const at = Math.max(0, offset);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  let character = at - starts[lo]!;
  if (text !== undefined) {
    let end = lo + 1 < starts.length ? starts[lo + 1]! : text.length;
    while (end > starts[lo]! && (text.charCodeAt(end - 1) === 0x0a || text.charCodeAt(end - 1) === 0x0d) && lo + 1 < starts.length) end--;
    character = Math.min(character, end - starts[lo]!);
  }
  return { line: lo, character };
}
