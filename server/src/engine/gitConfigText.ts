/**
 * What a git configuration file's text names that intent-lsp must know before it runs git there: the filter
 * drivers it defines (`[filter "name"]`, each a command git would run on file content) and the files it
 * includes (`include.path`, `includeIf.<condition>.path`). Reading is generous on purpose: a driver named
 * here that git would not use costs nothing when it is turned off, while one missed would run.
 */

export interface GitConfigNames {
  /** Names of filter drivers with any key set (clean, smudge, process, required). */
  filters: string[];
  /** Values of `include.path` and `includeIf.*.path`, as written (relative, `~/`, or absolute). */
  includes: string[];
}

// `s`: the rest of a line may hold any character: the CR of a CRLF line end, or U+2028 in a comment,
// neither of which `.` alone matches (git ends a line at LF only, and reads a CR before it as a space)
const SECTION = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\s*\](.*)$/s;
const KEY = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/s;

export function gitConfigNames(text: string): GitConfigNames {
  const filters = new Set<string>();
  const includes: string[] = [];
  let section = "";
  let subsection: string | undefined;
  for (const raw of text.split("\n")) {
    let line = raw;
    const header = SECTION.exec(line);
    if (header) {
      [section, subsection] = sectionOf(header[1]!, header[2]);
      line = header[3] ?? "";
    }
    const entry = KEY.exec(line);
    if (!entry) continue;
    const key = entry[1]!.toLowerCase();
    if (section === "filter" && subsection !== undefined) filters.add(subsection);
    else if (key === "path" && (section === "include" || (section === "includeif" && subsection !== undefined))) {
      const value = configValue(entry[2] ?? "");
      if (value) includes.push(value);
    }
  }
  return { filters: [...filters], includes };
}

/** `[filter "x"]` keeps the subsection's case; the older `[filter.x]` lowercases it, as git does. */
function sectionOf(name: string, quoted: string | undefined): [string, string | undefined] {
  if (quoted !== undefined) return [name.toLowerCase(), quoted.replace(/\\(.)/g, "$1")];
  const dot = name.indexOf(".");
  if (dot < 0) return [name.toLowerCase(), undefined];
  return [name.slice(0, dot).toLowerCase(), name.slice(dot + 1).toLowerCase()];
}

/** A value as git reads it: quotes removed, escapes resolved, a comment outside quotes cut, ends trimmed. */
function configValue(written: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < written.length; i++) {
    const c = written[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === "\\" && i + 1 < written.length) {
      const next = written[++i]!;
      out += next === "n" ? "\n" : next === "t" ? "\t" : next;
    } else if ((c === "#" || c === ";") && !quoted) break;
    else out += c;
  }
  return out.trim();
}

/**
 * Filter driver names set through the environment (`git -c` of a parent git, `GIT_CONFIG_KEY_<n>`): the
 * keys only, for a driver configured there runs like one in a file.
 */
export function filterNamesInKeys(keys: readonly string[]): string[] {
  const names: string[] = [];
  for (const key of keys) {
    const m = /^filter\.(.+)\.[A-Za-z][A-Za-z0-9-]*$/is.exec(key);
    if (m) names.push(m[1]!);
  }
  return names;
}
