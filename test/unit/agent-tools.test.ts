import { describe, expect, it } from "vitest";
import { classifyTool } from "../../server/src/engine/agent/toolCall";
import { resolveModelId } from "../../server/src/io/modelSources";
import { HOOK_SPECS } from "../../server/src/io/setup/agentHooks";

describe("classifyTool: one rule for every agent's tools", () => {
  it("gates writers, Claude Code's and Cursor's alike, with the file they name", () => {
    expect(classifyTool("Edit", { file_path: "/w/a.ts", old_string: "a", new_string: "b" })).toEqual({ kind: "write", filePath: "/w/a.ts" });
    expect(classifyTool("NotebookEdit", { notebook_path: "/w/n.ipynb" })).toEqual({ kind: "write", filePath: "/w/n.ipynb" });
    expect(classifyTool("edit_file", { target_file: "src/a.ts" })).toEqual({ kind: "write", filePath: "src/a.ts" });
    expect(classifyTool("Write", { file_path: "/w/a.ts", expected_hash: "sha256:ab" })).toEqual({
      kind: "write",
      filePath: "/w/a.ts",
      expectedHash: "sha256:ab",
    });
  });

  it("gates MCP tools and unknown tools that name a file (fail closed), judging MCP tools by their own name", () => {
    expect(classifyTool("mcp__filesystem__write_file", { path: "/w/a.ts", content: "x" })).toEqual({ kind: "write", filePath: "/w/a.ts" });
    expect(classifyTool("mcp__acme__frobnicate", { file_path: "/w/a.ts" })).toEqual({ kind: "write", filePath: "/w/a.ts" });
    expect(classifyTool("mcp__filesystem__read_text_file", { path: "/w/a.ts" })).toEqual({ kind: "other" });
    expect(classifyTool("mcp__filesystem__list_directory", { path: "/w" })).toEqual({ kind: "other" });
  });

  it("Claude Code's hook matcher, as intent init writes it, reaches its own writers and shells and every MCP tool (one runs what a key gives it, whatever its name)", () => {
    const spec = HOOK_SPECS.find((s) => s.agent === "claude-code")!;
    const events = ("events" in spec ? spec.events : {}) as Record<string, { matcher?: string }>;
    for (const event of ["PreToolUse", "PostToolUse", "PostToolUseFailure"]) {
      // Claude Code matches the whole tool name against the matcher as a regular expression
      const matches = (tool: string) => new RegExp(`^(?:${events[event]!.matcher})$`).test(tool);
      for (const tool of [
        "Write",
        "Edit",
        "Bash",
        "mcp__filesystem__move_file",
        "mcp__filesystem__write_file",
        "mcp__filesystem__edit_file",
        "mcp__filesystem__create_directory",
        "mcp__fs__save_file",
        "mcp__fs__saveFile",
        "mcp__fs__overwrite",
        "mcp__fs__touch",
        "mcp__fs__unlink",
        "mcp__files__update_file",
        "mcp__desktop-commander__start_process",
        "mcp__serena__execute_shell_command",
        "mcp__jetbrains__execute_terminal_command",
        "mcp__ide__executeCode",
        "mcp__git__git_checkout",
        "mcp__git__git_reset",
        "mcp__serena__rename_symbol",
        "mcp__jetbrains__reformat_file",
        "mcp__fs__Mkdir",
        "mcp__python__python",
        "mcp__repl__repl",
        "mcp__command__npm",
        "mcp__filesystem__read_text_file",
      ])
        expect(matches(tool), `${event} ${tool}`).toBe(true);
      for (const tool of ["Read", "Grep", "WebFetch", "Task"]) expect(matches(tool), `${event} ${tool}`).toBe(false);
    }
  });

  it("Codex's, Gemini's and Qwen's matchers reach their own writers and shells and every MCP tool, and not their own readers", () => {
    const matcherOf = (agent: string, event: string) => {
      const spec = HOOK_SPECS.find((s) => s.agent === agent)!;
      return (("events" in spec ? spec.events : {}) as Record<string, { matcher?: string }>)[event]!.matcher!;
    };
    // Codex and Qwen match the whole name (as Claude Code does); Gemini searches the name for the pattern
    const cases = [
      { agent: "codex", events: ["PreToolUse", "PostToolUse"], whole: true, own: ["apply_patch", "Bash"], mcp: "mcp__" },
      { agent: "qwen", events: ["PreToolUse", "PostToolUse"], whole: true, own: ["write_file", "edit", "run_shell_command"], mcp: "mcp__" },
      { agent: "gemini", events: ["BeforeTool", "AfterTool"], whole: false, own: ["write_file", "replace", "run_shell_command"], mcp: "mcp_" },
    ];
    for (const { agent, events, whole, own, mcp } of cases) {
      for (const event of events) {
        const m = matcherOf(agent, event);
        const matches = (tool: string) => new RegExp(whole ? `^(?:${m})$` : m).test(tool);
        for (const tool of [...own, `${mcp}filesystem__move_file`, `${mcp}filesystem_write_file`, `${mcp}python__python`, `${mcp}github__search_issues`])
          expect(matches(tool), `${agent} ${event} ${tool}`).toBe(true);
        expect(matches("read_file"), `${agent} ${event} read_file`).toBe(false);
      }
    }
  });

  it("Cursor's MCP tools reach the gate through their own events, which fail closed", () => {
    const spec = HOOK_SPECS.find((s) => s.agent === "cursor")!;
    const events = ("events" in spec ? spec.events : {}) as Record<string, { command?: string; failClosed?: boolean }>;
    expect(events["beforeMCPExecution"]).toEqual({ command: "intent hook cursor", failClosed: true });
    expect(events["afterMCPExecution"]).toEqual({ command: "intent hook cursor" });
  });

  it("judges tools that run commands, processes, code or git as shell commands, and refuses refactorings across files", () => {
    // [tool, input, a command or code the shell policy reads in what it runs] (test/unit/toolCall.test.ts: how)
    const runs: [string, Record<string, unknown>, string][] = [
      ["mcp__dc__start_process", { command: "echo x > docs/notes.md", timeout_ms: 100 }, "echo x > docs/notes.md"],
      ["mcp__serena__execute_shell_command", { command: "intent start INT-004", cwd: "." }, "intent start INT-004"],
      ["mcp__ide__executeCode", { code: "open('docs/notes.md','w').write('x')" }, "open('docs/notes.md','w').write('x')"],
      ["interact_with_process", { pid: 7, input: "intent select INT-003" }, "intent select INT-003"],
      ["mcp__jetbrains__execute_run_configuration", { configurationName: "all tests" }, "all tests"],
      ["mcp__git__git_checkout", { branch_name: "other" }, "git checkout other"],
      ["mcp__git__git_cherry_pick", { commit: "abc" }, "git cherry-pick abc"],
      // the arguments are the command's words: an injected option is read as git would read it
      [
        "mcp__git__git_diff",
        { repo_path: ".", target: "--output=.orchestration/active_intents.yaml" },
        "git diff . --output=.orchestration/active_intents.yaml",
      ],
      // a name that starts by running something runs, whatever file it names
      ["mcp__x__run_tests", { path: "test/auth/a.test.ts" }, "test/auth/a.test.ts"],
      ["mcp__win__Powershell-Tool", { command: "intent start INT-002" }, "intent start INT-002"],
      ["run_python_code", { python_code: "import os" }, "import os"],
    ];
    for (const [tool, input, command] of runs) {
      const call = classifyTool(tool, input);
      expect(call.kind, tool).toBe("shell");
      expect(call.kind === "shell" && [...call.command.split("\n"), ...(call.code ?? [])], tool).toContain(command);
    }
    // a tool whose name says "process" and that names only a file is judged by the file
    expect(classifyTool("mcp__x__update_process_notes", { path: "docs/notes.md", content: "x" })).toMatchObject({ kind: "write", filePath: "docs/notes.md" });
    const rename = classifyTool("mcp__serena__rename_symbol", { relative_path: "src/api/x.ts", name_path: "foo", new_name: "bar" });
    expect(rename).toMatchObject({ kind: "write-without-path", tool: "mcp__serena__rename_symbol" });
    expect(rename.kind === "write-without-path" && rename.why).toContain("changes every file that refers to what it names");
  });

  it("finds the files an MCP tool names in workspace edits, operation lists, folder keys and locations; refuses one it cannot read", () => {
    expect(classifyTool("apply_workspace_edit", { edit: { changes: { "file:///ws/docs/notes.md": [{ newText: "x" }] } } })).toEqual({
      kind: "write",
      filePath: "/ws/docs/notes.md",
    });
    expect(classifyTool("batch_edit", { operations: [{ path: "src/api/a.ts" }, { path: "docs/notes.md", content: "x" }] })).toEqual({
      kind: "write",
      filePath: "src/api/a.ts",
      otherPaths: ["docs/notes.md"],
    });
    expect(classifyTool("save_document", { location: "docs/notes.md", text: "x" })).toEqual({ kind: "write", filePath: "docs/notes.md" });
    expect(classifyTool("mcp__weather__update_location", { location: "Paris" })).toEqual({ kind: "other" });
    expect(classifyTool("write_file", { path: "src/api/a.ts", target_directory: "docs", name: "notes.md" })).toMatchObject({
      kind: "write",
      filePath: "docs/notes.md",
    });
    for (const input of [
      { path: "src/api/a.ts", uri: "file://evil/ws/docs/notes.md" },
      { path: "src/api/a.ts", paths: [[["docs/notes.md"]]] },
      { path: "src/api/a.ts", target: 7 },
    ]) {
      const call = classifyTool("write_file", input);
      expect(call.kind, JSON.stringify(input)).toBe("write-without-path");
      expect(call.kind === "write-without-path" && call.why, JSON.stringify(input)).toContain(
        "which intent-lsp cannot read as a path in this workspace (beside src/api/a.ts)",
      );
    }
  });

  it("a name that starts as a reader's but says it changes something is a writer", () => {
    for (const name of ["search_replace", "mcp__x__find_and_replace", "mcp__x__read_and_write_file", "mcp__x__get_or_create_file", "mcp__x__list_and_delete"])
      expect(classifyTool(name, { path: "docs/notes.md", old_string: "a", new_string: "b" }), name).toMatchObject({ kind: "write", filePath: "docs/notes.md" });
  });

  it("leaves readers alone, wherever their file is", () => {
    for (const [name, input] of [
      ["Read", { file_path: "/etc/hosts" }],
      ["Grep", { pattern: "x", path: "/w" }],
      ["Glob", { pattern: "**/*.ts", path: "/w" }],
      ["LS", { path: "/w" }],
      ["NotebookRead", { notebook_path: "/w/n.ipynb" }],
      ["read_file", { target_file: "a.ts" }],
      ["codebase_search", { query: "x" }],
      ["fs_read", { operations: [{ mode: "Line", path: "/w/README.md" }] }],
      // named for reading: a remote repository's files, a resource, a history
      ["mcp__github__get_file_contents", { owner: "o", repo: "r", path: "README.md" }],
      ["mcp__git__list_commits", { path: "src/auth" }],
      ["mcp__docs__read_resource", { uri: "docs://intro" }],
    ] as const) {
      expect(classifyTool(name, input), name).toEqual({ kind: "other" });
    }
  });

  it("hands shell commands to the shell policy", () => {
    expect(classifyTool("Bash", { command: "rm -rf dist" })).toEqual({ kind: "shell", command: "rm -rf dist" });
    expect(classifyTool("run_terminal_cmd", { command: "ls" })).toEqual({ kind: "shell", command: "ls" });
  });

  it("denies a known writer that names no file, and ignores other tools that name none", () => {
    expect(classifyTool("Write", { content: "x" })).toEqual({ kind: "write-without-path", tool: "Write" });
    expect(classifyTool("TodoWrite", { todos: [] })).toEqual({ kind: "other" });
    expect(classifyTool("Task", { prompt: "x" })).toEqual({ kind: "other" });
  });
});

