import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { fileHash } from "../../server/src/engine/hashing";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli, runHook } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { claudeEdit, claudePayload, CLAUDE_SESSION, cursorPayload, writeTranscript } from "../support/hookPayloads";
import { ledgerRecords } from "../support/ledgerFile";

/**
 * Shell commands' writes, recorded: the pre-tool hook snapshots git's view of the working tree, the
 * post-tool hook records every file the command changed in ONE record with the command, reports files
 * outside the session's intent to the agent and notes them as lessons.
 */

beforeAll(ensureBuilt);

const MODEL = "claude-sonnet-4-5-20250929";
const NOTES_OUT_OF_SCOPE =
  "docs/notes.md is outside the scope of INT-001 (Build Weather API): src/api/**, test/api/**. Owned by INT-003 (IN_PROGRESS), INT-004 (PENDING).";

function bashPayload(ws: TempWorkspace, event: "PreToolUse" | "PostToolUse", command: string, id = "toolu_bash_01") {
  return claudePayload(ws, event, {
    tool_name: "Bash",
    tool_input: { command, description: "edit two files", timeout: 120000, run_in_background: false },
    tool_use_id: id,
    ...(event === "PostToolUse" ? { tool_response: { stdout: "", stderr: "", interrupted: false, isImage: false } } : {}),
  });
}

/** What Claude Code does around a Bash call: the pre hook, the command in a shell, the post hook. */
function runBash(ws: TempWorkspace, command: string, id?: string) {
  const pre = runHook("claude-code", bashPayload(ws, "PreToolUse", command, id), { cwd: ws.root });
  const sh = spawnSync("bash", ["-c", command], { cwd: ws.root, encoding: "utf8" });
  if (sh.status !== 0) throw new Error(`the test's command failed: ${sh.stderr}`);
  const post = runHook("claude-code", bashPayload(ws, "PostToolUse", command, id), { cwd: ws.root });
  return { pre, post };
}

