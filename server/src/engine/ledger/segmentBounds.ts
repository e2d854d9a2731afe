/**
 * What a sealed segment may expand to (docs/LEDGER.md "Segments"). A segment is a few hundred bytes that
 * any pull request can add, and Brotli turns a few hundred bytes into gigabytes: every reader would decode
 * it again on every call. So a segment holds exactly the lines its header declares, never more than the
 * hard caps below, and the manifest line that names it declares the same count. A segment that breaks one
 * of these is refused before a single line is decoded; readers skip it and warn, `intent verify` fails.
 */

/** Lines one segment may hold: a month of a ten-person team is ~220,000 records, so this leaves room. */
export const SEGMENT_MAX_LINES = 1_000_000;
/** Bytes its compressed text may expand to (~400 bytes a compact line at the line cap, and room to spare). */
export const SEGMENT_MAX_TEXT_BYTES = 512 * 1024 * 1024;

/** What is wrong with a header's declared line count, or undefined when it is within the cap. */
export function declaredLinesProblem(declared: number): string | undefined {
  if (declared <= SEGMENT_MAX_LINES) return undefined;
  return `its header declares ${declared} lines, more than a segment may hold (${SEGMENT_MAX_LINES})`;
}

/** What is wrong when the manifest line and the segment's header disagree on its line count. */
export function manifestLinesProblem(manifestLines: number, declared: number): string | undefined {
  if (manifestLines === declared) return undefined;
  return `the manifest line says ${manifestLines} lines, the segment's header ${declared}`;
}

/** The message for compressed text that expands past SEGMENT_MAX_TEXT_BYTES. */
export function textTooLargeProblem(): string {
  return `its text expands to more than ${SEGMENT_MAX_TEXT_BYTES} bytes, more than a segment may hold`;
}

/**
 * The lines of a segment's decompressed text (newline-separated, the last newline optional), counted no
 * further than one past `declared`: a text of millions of lines is refused after `declared + 1` of them.
 */
export function countLinesUpTo(text: Uint8Array, declared: number): number {
  let n = 0;
  let start = 0;
  while (start < text.length && n <= declared) {
    const nl = text.indexOf(0x0a, start);
    n++;
    start = nl === -1 ? text.length : nl + 1;
  }
  return n;
}

/** What is wrong when the text holds another number of lines than the header declares (`counted` as countLinesUpTo gives it). */
export function countedLinesProblem(counted: number, declared: number): string | undefined {
  if (counted === declared) return undefined;
  return counted > declared
    ? `it holds more lines than its header declares (${declared})`
    : `it holds ${counted} lines, fewer than its header declares (${declared})`;
}