describe("resolveModelId", () => {
  const settings = { contributor: { type: "ai" as const, modelId: "acme/house-model" } };
  it("takes the agent's payload, then INTENT_LSP_MODEL, then the transcript, then the setting", () => {
    expect(resolveModelId({ reported: "gpt-5", env: { INTENT_LSP_MODEL: "claude-opus-4-1" }, settings })).toBe("openai/gpt-5");
    expect(resolveModelId({ env: { INTENT_LSP_MODEL: "claude-opus-4-1" }, settings })).toBe("anthropic/claude-opus-4-1");
    expect(resolveModelId({ reported: "auto", env: {}, settings })).toBe("acme/house-model"); // "auto" names no model
    expect(resolveModelId({ env: {}, transcriptPath: "/nonexistent/transcript.jsonl", settings: { contributor: { type: "ai" } } })).toBeUndefined();
  });
  it("gives a bare id its provider, from its name or the agent's default", () => {
    expect(resolveModelId({ env: { INTENT_LSP_MODEL: "house-model" }, settings, defaultProvider: "anthropic" })).toBe("anthropic/house-model");
    expect(resolveModelId({ reported: "openrouter/x", env: {}, settings })).toBe("openrouter/x");
  });
});

describe("classifyTool: every file a call names", () => {
  it("a move names two files, both gated; a patch without file fields is a write without a path", () => {
    expect(classifyTool("mcp__filesystem__move_file", { source: "/ws/a.ts", destination: "/ws/b/a.ts" })).toEqual({
      kind: "write",
      filePath: "/ws/a.ts",
      otherPaths: ["/ws/b/a.ts"],
    });
    expect(classifyTool("apply_patch", { input: "*** Begin Patch\n*** Update File: src/a.ts\n" })).toEqual({ kind: "write-without-path", tool: "apply_patch" });
    expect(classifyTool("mcp__x__bulk_edit", { edits: [{ path: "/ws/a.ts" }, { path: "/ws/b.ts" }] })).toEqual({
      kind: "write",
      filePath: "/ws/a.ts",
      otherPaths: ["/ws/b.ts"],
    });
  });
});

