/**
 * Limits on the patterns people write in `owned_scope` (minimatch globs) and `exempt` / `.intentignore`
 * (gitignore patterns). Both are compiled to regular expressions that backtrack: a few wildcards in one path
 * segment, several `**` in a row, or a brace range like `{1..100000}` turn one pattern into seconds of work
 * on every hook call and reload, or into a regular expression too large to build. Real patterns stay far
 * inside these limits (`src/**`, `**\/*.test.{ts,tsx}`); a pattern outside them is refused where it is written.
 */

export const MAX_PATTERN_LENGTH = 1024;
/** `*` runs and extglob groups in one path segment: matching cost grows with the segment's length to this power. */
export const MAX_WILDCARDS_PER_SEGMENT = 2;
/** `**` segments before the last segment (a trailing `/**` is cheap): matching cost grows with the path's depth to this power. */
export const MAX_GLOBSTARS = 2;
/** Alternatives a pattern's braces expand to (`{a,b}{c,d}` is 4): each is compiled and matched separately. */
export const MAX_BRACE_EXPANSION = 256;

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/**
 * Why a pattern is too costly to use, or undefined. `braces`: the dialect expands `{a,b}` (minimatch does,
 * gitignore does not).
 */
export function patternCostProblem(pattern: string, opts: { braces: boolean }): string | undefined {
  const shown = pattern.length > 60 ? `${JSON.stringify(pattern.slice(0, 60))}…` : JSON.stringify(pattern);
  if (pattern.length > MAX_PATTERN_LENGTH) return `${shown} is ${pattern.length} characters long; a pattern may have at most ${MAX_PATTERN_LENGTH}`;
  if (CONTROL_CHARS.test(pattern)) return `${shown} holds a control character (a line break, tab or NUL); patterns are one line of printable text`;
  const segments = pattern.split("/");
  const last = segments.length - 1;
  let globstars = 0;
  for (let s = 0; s < segments.length; s++) {
    const seg = segments[s]!;
    if (seg === "**") {
      if (s !== last || s === 0) globstars++;
      continue;
    }
    const wildcards = countWildcards(seg);
    if (wildcards > MAX_WILDCARDS_PER_SEGMENT) {
      return `${shown} has ${wildcards} wildcards in one path segment (${JSON.stringify(seg)}); at most ${MAX_WILDCARDS_PER_SEGMENT} keep matching fast: use \`**\` or split the pattern in two`;
    }
  }
  if (globstars > MAX_GLOBSTARS)
    return `${shown} has ${globstars} \`**\` segments; at most ${MAX_GLOBSTARS} (and a trailing \`/**\`) keep matching fast: split the pattern in two`;
  if (opts.braces) {
    const alternatives = braceExpansionSize(pattern);
    if (alternatives > MAX_BRACE_EXPANSION)
      return `${shown} expands to ${alternatives > 1e9 ? "over a billion" : alternatives} alternatives through its braces; at most ${MAX_BRACE_EXPANSION}: list the alternatives you need as separate patterns`;
  }
  return undefined;
}

/** `*` runs (`***` is one) and extglob groups (`*(`, `+(`, `?(`, `@(`, `!(`) in one segment. */
function countWildcards(segment: string): number {
  let n = 0;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "*") {
      n++;
      while (segment[i + 1] === "*") i++;
    } else if ((c === "+" || c === "?" || c === "@" || c === "!") && segment[i + 1] === "(") {
      n++;
    }
  }
  return n;
}

/**
 * How many patterns brace expansion makes of `pattern`, computed without expanding: a group multiplies by
 * the sum of its alternatives' sizes, a range `{1..100}` by its length. Capped so it stays a safe number.
 */
export function braceExpansionSize(pattern: string): number {
  const CAP = 1e12;
  // a stack of groups; each holds the product of the current alternative and the sum of the finished ones
  const stack: { sum: number; product: number; start: number }[] = [];
  let product = 1; // of the top level
  const mul = (a: number, b: number) => Math.min(CAP, a * b);
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") {
      stack.push({ sum: 0, product: 1, start: i });
    } else if (c === "," && stack.length) {
      const g = stack[stack.length - 1]!;
      g.sum = Math.min(CAP, g.sum + g.product);
      g.product = 1;
    } else if (c === "}" && stack.length) {
      const g = stack.pop()!;
      const body = pattern.slice(g.start + 1, i);
      const range = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
      let size: number;
      if (g.sum === 0 && range) {
        const from = /\d/.test(range[1]!) ? Number(range[1]) : range[1]!.charCodeAt(0);
        const to = /\d/.test(range[2]!) ? Number(range[2]) : range[2]!.charCodeAt(0);
        const step = Math.max(1, Math.abs(Number(range[3] ?? 1)) || 1);
        size = Math.floor(Math.abs(to - from) / step) + 1;
      } else {
        size = g.sum === 0 ? 1 : Math.min(CAP, g.sum + g.product); // `{a}` is not expanded
      }
      if (stack.length) {
        const outer = stack[stack.length - 1]!;
        outer.product = mul(outer.product, size);
      } else {
        product = mul(product, size);
      }
    }
  }
  return product;
}
