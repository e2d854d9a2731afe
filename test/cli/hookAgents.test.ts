import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TempWorkspace } from "../support/workspace";
import {
  AUGGIE,
  CLINE,
  CODEX,
  COPILOT,
  DROID,
  GEMINI,
  GOOSE,
  NEW_AGENTS,
  WINDSURF,
  type AgentFixture,
  type HookReply,
  type PlannedEdit,
} from "../support/agentFixtures";
import { ensureBuilt } from "../support/builtDist";
import { hookReplyInProcess, runCli, runCliInProcess } from "../support/cliRunner";
import { gitWorkspace } from "../support/gitRepository";
import { vscodePayload } from "../support/hookPayloads";
import { ledgerRecords } from "../support/ledgerFile";

/**
 * `intent hook codex|gemini|copilot|windsurf|cline|droid`: every agent gets the same gate and recorder, each
 * in its own protocol. Payloads are in each agent's documented shape (test/support/agentFixtures.ts); every answer is
 * asserted whole: standard output, standard error and the exit code.
 */

beforeAll(ensureBuilt);

const API = "src/api/weather.ts";
const NOTES = "docs/notes.md";
const API_EDIT: PlannedEdit = { path: API, from: "export interface Weather {", to: "export interface Weather { // v2" };
const MODEL_ENV = "openai/gpt-5"; // for agents whose payload names no model

/**
 * The hook as the agent runs it: a process, the payload on its stdin, the answer on its stdout and exit code.
 * Each agent's allow, deny, unreadable input and recorded write go through it (the contract an agent
 * relies on); every other case asks the same command in process (what it decides is the subject there).
 */
function spawnedHook(f: AgentFixture, ws: TempWorkspace, payload: unknown, env?: NodeJS.ProcessEnv): HookReply {
  return reply(runCli(["hook", f.agent], { cwd: ws.root, input: typeof payload === "string" ? payload : JSON.stringify(payload), ...(env ? { env } : {}) }));
}

const hook = (f: AgentFixture, ws: TempWorkspace, payload: unknown, env?: NodeJS.ProcessEnv): Promise<HookReply> =>
  hookReplyInProcess(f.agent, payload, { cwd: ws.root, ...(env ? { env } : {}) });

const reply = (r: HookReply): HookReply => ({ stdout: r.stdout, stderr: r.stderr, status: r.status });

const pre = (f: AgentFixture, ws: TempWorkspace, path: string) => hook(f, ws, f.write(ws, "pre", { path, from: "a", to: "b" }));

const internalError = (message: string) =>
  `[intent-lsp: internal-error] intent-lsp's hook failed (${message}), so the call is denied to be safe. Ask the user to run \`intent status\` in the workspace to see what is wrong.`;

