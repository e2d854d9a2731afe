import { sessionFileName } from "../../server/src/engine/sessions";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { contentHash, fileHash } from "../../server/src/engine/hashing";
import { REPO_ROOT } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli, runCliInProcess, runHook, runHookInProcess } from "../support/cliRunner";
import { CLAUDE_SESSION, claudeAnswer, claudeEdit, claudePayload, vscodePayload, writeTranscript } from "../support/hookPayloads";
import { ledgerRecords } from "../support/ledgerFile";
import { rewriteCache } from "../support/cacheDamage";
import { forgetCacheKey } from "../../server/src/io/cacheKey";

const schema = JSON.parse(readFileSync(join(REPO_ROOT, "shared/schema/trace-record.schema.json"), "utf8"));
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validateRecord = ajv.compile(schema);

const API = "src/api/weather.ts";
const NOTES = "docs/notes.md";

beforeAll(ensureBuilt);

describe("intent hook claude-code: PreToolUse decisions", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
  });
  afterEach(() => ws.dispose());

  // the hook's process answers the allow, the denial and the failures below (the contract Claude Code reads);
  // the other decisions ask the same command in process
  const spawnedPre = (path: string) =>
    runHook("claude-code", claudeEdit(ws, "PreToolUse", path, "interface Weather", "interface WeatherReport"), { cwd: ws.root });
  const pre = (path: string, extra: Record<string, unknown> = {}) =>
    runHookInProcess("claude-code", claudeEdit(ws, "PreToolUse", path, "interface Weather", "interface WeatherReport", extra), { cwd: ws.root });

  it("allows a write the selected intent owns, while it is IN_PROGRESS", () => {
    ws.select("INT-001");
    const r = spawnedPre(API);
    expect(r.status).toBe(0);
    expect(r.json).toEqual(claudeAnswer("allow", "INT-001 (Build Weather API) owns src/api/weather.ts."));
  });

  it("allows by auto-selection when nothing is selected and exactly one in-progress intent owns the file", async () => {
    const r = await pre(API);
    expect(r.json).toEqual(
      claudeAnswer("allow", "INT-001 (Build Weather API) owns src/api/weather.ts (auto-selected: the only in-progress intent that owns it)."),
    );
  });

  it("a selection file that is there but unreadable denies every write (no auto-selection), and stays so until someone selects again", async () => {
    const decision = async () => ((await pre(API)).json as { hookSpecificOutput: unknown }).hookSpecificOutput;
    const unknown = (file: string) =>
      `[intent-lsp: no-active-intent] ${file} is not valid JSON (half-written, or edited by hand), so which intent is selected is not known. Select again (\`intent select ID\`) before editing. Owned by INT-001 (IN_PROGRESS).`;
    // the workspace's selection, half-written
    ws.select("INT-001");
    const workspace = ".orchestration/.sessions/workspace.json";
    writeFileSync(ws.path(workspace), readFileSync(ws.path(workspace), "utf8").slice(0, 10));
    expect(await decision()).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: expect.stringContaining(unknown(workspace)) });
    const status = await runCliInProcess(["status"], { cwd: ws.root });
    expect(status.stdout).toContain(`Selection: unknown — ${workspace} cannot be read (see Problems); select again with \`intent select ID\``);
    await runCliInProcess(["select", "INT-001"], { cwd: ws.root });
    expect(await decision()).toMatchObject({ permissionDecision: "allow" });
    // the session's own, half-written: the hooks that follow keep it as it is
    await runCliInProcess(["select", "INT-001", "--session", CLAUDE_SESSION], { cwd: ws.root });
    const own = `.orchestration/.sessions/${sessionFileName(CLAUDE_SESSION)}`;
    const torn = readFileSync(ws.path(own), "utf8").slice(0, 20);
    writeFileSync(ws.path(own), torn);
    expect(await decision()).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: expect.stringContaining(unknown(own)) });
    expect(await decision()).toMatchObject({ permissionDecision: "deny" });
    expect(readFileSync(ws.path(own), "utf8")).toBe(torn);
    await runCliInProcess(["select", "INT-001", "--session", CLAUDE_SESSION], { cwd: ws.root });
    expect(await decision()).toMatchObject({ permissionDecision: "allow" });
  });

  it("leaves the session file as it is when the call seconds before wrote it, and records a change of the intent worked on", async () => {
    const file = ws.path(`.orchestration/.sessions/${sessionFileName(CLAUDE_SESSION)}`);
    expect((await pre(API)).json).toMatchObject({ hookSpecificOutput: { permissionDecision: "allow" } });
    const first = readFileSync(file, "utf8");
    expect(JSON.parse(first)).toMatchObject({ id: CLAUDE_SESSION, client: "claude-code", pid: 0, workingOn: ["INT-001"] });
    expect((await pre(API)).json).toMatchObject({ hookSpecificOutput: { permissionDecision: "allow" } });
    expect(readFileSync(file, "utf8")).toBe(first);
    expect((await pre(NOTES)).json).toMatchObject({ hookSpecificOutput: { permissionDecision: "allow" } });
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ workingOn: ["INT-003"], startedAt: JSON.parse(first).startedAt });
  });

  it("denies out of scope, naming the owners and the command to run next", () => {
    ws.select("INT-001");
    const r = spawnedPre(NOTES);
    expect(r.status).toBe(0);
    expect(r.json).toEqual(
      claudeAnswer(
        "deny",
        "[intent-lsp: out-of-scope] docs/notes.md is outside the scope of INT-001 (Build Weather API): src/api/**, test/api/**. Owned by INT-003 (IN_PROGRESS), INT-004 (PENDING). " +
          `Next: ask the user to run \`intent select INT-003 --session ${CLAUDE_SESSION}\` if this change belongs to INT-003; or ask the user to start INT-004 (\`intent start INT-004\`); or ask the user to widen INT-001's scope to include docs/notes.md.`,
      ),
    );
  });

  it("denies when the selected intent is not IN_PROGRESS", async () => {
    ws.select("INT-002");
    const r = await pre("src/auth/middleware.ts");
    expect(r.json).toEqual(
      claudeAnswer(
        "deny",
        "[intent-lsp: intent-not-in-progress] INT-002 (Token refresh for auth middleware) is BLOCKED: it is blocked. Resume it once the blocker is resolved, or select another intent. " +
          "Next: ask the user whether INT-002 is unblocked (`intent start INT-002` resumes it).",
      ),
    );
  });

  it("denies with no active intent: nothing selected and no in-progress owner", async () => {
    expect((await pre("src/billing/export.ts")).json).toEqual(
      claudeAnswer(
        "deny",
        "[intent-lsp: no-active-intent] No intent selected for src/billing/export.ts. Select an intent before editing. Owned by INT-005 (COMPLETE). Next: ask the user which intent this change belongs to.",
      ),
    );
    expect((await pre("src/util/strings.ts")).json).toEqual(
      claudeAnswer(
        "deny",
        "[intent-lsp: no-active-intent] No intent selected for src/util/strings.ts. Select an intent before editing. No intent owns this file. Next: ask the user which intent should own src/util/strings.ts (or to add it to .intentignore).",
      ),
    );
  });

  it("denies a path outside the workspace", async () => {
    const outside = join(ws.root, "..", "elsewhere", "notes.txt");
    const r = await runHookInProcess(
      "claude-code",
      claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: { file_path: outside, content: "x\n" }, tool_use_id: "toolu_01" }),
      { cwd: ws.root },
    );
    expect(r.json).toEqual(
      claudeAnswer(
        "deny",
        `[intent-lsp: outside-workspace] ${outside} is outside the workspace ${ws.root}; intent-lsp lets agents write only inside it. Write the file inside the workspace, or ask the user to make this change.`,
      ),
    );
  });

  it("checks the expected content hash: a stale one denies, the current one allows", async () => {
    ws.select("INT-001");
    const current = fileHash(ws.read(API));
    const stale = `sha256:${"0".repeat(64)}`;
    expect((await pre(API, { tool_input: { expected_hash: stale } })).json).toEqual(
      claudeAnswer(
        "deny",
        `[intent-lsp: stale-file] src/api/weather.ts changed since you read it (expected ${stale}, it is now ${current}). Re-read the file, then apply your change to what it holds now.`,
      ),
    );
    expect((await pre(API, { tool_input: { expected_content_hash: current } })).json).toEqual(
      claudeAnswer("allow", "INT-001 (Build Weather API) owns src/api/weather.ts."),
    );
  });

  it("fails closed on a broken intents file: every write is denied with the YAML error at file:line:col", async () => {
    ws.select("INT-001");
    ws.write(
      ".orchestration/active_intents.yaml",
      'active_intents:\n  - id: INT-001\n    name: Build Weather API\n    status: IN_PROGRESS\n    owned_scope: ["src/api/**"\n',
    );
    expect((await pre(API)).json).toEqual(
      claudeAnswer(
        "deny",
        "[intent-lsp: intents-file-broken] .orchestration/active_intents.yaml:6:1: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]. " +
          "While .orchestration/active_intents.yaml has errors every write is denied (fail closed). Ask the user to fix it; `intent status` lists every problem.",
      ),
    );
  });

  it("turns an internal error into a denial carrying the error, exit code 0", () => {
    writeFileSync(ws.path(".orchestration/.sessions"), "not a folder"); // session files cannot be written
    const r = spawnedPre(API);
    expect(r.status).toBe(0);
    expect(r.json).toEqual(
      claudeAnswer(
        "deny",
        `[intent-lsp: internal-error] intent-lsp's hook failed (.orchestration/.sessions is a regular file, where intent-lsp expects a folder; it did not write it. Remove or rename it.), so the call is denied to be safe. Ask the user to run \`intent status\` in the workspace to see what is wrong.`,
      ),
    );
  });

  it("after a write there is nothing to deny: a failure reaches the user as a message, exit code 0", () => {
    writeFileSync(ws.path(".orchestration/.sessions"), "not a folder");
    const r = runHook("claude-code", claudeEdit(ws, "PostToolUse", API, "a", "b"), { cwd: ws.root });
    expect(r.status).toBe(0);
    expect(r.json).toEqual({
      systemMessage: `intent-lsp's PostToolUse hook failed: .orchestration/.sessions is a regular file, where intent-lsp expects a folder; it did not write it. Remove or rename it.`,
    });
  });

  it("denies input that is not JSON instead of crashing", () => {
    const r = runHook("claude-code", "{not json", { cwd: ws.root });
    expect(r.status).toBe(0);
    // the parser's wording is Node's (the CLI runs on this same Node binary)
    let why = "";
    try {
      JSON.parse("{not json");
    } catch (e) {
      why = (e as Error).message;
    }
    expect(r.json).toEqual(
      claudeAnswer(
        "deny",
        `[intent-lsp: internal-error] intent-lsp's hook failed (the hook input is not JSON (${why}); is this command configured as a hook?), so the call is denied to be safe. Ask the user to run \`intent status\` in the workspace to see what is wrong.`,
      ),
    );
  });

  it("asks the user before a shell command that writes files, and leaves the others alone", async () => {
    const bash = (command: string) =>
      runHookInProcess(
        "claude-code",
        claudePayload(ws, "PreToolUse", {
          tool_name: "Bash",
          tool_input: { command, description: "run it", timeout: 120000, run_in_background: false },
          tool_use_id: "toolu_02",
        }),
        { cwd: ws.root },
      );
    const ask = (what: string) =>
      claudeAnswer(
        "ask",
        `This command ${what}; intent-lsp cannot check a shell command's writes against the active intent's scope before it runs (they are recorded and checked after it), so the user decides. Prefer the Write/Edit tools for file changes: they are checked before they happen.`,
      );
    expect((await bash("rm -rf dist")).json).toEqual(ask("deletes files"));
    expect((await bash("npm test > test.log 2>&1")).json).toEqual(ask("redirects output into a file"));
    expect((await bash("sed -i 's/a/b/' src/api/weather.ts")).json).toEqual(ask("edits files in place"));
    expect((await bash("git checkout -- src")).json).toEqual(ask("writes files or rewrites the working tree with git"));
    for (const harmless of ["npm test", "git status && git diff HEAD", "ls -la 2>/dev/null | grep api", "node -e 'console.log(1 >= 0)' 2>&1"]) {
      const r = await bash(harmless);
      expect(r.status, harmless).toBe(0);
      expect(r.json, harmless).toEqual({});
    }
  });

  it("asks the user before an agent changes intent-lsp's own rules", async () => {
    ws.select("INT-001");
    expect((await pre(".orchestration/active_intents.yaml")).json).toEqual(
      claudeAnswer(
        "ask",
        ".orchestration/active_intents.yaml is one of intent-lsp's own files (its rules, records, caches or state); an agent's change to it needs the user's approval.",
      ),
    );
  });

  it("asks before an agent writes any of intent-lsp's own files: a forged cache would steer the gate", async () => {
    ws.select("INT-001");
    for (const own of [
      ".orchestration/.cache/catalogue.json",
      ".orchestration/.cache/ledger-0123456789abcdef.idx",
      ".orchestration/adoption.json",
      ".orchestration/.sessions/workspace.json",
      ".orchestration/agent_trace.sealed",
      ".orchestration/agent_trace.segments/x.seg",
      ".orchestration/agent_trace.jsonl.lock/held",
      ".orchestration/anything-new.md",
    ]) {
      expect((await pre(own)).json, own).toEqual(
        claudeAnswer(
          "ask",
          `${own} is one of intent-lsp's own files (its rules, records, caches or state); an agent's change to it needs the user's approval.`,
        ),
      );
    }
  });

  it("never judges by a catalogue cache made with another user's key: one shipped in a repository is rebuilt from the YAML", () => {
    ws.select("INT-001");
    const elsewhere = ws.path("another-machine");
    const env = (xdg?: string) => ({ INTENT_LSP_HOOK_SERVICE: "off", ...(xdg ? { XDG_CACHE_HOME: xdg } : {}) });
    expect(runCli(["status"], { cwd: ws.root, env: env(elsewhere) }).status).toBe(0);
    // the catalogue cache, rewritten there to give INT-001 every path, and sealed with that machine's key
    const saved = process.env["XDG_CACHE_HOME"];
    process.env["XDG_CACHE_HOME"] = elsewhere;
    forgetCacheKey();
    try {
      rewriteCache(ws.path(".orchestration/.cache/catalogue.json"), (payload) => {
        const c = JSON.parse(payload);
        for (const i of c.intents) i.ownedScope = ["**"];
        return JSON.stringify(c);
      });
    } finally {
      if (saved === undefined) delete process.env["XDG_CACHE_HOME"];
      else process.env["XDG_CACHE_HOME"] = saved;
      forgetCacheKey();
    }
    const billing = claudeEdit(ws, "PreToolUse", "src/billing/export.ts", "export", "export");
    const decision = (xdg?: string) =>
      (runHook("claude-code", billing, { cwd: ws.root, env: env(xdg) }).json as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput
        .permissionDecision;
    // where that key is, the forged cache is whole and says what it was made to say: the forgery is real
    expect(decision(elsewhere)).toBe("allow");
    // here it is not this user's cache: the intents are read from the YAML, and the write is out of scope
    expect(decision()).toBe("deny");
  });

  it("has no opinion in a workspace without intents", async () => {
    const bare = new TempWorkspace({ fromExample: false });
    try {
      bare.write("src/a.ts", "x\n");
      const r = await runHookInProcess("claude-code", { ...claudeEdit(bare, "PreToolUse", "src/a.ts", "x", "y") }, { cwd: bare.root });
      expect(r.json).toEqual({});
      expect(existsSync(bare.path(".orchestration"))).toBe(false);
    } finally {
      bare.dispose();
    }
  });
});

