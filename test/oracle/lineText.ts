import type { Prng } from "./prng";

/**
 * Invented source text: code-like lines made distinct by a counter, with the blank lines, lone braces and
 * comments real files are full of (the lines attribution by content finds hardest).
 */

const CALLS = ["compute", "merge", "fetchAll", "parse", "render", "validate", "emit", "lookup"];
const WORDS = ["cache", "retry", "bounds", "token", "layout", "stream", "index", "locale", "quota"];

export class LineWriter {
  private counter = 0;

  constructor(private readonly rng: Prng) {}

  private v(): string {
    return `v${++this.counter}`;
  }

  /** One statement, unique by its fresh identifier. */
  code(indent: string): string {
    const r = this.rng;
    switch (r.int(0, 5)) {
      case 0:
        return `${indent}const ${this.v()} = ${r.pick(CALLS)}(${this.v()}, ${r.int(0, 99)});`;
      case 1:
        return `${indent}${this.v()}.${r.pick(CALLS)}(${r.pick(WORDS)});`;
      case 2:
        return `${indent}let ${this.v()} = ${r.int(0, 9)} + ${this.v()};`;
      case 3:
        return `${indent}return ${r.pick(CALLS)}(${this.v()});`;
      case 4:
        return `${indent}${this.v()} = ${this.v()} ?? ${r.pick(WORDS)}Default;`;
      default:
        return `${indent}await ${r.pick(CALLS)}(${this.v()}, "${r.pick(WORDS)}");`;
    }
  }

  comment(indent: string): string {
    return `${indent}// ${this.rng.pick(WORDS)} note ${this.v()}`;
  }

  /**
   * `count` lines of nested code starting at `indent`: statements, `if (…) {` … `}` blocks, blank lines.
   * `uniqueEdges` makes the first and last lines statements, so the block cannot slide against its
   * neighbours in a line diff (see the fairness rule in README.md).
   */
  block(count: number, indent: string, uniqueEdges = false): string[] {
    const r = this.rng;
    const out: string[] = [];
    let depth = 0;
    const at = () => indent + "  ".repeat(depth);
    while (out.length < count) {
      const left = count - out.length;
      const edge = uniqueEdges && (out.length === 0 || left === 1);
      if (edge || left <= depth) {
        if (!edge && depth > 0) {
          depth--;
          out.push(`${at()}}`);
        } else out.push(this.code(at()));
        continue;
      }
      const roll = r.next();
      if (roll < 0.08) out.push("");
      else if (roll < 0.17 && left > depth + 2) {
        out.push(`${at()}if (${this.v()} > ${r.int(0, 9)}) {`);
        depth++;
      } else if (roll < 0.26 && depth > 0) {
        depth--;
        out.push(`${at()}}`);
      } else if (roll < 0.31) out.push(this.comment(at()));
      else out.push(this.code(at()));
    }
    return out;
  }

  /** A changed version of a line: new content, same indentation. */
  rewrite(old: string): string {
    const indent = /^\s*/.exec(old)![0];
    return this.code(indent);
  }
}

export function indentOf(text: string): string {
  return /^[ \t]*/.exec(text)![0];
}