describe.each(NEW_AGENTS.map((f) => [f.agent, f] as const))("intent hook %s: before a write", (_name, f) => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
  });
  afterEach(() => ws.dispose());

  it("allows a write the selected intent owns (the hook's process)", () => {
    ws.select("INT-001");
    expect(spawnedHook(f, ws, f.write(ws, "pre", { path: API, from: "a", to: "b" }))).toEqual(f.allow);
  });

  it("denies out of scope, naming the owners and the command to run next (the hook's process)", () => {
    ws.select("INT-001");
    expect(spawnedHook(f, ws, f.write(ws, "pre", { path: NOTES, from: "a", to: "b" }))).toEqual(
      f.deny(
        "[intent-lsp: out-of-scope] docs/notes.md is outside the scope of INT-001 (Build Weather API): src/api/**, test/api/**. Owned by INT-003 (IN_PROGRESS), INT-004 (PENDING). " +
          `Next: ask the user to run \`intent select INT-003 --session ${f.session}\` if this change belongs to INT-003; or ask the user to start INT-004 (\`intent start INT-004\`); or ask the user to widen INT-001's scope to include docs/notes.md.`,
      ),
    );
  });

  it("denies when the selected intent is not IN_PROGRESS", async () => {
    ws.select("INT-002");
    expect(await pre(f, ws, "src/auth/middleware.ts")).toEqual(
      f.deny(
        "[intent-lsp: intent-not-in-progress] INT-002 (Token refresh for auth middleware) is BLOCKED: it is blocked. Resume it once the blocker is resolved, or select another intent. " +
          "Next: ask the user whether INT-002 is unblocked (`intent start INT-002` resumes it).",
      ),
    );
  });

  it("denies with no active intent", async () => {
    expect(await pre(f, ws, "src/util/strings.ts")).toEqual(
      f.deny(
        "[intent-lsp: no-active-intent] No intent selected for src/util/strings.ts. Select an intent before editing. No intent owns this file. Next: ask the user which intent should own src/util/strings.ts (or to add it to .intentignore).",
      ),
    );
  });

  it("denies a path outside the workspace", async () => {
    const outside = join(ws.root, "..", "elsewhere", "notes.txt");
    expect(await pre(f, ws, outside)).toEqual(
      f.deny(
        `[intent-lsp: outside-workspace] ${outside} is outside the workspace ${ws.root}; intent-lsp lets agents write only inside it. Write the file inside the workspace, or ask the user to make this change.`,
      ),
    );
  });

  it("denies every write while the intents file is broken", async () => {
    ws.write(
      ".orchestration/active_intents.yaml",
      'active_intents:\n  - id: INT-001\n    name: Build Weather API\n    status: IN_PROGRESS\n    owned_scope: ["src/api/**"\n',
    );
    expect(await pre(f, ws, API)).toEqual(
      f.deny(
        "[intent-lsp: intents-file-broken] .orchestration/active_intents.yaml:6:1: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]. " +
          "While .orchestration/active_intents.yaml has errors every write is denied (fail closed). Ask the user to fix it; `intent status` lists every problem.",
      ),
    );
  });

  it("denies every write while config.jsonc is broken", async () => {
    ws.select("INT-001");
    ws.write(".orchestration/config.jsonc", '{\n  "autoSelect": true,\n  "severity": { "out-of-scope": "loud" }\n}\n');
    expect(await pre(f, ws, API)).toEqual(
      f.deny(
        '[intent-lsp: config-file-broken] .orchestration/config.jsonc:3:17: "severity.out-of-scope" must be one of error, warning, information, hint, off. ' +
          "While .orchestration/config.jsonc has errors every write is denied (fail closed). Ask the user to fix it; `intent status` lists every problem.",
      ),
    );
  });

  it("puts a change to intent-lsp's own rules to the user, or denies it where the agent cannot ask", async () => {
    ws.select("INT-001");
    const why =
      ".orchestration/active_intents.yaml is one of intent-lsp's own files (its rules, records, caches or state); an agent's change to it needs the user's approval.";
    expect(await pre(f, ws, ".orchestration/active_intents.yaml")).toEqual(
      f.ask
        ? f.ask(why)
        : f.deny(`[intent-lsp: rule-file] ${why} This agent cannot put the question to the user, so the call is denied: ask the user to make this change.`),
    );
  });

  it("denies input that is not JSON (the hook's process)", () => {
    let why = "";
    try {
      JSON.parse("{not json");
    } catch (e) {
      why = (e as Error).message;
    }
    expect(spawnedHook(f, ws, "{not json")).toEqual(f.deny(internalError(`the hook input is not JSON (${why}); is this command configured as a hook?`)));
  });

  it("denies on an internal error", async () => {
    writeFileSync(ws.path(".orchestration/.sessions"), "not a folder");
    expect(await pre(f, ws, API)).toEqual(
      f.deny(internalError(".orchestration/.sessions is a regular file, where intent-lsp expects a folder; it did not write it. Remove or rename it.")),
    );
  });

  it("answers other events without a decision", async () => {
    expect(await hook(f, ws, f.otherEvent(ws))).toEqual(f.allow);
  });

  it("puts a shell command that deletes to the user, or leaves it to the agent's own rules; has no opinion without an intents file", async () => {
    ws.select("INT-001");
    expect(await hook(f, ws, f.shell(ws, "pre", "rm -rf dist"))).toEqual(
      f.ask
        ? f.ask(
            "This command deletes files; intent-lsp cannot check a shell command's writes against the active intent's scope before it runs (they are recorded and checked after it), so the user decides. Prefer the Write/Edit tools for file changes: they are checked before they happen.",
          )
        : f.allow,
    );
    expect(await hook(f, ws, f.shell(ws, "pre", "ls src"))).toEqual(f.allow);
    const bare = new TempWorkspace({ fromExample: false });
    try {
      bare.write("src/a.ts", "x\n");
      expect(await hook(f, bare, f.write(bare, "pre", { path: "src/a.ts", from: "x", to: "y" }))).toEqual(f.allow);
    } finally {
      bare.dispose();
    }
  });
});