/**
 * Other agents read Claude Code's hook files and run `intent hook claude-code` with payloads of their own:
 * VS Code's agent hooks (its Local harness) name the event `hookEventName` and the session `sessionId`, and use
 * their own tool names (`create_file` with `filePath`, `editFiles` with `files`, `runTerminalCommand`). A call
 * the hook cannot place must be gated as a call about to run, never answered as "some other event" (which
 * the agent reads as allowed).
 */
describe("intent hook claude-code: payloads of agents that run Claude Code's hooks", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.select("INT-001");
  });
  afterEach(() => ws.dispose());

  const vscode = (tool_name: string, tool_input: Record<string, unknown>) => vscodePayload(ws, tool_name, tool_input);
  const answer = async (payload: Record<string, unknown>) => (await runHookInProcess("claude-code", payload, { cwd: ws.root })).json;
  const outOfScope = (session: string) =>
    claudeAnswer(
      "deny",
      "[intent-lsp: out-of-scope] docs/notes.md is outside the scope of INT-001 (Build Weather API): src/api/**, test/api/**. Owned by INT-003 (IN_PROGRESS), INT-004 (PENDING). " +
        `Next: ask the user to run \`intent select INT-003 --session ${session}\` if this change belongs to INT-003; or ask the user to start INT-004 (\`intent start INT-004\`); or ask the user to widen INT-001's scope to include docs/notes.md.`,
    );

  it("VS Code's spelling of the event and the session: its writes are gated as Claude Code's", async () => {
    expect(await answer(vscode("create_file", { filePath: ws.path(NOTES), content: "x\n" }))).toEqual(outOfScope("claude-vscode-session-1"));
    expect(await answer(vscode("editFiles", { files: [ws.path(API), ws.path(NOTES)] }))).toEqual(outOfScope("claude-vscode-session-1"));
    expect(await answer(vscode("replace_string_in_file", { filePath: ws.path(API), oldString: "a", newString: "b" }))).toMatchObject(
      claudeAnswer("allow", expect.any(String)),
    );
  });

  it("VS Code's terminal tool is a shell command: one that writes is put to the user", async () => {
    expect(await answer(vscode("runTerminalCommand", { command: "echo hi > docs/notes.md" }))).toEqual(
      claudeAnswer(
        "ask",
        "This command redirects output into a file; intent-lsp cannot check a shell command's writes against the active intent's scope before it runs (they are recorded and checked after it), so the user decides. Prefer the Write/Edit tools for file changes: they are checked before they happen.",
      ),
    );
  });

  it("Claude Code's own PowerShell tool is a shell command too", async () => {
    const payload = claudePayload(ws, "PreToolUse", { tool_name: "PowerShell", tool_input: { command: "rm -r dist" }, tool_use_id: "toolu_ps_1" });
    expect(await answer(payload)).toEqual(
      claudeAnswer(
        "ask",
        "This command deletes files; intent-lsp cannot check a shell command's writes against the active intent's scope before it runs (they are recorded and checked after it), so the user decides. Prefer the Write/Edit tools for file changes: they are checked before they happen.",
      ),
    );
  });

  it("a tool call that names no event is judged as one about to run", async () => {
    const { hook_event_name: _, ...noEvent } = claudeEdit(ws, "PreToolUse", NOTES, "a", "b");
    expect(await answer(noEvent)).toEqual(outOfScope(CLAUDE_SESSION));
  });
});

