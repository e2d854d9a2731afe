/*
 * The files a tool call names, read from its input whatever the agent or MCP server (engine/agent/toolCall.ts
 * classifies the call): under known keys and any key whose last word names a path, a folder joined with a
 * name beside it, lists of operations and a workspace edit's URI keys, to MAX_NESTING levels; a value under a
 * path key that is no readable path, and a file named deeper than the gate reads, are said, for the call to be
 * denied (fail closed).
 */
import { fileURLToPath } from "node:url";

/**
 * Where tools put the files they act on, by key with `_`/`-` removed and lower-cased: Claude Code
 * `file_path`/`notebook_path`, Cursor `target_file`, MCP `path`, moves and copies `source`/`destination`
 * (`old_path`/`new_path`, `src`/`dst`, `from`/`to`, `target`), folders (`dir`, `directory`), and the names
 * MCP file tools use (`relative_path`, `pathInProject`, `filepath`, `filename`, `uri`, …), in this order; then
 * every other key whose name ends in path, file or uri: a file named under any key is judged, so one key the
 * gate knows cannot stand in front of another it does not.
 */
const PATH_KEYS = [
  "filepath",
  "notebookpath",
  "targetfile",
  "path",
  "relativepath",
  "pathinproject",
  "absolutepath",
  "filename",
  "file",
  "targetpath",
  "source",
  "sourcepath",
  "destination",
  "destinationpath",
  "dest",
  "oldpath",
  "newpath",
  "uri",
  "fileuri",
  "src",
  "dst",
  "target",
  "from",
  "to",
  "output",
  "outfile",
  ...["dir", "directory", "folder", "dirpath", "directorypath", "folderpath"],
];
/** Keys that name a folder a tool writes in: with a file name beside them (`name`, `filename`, `file`), the file is the two joined. */
const FOLDER_KEYS = new Set(["dir", "directory", "folder", "dirpath", "directorypath", "folderpath"]);
/** Any key whose last word is one of these names a folder too (`target_directory`, `outputDir`). */
const FOLDER_WORDS = new Set(["dir", "directory", "folder"]);
const NAME_KEYS = ["filename", "name", "file"];
/** Path-like keys that name no file: serena's `name_path` is a symbol. */
const NOT_FILES = new Set(["namepath"]);
const PATH_LIST_KEYS = ["paths", "files", "filepaths", "filenames", "uris", "edits"];
/** Any other key whose last word is one of these names a path too (`output_file`, `targetFilePath`, `notebookUri`; not `profile`). */
export const PATH_WORDS = new Set(["path", "paths", "file", "files", "filename", "filenames", "filepath", "filepaths", "uri", "uris", "location"]);
// Stryker disable StringLiteral,MethodExpression: equivalent: empty pieces and a key of no words end in no word the sets hold
/** A key as the gate compares keys: `_`, `-` and spaces left out, lower-cased (`file_path` → `filepath`). */
export const wholeKey = (key: string) => key.replace(/[_\-\s]/g, "").toLowerCase();

export const lastWord = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[_\-\s]/)
    .filter(Boolean)
    .pop() ?? "";
// Stryker restore StringLiteral,MethodExpression

/**
 * Every file a tool input names, known keys first, each once (a move names two; an edit list many), and
 * whether a key that should name a file holds something that is not a usable path (a number, an empty
 * string, an object without one).
 */