describe.each(NEW_AGENTS.map((f) => [f.agent, f] as const))("intent hook %s: after a write", (_name, f) => {
  let ws: TempWorkspace;
  afterEach(() => ws.dispose());

  const env = (f: AgentFixture) => (f.reportsModel ? {} : { INTENT_LSP_MODEL: MODEL_ENV });

  it("records the write: exactly the changed line, the agent's session and model, the intent (the hook's process)", () => {
    ws = new TempWorkspace();
    ws.write(".orchestration/agent_trace.jsonl", "");
    ws.select("INT-001");
    expect(spawnedHook(f, ws, f.write(ws, "pre", API_EDIT), env(f))).toEqual(f.allow);
    ws.write(API, ws.read(API).replace(API_EDIT.from, API_EDIT.to));
    expect(spawnedHook(f, ws, f.write(ws, "post", API_EDIT), env(f))).toEqual(f.quietPost);
    const records = ledgerRecords(ws);
    expect(records).toHaveLength(1);
    const conversation = records[0]!.files[0].conversations[0];
    expect(records[0]!.files[0].path).toBe(API);
    expect(conversation.url).toBe(`urn:intent-lsp:session:${f.session}`);
    expect(conversation.contributor).toEqual({ type: "ai", model_id: f.reportsModel ?? MODEL_ENV });
    expect(conversation.ranges.map((r: any) => [r.start_line, r.end_line])).toEqual([[3, 3]]);
    expect(records[0]!.metadata["dev.intent-lsp"]).toMatchObject({ intent_id: "INT-001", scope: "PASS" });
  });

  it("records a shell command's two files in one record and reports the one outside the intent", async () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    const command = "echo '// v3' >> src/api/weather.ts && echo '- Ship it.' >> docs/notes.md";
    // an agent that can ask puts the command to the user first (who lets it run here)
    expect(await hook(f, ws, f.shell(ws, "pre", command), env(f))).toEqual(
      f.ask
        ? f.ask(
            "This command redirects output into a file; intent-lsp cannot check a shell command's writes against the active intent's scope before it runs (they are recorded and checked after it), so the user decides. Prefer the Write/Edit tools for file changes: they are checked before they happen.",
          )
        : f.allow,
    );
    const sh = spawnSync("bash", ["-c", command], { cwd: ws.root });
    expect(sh.status).toBe(0);
    const post = await hook(f, ws, f.shell(ws, "post", command), env(f));
    expect(post).toEqual(
      f.reportPost(
        "intent-lsp: this command changed a file outside the session's intent: docs/notes.md is outside the scope of INT-001 (Build Weather API): src/api/**, test/api/**. Owned by INT-003 (IN_PROGRESS), INT-004 (PENDING). " +
          "The change is recorded in the ledger with its scope verdict and noted in .orchestration/AGENT.md. Undo it if it was not meant, or ask the user which intent it belongs to.",
      ),
    );
    const records = ledgerRecords(ws);
    expect(records).toHaveLength(1);
    expect(records[0]!.files.map((x: any) => x.path)).toEqual([API, NOTES]);
    expect(records[0]!.files[1].conversations[0].contributor).toEqual({ type: "ai", model_id: f.reportsModel ?? MODEL_ENV });
    expect(records[0]!.metadata["dev.intent-lsp"].tool_call.command).toBe(command);
    expect(records[0]!.metadata["dev.intent-lsp"].other_files[0].scope).toBe("OUT_OF_SCOPE");
    expect(ws.read(".orchestration/AGENT.md")).toContain("`docs/notes.md` (INT-001): a shell command");
    // CI sees the recorded out-of-scope line
    expect((await runCliInProcess(["check"], { cwd: ws.root })).status).toBe(1);
  });
});