describe("intent hook claude-code: Bash writes are recorded", () => {
  let ws: TempWorkspace;
  let client: LspClient | undefined;
  afterEach(async () => {
    await client?.stop();
    client = undefined;
    ws.dispose();
  });

  it("two files, one in scope and one out: one record naming both, the model in the editor's hover, the out-of-scope file reported and noted", async () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, MODEL);
    const command = "sed -i 's/export interface Weather {/export interface Weather { \\/\\/ v2/' src/api/weather.ts && echo '- Ship the API.' >> docs/notes.md";
    const { pre, post } = runBash(ws, command);
    expect(pre.json).toMatchObject({ hookSpecificOutput: { permissionDecision: "ask" } });
    expect(post.status).toBe(0);
    expect(post.json).toEqual({
      decision: "block",
      reason:
        `intent-lsp: this command changed a file outside the session's intent: ${NOTES_OUT_OF_SCOPE} ` +
        "The change is recorded in the ledger with its scope verdict and noted in .orchestration/AGENT.md. Undo it if it was not meant, or ask the user which intent it belongs to.",
    });

    const records = ledgerRecords(ws);
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record.files.map((f: any) => f.path)).toEqual(["src/api/weather.ts", "docs/notes.md"]);
    for (const f of record.files) expect(f.conversations[0].contributor).toEqual({ type: "ai", model_id: `anthropic/${MODEL}` });
    expect(record.files.map((f: any) => f.conversations[0].ranges.map((r: any) => [r.start_line, r.end_line]))).toEqual([
      [[3, 3]],
      [[ws.read("docs/notes.md").split("\n").length - 1, ws.read("docs/notes.md").split("\n").length - 1]],
    ]);
    const meta = record.metadata["dev.intent-lsp"];
    expect(meta).toMatchObject({
      intent_id: "INT-001",
      scope: "PASS",
      post_hash: fileHash(ws.read("src/api/weather.ts")),
      tool_call: { tool: "Bash", command },
    });
    expect(meta.other_files).toMatchObject([{ scope: "OUT_OF_SCOPE", mutation_class: "DOCUMENTATION", post_hash: fileHash(ws.read("docs/notes.md")) }]);
    expect(record.files[0].conversations[0].url).toBe(`urn:intent-lsp:session:${CLAUDE_SESSION}`);
    expect(readdirSync(ws.path(".orchestration/.sessions/pending"))).toEqual([]); // the snapshot was consumed
    // AGENT.md is Markdown: what an agent's command says is written as plain text, its &, < and > escaped
    const asText = command.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    expect(ws.read(".orchestration/AGENT.md")).toContain(
      `\`docs/notes.md\` (INT-001): a shell command ("${asText}") changed this file outside the session's intent. ${NOTES_OUT_OF_SCOPE}`,
    );

    // the editor: the agent's model on both files' lines
    client = await LspClient.start({ root: ws.root });
    await client.open("src/api/weather.ts", "typescript");
    await client.open("docs/notes.md", "markdown");
    const lastNotesLine = ws.read("docs/notes.md").split("\n").length - 2;
    await expect.poll(() => client!.hoverText("src/api/weather.ts", 2, 1), { timeout: 10_000 }).toContain(`ai · anthropic/${MODEL}`);
    expect(await client.hoverText("docs/notes.md", lastNotesLine, 1)).toContain(`ai · anthropic/${MODEL}`);
    expect(await client.hoverText("src/api/weather.ts", 0, 1)).not.toContain(`ai · anthropic/${MODEL}`);

    // and CI: the out-of-scope line is an error, the in-scope one nothing
    const check = JSON.parse(runCli(["check", "--format", "json"], { cwd: ws.root }).stdout);
    expect(check.findings.map((f: any) => [f.path, f.startLine, f.code, f.recordId])).toEqual([
      ["docs/notes.md", lastNotesLine + 1, "out-of-scope", record.id],
    ]);
  });

  it("a file already dirty before the command: only the command's lines; created and deleted files too; the same post again adds nothing", () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, MODEL);
    ws.write("src/api/forecast.ts", `// a person's unsaved work\n${ws.read("src/api/forecast.ts")}`); // dirty, unrecorded
    ws.write("src/api/scratch.ts", "export const scratch = 1;\n"); // untracked, unrecorded
    git(ws.root, "add", "src/api/scratch.ts");
    const command =
      "echo '// appended by the agent' >> src/api/forecast.ts && printf 'export const units = [\"C\"];\\n' > src/api/units.ts && rm src/api/scratch.ts";
    const { post } = runBash(ws, command);
    expect(post.json).toEqual({});
    const records = ledgerRecords(ws);
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record.files.map((f: any) => [f.path, f.conversations[0].ranges.map((r: any) => [r.start_line, r.end_line])])).toEqual([
      ["src/api/forecast.ts", [[12, 12]]],
      ["src/api/scratch.ts", []],
      ["src/api/units.ts", [[1, 1]]],
    ]);
    const meta = record.metadata["dev.intent-lsp"];
    expect(meta.mutation_class).toBe("INTENT_EVOLUTION");
    expect(meta.other_files.map((o: any) => [o.mutation_class, o.post_hash === null])).toEqual([
      ["FILE_DELETION", true],
      ["FILE_CREATION", false],
    ]);

    // the post hook run twice: the snapshot is used up, nothing is written again
    const again = runHook("claude-code", bashPayload(ws, "PostToolUse", command), { cwd: ws.root });
    expect(again.json).toEqual({
      systemMessage:
        "intent-lsp did not record this command's file changes: no snapshot was taken before it. Configure the pre-tool hook for shell commands too (see the README).",
    });
    expect(ledgerRecords(ws)).toHaveLength(1);
  });

  it("when git cannot give a file's content at HEAD, the command's change to it is reported, never recorded as the whole file", () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, MODEL);
    // a git whose `cat-file` fails (a damaged object store, say); every other command is the real git's
    const realGit = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
    const bin = ws.path(".fake-bin");
    mkdirSync(bin);
    writeFileSync(
      join(bin, "git"),
      `#!/bin/sh\nfor a in "$@"; do if [ "$a" = cat-file ]; then echo "fatal: object store damaged" >&2; exit 128; fi; done\nexec ${realGit} "$@"\n`,
    );
    chmodSync(join(bin, "git"), 0o755);
    const env = { PATH: `${bin}:${process.env["PATH"]}`, INTENT_LSP_HOOK_SERVICE: "off" };
    const command = "echo '// appended by the agent' >> src/api/forecast.ts";
    runHook("claude-code", bashPayload(ws, "PreToolUse", command), { cwd: ws.root, env });
    spawnSync("bash", ["-c", command], { cwd: ws.root });
    const post = runHook("claude-code", bashPayload(ws, "PostToolUse", command), { cwd: ws.root, env });
    expect(post.status).toBe(0);
    expect(ledgerRecords(ws)).toEqual([]);
    expect(JSON.stringify(post.json)).toContain("src/api/forecast.ts");
    expect(JSON.stringify(post.json)).toContain("git did not give its content at HEAD (fatal: object store damaged)");
  });

  it("a command that writes nothing leaves the ledger alone; a file the Write hook already recorded is not recorded again", () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, MODEL);
    expect(runBash(ws, "git status --short && ls src").post.json).toEqual({});
    expect(ledgerRecords(ws)).toHaveLength(0);
    expect(existsSync(ws.path(".orchestration/AGENT.md"))).toBe(false);

    // while a command runs, the agent's Edit tool changes a file and its own hooks record it
    runHook("claude-code", bashPayload(ws, "PreToolUse", "sleep 0", "toolu_bash_02"), { cwd: ws.root });
    const [from, to] = ["export interface Weather {", "export interface Weather { // v2"];
    runHook("claude-code", claudeEdit(ws, "PreToolUse", "src/api/weather.ts", from, to), { cwd: ws.root });
    ws.write("src/api/weather.ts", ws.read("src/api/weather.ts").replace(from, to));
    runHook("claude-code", claudeEdit(ws, "PostToolUse", "src/api/weather.ts", from, to), { cwd: ws.root });
    expect(ledgerRecords(ws)).toHaveLength(1);
    expect(runHook("claude-code", bashPayload(ws, "PostToolUse", "sleep 0", "toolu_bash_02"), { cwd: ws.root }).json).toEqual({});
    expect(ledgerRecords(ws)).toHaveLength(1);
  });

  it("a commit inside the command: the files it committed are still found", () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, MODEL);
    const command = "echo '// v3' >> src/api/weather.ts && git -c user.name=A -c user.email=a@b.c commit -qam wip";
    runBash(ws, command);
    const [record] = ledgerRecords(ws);
    expect(record.files.map((f: any) => f.path)).toEqual(["src/api/weather.ts"]);
    expect(record.metadata["dev.intent-lsp"].tool_call).toEqual({ tool: "Bash", command });
    // the report names no empty path: only the file the commit holds
    expect(
      JSON.stringify(runBash(ws, "echo '// v4' >> src/api/weather.ts && git -c user.name=A -c user.email=a@b.c commit -qam wip2", "toolu_bash_02").post.json),
    ).not.toContain("record  (");
  });

  it("a file git is told not to look at (assume-unchanged, skip-worktree): the command's write to it is still found and reported", () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, MODEL);
    for (const [flag, file] of [
      ["--assume-unchanged", "src/auth/middleware.ts"],
      ["--skip-worktree", "src/billing/export.ts"],
    ] as const) {
      // set in one command, written in the next: neither shows in git status
      runBash(ws, `git update-index ${flag} ${file}`, `toolu_flag_${flag}`);
      const { post } = runBash(ws, `printf 'hidden\\n' >> ${file}`, `toolu_write_${flag}`);
      expect(JSON.stringify(post.json), file).toContain(`${file} is outside the scope of INT-001`);
      const records = ledgerRecords(ws).filter((r: any) => r.files.some((f: any) => f.path === file));
      expect(records, file).toHaveLength(1);
    }
  });

  it("not a git repository: nothing recorded, and the user is told so for a command that looks like it writes", () => {
    ws = new TempWorkspace();
    ws.write(".orchestration/agent_trace.jsonl", "");
    ws.select("INT-001");
    const writing = runBash(ws, "echo '// x' >> src/api/weather.ts");
    expect(writing.post.json).toEqual({
      systemMessage:
        "intent-lsp did not record this command's file changes: the workspace is not a git repository, and shell writes are told from git's view of the working tree.",
    });
    expect(runBash(ws, "ls src").post.json).toEqual({});
    expect(ledgerRecords(ws)).toHaveLength(0);
  });
});

