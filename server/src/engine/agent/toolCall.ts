/*
 * What an agent's tool call is, for the gate, whatever the agent (docs/CLI.md and docs/AGENTS.md): Claude Code and Cursor name
 * their tools differently, MCP servers add their own, and names change between versions. So the rule is
 * about the call, not a list of one agent's names: a call that names a file is gated as a write unless the
 * tool is known to only read. An unknown writer slipping through would be worse than an unknown reader
 * being checked (fail closed).
 */
import { fileURLToPath } from "node:url";

export type ToolCall =
  /** Writes (or may write) this file: gated against the scope, then recorded after. */
  | {
      kind: "write";
      filePath: string;
      expectedHash?: string;
      otherPaths?: string[];
      /** What the tool also runs (a tool that runs something and names files): the shell policy judges it too. */
      runs?: string;
      /** The code it also runs (see the shell call's `code`). */
      runsCode?: string[];
    }
  /** A tool known to write files, called without naming one: denied, there is nothing to check. */
  | { kind: "write-without-path"; tool: string /** Why its files cannot be named, when more is known than "no path". */; why?: string }
  /** A shell command: the shell policy decides (its files are only known after it ran). */
  | {
      kind: "shell";
      command: string;
      /** Code or prose the tool runs or hands to a program (`code`, `query`, `input`, …): searched for our CLI and our files, not read as a shell's text. */
      code?: string[];
    }
  /** Reads only, or names no file: not the gate's business. */
  | { kind: "other" };

/** Tools that only read, by normalized name (see `normalizedToolName`), across Claude Code, Cursor and common MCP servers. */
const READERS = new Set([
  "read",
  "read_file",
  "read_text_file",
  "read_media_file",
  "read_multiple_files",
  // Kiro's reader names its files in a list of operations
  "fs_read",
  "notebook_read",
  "view",
  "grep",
  "grep_search",
  "glob",
  "ls",
  "list_dir",
  "list_directory",
  "list_directory_with_sizes",
  "list_files",
  "directory_tree",
  "file_search",
  "search_files",
  "codebase_search",
  "search",
  "get_file_info",
  "web_search",
  "web_fetch",
  "fetch",
]);

/** Tools known to write files; any other tool naming a file is gated too, these are also denied without one. */
const WRITERS = new Set(["write", "edit", "multi_edit", "notebook_edit", "write_file", "edit_file", "create_file", "delete_file", "search_replace"]);

/** Shell tools by normalized name: Claude Code's `Bash` and `PowerShell`, Cursor's, VS Code's terminal tools. */
const SHELLS = new Set([
  "bash",
  "power_shell",
  "powershell",
  "shell",
  "terminal",
  "run_terminal_cmd",
  "run_terminal_command",
  "run_in_terminal",
  "run_command",
]);

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
const PATH_WORDS = new Set(["path", "paths", "file", "files", "filename", "filenames", "filepath", "filepaths", "uri", "uris", "location"]);
// Stryker disable StringLiteral,MethodExpression: equivalent: empty pieces and a key of no words end in no word the sets hold
const lastWord = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[_\-\s]/)
    .filter(Boolean)
    .pop() ?? "";
// Stryker restore StringLiteral,MethodExpression
/** Inputs that carry changes without naming their files in a field: a patch or diff to apply. */
const PATCH_KEYS = ["patch", "diff", "input"] as const;
/** A tool name that says it changes files: a verb of change and a word for a file (`replace_file_text_by_path`). */
const CHANGE_VERB = /(^|_)(write|edit|create|replace|insert|delete|remove|move|rename|patch|apply|save|append|overwrite|update|modify|copy|mkdir|touch)(_|$)/;
const FILE_WORD = /(^|_)(file|files|notebook|dir|directory|folder|text|content|contents|code|lines?|symbol|body|path)(_|$)/;
/** Tool names that are a file system's own verbs: they change files whatever else the name says. */
const FS_VERB = /(^|_)(mkdir|touch|copy|cp|move|mv|rename|rm|rmdir|unlink|ln|symlink)(_|$)/;

