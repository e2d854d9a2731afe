import { describe, expect, it } from "vitest";
import { classifyTool, type ToolCall } from "../../server/src/engine/agent/toolCall";
import { gateShell } from "../../server/src/engine/agent/shellPolicy";

/**
 * What the gate makes of a tool call (engine/agent/toolCall.ts), one row per rule: the tool, its input, and
 * the call it is judged as. A row whose `why` is given expects a denial whose reason holds that text.
 */
type Row = [what: string, tool: string, input: Record<string, unknown>, call: ToolCall | { kind: "write-without-path"; whyHas: string }];

/** Objects `n` levels deep under `key`, the last naming `src/a.ts`. */
const deep = (n: number, key = "ops"): Record<string, unknown> => (n === 0 ? { path: "src/a.ts" } : { [key]: [deep(n - 1, key)] });
const nestedValue = (n: number): unknown => (n === 0 ? "--output=.orchestration/active_intents.yaml" : { v: nestedValue(n - 1) });
/** Code a running tool is given, as the shell policy reads it: a shell's text, then an interpreter's. */
const code = (c: string) => `${c}\npython3 -c '${c.replaceAll("'", "'\\''")}'`;

const ROWS: Row[] = [
  // where files are named
  ["a key whose last word, in camelCase, names a file", "generate_report", { outputFile: "docs/r.md" }, { kind: "write", filePath: "docs/r.md" }],
  [
    "the hash a writer expects, under either key",
    "Write",
    { file_path: "src/a.ts", expected_content_hash: "sha256:ab" },
    { kind: "write", filePath: "src/a.ts", expectedHash: "sha256:ab" },
  ],
  ["a location that reads as a path", "save_note", { location: "notes.md" }, { kind: "write", filePath: "notes.md" }],
  ["a location in folders", "save_note", { location: "docs/notes.md" }, { kind: "write", filePath: "docs/notes.md" }],
  ["a location that is a place", "weather_report", { location: "Paris" }, { kind: "other" }],
  ["a location with a dot inside", "book_room", { location: "room 10.30 east" }, { kind: "other" }],
  ["a location that is a number", "book_room", { location: 5.5 }, { kind: "other" }],
  [
    "a folder and a name: the two joined, the folder's slashes once",
    "create_in_folder",
    { directory: "docs//", filename: "a.md" },
    { kind: "write", filePath: "docs/a.md" },
  ],
  [
    "a folder under a key of its own word and a name: only the file",
    "make_note",
    { target_directory: "docs", filename: "a.md" },
    { kind: "write", filePath: "docs/a.md" },
  ],
  [
    "a name with folders in it beside a folder: both readings are judged",
    "create_in_folder",
    { directory: "docs", filename: "sub/a.md" },
    { kind: "write", filePath: "docs/sub/a.md", otherPaths: ["sub/a.md"] },
  ],
  ["an edit list reads one level deeper than other lists", "multi_edit_files", { edits: [[{ path: "src/a.ts" }]] }, { kind: "write", filePath: "src/a.ts" }],
  ["a list of lists of operations", "do_ops", { operations: [[{ path: "src/a.ts" }]] }, { kind: "write", filePath: "src/a.ts" }],
  ["operations four levels deep", "do_ops", deep(4), { kind: "write", filePath: "src/a.ts" }],
  ["operations five levels deep are not a tool's arguments", "do_ops", deep(5), { kind: "other" }],
  ["a list of operations holding nothing", "do_ops", { ops: [null, "docs/a.md", 3] }, { kind: "other" }],
  ["a folder under a key of its own word, alone", "scaffold", { outputDir: "docs" }, { kind: "write", filePath: "docs" }],
  // files of a repository elsewhere, and reads by a tool that also writes
  [
    "a code host's write to its repository",
    "mcp__github__create_or_update_file",
    { owner: "o", repo: "r", path: "docs/x.md", content: "x", branch: "b" },
    { kind: "other" },
  ],
  [
    "a code host's push of files",
    "mcp__github__push_files",
    { owner: "o", repo: "r", branch: "b", files: [{ path: "docs/x.md", content: "x" }] },
    { kind: "other" },
  ],
  [
    "a code host's tool naming a file here too",
    "mcp__gitlab-ce__download_file",
    { owner: "o", repo: "r", path: "a.md", destination: "docs/x.md" },
    { kind: "write", filePath: "docs/x.md" },
  ],
  [
    "a code host's tool without its repository",
    "mcp__github__create_or_update_file",
    { path: "docs/x.md", content: "x" },
    { kind: "write", filePath: "docs/x.md" },
  ],
  [
    "a local server's tool given a repository's keys",
    "mcp__filesystem__write_file",
    { path: "docs/x.md", owner: "o", repo: "r" },
    { kind: "write", filePath: "docs/x.md" },
  ],
  [
    "a code host's tool naming its owner only",
    "mcp__github__create_or_update_file",
    { owner: "o", path: "docs/x.md" },
    { kind: "write", filePath: "docs/x.md" },
  ],
  [
    "a code host's tool naming its repository only",
    "mcp__github__create_or_update_file",
    { repo: "r", path: "docs/x.md" },
    { kind: "write", filePath: "docs/x.md" },
  ],
  [
    "a tool named like a code host's, not an MCP server's",
    "github__create_or_update_file",
    { owner: "o", repo: "r", path: "docs/x.md" },
    { kind: "write", filePath: "docs/x.md" },
  ],
  [
    "a server named like a code host, within a longer name",
    "mcp__mygithub__write_file",
    { path: "docs/x.md", owner: "o", repo: "r" },
    { kind: "write", filePath: "docs/x.md" },
  ],
  ["a text editor viewing", "str_replace_based_edit_tool", { command: "view", path: "docs/x.md" }, { kind: "other" }],
  [
    "a text editor replacing",
    "str_replace_editor",
    { command: "str_replace", path: "docs/x.md", old_str: "a", new_str: "b" },
    { kind: "write", filePath: "docs/x.md" },
  ],
  // what cannot be read as a file denies the call
  [
    "a file:// URI of another host, alone",
    "apply_workspace_edit",
    { "file://otherhost/src/a.ts": [] },
    {
      kind: "write-without-path",
      whyHas: "names file://otherhost/src/a.ts where a file belongs, which intent-lsp cannot read as a path in this workspace; it lets agents",
    },
  ],
  [
    "a number beside a path",
    "mcp__x__frob",
    { path: "src/a.ts", target: 42 },
    { kind: "write-without-path", whyHas: "names 42 where a file belongs, which intent-lsp cannot read as a path in this workspace (beside src/a.ts)" },
  ],
  [
    "a list nested deeper than paths are read",
    "mcp__x__frob",
    { path: "src/a.ts", files: [[["docs/b.md"]]] },
    { kind: "write-without-path", whyHas: "names a list nested deeper than the gate reads" },
  ],
  [
    "an object under a path key naming its file deeper than the gate reads",
    "mcp__x__frob",
    { target: deep(4) },
    { kind: "write-without-path", tool: "mcp__x__frob" },
  ],
  ["a folder that is no path, beside a name", "make_note", { dir: 5, name: "a.md" }, { kind: "write-without-path", whyHas: "names 5 where a file belongs" }],
  [
    "a name that is no path, beside a folder",
    "make_note",
    { dir: "docs", name: false },
    { kind: "write-without-path", whyHas: "names false where a file belongs" },
  ],
  // patches
  ["a patch that names its files only inside", "frobnicate", { patch: "--- a/x\n+++ b/x\n" }, { kind: "write-without-path", tool: "frobnicate" }],
  ["a patch as a list of its lines", "frobnicate", { diff: ["a preface", "--- a/x", "+++ b/x"] }, { kind: "write-without-path", tool: "frobnicate" }],
  ["a patch nested too deep to read", "frobnicate", { patch: nestedValue(6) }, { kind: "write-without-path", tool: "frobnicate" }],
  ["text that is no patch", "translate_text", { input: "a --- b" }, { kind: "other" }],
  ["a known writer's name spaced twice, naming no file", "Multi  Edit", {}, { kind: "write-without-path", tool: "Multi  Edit" }],
  // what runs
  ["a shell tool without a command", "Bash", {}, { kind: "shell", command: "" }],
  ["a tool name spaced twice", "Run  Command", { command: "ls" }, { kind: "shell", command: "ls" }],
  ["a running tool given a command and a file: the command", "shell_exec", { command: "npm test", path: "src/a.ts" }, { kind: "shell", command: "npm test" }],
  ["a running tool given only a file: the file", "update_process_notes", { path: "docs/n.md" }, { kind: "write", filePath: "docs/n.md" }],
  [
    "a program and its arguments: one command",
    "start_process",
    { command: "intent", args: ["start", "INT-3"] },
    { kind: "shell", command: "intent start INT-3" },
  ],
  ["arguments that are no words are left out", "start_process", { command: "ls", args: ["-la", { x: 1 }, 2] }, { kind: "shell", command: "ls -la" }],
  ["a command, then code", "execute_command", { command: "python3", code: "print(1)" }, { kind: "shell", command: `python3\n${code("print(1)")}` }],
  ["code: a shell's text and an interpreter's", "execute_code", { code: "print('it''s')" }, { kind: "shell", command: code("print('it''s')") }],
  // git tools
  [
    "a git tool's arguments at any depth the gate reads",
    "git_diff",
    nestedValue(4) as Record<string, unknown>,
    { kind: "shell", command: "git diff --output=.orchestration/active_intents.yaml" },
  ],
  [
    "a git tool's arguments one level deeper still",
    "git_diff",
    nestedValue(5) as Record<string, unknown>,
    { kind: "shell", command: "git diff --output=.orchestration/active_intents.yaml" },
  ],
  [
    "a git tool's arguments nested deeper",
    "git_diff",
    nestedValue(6) as Record<string, unknown>,
    { kind: "write-without-path", whyHas: "arguments are nested deeper than intent-lsp reads (4 levels)" },
  ],
  ["a git tool's empty arguments", "git_status", { repo_path: ".", branch: null, all: true }, { kind: "shell", command: "git status ." }],
];