const MULTI = NEW_AGENTS.filter((f) => f.multiWrite);

describe.each(MULTI.map((f) => [f.agent, f] as const))("intent hook %s: a tool that writes several files", (_name, f) => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.write(".orchestration/agent_trace.jsonl", "");
    ws.select("INT-001");
  });
  afterEach(() => ws.dispose());
  const FORECAST = "src/api/forecast.ts";

  it("is denied when one of its files is out of scope, allowed when all are in, and each file is recorded", async () => {
    const { write, records } = f.multiWrite!;
    const denied = await hook(f, ws, write(ws, "pre", [API, NOTES]));
    expect(denied.status === 2 || denied.stdout.includes('"deny"')).toBe(true);
    expect(`${denied.stdout}${denied.stderr}`).toContain("[intent-lsp: out-of-scope] docs/notes.md is outside the scope of INT-001");
    expect(await hook(f, ws, write(ws, "pre", [API, FORECAST]))).toEqual(f.allow);
    ws.write(API, ws.read(API).replace(API_EDIT.from, API_EDIT.to));
    ws.write(FORECAST, `${ws.read(FORECAST)}// more\n`);
    expect(await hook(f, ws, write(ws, "post", [API, FORECAST]), f.reportsModel ? {} : { INTENT_LSP_MODEL: MODEL_ENV })).toEqual(f.quietPost);
    if (records) expect(ledgerRecords(ws).flatMap((r) => r.files.map((x: any) => x.path))).toEqual([API, FORECAST]);
  });
});