/**
 * A tool that runs commands, processes or code (`start_process`, `execute_shell_command`, `executeCode`,
 * `run_script`): what it changes is known only after it ran, as a shell command's is, so it is one.
 */
const RUNS =
  /(^|_)(exec|execute|run|shell|terminal|process|command|cmd|script|eval|spawn|launch|interact|cell|evaluate|powershell|keys|sh|bash|zsh|fish|python\d*|ruby|perl|repl|ssh)(_|$)/;
/** Keys of a file a tool that runs something writes as it goes: its output, log, destination, or the notebook it runs. */
const OUTPUT_KEY = /^(output|out|log|dest|destination|save|notebook|result|report)/i;
/** A name that starts by running something (`run_tests`, `execute_cell`): it runs, whatever files it names. */
const RUNS_FIRST = /^(exec|execute|run|start|spawn|launch|eval|evaluate|interact|send)_/;
/** Where a tool puts the program it runs, and its arguments (`{"args": ["start"], "command": "intent"}`). */
const PROGRAM_KEYS = ["command", "cmd", "commandline", "program", "executable", "bin"];
const ARG_KEYS = ["args", "argv", "arguments"];
/** Keys that hold what a tool runs: a tool given one runs it, whatever its name says (`python {"code": …}`, `npm {"arguments": …}`). */
const RUN_KEYS = ["command", "cmd", "commandline", "script", "code", "pythoncode", "codesnippet", ...ARG_KEYS];
/**
 * Keys, by their last word, whose text is code or prose a tool runs or hands on (`code`, `query`, `input`,
 * `message`): searched for our CLI and our files, not read as a shell's text (`age > 30` redirects nothing).
 */
const CODE_WORDS = new Set([
  "code",
  "function",
  "query",
  "sql",
  "statement",
  "expression",
  "expr",
  "source",
  "snippet",
  "input",
  "stdin",
  "text",
  "body",
  "message",
  "content",
  "description",
  "title",
  "comment",
  "prompt",
  "cell",
]);
/** Keys, by their last word, that name where a command runs or what file it works on: read with the command, not as one. */
const PLACE_WORDS = new Set(["cwd", "workdir", "dir", "directory", "folder", "path", "file", "uri"]);
/** An agent's own shell tool's keys besides its command: they say how it runs, not what. */
const SHELL_SETTINGS = new Set(["description", "explanation", "timeout", "timeoutms", "isbackground", "runinbackground", "requiresapproval"]);
/**
 * A name that says the tool reads (`get_file_contents`, `list_commits`, `read_resource`, `search_code`):
 * whatever it names, it changes nothing, here or anywhere.
 */
const READ_VERB = /^(get|list|search|read|view|find|fetch|query|describe|show|inspect|lookup|count|preview)_/;
/** A tool that drives git (`git_checkout`, `git_reset`): it rewrites the working tree as that git command does. */
const GIT_TOOL = /^git_([a-z]+(?:_[a-z]+)*)$/;
/**
 * A refactoring across files (`rename_symbol`, `rename_refactoring`, `move_symbol`): it changes every file
 * that refers to what it names, which no argument says.
 */
const REFACTORS = /(^|_)(rename_symbol|rename_refactoring|refactor|refactoring|move_symbol|change_signature|safe_delete|inline_symbol|extract_method)(_|$)/;

/** Text editor tools (Anthropic's, Goose's): their `command` says what they do, and `view` only reads. */
const TEXT_EDITORS = new Set(["str_replace_editor", "str_replace_based_edit_tool", "text_editor"]);
/** What editing tools' `command` says they do to a file (Anthropic's text editor, Kiro's `fs_write`, Goose's `text_editor`). */
const EDIT_OPERATIONS = new Set(["view", "create", "write", "str_replace", "strreplace", "insert", "append", "undo_edit"]);
/**
 * MCP servers of code hosts by the name they are configured under (`mcp__github__…`): a call that names a
 * repository there (`owner` and `repo`) names the files of that repository by `path` or `files`, not files
 * here. The server's name is the user's configuration, so an agent cannot make a local tool one of these.
 */