export function namedPaths(input: Record<string, unknown>, depth = 0): { paths: string[]; unresolved: boolean; unreadable: string[]; deeper: boolean } {
  const byKey = new Map<string, { values: unknown[]; pathLike: boolean; folder: boolean }>();
  const out: string[] = [];
  let unresolved = false;
  // a file named below MAX_NESTING, where the gate does not read
  let deeper = false;
  // a value under a path key that is no path the gate can read (a `file://` URI naming another host, a number)
  const unreadable: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    // a workspace edit's changes are keyed by the files' URIs (`{"file:///…/a.ts": […]}`)
    if (key.startsWith("file://")) {
      const p = text(key);
      if (p !== undefined) out.push(p);
      else unreadable.push(key);
    }
    const k = wholeKey(key);
    const word = lastWord(key);
    // a location is a file's only when it reads as one (`docs/a.md`, `file:///…`), not a city or a line number
    const located = word !== "location" || (typeof value === "string" && /[/\\]|\.\w{1,8}$/.test(value));
    const entry = byKey.get(k) ?? {
      values: [],
      pathLike: (PATH_WORDS.has(word) && located) || FOLDER_WORDS.has(word),
      folder: FOLDER_KEYS.has(k) || FOLDER_WORDS.has(word),
    };
    entry.values.push(value);
    byKey.set(k, entry);
  }
  const take = (v: unknown, level: number) => {
    const p = text(v);
    if (p !== undefined) out.push(p);
    else if (Array.isArray(v) && level < 3) for (const item of v) take(item, level + 1);
    else if (v && typeof v === "object" && level < 3) {
      const inner = namedPaths(v as Record<string, unknown>, depth + 1);
      out.push(...inner.paths);
      unreadable.push(...inner.unreadable);
      deeper ||= inner.deeper;
      // Stryker disable next-line ConditionalExpression: equivalent: `unresolved` counts only when no path was found at all
      if (!inner.paths.length) unresolved = true;
    } else {
      // deeper than a path is looked for, or a value that is no path at all
      if (!(v && typeof v === "object")) unreadable.push(JSON.stringify(v));
      else unreadable.push("a list nested deeper than the gate reads");
    }
  };
  const known = [...PATH_KEYS, ...PATH_LIST_KEYS];
  // a file in a folder: the folder and the name joined come first; the folder alone is not what is written
  const folders = [...byKey].filter(([, e]) => e.folder).flatMap(([, e]) => e.values);
  const names = NAME_KEYS.flatMap((k) => byKey.get(k)?.values ?? []);
  const joined = folders.length && names.length;
  for (const f of joined ? folders : [])
    for (const n of names) {
      const folder = text(f);
      const file = text(n);
      if (folder !== undefined && file !== undefined) out.push(`${folder.replace(/\/+$/, "")}/${file}`);
      else unreadable.push(JSON.stringify(folder === undefined ? f : n));
    }
  for (const k of known) {
    if (joined && byKey.get(k)?.folder) continue;
    for (const v of byKey.get(k)?.values ?? []) {
      // a bare name beside a folder is the file in it, not one at the workspace's root
      if (joined && NAME_KEYS.includes(k) && !/[/\\]/.test(String(v))) continue;
      take(v, k === "edits" ? 0 : 1);
    }
  }
  for (const [k, { values, pathLike, folder }] of byKey) {
    if (known.includes(k) || NOT_FILES.has(k)) continue;
    if (pathLike && !(joined && folder)) for (const v of values) take(v, 1);
    // a list of operations or changes (`{"operations": [{"path": …}]}`): the files its items name (a list in
    // a list is read as an object of numbered items, a level deeper)
    else for (const v of values) for (const item of Array.isArray(v) ? v : [v]) nested(item);
  }
  function nested(v: unknown): void {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent: a string read as an object of its characters names no file
    if (!v || typeof v !== "object") return;
    if (depth + 1 > MAX_NESTING) {
      deeper ||= namesFiles(v);
      return;
    }
    const inner = namedPaths(v as Record<string, unknown>, depth + 1);
    out.push(...inner.paths);
    unreadable.push(...inner.unreadable);
    deeper ||= inner.deeper;
  }
  return { paths: [...new Set(out)], unresolved, unreadable, deeper };
}

/**
 * How deep into objects other keys hold the gate reads the files named; a file named deeper (`namesFiles`)
 * denies the call.
 */
export const MAX_NESTING = 4;
/** Deeper than this, a value is taken to name a file: nobody can tell. */
const MAX_SCAN = 64;

/** Whether a value names a file anywhere inside it: a key a path goes under, or a `file://` URI. */
function namesFiles(v: unknown, depth = 0): boolean {
  if (typeof v === "string") return v.startsWith("file://");
  // Stryker disable next-line ConditionalExpression: equivalent: a number's or a boolean's entries are none
  if (!v || typeof v !== "object") return false;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BooleanLiteral: unreachable from classifyTool, which takes an input this deep for a runner first (toolCall.ts givesRun); kept as the bound of the recursion
  if (depth > MAX_SCAN) return true;
  for (const [k, x] of Object.entries(v)) {
    const word = lastWord(k);
    if (k.startsWith("file://") || PATH_WORDS.has(word) || FOLDER_WORDS.has(word) || namesFiles(x, depth + 1)) return true;
  }
  return false;
}

/** A usable path: a non-empty string, a `file://` URI as its path. */
export function text(v: unknown): string | undefined {
  if (typeof v !== "string" || v === "") return undefined;
  if (!v.startsWith("file://")) return v;
  // Stryker disable BlockStatement: equivalent: the function ends after the catch, undefined either way
  try {
    return fileURLToPath(v);
  } catch {
    return undefined;
  }
  // Stryker restore BlockStatement
}
