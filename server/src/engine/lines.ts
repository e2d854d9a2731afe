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