const CODE_HOST_TOOL = /^mcp__(github|gitlab|gitea|bitbucket)([-_][a-z0-9-]*)?__[a-z]/i;
const REMOTE_FILE_KEYS = new Set(["path", "paths", "files", "filepath"]);

export function classifyTool(name: string, input: Record<string, unknown>): ToolCall {
  const tool = normalizedToolName(name);
  // an agent's own shell tool gives its command as a string, beside how it runs (an MCP server's, or one given a
  // folder or input, is read as every running tool is: `run_command {command, stdin}`)
  const ownShell =
    SHELLS.has(tool) &&
    !name.includes("__") &&
    typeof input["command"] === "string" &&
    Object.keys(input).every((k) => k === "command" || SHELL_SETTINGS.has(k.replace(/[_\-\s]/g, "").toLowerCase()));
  if (ownShell) return { kind: "shell", command: input["command"] as string };
  if (READERS.has(tool)) return { kind: "other" };
  if (TEXT_EDITORS.has(tool) && input["command"] === "view") return { kind: "other" };
  const byKey = new Map(Object.entries(input).map(([k, v]) => [k.replace(/[_\-\s]/g, "").toLowerCase(), v]));
  // (an editing tool's `command` is what it does to the file it names: Kiro's `fs_write {"command": "create"}`)
  const operation = typeof input["command"] === "string" && EDIT_OPERATIONS.has(input["command"].toLowerCase());
  const runs =
    !TEXT_EDITORS.has(tool) &&
    (SHELLS.has(tool) || RUNS.test(tool) || RUN_KEYS.some((k) => !(k === "command" && operation) && stringsOf(byKey.get(k))?.length !== 0));
  // a name that says it reads reads (unless it also says it changes something: `search_replace`,
  // `find_and_replace`, `read_and_write_file`, or runs something: `read_and_run`)
  if (!runs && READ_VERB.test(tool) && !WRITERS.has(tool) && !CHANGE_VERB.test(tool) && !FS_VERB.test(tool)) return { kind: "other" };
  const tooDeep = (what: string): ToolCall => ({
    kind: "write-without-path",
    tool: name,
    why: `${name}'s ${what} deeper than intent-lsp reads (${MAX_NESTING} levels), so what it does cannot be judged. Give them as plain values, or ask the user.`,
  });
  // the git command with the arguments it was given (`git_diff {"target": "--output=…"}` writes a file), all
  // of them and each on its own (one value cannot end the command before another: `{"note": "a;b", …}`)
  const git = GIT_TOOL.exec(tool);
  if (git) {
    const args = stringsOf(input);
    if (!args) return tooDeep("arguments are nested");
    // its words quoted where a shell would split them (`{"message": "explain \`intent start\`"}` is one word);
    // a verb of several words both ways (`git_reset_hard`: `git reset hard`, `git_cherry_pick`: `git cherry-pick`)
    const words = args.map((a) => (/^[\w./:=@%+,-]*$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`));
    const verbs = [...new Set([`git ${git[1]!.replaceAll("_", "-")}`, `git ${git[1]!.replaceAll("_", " ")}`])];
    return { kind: "shell", command: verbs.flatMap((verb) => [[verb, ...words].join(" "), ...words.map((a) => `${verb} ${a}`)]).join("\n") };
  }
  // a code host's tool changes files of a repository there: only what else it names is judged
  const remote = onCodeHost(name, input);
  const local = remote ? (withoutRemoteFiles(input) as Record<string, unknown>) : input;
  const { paths, unresolved, unreadable, deeper } = namedPaths(local);
  if (runs) {
    const given = runText(tool, byKey, input);
    if (given === undefined) return tooDeep("inputs are nested");
    const { command, code } = given;
    // one that names files (`update_process_notes {path, content}`, `shell_exec {commands, log_file}`) is
    // judged by those files and by what it runs; one named for running first (`run_tests {path}`) runs the
    // files it names, and writes only those it names as its output (`run_and_save {output_file}`)
    const first = RUNS_FIRST.test(tool) || SHELLS.has(tool);
    const written = first ? namedPaths(Object.fromEntries(Object.entries(local).filter(([k]) => OUTPUT_KEY.test(k.replace(/[_\-\s]/g, ""))))).paths : paths;
    if (!written.length) return { kind: "shell", command, ...(code.length ? { code } : {}) };
    if (first)
      return {
        kind: "write",
        filePath: written[0]!,
        ...(written.length > 1 ? { otherPaths: written.slice(1) } : {}),
        runs: command,
        ...(code.length ? { runsCode: code } : {}),
      };
    if (!unreadable.length && !deeper)
      return {
        kind: "write",
        filePath: paths[0]!,
        ...(paths.length > 1 ? { otherPaths: paths.slice(1) } : {}),
        runs: command,
        ...(code.length ? { runsCode: code } : {}),
      };
  }
  if (REFACTORS.test(tool))
    return {
      kind: "write-without-path",
      tool: name,
      why: `${name} changes every file that refers to what it names, and which files those are cannot be told before it runs; intent-lsp lets agents write only files it can judge first. Make the change with edit tools, file by file, or ask the user.`,
    };
  // files named deeper than the gate reads (`{"request": {"params": {"edit": …}}}`): which, nobody can judge
  if (deeper) return tooDeep("files are named");
  // a file the gate cannot read, alone or beside those it can: what that one is, nobody can judge
  if (unreadable.length)
    return {
      kind: "write-without-path",
      tool: name,
      why: `${name} names ${unreadable[0]} where a file belongs, which intent-lsp cannot read as a path in this workspace${paths.length ? ` (beside ${paths[0]})` : ""}; it lets agents write only files it can judge. Name every file by a plain path, or ask the user.`,
    };
  if (!paths.length) {
    if (remote) return { kind: "other" };
    // a patch as text, or as a list of its lines (one nested too deep to read may be one)
    const patch = PATCH_KEYS.some((k) => {
      const lines = stringsOf(input[k]);
      return lines === undefined || /^(\*\*\*|---|\+\+\+|diff --git)/m.test(lines.join("\n"));
    });
    // A call that may write a file we cannot name is never left undecided (the gate denies it).
    const writes = WRITERS.has(tool) || patch || unresolved || FS_VERB.test(tool) || (CHANGE_VERB.test(tool) && FILE_WORD.test(tool));
    return writes ? { kind: "write-without-path", tool: name } : { kind: "other" };
  }
  const [filePath, ...otherPaths] = paths;
  const expectedHash = text(input["expected_hash"]) ?? text(input["expected_content_hash"]);
  return { kind: "write", filePath: filePath!, ...(otherPaths.length ? { otherPaths } : {}), ...(expectedHash ? { expectedHash } : {}) };
}

/**
 * The call as its post hook records it: a tool that runs something and names files as the shell command it
 * is (the snapshot taken before it covers the files it names, and whatever else it changed).
 */
export function recordedAs(call: ToolCall): ToolCall {
  return call.kind === "write" && call.runs !== undefined ? { kind: "shell", command: call.runs, ...(call.runsCode ? { code: call.runsCode } : {}) } : call;
}

/**
 * Every file a tool input names, known keys first, each once (a move names two; an edit list many), and
 * whether a key that should name a file holds something that is not a usable path (a number, an empty
 * string, an object without one).
 */
function namedPaths(input: Record<string, unknown>, depth = 0): { paths: string[]; unresolved: boolean; unreadable: string[]; deeper: boolean } {
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
    const k = key.replace(/[_\-\s]/g, "").toLowerCase();
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
const MAX_NESTING = 4;
/** Deeper than this, a value is taken to name a file: nobody can tell. */
const MAX_SCAN = 64;

/** Whether a value names a file anywhere inside it: a key a path goes under, or a `file://` URI. */
function namesFiles(v: unknown, depth = 0): boolean {
  if (typeof v === "string") return v.startsWith("file://");
  // Stryker disable next-line ConditionalExpression: equivalent: a number's or a boolean's entries are none
  if (!v || typeof v !== "object") return false;
  if (depth > MAX_SCAN) return true;
  for (const [k, x] of Object.entries(v)) {
    const word = lastWord(k);
    if (k.startsWith("file://") || PATH_WORDS.has(word) || FOLDER_WORDS.has(word) || namesFiles(x, depth + 1)) return true;
  }
  return false;
}

/** A code host's call without the keys that name its repository's files, at any depth (a review's `comments[].path`). */
function withoutRemoteFiles(v: unknown): unknown {
  // Stryker disable next-line ConditionalExpression: equivalent: a list read as an object of numbered items names the same files
  if (Array.isArray(v)) return v.map(withoutRemoteFiles);
  if (!v || typeof v !== "object") return v;
  return Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (REMOTE_FILE_KEYS.has(k.toLowerCase()) ? [] : [[k, withoutRemoteFiles(x)]])));
}

/** Whether a call is an MCP code host's (CODE_HOST_TOOL) naming a repository there. */
function onCodeHost(name: string, input: Record<string, unknown>): boolean {
  return CODE_HOST_TOOL.test(name) && typeof input["owner"] === "string" && typeof input["repo"] === "string";
}

/**
 * `MultiEdit` → `multi_edit`, `mcp__filesystem__write_file` → `write_file`: MCP tools are named
 * `mcp__<server>__<tool>` and are judged by their own name.
 */
function normalizedToolName(name: string): string {
  const own = name.includes("__") ? name.slice(name.lastIndexOf("__") + 2) : name;
  return own
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[-\s]+/g, "_")
    .toLowerCase();
}

/**
 * Every string a tool input holds (a git tool's arguments, read as the command's words); undefined when some
 * are nested deeper than MAX_NESTING objects or lists, where the gate does not read.
 */
function stringsOf(v: unknown, depth = 0): string[] | undefined {
  if (typeof v === "string") return [v];
  // Stryker disable next-line ConditionalExpression: equivalent: a number's or a boolean's values are none
  if (!v || typeof v !== "object") return [];
  if (depth > MAX_NESTING) return undefined;
  const out: string[] = [];
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    const inner = stringsOf(x, depth + 1);
    if (!inner) return undefined;
    out.push(...inner);
  }
  return out;
}

