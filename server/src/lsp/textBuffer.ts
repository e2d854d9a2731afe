import type { Position, Range } from "vscode-languageserver";

/**
 * An open document's text as an array of lines, so that applying an edit costs the size of the edit, not of
 * the file: `vscode-languageserver-textdocument` keeps one string and an offset per line, and every
 * keystroke re-copies the string and shifts every later offset (6.8 ms a keystroke at 200k lines here,
 * before any work of ours).
 *
 * Lines end as the LSP says (`\n`, `\r\n` or a lone `\r`); each line's terminator is kept, so the text reads
 * back byte for byte. Positions are UTF-16 code units, the LSP's default encoding. Anything that needs the
 * whole text (a save, a hash) joins it once and keeps the result until the next edit.
 */
export class TextBuffer {
  private lines: string[];
  /** Terminator of each line; "" for the last one. */
  private eols: string[];
  private joined: string | undefined;
  private totalLength: number;
  /** Counts the changes to the text: a text joined from a snapshot is this buffer's only while it is unchanged. */
  private generation = 0;

  constructor(
    readonly uri: string,
    readonly languageId: string,
    public version: number,
    text: string,
  ) {
    [this.lines, this.eols] = splitWithTerminators(text);
    this.joined = text;
    this.totalLength = text.length;
  }

  get lineCount(): number {
    return this.lines.length;
  }

  /** Length of the whole text in UTF-16 code units, without joining it. */
  get length(): number {
    return this.totalLength;
  }

  /** A line's text without its terminator ("" past the end). */
  lineText(line: number): string {
    return this.lines[line] ?? "";
  }

  /** The whole text, or the text of a range (clamped). */
  getText(range?: Range): string {
    if (!range) {
      this.joined ??= this.join();
      return this.joined;
    }
    const start = this.clamp(range.start);
    const end = this.clamp(range.end);
    if (start.line === end.line) return this.lines[start.line]!.slice(start.character, end.character);
    let out = this.lines[start.line]!.slice(start.character) + this.eols[start.line];
    for (let l = start.line + 1; l < end.line; l++) out += this.lines[l]! + this.eols[l];
    return out + this.lines[end.line]!.slice(0, end.character);
  }

  /**
   * The position a client meant, as `TextDocument` reads it: a line past the end is the end of the text, a
   * character past the end of its line is the end of that line.
   */
  clamp(p: Position): Position {
    if (p.line >= this.lines.length) {
      const last = this.lines.length - 1;
      return { line: last, character: this.lines[last]!.length };
    }
    const line = Math.max(0, p.line);
    return { line, character: Math.max(0, Math.min(p.character, this.lines[line]!.length)) };
  }

  /** Offset of a position; walks the lines before it, so only for small documents (the rule files). */
  offsetAt(p: Position): number {
    const c = this.clamp(p);
    let offset = 0;
    for (let l = 0; l < c.line; l++) offset += this.lines[l]!.length + this.eols[l]!.length;
    return offset + c.character;
  }

  /**
   * Replaces the text between two clamped positions (in either order, as `TextDocument` accepts them) and
   * says which lines that replaced: `first` and the old lines from there, and how many lines stand there now.
   */
  replace(a: Position, b: Position, text: string): { first: number; oldLines: string[]; newLines: string[] } {
    let [start, end] = before(a, b) ? [a, b] : [b, a];
    const suffix = this.lines[end.line]!.slice(end.character) + this.eols[end.line];
    let region = this.lines[start.line]!.slice(0, start.character) + text + suffix;
    // a lone CR ending the line above, then the region starting with LF: the two become one CRLF terminator
    if (start.character === 0 && start.line > 0 && this.eols[start.line - 1] === "\r" && region.startsWith("\n")) {
      start = { line: start.line - 1, character: this.lines[start.line - 1]!.length };
      region = `${this.lines[start.line]}\r${region}`;
    }
    const [newLines, newEols] = splitWithTerminators(region);
    // the region ended the text without a terminator when it ended at the last line
    if (newEols[newEols.length - 1] === "" && end.line < this.lines.length - 1) {
      newLines.pop();
      newEols.pop();
    }
    const count = end.line - start.line + 1;
    const oldLines = this.lines.slice(start.line, start.line + count);
    const removedLength = this.spanLength(start.line, count);
    this.lines = spliced(this.lines, start.line, count, newLines);
    this.eols = spliced(this.eols, start.line, count, newEols);
    this.totalLength += this.spanLength(start.line, newLines.length) - removedLength;
    this.joined = undefined;
    this.generation++;
    return { first: start.line, oldLines, newLines };
  }

  /** Replaces the whole text (full-document sync). */
  setText(text: string): void {
    [this.lines, this.eols] = splitWithTerminators(text);
    this.joined = text;
    this.totalLength = text.length;
    this.generation++;
  }

