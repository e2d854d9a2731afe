/*
 * What an agent's tool call is, for the gate, whatever the agent (README "The CLI" and "Agents"): Claude Code and Cursor name
 * their tools differently, MCP servers add their own, and names change between versions. So the rule is
 * about the call, not a list of one agent's names: a call that names a file is gated as a write unless the
 * tool is known to only read. An unknown writer slipping through would be worse than an unknown reader
 * being checked (fail closed).
 */

export type ToolCall =
  /** Writes (or may write) this file: gated against the scope, then recorded after. */
  | { kind: "write"; filePath: string; expectedHash?: string; otherPaths?: string[] }
  /** A tool known to write files, called without naming one: denied, there is nothing to check. */
  | { kind: "write-without-path"; tool: string }
  /** A shell command: the shell policy decides (its files are only known after it ran). */
  | { kind: "shell"; command: string }
  /** Reads only, or names no file: not the gate's business. */
  | { kind: "other" };

/** Tools that only read, by normalized name (see `normalizedToolName`), across Claude Code, Cursor and common MCP servers. */
const READERS = new Set([
  "read",
  "read_file",
  "read_text_file",
  "read_media_file",
  "read_multiple_files",
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

const SHELLS = new Set(["bash", "shell", "terminal", "run_terminal_cmd", "run_command"]);

/**
 * Where tools put the files they act on: Claude Code `file_path`/`notebook_path`, Cursor `target_file`, MCP
 * `path`, moves and renames `source`/`destination` (`old_path`/`new_path`), and lists of them.
 */
const PATH_KEYS = ["file_path", "notebook_path", "target_file", "path", "source", "destination", "old_path", "new_path"] as const;
const PATH_LIST_KEYS = ["paths", "files"] as const;
/** Inputs that carry changes without naming their files in a field: a patch or diff to apply. */
const PATCH_KEYS = ["patch", "diff", "input"] as const;

export function classifyTool(name: string, input: Record<string, unknown>): ToolCall {
  const tool = normalizedToolName(name);
  if (SHELLS.has(tool)) return { kind: "shell", command: text(input["command"]) ?? "" };
  if (READERS.has(tool)) return { kind: "other" };
  const paths = namedPaths(input);
  if (!paths.length) {
    const patch = PATCH_KEYS.some((k) => typeof input[k] === "string" && /^(\*\*\*|---|\+\+\+|diff --git)/m.test(input[k] as string));
    return WRITERS.has(tool) || patch ? { kind: "write-without-path", tool: name } : { kind: "other" };
  }
  const [filePath, ...otherPaths] = paths;
  const expectedHash = text(input["expected_hash"]) ?? text(input["expected_content_hash"]);
  return { kind: "write", filePath: filePath!, ...(otherPaths.length ? { otherPaths } : {}), ...(expectedHash ? { expectedHash } : {}) };
}

/** Every file a tool input names, in field order, each once (a move names two; an edit list many). */
function namedPaths(input: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of PATH_KEYS) out.push(...[text(input[k])].filter((p): p is string => p !== undefined));
  for (const k of PATH_LIST_KEYS) if (Array.isArray(input[k])) out.push(...(input[k] as unknown[]).map(text).filter((p): p is string => p !== undefined));
  if (Array.isArray(input["edits"])) for (const e of input["edits"] as unknown[]) if (e && typeof e === "object") out.push(...[text((e as Record<string, unknown>)["path"])].filter((p): p is string => p !== undefined));
  return [...new Set(out)];
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

function text(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}