/**
 * What a running tool is given, as the shell policy reads it. Its command, one per line: its program (the
 * tool's own name when it gives none: `npm {"arguments": […]}`) and arguments; every string it holds joined
 * as they come, and again with its arguments last (a program and its arguments may be under any keys:
 * `{"args": […], "bin": "intent"}`); the keys it types joined as typed; and each string alone that does not
 * say where it runs (`cwd` is read with the command, not as one: so a command run in `.orchestration` names
 * it). Its code: the strings under keys of code or prose (CODE_WORDS). Undefined when strings are nested
 * deeper than the gate reads.
 */
function runText(tool: string, byKey: ReadonlyMap<string, unknown>, input: Record<string, unknown>): { command: string; code: string[] } | undefined {
  if (stringsOf(input) === undefined) return undefined;
  const shellText: string[] = [];
  const alone: string[] = [];
  const code: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    const strings = stringsOf(value) ?? [];
    const word = lastWord(key);
    if (CODE_WORDS.has(word)) code.push(...strings);
    else {
      shellText.push(...strings);
      if (!PLACE_WORDS.has(word)) alone.push(...strings);
    }
  }
  const of = (keys: readonly string[]) => keys.flatMap((k) => stringsOf(byKey.get(k)) ?? []);
  const program = of(PROGRAM_KEYS);
  const args = of(ARG_KEYS);
  const lines = [
    [...(program.length || !args.length ? program : [tool]), ...args].join(" "),
    shellText.join(" "),
    [...shellText.filter((s) => !args.includes(s)), ...args].join(" "),
    of(["keys"]).join(""),
    ...alone,
  ];
  return { command: [...new Set(lines.filter(Boolean))].join("\n"), code };
}

/** A usable path: a non-empty string, a `file://` URI as its path. */
function text(v: unknown): string | undefined {
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
