/*
 * What an agent's tool call is, for the gate, whatever the agent (docs/CLI.md and docs/AGENTS.md): Claude Code and Cursor name
 * their tools differently, MCP servers add their own, and names change between versions. So the rule is
 * about the call, not a list of one agent's names: a call that names a file is gated as a write unless the
 * tool is known to only read. An unknown writer slipping through would be worse than an unknown reader
 * being checked (fail closed).
 */
import { lastWord, MAX_NESTING, namedPaths, text, wholeKey } from "./toolPaths";
import { ARG_KEYS, runText, stringsOf } from "./toolRuns";

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
  /(^|_)(exec|execute|run|shell|terminal|process|command|cmd|script|eval|spawn|launch|interact|cell|evaluate|powershell|keys|input|computer|sh|bash|zsh|fish|python\d*|ruby|perl|repl|ssh)(_|$)/;
/** Keys of a file a tool that runs something writes as it goes: its output, log, destination, or the notebook it runs. */
const OUTPUT_KEY = /^(output|out|log|dest|destination|save|notebook|result|report)/i;
/** A name that starts by running something (`run_tests`, `execute_cell`): it runs, whatever files it names. */
const RUNS_FIRST = /^(exec|execute|run|start|spawn|launch|eval|evaluate|interact|send)_/;
/**
 * Keys, by their last word, that hold what a tool runs: a tool given one, at any depth the gate reads, runs it
 * whatever its name says (`npm {"arguments": …}`, `batch {"commands": […]}`, `pipeline {"steps": [{"cmd": …}]}`).
 */
const RUN_WORDS = new Set(["command", "commands", "cmd", "cmds", "commandline", "script", "scripts", "exec", "run", "keys", ...ARG_KEYS]);
/** Keys of code a tool runs, by their whole name only (`country_code` is no code). */
const CODE_KEYS = new Set(["code", "pythoncode", "sourcecode", "codesnippet", "jscode", "javascriptcode", "shellcode"]);
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
    Object.keys(input).every((k) => k === "command" || SHELL_SETTINGS.has(wholeKey(k)));
  if (ownShell) return { kind: "shell", command: input["command"] as string };
  if (READERS.has(tool)) return { kind: "other" };
  if (TEXT_EDITORS.has(tool) && input["command"] === "view") return { kind: "other" };
  const byKey = new Map(Object.entries(input).map(([k, v]) => [wholeKey(k), v]));
  const runs = !TEXT_EDITORS.has(tool) && (SHELLS.has(tool) || RUNS.test(tool) || givesRun(input));
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
    const written = first ? namedPaths(Object.fromEntries(Object.entries(local).filter(([k]) => OUTPUT_KEY.test(wholeKey(k))))).paths : paths;
    if (!written.length) return { kind: "shell", command, ...(code.length ? { code } : {}) };
    // (a file it names that cannot be read denies it below; one named too deep was denied with its input)
    if (first || !unreadable.length)
      return {
        kind: "write",
        filePath: written[0]!,
        ...(written.length > 1 ? { otherPaths: written.slice(1) } : {}),
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

/** Deeper than this, a value is taken to hold something to run: nobody can tell. */
const MAX_SCAN = 64;

/**
 * Whether a tool input holds something to run under a key that says so (RUN_WORDS, CODE_KEYS), at any depth:
 * one nested deeper than the gate reads counts (the runner is denied then). An editing tool's `command` that names an
 * edit (Kiro's `fs_write {"command": "create"}`) is what it does to the file, not a command.
 */
function givesRun(input: Record<string, unknown>, depth = 0): boolean {
  for (const [key, value] of Object.entries(input)) {
    const whole = wholeKey(key);
    const operation = whole === "command" && typeof value === "string" && EDIT_OPERATIONS.has(value.toLowerCase());
    if ((RUN_WORDS.has(lastWord(key)) || RUN_WORDS.has(whole) || CODE_KEYS.has(whole)) && !operation && stringsOf(value)?.length !== 0) return true;
    // (deeper than the gate reads, it is denied as a runner whose input is nested too deep)
    if (value && typeof value === "object" && (depth >= MAX_SCAN || givesRun(value as Record<string, unknown>, depth + 1))) return true;
  }
  return false;
}

/**
 * The call as its post hook records it: a tool that runs something and names files as the shell command it
 * is (the snapshot taken before it covers the files it names, and whatever else it changed).
 */
export function recordedAs(call: ToolCall): ToolCall {
  return call.kind === "write" && call.runs !== undefined ? { kind: "shell", command: call.runs, ...(call.runsCode ? { code: call.runsCode } : {}) } : call;
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
