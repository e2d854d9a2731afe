import { describe, expect, it } from "vitest";
import { classifyTool, recordedAs, type ToolCall } from "../../server/src/engine/agent/toolCall";
import { gateShell } from "../../server/src/engine/agent/shellPolicy";

/**
 * What the gate makes of a tool call (engine/agent/toolCall.ts), one row per rule: the tool, its input, and
 * the call it is judged as. A row whose `why` is given expects a denial whose reason holds that text.
 */
type Row = [what: string, tool: string, input: Record<string, unknown>, call: ToolCall | { kind: "write-without-path"; whyHas: string }];

/** Objects `n` levels deep under `key`, the last naming `src/a.ts`. */
const deep = (n: number, key = "ops"): Record<string, unknown> => (n === 0 ? { path: "src/a.ts" } : { [key]: [deep(n - 1, key)] });
const nestedValue = (n: number): unknown => (n === 0 ? "--output=.orchestration/active_intents.yaml" : { v: nestedValue(n - 1) });
/** Objects `n` levels deep, naming nothing. */
const levels = (n: number): Record<string, unknown> => (n === 0 ? {} : { a: levels(n - 1) });

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
  [
    "operations five levels deep name a file the gate does not read",
    "do_ops",
    deep(5),
    { kind: "write-without-path", whyHas: "do_ops's files are named deeper than intent-lsp reads (4 levels)" },
  ],
  ["objects five levels deep that name no file", "do_ops", { a: { b: { c: { d: { e: { title: "x", url: "https://x" } } } } } }, { kind: "other" }],
  [
    "a workspace edit wrapped in a request",
    "mcp__lsp__apply_workspace_edit",
    { request: { params: { edit: { documentChanges: [{ textDocument: { uri: "file:///ws/docs/x.md" }, edits: [{ newText: "x" }] }] } } } },
    { kind: "write-without-path", whyHas: "files are named deeper than intent-lsp reads" },
  ],
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
    "a code host's review commenting on its files",
    "mcp__github__create_pull_request_review",
    { owner: "o", repo: "r", pull_number: 3, event: "COMMENT", body: "x", comments: [{ path: "src/auth/m.ts", line: 3, body: "nit" }] },
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
  ["Goose's text editor viewing", "developer__text_editor", { command: "view", path: "docs/x.md" }, { kind: "other" }],
  ["Goose's text editor writing", "developer__text_editor", { command: "write", path: "docs/x.md", file_text: "x" }, { kind: "write", filePath: "docs/x.md" }],
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
    { kind: "write-without-path", whyHas: "files are named deeper than intent-lsp reads" },
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
  // what is nested too deep to judge
  [
    "a file URI deeper than the gate reads",
    "do_ops",
    { a: { b: { c: { d: { e: { x: "file:///ws/docs/x.md" } } } } } },
    { kind: "write-without-path", whyHas: "files are named deeper" },
  ],
  [
    "a file URI as a key deeper than the gate reads",
    "do_ops",
    { a: { b: { c: { d: { e: { "file:///ws/docs/x.md": [] } } } } } },
    { kind: "write-without-path", whyHas: "files are named deeper" },
  ],
  [
    "text deeper than the gate reads that only mentions a URI",
    "do_ops",
    { a: { b: { c: { d: { e: { x: "see file://", y: null, z: 3 } } } } } },
    { kind: "other" },
  ],
  ["objects nested deep, naming nothing and running nothing", "do_ops", levels(60), { kind: "other" }],
  ["objects nested deeper than the gate scans", "do_ops", levels(70), { kind: "write-without-path", whyHas: "do_ops's inputs are nested deeper" }],
  [
    "a command nested deeper than the gate reads",
    "mcp__x__frob",
    { a: { b: { c: { d: { e: { f: { cmd: "intent start INT-2" } } } } } } },
    { kind: "write-without-path", whyHas: "mcp__x__frob's inputs are nested deeper" },
  ],
  ["a running tool's code nested deeper", "frob", { code: nestedValue(6) }, { kind: "write-without-path", whyHas: "frob's inputs are nested deeper" }],
  [
    "a running tool's file nested deeper",
    "mcp__x__shell_exec",
    { cmd_line: "ls", log_file: "src/a.ts", opts: deep(5) },
    { kind: "write-without-path", whyHas: "inputs are nested deeper" },
  ],
  [
    "a running tool's file that is no path",
    "mcp__x__shell_exec",
    { cmd_line: "ls", log_file: "src/a.ts", output_path: 42 },
    { kind: "write-without-path", whyHas: "names 42 where a file belongs" },
  ],
  [
    "a git tool's arguments nested deeper",
    "git_diff",
    nestedValue(6) as Record<string, unknown>,
    { kind: "write-without-path", whyHas: "git_diff's arguments are nested deeper than intent-lsp reads (4 levels)" },
  ],
  [
    "a running tool's inputs nested deeper",
    "start_process",
    { command: "ls", opts: nestedValue(6) },
    { kind: "write-without-path", whyHas: "start_process's inputs are nested deeper than intent-lsp reads" },
  ],
  [
    "an editing tool's command says what it does to the file",
    "fs_write",
    { command: "create", path: "src/a.ts", file_text: "x" },
    { kind: "write", filePath: "src/a.ts" },
  ],
  ["a reader's input named command", "search", { command: "intent start INT-3" }, { kind: "other" }],
  ["an empty argument list runs nothing", "mcp__x__frob", { args: [], path: "src/a.ts" }, { kind: "write", filePath: "src/a.ts" }],
  [
    "an edit operation's name under another run key runs it",
    "mcp__x__frob",
    { cmd: "view", path: "src/a.ts" },
    { kind: "write", filePath: "src/a.ts", runs: "view\nview src/a.ts" },
  ],
  ["a code that is no program's", "translate_file", { path: "src/api/x.md", language_code: "fr" }, { kind: "write", filePath: "src/api/x.md" }],
  [
    "commands beside an in-scope output file",
    "mcp__ci__batch",
    { commands: ["ls"], output_file: "src/api/out.txt" },
    { kind: "write", filePath: "src/api/out.txt", runs: "ls src/api/out.txt\nls" },
  ],
  // an agent's own shell
  ["a shell tool's command", "Bash", { command: "ls -la", description: "list" }, { kind: "shell", command: "ls -la" }],
  [
    "a running tool given only a file: the file, and what it runs",
    "update_process_notes",
    { path: "docs/n.md" },
    { kind: "write", filePath: "docs/n.md", runs: "docs/n.md" },
  ],
];

