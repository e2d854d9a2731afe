import { sessionFileName } from "../../server/src/engine/sessions";
import { existsSync, readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fileHash } from "../../server/src/engine/hashing";
import { REPO_ROOT } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runHook, runHookInProcess } from "../support/cliRunner";
import { cursorPayload } from "../support/hookPayloads";
import { ledgerRecords } from "../support/ledgerFile";

const schema = JSON.parse(readFileSync(`${REPO_ROOT}/shared/schema/trace-record.schema.json`, "utf8"));
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validateRecord = ajv.compile(schema);

const API = "src/api/weather.ts";
const NOTES = "docs/notes.md";
const SESSION = "cursor-c0nv-42";

beforeAll(ensureBuilt);

/** Cursor's permission answer, with the messages under both the camelCase and snake_case names. */
function cursorAnswer(permission: "deny" | "ask", code: string | undefined, reason: string) {
  const agentMessage = permission === "deny" ? `[intent-lsp: ${code}] ${reason}` : reason;
  const userMessage = permission === "deny" ? `intent-lsp denied this call (${code}): ${reason}` : `intent-lsp asks: ${reason}`;
  return { permission, userMessage, agentMessage, user_message: userMessage, agent_message: agentMessage };
}

describe("intent hook cursor", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.write(".orchestration/agent_trace.jsonl", "");
  });
  afterEach(() => ws.dispose());

  // Cursor's process contract (an allow, a denial, failing closed, a recorded edit) through the hook's process;
  // the other cases ask the same command in process
  const writePayload = (path: string, extra: Record<string, unknown> = {}) =>
    cursorPayload(ws, "preToolUse", { tool_name: "Write", tool_input: { file_path: ws.path(path), content: "x\n", ...extra } });
  const spawnedPreWrite = (path: string) => runHook("cursor", writePayload(path), { cwd: ws.root });
  const preWrite = (path: string, extra: Record<string, unknown> = {}) => runHookInProcess("cursor", writePayload(path, extra), { cwd: ws.root });

  it("preToolUse allows a write the selected intent owns", () => {
    ws.select("INT-001");
    const r = spawnedPreWrite(API);
    expect(r.status).toBe(0);
    expect(r.json).toEqual({ permission: "allow" });
  });

  it("preToolUse leaves reading tools alone, wherever the file is", async () => {
    ws.select("INT-001");
    const r = await runHookInProcess("cursor", cursorPayload(ws, "preToolUse", { tool_name: "Read", tool_input: { file_path: ws.path(NOTES) } }), {
      cwd: ws.root,
    });
    expect(r.json).toEqual({});
  });

  it("preToolUse denies out of scope with the same reason as Claude Code's gate", () => {
    ws.select("INT-001");
    expect(spawnedPreWrite(NOTES).json).toEqual(
      cursorAnswer(
        "deny",
        "out-of-scope",
        "docs/notes.md is outside the scope of INT-001 (Build Weather API): src/api/**, test/api/**. Owned by INT-003 (IN_PROGRESS), INT-004 (PENDING). " +
          `Next: ask the user to run \`intent select INT-003 --session ${SESSION}\` if this change belongs to INT-003; or ask the user to start INT-004 (\`intent start INT-004\`); or ask the user to widen INT-001's scope to include docs/notes.md.`,
      ),
    );
  });

  it("preToolUse denies a not-in-progress intent, no active intent, outside paths and stale content", async () => {
    ws.select("INT-005");
    expect((await preWrite("src/billing/export.ts")).json).toEqual(
      cursorAnswer(
        "deny",
        "intent-not-in-progress",
        "INT-005 (Billing export) is COMPLETE: it is complete, so its work is closed. Select another intent, or create one for this change. Next: ask the user which intent this change belongs to.",
      ),
    );
    ws.select(null);
    expect((await preWrite("src/util/strings.ts")).json).toEqual(
      cursorAnswer(
        "deny",
        "no-active-intent",
        "No intent selected for src/util/strings.ts. Select an intent before editing. No intent owns this file. Next: ask the user which intent should own src/util/strings.ts (or to add it to .intentignore).",
      ),
    );
    const outside = "/etc/hosts";
    const r = await runHookInProcess("cursor", cursorPayload(ws, "preToolUse", { tool_name: "Write", tool_input: { file_path: outside, content: "x" } }), {
      cwd: ws.root,
    });
    expect(r.json).toEqual(
      cursorAnswer(
        "deny",
        "outside-workspace",
        `${outside} is outside the workspace ${ws.root}; intent-lsp lets agents write only inside it. Write the file inside the workspace, or ask the user to make this change.`,
      ),
    );
    const stale = `sha256:${"f".repeat(64)}`;
    expect((await preWrite(API, { expected_hash: stale })).json).toEqual(
      cursorAnswer(
        "deny",
        "stale-file",
        `src/api/weather.ts changed since you read it (expected ${stale}, it is now ${fileHash(ws.read(API))}). Re-read the file, then apply your change to what it holds now.`,
      ),
    );
  });

  it("fails closed on a broken intents file and on input that is not a JSON object", () => {
    ws.write(".orchestration/active_intents.yaml", "active_intents:\n  - id: INT-001\n    status: [oops\n");
    const broken = spawnedPreWrite(API);
    expect(broken.status).toBe(0);
    expect((broken.json as { permission: string }).permission).toBe("deny");
    expect((broken.json as { agentMessage: string }).agentMessage).toMatch(
      /^\[intent-lsp: intents-file-broken\] \.orchestration\/active_intents\.yaml:\d+:\d+: YAML syntax error: /,
    );

    const garbage = runHook("cursor", "[1,2,3]", { cwd: ws.root });
    expect(garbage.status).toBe(0);
    expect(garbage.json).toEqual(
      cursorAnswer(
        "deny",
        "internal-error",
        "intent-lsp's hook failed (the hook input is not a JSON object), so the call is denied to be safe. Ask the user to run `intent status` in the workspace to see what is wrong.",
      ),
    );
  });

  it("beforeShellExecution asks about commands that write files and stays silent otherwise", async () => {
    const shell = (command: string) => runHookInProcess("cursor", cursorPayload(ws, "beforeShellExecution", { command, cwd: ws.root }), { cwd: ws.root });
    expect((await shell("mv src/api/weather.ts src/api/current.ts")).json).toEqual(
      cursorAnswer(
        "ask",
        undefined,
        "This command creates, moves or changes files; intent-lsp cannot check a shell command's writes against the active intent's scope before it runs (they are recorded and checked after it), so the user decides. Prefer the Write/Edit tools for file changes: they are checked before they happen.",
      ),
    );
    expect((await shell("npm test")).json).toEqual({});
  });

  it("afterFileEdit records the edit with Cursor's model, once", () => {
    ws.select("INT-001");
    const [from, to] = ["  celsius: number;", "  celsius: number;\n  fahrenheit: number;"];
    expect(spawnedPreWrite(API).json).toEqual({ permission: "allow" }); // stashes the content before the edit
    ws.write(API, ws.read(API).replace(from, to));
    const edit = cursorPayload(ws, "afterFileEdit", { file_path: ws.path(API), edits: [{ old_string: from, new_string: to }] });
    const r = runHook("cursor", edit, { cwd: ws.root });
    expect(r.status).toBe(0);
    expect(r.json).toEqual({});
    const records = ledgerRecords(ws);
    expect(records).toHaveLength(1);
    expect(validateRecord(records[0])).toBe(true);
    const conv = records[0]!.files[0].conversations[0];
    expect(conv.url).toBe(`urn:intent-lsp:session:${SESSION}`);
    expect(conv.contributor).toEqual({ type: "ai", model_id: "openai/gpt-5" });
    expect(conv.ranges.map((x: any) => [x.start_line, x.end_line])).toEqual([[6, 6]]);
    expect(records[0]!.metadata["dev.intent-lsp"]).toMatchObject({ intent_id: "INT-001", scope: "PASS", post_hash: fileHash(ws.read(API)) });

    runHook("cursor", edit, { cwd: ws.root });
    expect(ledgerRecords(ws)).toHaveLength(1);
  });

  it("afterFileEdit without a preceding preToolUse undoes the edits to find the changed lines", async () => {
    ws.select("INT-003");
    const [from, to] = ["## Auth", "## Authentication"];
    ws.write(NOTES, ws.read(NOTES).replace(from, to));
    await runHookInProcess("cursor", cursorPayload(ws, "afterFileEdit", { file_path: ws.path(NOTES), edits: [{ old_string: from, new_string: to }] }), {
      cwd: ws.root,
    });
    const [record] = ledgerRecords(ws);
    expect(record!.files[0].conversations[0].ranges.map((x: any) => [x.start_line, x.end_line])).toEqual([[7, 7]]);
    expect(record!.metadata["dev.intent-lsp"]).toMatchObject({ intent_id: "INT-003", mutation_class: "DOCUMENTATION" });
  });

  it("beforeMCPExecution judges an MCP tool's write as preToolUse does; afterMCPExecution records it", async () => {
    ws.select("INT-001");
    const mcp = (event: string, path: string) =>
      cursorPayload(ws, event, { tool_name: "write_file", tool_input: JSON.stringify({ path: ws.path(path), content: "x\n" }), command: "npx" });
    const denied = await runHookInProcess("cursor", mcp("beforeMCPExecution", NOTES), { cwd: ws.root });
    expect(denied.json).toMatchObject({
      permission: "deny",
      agentMessage: expect.stringContaining("[intent-lsp: out-of-scope] docs/notes.md is outside the scope of INT-001"),
    });
    expect(ledgerRecords(ws)).toHaveLength(0);

    const before = ws.read(API);
    expect(runHook("cursor", mcp("beforeMCPExecution", API), { cwd: ws.root }).json).toEqual({ permission: "allow" });
    ws.write(API, `${before}export const fahrenheit = (c: number) => c * 1.8 + 32;\n`);
    const after = runHook("cursor", { ...mcp("afterMCPExecution", API), result_json: "{}" }, { cwd: ws.root });
    expect(after.status).toBe(0);
    expect(after.json).toEqual({});
    const records = ledgerRecords(ws);
    expect(records).toHaveLength(1);
    expect(validateRecord(records[0])).toBe(true);
    const n = before.split("\n").length;
    expect(records[0]!.files[0].conversations[0].ranges.map((x: any) => [x.start_line, x.end_line])).toEqual([[n, n]]);
    expect(records[0]!.metadata["dev.intent-lsp"]).toMatchObject({ intent_id: "INT-001", scope: "PASS", post_hash: fileHash(ws.read(API)) });
  });

  it("an MCP tool that runs something and names a file is recorded as a shell command: the selection it changes holds the session", async () => {
    ws.select("INT-001");
    const run = (event: string) =>
      cursorPayload(ws, event, { tool_name: "shell_exec", tool_input: JSON.stringify({ cmd_line: "./switch.sh", output_path: ws.path(API) }), command: "npx" });
    expect((await runHookInProcess("cursor", run("beforeMCPExecution"), { cwd: ws.root })).json).not.toMatchObject({ permission: "deny" });
    ws.select("INT-003");
    await runHookInProcess("cursor", { ...run("afterMCPExecution"), result_json: "{}" }, { cwd: ws.root });
    const write = cursorPayload(ws, "beforeMCPExecution", {
      tool_name: "write_file",
      tool_input: JSON.stringify({ path: ws.path(API), content: "x\n" }),
      command: "npx",
    });
    expect((await runHookInProcess("cursor", write, { cwd: ws.root })).json).toMatchObject({
      permission: "deny",
      agentMessage: expect.stringContaining("[intent-lsp: rules-changed]"),
    });
  });

  it("sessionStart and sessionEnd keep the session file", async () => {
    const file = ws.path(`.orchestration/.sessions/${sessionFileName(SESSION)}`);
    await runHookInProcess("cursor", cursorPayload(ws, "sessionStart", {}), { cwd: ws.root });
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ id: SESSION, client: "cursor", pid: 0 });
    await runHookInProcess("cursor", cursorPayload(ws, "sessionEnd", {}), { cwd: ws.root });
    expect(existsSync(file)).toBe(false);
  });
});