describe("intent hook claude-code: sessions", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
  });
  afterEach(() => ws.dispose());

  it("SessionStart writes the session file, briefs the agent, and status lists it; SessionEnd removes it", async () => {
    ws.select("INT-001");
    // SessionStart and SessionEnd through the hook's process, as Claude Code sends them
    const start = runHook("claude-code", claudePayload(ws, "SessionStart", { source: "startup" }), { cwd: ws.root });
    expect(start.status).toBe(0);
    expect(start.json).toEqual({
      hookSpecificOutput: {
        hookEventName: "SessionStart",
        additionalContext:
          "intent-lsp checks every Write/Edit in this workspace against the active intent's scope and records it in the Agent Trace ledger. " +
          "Active intent: INT-001 (Build Weather API), IN_PROGRESS, scope src/api/**, test/api/** (selected for the workspace). Run `intent context INT-001` for its constraints, specs and recent work.",
      },
    });
    const file = ws.path(`.orchestration/.sessions/${sessionFileName(CLAUDE_SESSION)}`);
    const session = JSON.parse(readFileSync(file, "utf8"));
    expect(session).toMatchObject({ id: CLAUDE_SESSION, client: "claude-code", pid: 0 });

    const status = JSON.parse((await runCliInProcess(["status", "--json"], { cwd: ws.root })).stdout);
    expect(status.sessions).toEqual([
      { id: CLAUDE_SESSION, client: "claude-code", intent: null, heartbeat: session.heartbeat, working_on: [], unsaved: [], held: null },
    ]);

    const end = runHook("claude-code", claudePayload(ws, "SessionEnd", { reason: "exit" }), { cwd: ws.root });
    expect(end.json).toEqual({});
    expect(existsSync(file)).toBe(false);
  });

  it("an agent's own selection (intent select --session) wins over the workspace's", async () => {
    ws.select("INT-001");
    expect((await runCliInProcess(["select", "INT-003", "--session", CLAUDE_SESSION], { cwd: ws.root })).stdout).toBe(
      `Selected INT-003 (Docs refresh) for session ${CLAUDE_SESSION}.\n`,
    );
    const r = await runHookInProcess("claude-code", claudeEdit(ws, "PreToolUse", NOTES, "a", "b"), { cwd: ws.root });
    expect(r.json).toEqual(claudeAnswer("allow", "INT-003 (Docs refresh) owns docs/notes.md."));
  });
});