/**
 * Tools that run something: the call they are judged as, the decision of the shell policy on what they run,
 * and lines (one command each) that what they run must hold.
 */
const RUN_ROWS: [what: string, tool: string, input: Record<string, unknown>, kind: "shell" | "write", decides: string, lines?: string[]][] = [
  ["a shell tool without a command", "Bash", {}, "shell", "shell-read-only"],
  ["a tool name spaced twice", "Run  Command", { command: "ls" }, "shell", "shell-read-only", ["ls"]],
  [
    "a shell-named MCP tool's command as a list",
    "mcp__x__run_command",
    { command: ["intent", "start", "INT-3"] },
    "shell",
    "rule-command",
    ["intent start INT-3"],
  ],
  ["a shell-named MCP tool's command under another key", "mcp__x__run_command", { cmd: "intent start INT-3" }, "shell", "rule-command"],
  ["a shell-named MCP tool given a script", "mcp__x__bash", { script: "intent start INT-3" }, "shell", "rule-command"],
  [
    "a program and its arguments: one command",
    "start_process",
    { command: "intent", args: ["start", "INT-3"] },
    "shell",
    "rule-command",
    ["intent start INT-3"],
  ],
  [
    "arguments before the program in the input",
    "start_process",
    { args: ["start", "INT-3"], command: "intent" },
    "shell",
    "rule-command",
    ["intent start INT-3"],
  ],
  ["a program and arguments under any keys", "mcp__x__run_process", { program: "intent", arguments: ["start", "INT-3"] }, "shell", "rule-command"],
  ["a file and arguments", "mcp__x__run_process", { file: "intent", args: ["start", "INT-3"] }, "shell", "rule-command"],
  ["an executable and argv", "mcp__x__spawn_process", { executable: "/usr/local/bin/intent", argv: ["start", "INT-3"] }, "shell", "rule-command"],
  ["arguments in lists of lists and objects", "mcp__x__execute_command", { command: "intent", args: [["start"], { value: "INT-3" }] }, "shell", "rule-command"],
  ["a command in an object", "mcp__x__execute_command", { command: { program: "intent", args: ["start", "INT-3"] } }, "shell", "rule-command"],
  ["commands in a list", "mcp__x__execute_commands", { commands: ["ls", "intent start INT-3"] }, "shell", "rule-command"],
  ["an expression evaluated", "mcp__node__evaluate", { expression: 'require("child_process").execSync("intent start INT-3")' }, "shell", "rule-command"],
  ["code under a key of its own", "mcp__x__run_code", { language: "bash", source_code: "intent start INT-3" }, "shell", "rule-command"],
  ["a program given its input", "mcp__x__exec", { command: "python3", stdin: 'import os; os.system("intent start INT-3")' }, "shell", "rule-command"],
  ["code given to a tool named for its language", "mcp__python__python", { code: 'import os; os.system("intent start INT-3")' }, "shell", "rule-command"],
  ["a REPL's input", "mcp__repl__repl", { input: "intent start INT-3" }, "shell", "rule-command"],
  ["a remote shell's command", "mcp__ssh__ssh", { host: "localhost", command: "intent start INT-3" }, "shell", "rule-command"],
  ["a tool named to read and run", "mcp__x__read_and_run", { command: "intent start INT-3" }, "shell", "rule-command"],
  ["a tool of any name given a command", "mcp__x__frob", { command: "intent start INT-3" }, "shell", "rule-command"],
  ["a tool of any name given a command as a list", "mcp__x__frob", { command: ["intent", "start", "INT-3"] }, "shell", "rule-command"],
  ["a tool of any name given a command line", "frob", { command_line: "intent start INT-3" }, "shell", "rule-command"],
  ["an editing operation beside a script", "mcp__x__frob", { command: "create", script: "intent start INT-3" }, "shell", "rule-command"],
  [
    "keys typed one by one",
    "mcp__tmux__send_keys",
    { paneId: "%1", keys: ["inte", "nt start INT-3", "Enter"] },
    "shell",
    "rule-command",
    ["intent start INT-3Enter"],
  ],
  ["a command run in the rules' folder", "mcp__dc__start_process", { command: "python3 fix.py *.yaml", cwd: ".orchestration" }, "shell", "rule-command"],
  ["a command, then code", "execute_command", { command: "python3", code: "print(1)" }, "shell", "shell-read-only", ["python3", "print(1)"]],
  ["code is code, not a shell's text", "execute_code", { code: "print(n > 0, 'it''s')" }, "shell", "shell-read-only", ["print(n > 0, 'it''s')"]],
  ["harmless code", "execute_code", { code: "print('hello')" }, "shell", "shell-read-only"],
  ["arguments that are no words are left out", "start_process", { command: "ls", args: ["-la", { x: 1 }, 2] }, "shell", "shell-read-only", ["ls -la"]],
  // shells of MCP servers and agents' shells given more than a command
  [
    "a shell-named MCP tool's input",
    "mcp__commands__run_command",
    { command: "python3", stdin: "import os; os.system('intent start INT-2')" },
    "shell",
    "rule-command",
  ],
  ["a shell-named MCP tool's arguments", "mcp__x__shell", { command: "intent", argv: ["start", "INT-2"] }, "shell", "rule-command", ["intent start INT-2"]],
  ["an agent's shell given a folder", "run_shell_command", { command: "echo x > active_intents.yaml", directory: ".orchestration" }, "shell", "rule-command"],
  // a tool named for its program, given only arguments
  ["npm's tool", "mcp__command__npm", { arguments: ["exec", "--", "intent", "start", "INT-2"] }, "shell", "rule-command", ["npm exec -- intent start INT-2"]],
  ["node's tool given our CLI's path", "mcp__command__node", { arguments: ["/x/dist/cli.js", "start", "INT-2"] }, "shell", "rule-command"],
  ["git's tool", "mcp__command__git", { arguments: ["checkout", "--", "src/auth"] }, "shell", "shell-write"],
  [
    "a program under a key of its own, after its arguments",
    "mcp__x__run_program",
    { args: ["start", "INT-2"], exe: "intent" },
    "shell",
    "rule-command",
    ["intent start INT-2"],
  ],
  ["an agent's shell deleting in our folder", "run_shell_command", { command: "rm -rf *", directory: ".orchestration" }, "shell", "rule-command"],
  ["an agent's own shell given a folder", "Bash", { command: "rm -rf *", cwd: ".orchestration", description: "clean" }, "shell", "rule-command"],
  ["a git tool's option with a space in its value", "mcp__git__git_diff", { repo_path: "/ws", target: "--output=docs/x y.md" }, "shell", "shell-write"],
  ["a program given after its arguments", "mcp__x__run_program", { args: ["start", "INT-2"], bin: "intent" }, "shell", "rule-command", ["intent start INT-2"]],
  // what to run under keys of any name that say so, at any depth
  ["commands in a batch", "mcp__ci__batch", { commands: ["intent start INT-2"] }, "shell", "rule-command"],
  ["a step's command in a pipeline", "mcp__ci__pipeline", { steps: [{ cmd: "intent start INT-2" }] }, "shell", "rule-command"],
  ["a command inside a spec", "mcp__ci__job", { spec: { command: "intent select INT-3" } }, "shell", "rule-command"],
  ["a shell command under a key of its own", "mcp__x__configure", { shell_command: "intent select INT-3" }, "shell", "rule-command"],
  ["keys given as one string", "mcp__t__send", { pane: "1", keys: "intent start INT-2 Enter" }, "shell", "rule-command"],
  ["input sent to a session", "mcp__t__send_input", { session: "1", input: "intent start INT-2\n" }, "shell", "rule-command"],
  ["text typed on the computer", "computer", { action: "type", text: "intent start INT-2\n" }, "shell", "rule-command"],
  ["quotes a shell joins in typed input", "mcp__dc__interact_with_process", { pid: 1, input: 'in""tent start INT-2\n' }, "shell", "rule-command"],
  ["a tool named for our CLI", "mcp__x__intent", { command: "select", id: "INT-3" }, "shell", "rule-command"],
  [
    "an edit operation beside a command of the other case",
    "mcp__x__fs",
    { command: "create", Command: "intent select INT-3", path: "src/api/a.ts" },
    "write",
    "rule-command",
  ],
  ["a running tool's shell setting runs nothing alone", "mcp__dc__start_process", { command: "npm test", shell: "bash" }, "shell", "shell-read-only"],
  // code and text handed on are not a shell's text
  [
    "a page's script comparing",
    "mcp__playwright__browser_evaluate",
    { function: "() => document.querySelectorAll('ul > li').length" },
    "shell",
    "shell-read-only",
  ],
  [
    "SQL comparing",
    "mcp__supabase__execute_sql",
    { project_id: "abc", query: "SELECT id FROM users WHERE age > 30 AND s <> 'done'" },
    "shell",
    "shell-read-only",
  ],
  ["a cell's source comparing", "mcp__jupyter__insert_execute_code_cell", { cell_source: "df[df['age'] > 30].head()" }, "shell", "shell-read-only"],
  ["Python typed into a process", "mcp__dc__interact_with_process", { pid: 1, input: "print(len(df[df.age > 30]))" }, "shell", "shell-read-only"],
  ["a script's write in code", "mcp__ide__executeCode", { code: "open('docs/notes.md','w').write('x')" }, "shell", "shell-write"],
  [
    "our files named in code",
    "mcp__x__run_python",
    { code: "import yaml; yaml.safe_load(open('.orchestration/active_intents.yaml'))" },
    "shell",
    "rule-command",
  ],
  // reads through a runner are reads
  ["a read of our files through a runner", "mcp__dc__start_process", { command: "cat .orchestration/active_intents.yaml" }, "shell", "shell-read-only"],
  ["git's diff of our files through a runner", "mcp__dc__start_process", { command: "git diff -- .orchestration" }, "shell", "shell-read-only"],
  ["a search with a pattern that looks hidden", "mcp__dc__start_process", { command: "grep -rn '.*TODO' src" }, "shell", "shell-read-only"],
  ["a listing run in our folder", "mcp__x__execute_command", { command: "ls", cwd: ".orchestration" }, "shell", "shell-read-only"],
  // a running tool that names files: judged by them and by what it runs
  ["commands and a log file", "mcp__x__shell_exec", { commands: ["intent start INT-3"], log_file: "src/api/log.txt" }, "write", "rule-command"],
  ["text typed and an output file", "mcp__x__terminal_session", { text: "intent start INT-3\n", output_file: "src/api/out.txt" }, "write", "rule-command"],
  ["a command line and an output path", "mcp__x__shell_exec", { cmd_line: "npm test", output_path: "src/api/out.txt" }, "write", "shell-read-only"],
  [
    "a name that starts by running, naming its output",
    "mcp__x__run_and_save",
    { command: "date", output_file: "src/auth/out.txt" },
    "write",
    "shell-read-only",
  ],
  ["a notebook run writes its outputs into it", "mcp__x__execute_notebook", { notebook_path: "src/auth/analysis.ipynb" }, "write", "shell-read-only"],
  [
    "a name that starts by running runs what it names",
    "mcp__x__run_tests",
    { path: "test/auth/a.test.ts" },
    "shell",
    "shell-read-only",
    ["test/auth/a.test.ts"],
  ],
  // git tools
  [
    "a git tool's arguments at any depth the gate reads",
    "git_diff",
    nestedValue(4) as Record<string, unknown>,
    "shell",
    "rule-command",
    ["git diff --output=.orchestration/active_intents.yaml"],
  ],
  [
    "a git tool's arguments one level deeper still",
    "git_diff",
    nestedValue(5) as Record<string, unknown>,
    "shell",
    "rule-command",
    ["git diff --output=.orchestration/active_intents.yaml"],
  ],
  ["a git tool's verb of several words", "mcp__git__git_reset_hard", { repo_path: "/ws" }, "shell", "shell-write", ["git reset hard /ws"]],
  [
    "a git tool's message naming our CLI",
    "mcp__git__git_commit",
    { repo_path: "/ws", message: "docs: explain `intent start` when count > 0" },
    "shell",
    "shell-read-only",
  ],
  ["a git tool's empty arguments", "git_status", { repo_path: ".", branch: null, all: true }, "shell", "shell-read-only", ["git status ."]],
  [
    "a git tool's value that would end the command before another",
    "mcp__git__git_diff",
    { note: "a;b", repo_path: "/ws", target: "--output=docs/x.md" },
    "shell",
    "shell-write",
    ["git diff --output=docs/x.md"],
  ],
];

