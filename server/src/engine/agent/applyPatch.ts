/**
 * The files a Codex `apply_patch` envelope touches, read the way Codex's own parser reads it
 * (openai/codex codex-rs/apply-patch/src/parser.rs, lenient mode), so the gate judges exactly the files
 * Codex will write: a header the gate skipped would be a file written unchecked, one it invented a false
 * denial.
 *
 * What Codex tolerates, and so this reader too:
 * - the whole text is trimmed; `*** Begin Patch` and `*** End Patch` match with whitespace around them;
 *   the envelope may sit inside a `<<EOF` / `<<'EOF'` / `<<"EOF"` heredoc (first line exactly that, last
 *   line ending in `EOF`);
 * - a file header (`*** Add File: `, `*** Delete File: `, `*** Update File: `) is matched after trimming its
 *   line, so an indented header is a header (the path is what follows the marker on the trimmed line);
 * - `*** Move to: ` counts only at the very start of the line right after `*** Update File:` (no trimming);
 * - inside an Update, a line starting with ` `, `+` or `-` (or an empty one) is part of the change, so an
 *   indented `*** Update File:` there is a context line, not a header; a line starting with `*` ends the
 *   Update; `@@` / `@@ ctx` open a chunk; `*** End of File` (exactly) closes one.
 * Anything Codex would reject makes the patch unreadable (undefined): Codex writes nothing then, and the
 * gate cannot name the files, so it denies.
 */

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE_TO = "*** Move to: ";
const END_OF_FILE = "*** End of File";

/** Rust's `str::trim`: Unicode White_Space at both ends (not JavaScript's set, which adds U+FEFF). */
const RUST_SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const EDGES = new RegExp(`^${RUST_SPACE}+|${RUST_SPACE}+$`, "g");
const trim = (s: string) => s.replace(EDGES, "");

/** Rust's `str::lines`: split at `\n`, a `\r` before it dropped, no empty last line for a final `\n`. */
function lines(text: string): string[] {
  if (text === "") return [];
  const out = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  if (text.endsWith("\n")) out.pop();
  return out;
}

class Unreadable extends Error {}

/** Every file the patch adds, deletes, updates or moves to, in order, each once; undefined when Codex would reject it. */
export function applyPatchFiles(patch: string): string[] | undefined {
  try {
    const body = envelopeBody(lines(trim(patch)));
    const files: string[] = [];
    let rest = body;
    while (rest.length) {
      const { paths, used } = oneHunk(rest);
      files.push(...paths);
      rest = rest.slice(used);
    }
    return [...new Set(files)];
  } catch (err) {
    if (err instanceof Unreadable) return undefined;
    throw err;
  }
}

/** The lines between `*** Begin Patch` and `*** End Patch`, inside a heredoc or not. */
function envelopeBody(all: string[]): string[] {
  const strict = (ls: string[]) => (ls.length >= 2 && trim(ls[0]!) === BEGIN && trim(ls[ls.length - 1]!) === END ? ls.slice(1, -1) : undefined);
  const plain = strict(all);
  if (plain) return plain;
  const first = all[0];
  const last = all[all.length - 1];
  if (all.length >= 4 && (first === "<<EOF" || first === "<<'EOF'" || first === '<<"EOF"') && last!.endsWith("EOF")) {
    const inner = strict(all.slice(1, -1));
    if (inner) return inner;
  }
  throw new Unreadable();
}

/** One file operation at the start of `ls`: the paths it names and how many lines it spans. */
function oneHunk(ls: string[]): { paths: string[]; used: number } {
  const header = trim(ls[0]!);
  if (header.startsWith(ADD)) {
    let used = 1;
    while (used < ls.length && ls[used]!.startsWith("+")) used++;
    return { paths: [header.slice(ADD.length)], used };
  }
  if (header.startsWith(DELETE)) return { paths: [header.slice(DELETE.length)], used: 1 };
  if (!header.startsWith(UPDATE)) throw new Unreadable();
  const paths = [header.slice(UPDATE.length)];
  let used = 1;
  if (ls[1]?.startsWith(MOVE_TO)) {
    paths.push(ls[1].slice(MOVE_TO.length));
    used++;
  }
  let chunks = 0;
  while (used < ls.length) {
    const line = ls[used]!;
    if (trim(line) === "") {
      used++;
      continue;
    }
    if (line.startsWith("*")) break;
    used += chunkLength(ls.slice(used), chunks === 0);
    chunks++;
  }
  if (chunks === 0) throw new Unreadable();
  return { paths, used };
}

/** How many lines one `@@` chunk of an Update spans. */
function chunkLength(ls: string[], first: boolean): number {
  let start = 0;
  if (ls[0] === "@@" || ls[0]!.startsWith("@@ ")) start = 1;
  else if (!first) throw new Unreadable();
  if (start >= ls.length) throw new Unreadable();
  let n = 0;
  for (const line of ls.slice(start)) {
    if (line === END_OF_FILE) {
      if (n === 0) throw new Unreadable();
      n++;
      break;
    }
    const c = line[0];
    if (c !== undefined && c !== " " && c !== "+" && c !== "-") {
      if (n === 0) throw new Unreadable();
      break;
    }
    n++;
  }
  return n + start;
}