describe("classifyTool: MCP file tools name their file under many keys, and none is left undecided", () => {
  it("reads the keys MCP file tools use", () => {
    expect(classifyTool("mcp__serena__create_text_file", { relative_path: "src/a.ts", content: "x" })).toEqual({ kind: "write", filePath: "src/a.ts" });
    expect(classifyTool("mcp__jetbrains__replace_file_text_by_path", { pathInProject: "src/a.ts", text: "x" })).toEqual({
      kind: "write",
      filePath: "src/a.ts",
    });
    expect(classifyTool("mcp__x__save", { filepath: "/ws/a.ts" })).toEqual({ kind: "write", filePath: "/ws/a.ts" });
    expect(classifyTool("mcp__x__save", { filename: "a.ts" })).toEqual({ kind: "write", filePath: "a.ts" });
    expect(classifyTool("mcp__x__edit", { uri: "file:///ws/a%20b.ts" })).toEqual({ kind: "write", filePath: "/ws/a b.ts" });
    expect(classifyTool("mcp__x__emit", { outputFile: "dist/a.js" })).toEqual({ kind: "write", filePath: "dist/a.js" });
    expect(classifyTool("mcp__x__write_files", { files: [{ path: "a.ts", content: "x" }, { path: "b.ts" }] })).toEqual({
      kind: "write",
      filePath: "a.ts",
      otherPaths: ["b.ts"],
    });
    // serena names a symbol `name_path`: the file is `relative_path`
    expect(classifyTool("mcp__serena__replace_symbol_body", { name_path: "Foo/bar", relative_path: "src/a.ts", body: "x" })).toEqual({
      kind: "write",
      filePath: "src/a.ts",
    });
  });

  it("judges every file a call names, whatever the key: one key the gate knows never hides another", () => {
    const cases: [string, Record<string, unknown>, string[]][] = [
      ["mcp__fs__copy", { src: "src/api/x.ts", dst: "src/web/x.ts" }, ["src/api/x.ts", "src/web/x.ts"]],
      ["mcp__fs__copy_file", { source: "src/api/x.ts", target: "src/web/x.ts" }, ["src/api/x.ts", "src/web/x.ts"]],
      ["mcp__fs__move", { from: "src/api/x.ts", to: "src/web/x.ts" }, ["src/api/x.ts", "src/web/x.ts"]],
      ["mcp__fs__write_file", { path: "src/api/x.ts", output_file: "src/web/x.ts" }, ["src/api/x.ts", "src/web/x.ts"]],
      ["mcp__fs__edit_file", { path: "src/api/x.ts", target_path: "src/web/x.ts" }, ["src/api/x.ts", "src/web/x.ts"]],
      // a file in a folder is the two joined, and the name alone is judged too; the folder alone is not written
      ["mcp__fs__write", { directory: "/ws/src/web/", filename: "src/api/x.ts" }, ["/ws/src/web/src/api/x.ts", "src/api/x.ts"]],
      ["mcp__fs__create", { dir: "src/web", name: "x.ts" }, ["src/web/x.ts"]],
      ["mcp__fs__mkdir", { dir: "src/web/d" }, ["src/web/d"]],
    ];
    for (const [name, input, paths] of cases) {
      const [filePath, ...otherPaths] = paths;
      expect(classifyTool(name, input), `${name} ${JSON.stringify(input)}`).toEqual({ kind: "write", filePath, ...(otherPaths.length ? { otherPaths } : {}) });
    }
    // a file system's own verb changes files even with no word for one: naming none, it is denied
    for (const name of ["mcp__fs__mkdir", "mcp__fs__copy", "mcp__fs__move", "mcp__x__rm"])
      expect(classifyTool(name, { recursive: true }), name).toEqual({ kind: "write-without-path", tool: name });
  });

  it("a tool that looks like it writes a file but names none usable is a write without a path (denied)", () => {
    for (const [name, input] of [
      ["mcp__x__frob", { output_file: 42 }],
      ["mcp__x__frob", { file_path: "" }],
      ["mcp__x__frob", { path: { nested: true } }],
      ["mcp__serena__insert_after_symbol", { name: "x", body: "y" }],
      ["mcp__x__replace_file_text", { text: "y" }],
      ["Write", { file_path: 5 }],
    ] as const) {
      expect(classifyTool(name, input as Record<string, unknown>), `${name} ${JSON.stringify(input)}`).toMatchObject({
        kind: "write-without-path",
        tool: name,
      });
    }
    expect(classifyTool("mcp__github__create_issue", { title: "x", body: "y" })).toEqual({ kind: "other" });
    expect(classifyTool("mcp__x__set_profile", { profile: "dev" })).toEqual({ kind: "other" });
  });
});