describe("classifyTool, rule by rule", () => {
  it("a tool named for running first is judged by its output files only, all of them", () => {
    expect(classifyTool("mcp__x__run_tests", { path: "test/a.test.ts", output_file: "reports/a.xml", log_file: "reports/a.log", code: "x" })).toMatchObject({
      kind: "write",
      filePath: "reports/a.xml",
      otherPaths: ["reports/a.log"],
      runsCode: ["x"],
    });
    expect(classifyTool("mcp__x__run_tests", { path: "test/a.test.ts", output_file: "reports/a.xml" })).not.toHaveProperty("otherPaths");
  });

  it("a running tool naming files names each; its post hook records it as the shell command it is", () => {
    const call = classifyTool("mcp__x__shell_exec", { cmd_line: "npm test", output_path: "src/a.ts", log_file: "src/b.ts" });
    expect(call).toMatchObject({ kind: "write", filePath: "src/a.ts", otherPaths: ["src/b.ts"] });
    expect(recordedAs(call)).toEqual({ kind: "shell", command: call.kind === "write" ? call.runs : "" });
    const write: ToolCall = { kind: "write", filePath: "src/a.ts" };
    expect(recordedAs(write)).toBe(write);
    expect(recordedAs({ kind: "other" })).toEqual({ kind: "other" });
  });

  it.each(RUN_ROWS)("%s", (_what, tool, input, kind, decides, lines) => {
    const got = classifyTool(tool, input);
    expect(got.kind).toBe(kind);
    const text = got.kind === "shell" ? got.command : got.kind === "write" ? got.runs : undefined;
    const code = got.kind === "shell" ? got.code : got.kind === "write" ? got.runsCode : undefined;
    expect(text).toBeTypeOf("string");
    expect(gateShell(text!, code).code, text).toBe(decides);
    // a line of the command it runs, or a piece of its code
    for (const line of lines ?? []) expect([...text!.split("\n"), ...(code ?? [])]).toContain(line);
  });

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
      expect(call.kind === "shell" && gateShell(call.command, call.code).code, `${tool} ${JSON.stringify(input)}`).toBe("rule-command");
    }
    const harmless = classifyTool("execute_code", { code: "print('hello')" });
    expect(harmless.kind === "shell" && gateShell(harmless.command, harmless.code).code).toBe("shell-read-only");
  });
});