describe("intent hook cursor: shell commands are recorded", () => {
  let ws: TempWorkspace;
  afterEach(() => ws.dispose());

  it("beforeShellExecution snapshots, afterShellExecution records one record with Cursor's model and reports the out-of-scope file", () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    const command = "echo '// v3' >> src/api/weather.ts && echo '- Ship it.' >> docs/notes.md";
    const before = runHook("cursor", cursorPayload(ws, "beforeShellExecution", { command, cwd: ws.root }), { cwd: ws.root });
    expect(before.json).toMatchObject({ permission: "ask" });
    expect(spawnSync("bash", ["-c", command], { cwd: ws.root }).status).toBe(0);
    const after = runHook("cursor", cursorPayload(ws, "afterShellExecution", { command, cwd: ws.root, output: "", duration: 12 }), { cwd: ws.root });
    const text =
      `intent-lsp: this command changed a file outside the session's intent: ${NOTES_OUT_OF_SCOPE} ` +
      "The change is recorded in the ledger with its scope verdict and noted in .orchestration/AGENT.md. Undo it if it was not meant, or ask the user which intent it belongs to.";
    expect(after.json).toEqual({ agentMessage: text, agent_message: text });
    expect(after.stderr).toBe(`${text}\n`);
    const [record, ...rest] = ledgerRecords(ws);
    expect(rest).toEqual([]);
    expect(record.files.map((f: any) => [f.path, f.conversations[0].contributor.model_id])).toEqual([
      ["src/api/weather.ts", "openai/gpt-5"],
      ["docs/notes.md", "openai/gpt-5"],
    ]);
    expect(record.metadata["dev.intent-lsp"].tool_call).toEqual({ tool: "Shell", command });
  });
});