describe("intent hook claude-code: PostToolUse records the write", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.write(".orchestration/agent_trace.jsonl", ""); // start from an empty ledger
    ws.select("INT-001");
  });
  afterEach(() => ws.dispose());

  /** `spawned`: through the hook's process, as Claude Code runs it; else the same command in process. */
  async function agentEdits(path: string, from: string, to: string, env?: NodeJS.ProcessEnv, spawned = false) {
    const run = spawned
      ? async (payload: unknown) => runHook("claude-code", payload, { cwd: ws.root, env })
      : (payload: unknown) => runHookInProcess("claude-code", payload, { cwd: ws.root, env });
    const preAnswer = await run(claudeEdit(ws, "PreToolUse", path, from, to));
    ws.write(path, ws.read(path).replace(from, to)); // what the Edit tool does
    const post = await run(claudeEdit(ws, "PostToolUse", path, from, to));
    return { preAnswer, post };
  }

  it("appends exactly one schema-valid record: contributor ai with the transcript's model, the changed lines, the intent, post_hash", async () => {
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    const { preAnswer, post } = await agentEdits(API, "export interface Weather {", "export interface Weather { // v2", undefined, true);
    expect(preAnswer.json).toEqual(claudeAnswer("allow", "INT-001 (Build Weather API) owns src/api/weather.ts."));
    expect(post.status).toBe(0);
    expect(post.json).toEqual({});

    const records = ledgerRecords(ws);
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(validateRecord(record), JSON.stringify(validateRecord.errors)).toBe(true);
    const content = ws.read(API);
    const lines = content.split("\n");
    expect(record.files).toEqual([
      {
        path: API,
        conversations: [
          {
            url: `urn:intent-lsp:session:${CLAUDE_SESSION}`,
            contributor: { type: "ai", model_id: "anthropic/claude-sonnet-4-5-20250929" },
            ranges: [{ start_line: 3, end_line: 3, content_hash: contentHash([lines[2]!]) }],
            related: [{ type: "intent", url: "urn:intent:INT-001" }],
          },
        ],
      },
    ]);
    expect(record.metadata["dev.intent-lsp"]).toMatchObject({
      intent_id: "INT-001",
      mutation_class: "INTENT_EVOLUTION",
      scope: "PASS",
      post_hash: fileHash(content),
      prev: null,
    });
    // the pre-write stash was consumed
    expect(readdirSync(ws.path(".orchestration/.sessions/pending"))).toEqual([]);

    // the same PostToolUse again (a retry) adds nothing
    const again = await runHookInProcess("claude-code", claudeEdit(ws, "PostToolUse", API, "export interface Weather {", "export interface Weather { // v2"), {
      cwd: ws.root,
    });
    expect(again.json).toEqual({});
    expect(ledgerRecords(ws)).toHaveLength(1);
  });

  it("takes the model from INTENT_LSP_MODEL over the transcript", async () => {
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    await agentEdits(API, "  city: string;", "  city: string;\n  country: string;", { INTENT_LSP_MODEL: "anthropic/claude-opus-4-1" });
    const [record] = ledgerRecords(ws);
    expect(record.files[0].conversations[0].contributor).toEqual({ type: "ai", model_id: "anthropic/claude-opus-4-1" });
    expect(record.files[0].conversations[0].ranges.map((r: any) => [r.start_line, r.end_line])).toEqual([[5, 5]]);
  });

  it("a Write that creates a file records every line as FILE_CREATION", async () => {
    writeTranscript(ws, "claude-opus-4-1-20250805");
    const path = "src/api/units.ts";
    const content = "export type Unit = 'C' | 'F';\n\nexport const DEFAULT_UNIT: Unit = 'C';\n";
    const write = (event: "PreToolUse" | "PostToolUse") =>
      runHookInProcess(
        "claude-code",
        claudePayload(ws, event, {
          tool_name: "Write",
          tool_input: { file_path: ws.path(path), content },
          tool_use_id: "toolu_03",
          ...(event === "PostToolUse" ? { tool_response: { type: "create", filePath: ws.path(path), content } } : {}),
        }),
        { cwd: ws.root },
      );
    expect((await write("PreToolUse")).json).toEqual(claudeAnswer("allow", "INT-001 (Build Weather API) owns src/api/units.ts."));
    ws.write(path, content);
    await write("PostToolUse");
    const [record] = ledgerRecords(ws);
    expect(validateRecord(record)).toBe(true);
    expect(record.files[0].conversations[0].ranges.map((r: any) => [r.start_line, r.end_line])).toEqual([[1, 3]]);
    expect(record.metadata["dev.intent-lsp"]).toMatchObject({ mutation_class: "FILE_CREATION", pre_hash: null, scope: "PASS" });
    expect(record.files[0].conversations[0].contributor.model_id).toBe("anthropic/claude-opus-4-1-20250805");
  });

  it("without a pre-write stash, an Edit is undone on the new content to find its lines", async () => {
    writeTranscript(ws, "claude-sonnet-4-5");
    ws.write(API, ws.read(API).replace("  summary: string;", "  summary: string;\n  humidity: number;"));
    await runHookInProcess("claude-code", claudeEdit(ws, "PostToolUse", API, "  summary: string;", "  summary: string;\n  humidity: number;"), {
      cwd: ws.root,
    });
    const [record] = ledgerRecords(ws);
    expect(record.files[0].conversations[0].ranges.map((r: any) => [r.start_line, r.end_line])).toEqual([[7, 7]]);
  });

  it("records an out-of-scope write the person let through, with scope OUT_OF_SCOPE", async () => {
    writeTranscript(ws, "claude-sonnet-4-5");
    const [from, to] = ["- Write the onboarding guide.", "- Write the onboarding guide this week."];
    ws.write(NOTES, ws.read(NOTES).replace(from, to));
    await runHookInProcess("claude-code", claudeEdit(ws, "PostToolUse", NOTES, from, to), { cwd: ws.root });
    const [record] = ledgerRecords(ws);
    expect(record.files[0].conversations[0].ranges.map((r: any) => [r.start_line, r.end_line])).toEqual([[11, 11]]);
    expect(record.metadata["dev.intent-lsp"]).toMatchObject({ intent_id: "INT-001", scope: "OUT_OF_SCOPE", mutation_class: "DOCUMENTATION" });
  });
});