describe("classifyTool, rule by rule", () => {
  it.each(ROWS)("%s", (_what, tool, input, call) => {
    const got = classifyTool(tool, input);
    if ("whyHas" in call) {
      expect(got).toMatchObject({ kind: "write-without-path", tool });
      expect(got.kind === "write-without-path" && got.why).toContain(call.whyHas);
    } else expect(got).toEqual(call);
  });

  it("our CLI run by a process tool, or from code a tool runs, is put to the user", () => {
    for (const [tool, input] of [
      ["start_process", { command: "intent", args: ["start", "INT-3"] }],
      ["execute_code", { code: "import subprocess; subprocess.run(['intent', 'start', 'X'])" }],
      ["execute_code", { language: "python", code: "import os\nos.system('intent select INT-2')" }],
      ["run_script", { script: "echo x > .orchestration/active_intents.yaml" }],
    ] as const) {
      const call = classifyTool(tool, input);
      expect(call.kind, tool).toBe("shell");
      expect(call.kind === "shell" && gateShell(call.command).code, `${tool} ${JSON.stringify(input)}`).toBe("rule-command");
    }
    const harmless = classifyTool("execute_code", { code: "print('hello')" });
    expect(harmless.kind === "shell" && gateShell(harmless.command).code).toBe("shell-read-only");
  });
});
