/*
 * What the ledger counts as a blank line: empty or only spaces, tabs and carriage returns. A blank line is
 * not a record and not a link of the `prev` chain, so the reader, the appender and the verifier must agree on
 * it byte for byte: this is the one definition, over text and over bytes.
 */

export function isBlankLine(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isBlankChar(s.charCodeAt(i))) return false;
  return true;
}

/** `isBlankLine` over `bytes[start, end)`, for readers that have not decoded the line. */
export function isBlankBytes(bytes: Uint8Array, start = 0, end = bytes.length): boolean {
  for (let i = start; i < end; i++) if (!isBlankChar(bytes[i]!)) return false;
  return true;
}

function isBlankChar(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d;
}