  /** A copy of the lines as they are now, without their terminators (`splitLines` of the text). */
  copyLines(): string[] {
    return this.lines.slice();
  }

  /**
   * The text as it is now, without joining it here: a save takes it when its didSave arrives, and a
   * million-line document's join (tens of milliseconds) is then done in slices (`SavedText.prepare`).
   */
  snapshot(): SavedText {
    const generation = this.generation;
    return new SavedText(this.lines.slice(), this.eols.slice(), this.totalLength, this.joined, (text) => this.adopt(text, generation));
  }

  /** A snapshot's joined text, kept as this buffer's own when the buffer has not changed since the snapshot. */
  private adopt(text: string, generation: number): void {
    if (generation === this.generation) this.joined ??= text;
  }

  private spanLength(first: number, count: number): number {
    let n = 0;
    for (let l = first; l < first + count; l++) n += this.lines[l]!.length + this.eols[l]!.length;
    return n;
  }

  private join(): string {
    return joinLines(this.lines, this.eols, 0, this.lines.length);
  }
}

/**
 * A text taken from the buffer (its lines and terminators), joined into one string when first asked for, or
 * in slices by `prepare`.
 */
export class SavedText {
  constructor(
    readonly lines: string[],
    private eols: readonly string[] | undefined,
    readonly length: number,
    private joined: string | undefined,
    private readonly joinedText: (text: string) => void,
  ) {}

  get text(): string {
    if (this.joined === undefined) this.done(joinLines(this.lines, this.eols!, 0, this.lines.length));
    return this.joined!;
  }

  /** Joins the text `sliceLines` lines at a time, awaiting `pause` between slices; `text` is then at hand. */
  async prepare(sliceLines: number, pause: () => Promise<void>): Promise<void> {
    const pieces: string[] = [];
    for (let start = 0; start < this.lines.length && this.joined === undefined; start += sliceLines) {
      pieces.push(joinLines(this.lines, this.eols!, start, Math.min(this.lines.length, start + sliceLines)));
      await pause();
    }
    if (this.joined === undefined) this.done(pieces.join(""));
  }

  private done(text: string): void {
    this.joined = text;
    this.eols = undefined;
    this.joinedText(text);
  }
}

/**
 * Lines `from` to `to` (exclusive) with their terminators, as one flat string built by
 * `Array.prototype.join`: concatenating line by line builds a rope of a node per piece, and at a million
 * lines those nodes (all alive until the rope is flattened) fill the young generation many times over; its
 * collections then stall the server for longer than the join itself.
 */
function joinLines(lines: readonly string[], eols: readonly string[], from: number, to: number): string {
  let allLf = true;
  for (let l = from; l < to - 1 && allLf; l++) allLf = eols[l] === "\n";
  if (allLf) return (from === 0 && to === lines.length ? lines : lines.slice(from, to)).join("\n") + eols[to - 1]!;
  const parts = new Array<string>(2 * (to - from));
  for (let l = from; l < to; l++) {
    parts[2 * (l - from)] = lines[l]!;
    parts[2 * (l - from) + 1] = eols[l]!;
  }
  return parts.join("");
}

/**
 * `array` with `count` items at `at` replaced by `items`: in place for an edit's few lines; a new array for
 * a paste of many (a spread of more than ~100,000 arguments overflows the call stack, and copying the array
 * costs no more than the pasted lines themselves).
 */
function spliced(array: string[], at: number, count: number, items: string[]): string[] {
  if (items.length <= SPREAD_MAX) {
    array.splice(at, count, ...items);
    return array;
  }
  return array.slice(0, at).concat(items, array.slice(at + count));
}

/** Items inserted by one `splice` call at most. */
const SPREAD_MAX = 10_000;

function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

/** Lines and their terminators; a text ending in a terminator has a last, empty line (as the LSP counts). */
function splitWithTerminators(text: string): [string[], string[]] {
  // a text without a CR (most files) is split by V8's own split: a tenth of the loop below's time on a
  // million-line file, which the open of that file otherwise spends with every other request waiting
  if (text.indexOf("\r") === -1) {
    const lines = text.split("\n");
    const eols = new Array<string>(lines.length).fill("\n");
    eols[lines.length - 1] = "";
    return [lines, eols];
  }
  const lines: string[] = [];
  const eols: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x0a && c !== 0x0d) continue;
    lines.push(text.slice(start, i));
    if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) {
      eols.push("\r\n");
      i++;
    } else eols.push(c === 0x0d ? "\r" : "\n");
    start = i + 1;
  }
  lines.push(text.slice(start));
  eols.push("");
  return [lines, eols];
}