describe("agent specifics", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.write(".orchestration/agent_trace.jsonl", "");
  });
  afterEach(() => ws.dispose());

  it("codex: an apply_patch touching two files is allowed only if both are; each file is recorded", async () => {
    ws.select("INT-001");
    const patch = (files: string[]) => ({
      ...(CODEX.write(ws, "pre", API_EDIT) as object),
      tool_input: { command: `*** Begin Patch\n${files.map((p) => `*** Update File: ${p}\n@@\n-a\n+b\n`).join("")}*** End Patch\n` },
    });
    expect((await hook(CODEX, ws, patch([API, NOTES]))).status).toBe(2);
    expect((await hook(CODEX, ws, patch([API, NOTES]))).stderr).toMatch(/^\[intent-lsp: out-of-scope\] docs\/notes\.md is outside/);
    const both = patch([API, "src/api/forecast.ts"]);
    expect(await hook(CODEX, ws, both)).toEqual(CODEX.allow);
    ws.write(API, ws.read(API).replace(API_EDIT.from, API_EDIT.to));
    ws.write("src/api/forecast.ts", `${ws.read("src/api/forecast.ts")}// more\n`);
    expect(await hook(CODEX, ws, { ...both, hook_event_name: "PostToolUse", tool_response: "ok" })).toEqual(CODEX.quietPost);
    expect(ledgerRecords(ws).map((r) => r.files[0].path)).toEqual([API, "src/api/forecast.ts"]);
  });

  it("codex: a second file header indented (Codex trims it) is gated too; a move's destination too; a patch Codex cannot read is denied", async () => {
    ws.select("INT-001");
    const withPatch = (patch: string) => ({ ...(CODEX.write(ws, "pre", API_EDIT) as object), tool_input: { command: patch } });
    const indented = await hook(
      CODEX,
      ws,
      withPatch(`*** Begin Patch\n*** Add File: src/api/extra.ts\n+export {};\n    *** Update File: ${NOTES}\n@@\n-a\n+b\n*** End Patch\n`),
    );
    expect(indented.status).toBe(2);
    expect(indented.stderr).toMatch(/^\[intent-lsp: out-of-scope\] docs\/notes\.md is outside the scope of INT-001/);
    const move = await hook(CODEX, ws, withPatch(`*** Begin Patch\n*** Update File: ${API}\n*** Move to: ${NOTES}\n@@\n-a\n+b\n*** End Patch\n`));
    expect(move.stderr).toMatch(/^\[intent-lsp: out-of-scope\] docs\/notes\.md is outside/);
    expect(await hook(CODEX, ws, withPatch(`*** Begin Patch\n*** Update File: ${API}\n*** End Patch\n`))).toEqual(
      CODEX.deny(
        "[intent-lsp: bad-path] This apply_patch input is not a patch Codex can read, so intent-lsp cannot tell which files it writes. Send a patch that starts with `*** Begin Patch`, names each file on an `*** Add File:`, `*** Update File:` or `*** Delete File:` line, and ends with `*** End Patch`.",
      ),
    );
  });

  it("codex: a patch that names no file is denied", async () => {
    const r = await hook(CODEX, ws, { ...(CODEX.write(ws, "pre", API_EDIT) as object), tool_input: { command: "*** Begin Patch\n*** End Patch\n" } });
    expect(r).toEqual(CODEX.deny(internalError("apply_patch call without tool_input.file_path")));
  });

  it("copilot: toolArgs as an object (the SDK's form) is read too; unreadable toolArgs deny", async () => {
    ws.select("INT-001");
    expect((await hook(COPILOT, ws, { timestamp: 1, cwd: ws.root, toolName: "create", toolArgs: { path: ws.path(NOTES), file_text: "x" } })).stdout).toContain(
      '"permissionDecision":"deny"',
    );
    const bad = await hook(COPILOT, ws, { timestamp: 1, cwd: ws.root, toolName: "edit", toolArgs: "{oops" });
    expect(JSON.parse(bad.stdout).permissionDecisionReason).toMatch(/^\[intent-lsp: internal-error\] intent-lsp's hook failed \(.*JSON/);
  });

  it("copilot: VS Code's agent hooks and Copilot's PascalCase form (which run .github/hooks) are gated, denied both ways they read", async () => {
    ws.select("INT-001");
    // VS Code turns `preToolUse` in .github/hooks/*.json into `PreToolUse` and sends its own payload
    const vscode = (tool_name: string, tool_input: Record<string, unknown>) => vscodePayload(ws, tool_name, tool_input);
    const text =
      "[intent-lsp: out-of-scope] docs/notes.md is outside the scope of INT-001 (Build Weather API): src/api/**, test/api/**. Owned by INT-003 (IN_PROGRESS), INT-004 (PENDING). " +
      "Next: ask the user to run `intent select INT-003 --session copilot-vscode-session-1` if this change belongs to INT-003; or ask the user to start INT-004 (`intent start INT-004`); or ask the user to widen INT-001's scope to include docs/notes.md.";
    const pascalDeny = (t: string) => ({
      stdout: `${JSON.stringify({ permissionDecision: "deny", permissionDecisionReason: t, hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: t } })}\n`,
      stderr: `${t}\n`,
      status: 2,
    });
    expect(await hook(COPILOT, ws, vscode("create_file", { filePath: ws.path(NOTES), content: "x\n" }))).toEqual(pascalDeny(text));
    expect(await hook(COPILOT, ws, vscode("editFiles", { files: [ws.path(API), ws.path(NOTES)] }))).toEqual(pascalDeny(text));
    const { hookEventName: _, ...unnamed } = vscode("create_file", { filePath: ws.path(NOTES), content: "x\n" });
    expect(await hook(COPILOT, ws, unnamed)).toEqual(pascalDeny(text));
    expect(await hook(COPILOT, ws, vscode("replace_string_in_file", { filePath: ws.path(API), oldString: "a", newString: "b" }))).toEqual(COPILOT.allow);
    // Copilot CLI's PascalCase form: Claude's tool names and snake_case fields
    const pascal = {
      hook_event_name: "PreToolUse",
      session_id: "vscode-session-1",
      timestamp: "2026-11-29T10:00:00.000Z",
      cwd: ws.root,
      tool_name: "Write",
      tool_input: { path: ws.path(NOTES), file_text: "x" },
    };
    expect(await hook(COPILOT, ws, pascal)).toEqual(pascalDeny(text));
    // a hook that fails on such a payload denies in the same form
    const failed = await hook(COPILOT, ws, { ...pascal, tool_input: "{oops" });
    expect(failed.status).toBe(2);
    expect(JSON.parse(failed.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(/^\[intent-lsp: internal-error\] intent-lsp's hook failed \(.*JSON/);
  });

  it("goose, auggie: paths are relative to the folder the payload names, not to where the hook process runs", async () => {
    ws.select("INT-001");
    for (const f of [GOOSE, AUGGIE]) {
      // started in src/api, as an agent may start its hooks anywhere: "docs/notes.md" is still the workspace's
      const r = await hookReplyInProcess(f.agent, f.write(ws, "pre", { path: NOTES, from: "a", to: "b" }), { cwd: ws.path("src/api") });
      expect(`${r.stdout}${r.stderr}`, f.agent).toContain("[intent-lsp: out-of-scope] docs/notes.md is outside the scope of INT-001");
      expect(await hookReplyInProcess(f.agent, f.write(ws, "pre", { path: "src/api/forecast.ts", from: "a", to: "b" }), { cwd: ws.path("src/api") })).toEqual(
        f.allow,
      );
    }
  });

  it("windsurf: without a pre-write stash the edits are undone to find the changed line", async () => {
    ws.select("INT-001");
    ws.write(API, ws.read(API).replace(API_EDIT.from, API_EDIT.to));
    expect(await hook(WINDSURF, ws, WINDSURF.write(ws, "post", API_EDIT))).toEqual(WINDSURF.quietPost);
    expect(ledgerRecords(ws)[0]!.files[0].conversations[0].ranges.map((r: any) => r.start_line)).toEqual([3]);
  });

  it("cline, gemini: paths relative to the workspace are judged as the same files", async () => {
    ws.select("INT-001");
    expect(await hook(CLINE, ws, CLINE.write(ws, "pre", { path: "src/api/forecast.ts", from: "a", to: "b" }))).toEqual(CLINE.allow);
    expect((await hook(GEMINI, ws, GEMINI.write(ws, "pre", { path: "docs/notes.md", from: "a", to: "b" }))).status).toBe(2);
  });

  it("cline: an MCP tool called through use_mcp_tool is judged as that tool; arguments that are no JSON object deny it", async () => {
    ws.select("INT-001");
    const mcp = (server_name: string, tool_name: string, args: unknown) => ({
      ...(CLINE.write(ws, "pre", API_EDIT) as object),
      preToolUse: { toolName: "use_mcp_tool", parameters: { server_name, tool_name, arguments: args } },
    });
    const cancelled = async (payload: unknown) => JSON.parse((await hook(CLINE, ws, payload)).stdout) as { cancel: boolean; errorMessage?: string };
    // the arguments as Cline sends them: JSON text
    expect(
      await cancelled(mcp("filesystem", "write_file", JSON.stringify({ path: ws.path(".orchestration/active_intents.yaml"), content: "x" }))),
    ).toMatchObject({ cancel: true });
    expect(await cancelled(mcp("filesystem", "write_file", JSON.stringify({ path: "docs/notes.md", content: "x" })))).toMatchObject({ cancel: true });
    expect(await cancelled(mcp("filesystem", "write_file", JSON.stringify({ path: "src/api/forecast.ts", content: "x" })))).toEqual({ cancel: false });
    expect(await cancelled(mcp("commands", "run_command", JSON.stringify({ command: "intent start INT-002" })))).toMatchObject({ cancel: true });
    expect(await cancelled(mcp("filesystem", "read_text_file", JSON.stringify({ path: "docs/notes.md" })))).toEqual({ cancel: false });
    expect(await cancelled(mcp("filesystem", "write_file", "{not json"))).toMatchObject({
      cancel: true,
      errorMessage: expect.stringContaining("arguments that are not a JSON object"),
    });
  });

  it("gemini: an MCP tool is judged by the server and tool its mcp_context names, whatever its spelling", async () => {
    ws.select("INT-001");
    const mcp = (tool_name: string, tool_input: Record<string, unknown>) => ({
      ...(GEMINI.write(ws, "pre", API_EDIT) as object),
      tool_name,
      tool_input,
      mcp_context: { server_name: "fs", tool_name: "write_file", command: "npx", args: ["@modelcontextprotocol/server-filesystem"] },
    });
    // `mcp_fs_write_file` alone does not say which part is the tool: without its context a call naming no file would pass
    const unnamed = await hook(GEMINI, ws, mcp("mcp_fs_write_file", { content: "x\n" }));
    expect(unnamed.status).toBe(2);
    expect(JSON.parse(unnamed.stdout).reason).toContain("(mcp__fs__write_file call without tool_input.file_path), so the call is denied");
    expect((await hook(GEMINI, ws, mcp("mcp__fs__write_file", { path: "docs/notes.md", content: "x\n" }))).status).toBe(2);
    expect(await hook(GEMINI, ws, mcp("mcp_fs_write_file", { path: "src/api/forecast.ts", content: "x\n" }))).toEqual(GEMINI.allow);
    // a context naming a reader does not let the writer its tool name says through
    const reader = { ...mcp("mcp_fs_write_file", { path: "docs/notes.md", content: "x\n" }), mcp_context: { server_name: "fs", tool_name: "read_file" } };
    expect((await hook(GEMINI, ws, reader)).status).toBe(2);
  });

  it("windsurf: an MCP tool's write is judged before it by the paths its arguments name, and recorded after it", async () => {
    ws.select("INT-001");
    const mcp = (phase: "pre" | "post", path: string) => ({
      agent_action_name: `${phase}_mcp_tool_use`,
      trajectory_id: "traj-123",
      execution_id: "exec-3",
      timestamp: "2026-08-21T10:00:02Z",
      model_name: "claude-sonnet-4-5",
      tool_info: { mcp_server_name: "filesystem", mcp_tool_name: "write_file", mcp_tool_arguments: { path, content: "x\n" } },
    });
    const denied = await hook(WINDSURF, ws, mcp("pre", "docs/notes.md"));
    expect(denied.status).toBe(2);
    expect(denied.stderr).toContain("[intent-lsp: out-of-scope] docs/notes.md is outside the scope of INT-001");
    expect(await hook(WINDSURF, ws, mcp("pre", API))).toEqual(WINDSURF.allow);
    const before = ws.read(API);
    ws.write(API, `${before}export const mcpWrote = 1;\n`);
    expect(await hook(WINDSURF, ws, mcp("post", API))).toEqual(WINDSURF.quietPost);
    const [record] = ledgerRecords(ws);
    const n = before.split("\n").length;
    expect(record!.files[0].path).toBe(API);
    expect(record!.files[0].conversations[0].ranges.map((r: any) => [r.start_line, r.end_line])).toEqual([[n, n]]);
  });

  it("droid: Create is gated like a write", async () => {
    ws.select("INT-001");
    const r = await hook(DROID, ws, {
      ...(DROID.write(ws, "pre", API_EDIT) as object),
      tool_name: "Create",
      tool_input: { file_path: ws.path("docs/new.md"), content: "x\n" },
    });
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
  });
});