describe("intent hook claude-code: one write after another", () => {
  it("gates and records fifteen successive edits of one file, each its own record (the latency is the benchmark's: npm run bench)", async () => {
    const ws = new TempWorkspace();
    try {
      ws.select("INT-001");
      writeTranscript(ws, "claude-sonnet-4-5");
      const before = ledgerRecords(ws).length;
      for (let i = 0; i < 15; i++) {
        const [from, to] = [`  summary: string;${i ? ` // ${i - 1}` : ""}`, `  summary: string; // ${i}`];
        expect((await runHookInProcess("claude-code", claudeEdit(ws, "PreToolUse", API, from, to), { cwd: ws.root })).status).toBe(0);
        ws.write(API, ws.read(API).replace(from, to));
        expect((await runHookInProcess("claude-code", claudeEdit(ws, "PostToolUse", API, from, to), { cwd: ws.root })).status).toBe(0);
      }
      const records = ledgerRecords(ws).slice(before);
      expect(records).toHaveLength(15);
      const line = records[0]!.files[0].conversations[0].ranges[0].start_line;
      for (const r of records) expect(r.files[0].conversations[0].ranges.map((x: any) => [x.start_line, x.end_line])).toEqual([[line, line]]);
    } finally {
      ws.dispose();
    }
  }, 180_000); // thirty hook processes one after another: a guard against a hang, not a time
});

describe("intent hook claude-code: a tool that names several files", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.write(".orchestration/agent_trace.jsonl", "");
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
  });
  afterEach(() => ws.dispose());

  const move = (event: "PreToolUse" | "PostToolUse", source: string, destination: string) =>
    claudePayload(ws, event, {
      tool_name: "mcp__filesystem__move_file",
      tool_input: { source: ws.path(source), destination: ws.path(destination) },
      tool_use_id: "toolu_01MOVE",
      ...(event === "PostToolUse" ? { tool_response: [{ type: "text", text: `Successfully moved ${ws.path(source)} to ${ws.path(destination)}` }] } : {}),
    });

  it("move_file: both paths gated before; after, the destination is recorded as moved from the source by the model (the lines keep their owners) and the source's removal too", async () => {
    const denied = await runHookInProcess("claude-code", move("PreToolUse", "src/api/forecast.ts", NOTES), { cwd: ws.root });
    expect(denied.json).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
    expect((denied.json as any).hookSpecificOutput.permissionDecisionReason).toMatch(
      /^\[intent-lsp: out-of-scope\] docs\/notes\.md is outside the scope of INT-001/,
    );

    const source = "src/api/forecast.ts";
    const destination = "src/api/v2/forecast.ts";
    const content = ws.read(source);
    expect((await runHookInProcess("claude-code", move("PreToolUse", source, destination), { cwd: ws.root })).json).toEqual(
      claudeAnswer("allow", `INT-001 (Build Weather API) owns ${destination}.`),
    );
    ws.write(destination, content); // what the tool does
    rmSync(ws.path(source));
    const post = await runHookInProcess("claude-code", move("PostToolUse", source, destination), { cwd: ws.root });
    expect(post).toMatchObject({ status: 0, json: {} });

    const records = ledgerRecords(ws);
    expect(records.map((r) => r.files.map((f: any) => f.path))).toEqual([[source], [destination]]);
    expect(records[0]!.files[0].conversations[0].ranges).toEqual([]); // a removal: no lines left to attribute
    expect(records[1]!.files[0].conversations[0].contributor).toEqual({ type: "ai", model_id: "anthropic/claude-sonnet-4-5-20250929" });
    // a move, not a write: no line claimed, the source's content carried (docs/LEDGER.md "Renames, moves and copies")
    expect(records[1]!.files[0].conversations[0].ranges).toEqual([]);
    expect(records[1]!.metadata["dev.intent-lsp"]).toMatchObject({ moved_from: source, pre_hash: records[0]!.metadata["dev.intent-lsp"].pre_hash });
    const blame = JSON.parse((await runCliInProcess(["blame", destination, "--json"], { cwd: ws.root })).stdout);
    const lineCount = content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
    expect(blame.lines).toHaveLength(lineCount);
    // the source's lines were never recorded: moving them does not make them the model's
    expect(blame.lines.every((l: any) => l.kind === "untraced")).toBe(true);
  });
});
