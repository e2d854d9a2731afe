import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TempWorkspace } from "../support/workspace";
import { NEW_AGENTS, type HookReply } from "../support/agentFixtures";
import { ensureBuilt } from "../support/builtDist";
import { hookReplyInProcess, runCliInProcess, type HookAgent } from "../support/cliRunner";
import { claudeEdit, claudePayload, cursorPayload } from "../support/hookPayloads";

/**
 * An agent rewriting the rules through its shell (`intent start`, a redirect into active_intents.yaml, …)
 * is put to the user in every agent protocol: "ask" where the protocol has it (Claude Code, Cursor, Qwen Code), a deny
 * telling the agent to ask the user to run it where it has not. Read-only commands stay the agent's own
 * business, and a post hook after a command that changed the rules says so. Every answer asserted whole.
 */

beforeAll(ensureBuilt);

const json = (v: unknown) => `${JSON.stringify(v)}\n`;

interface Protocol {
  agent: HookAgent;
  pre(ws: TempWorkspace, command: string): unknown;
  post(ws: TempWorkspace, command: string): unknown;
  /** The whole reply to a command the user must decide on, given the gate's reason. */
  asks(reason: string): HookReply;
  quiet: HookReply;
  report(text: string): HookReply;
}

const withoutAsk = (reason: string) =>
  `[intent-lsp: rule-command] ${reason} This agent cannot put the question to the user, so the command is denied: ask the user to run it themselves if it is wanted.`;

const PROTOCOLS: Protocol[] = [
  {
    agent: "claude-code",
    pre: (ws, command) => claudePayload(ws, "PreToolUse", { tool_name: "Bash", tool_input: { command, description: "run it" }, tool_use_id: "toolu_01BASH" }),
    post: (ws, command) =>
      claudePayload(ws, "PostToolUse", {
        tool_name: "Bash",
        tool_input: { command, description: "run it" },
        tool_use_id: "toolu_01BASH",
        tool_response: { stdout: "", stderr: "", interrupted: false },
      }),
    asks: (reason) => ({
      stdout: json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: reason } }),
      stderr: "",
      status: 0,
    }),
    quiet: { stdout: "{}\n", stderr: "", status: 0 },
    report: (text) => ({ stdout: json({ decision: "block", reason: text }), stderr: "", status: 0 }),
  },
  {
    agent: "cursor",
    pre: (ws, command) => cursorPayload(ws, "beforeShellExecution", { command, cwd: ws.root }),
    post: (ws, command) => cursorPayload(ws, "afterShellExecution", { command, cwd: ws.root, output: "", duration: 5 }),
    asks: (reason) => ({
      stdout: json({
        permission: "ask",
        userMessage: `intent-lsp asks: ${reason}`,
        agentMessage: reason,
        user_message: `intent-lsp asks: ${reason}`,
        agent_message: reason,
      }),
      stderr: "",
      status: 0,
    }),
    quiet: { stdout: "{}\n", stderr: "", status: 0 },
    report: (text) => ({ stdout: json({ agentMessage: text, agent_message: text }), stderr: `${text}\n`, status: 0 }),
  },
  ...NEW_AGENTS.map(
    (f): Protocol => ({
      agent: f.agent,
      pre: (ws, command) => f.shell(ws, "pre", command),
      post: (ws, command) => f.shell(ws, "post", command),
      asks: (reason) => (f.ask ? f.ask(reason) : f.deny(withoutAsk(reason))),
      quiet: f.allow,
      report: (text) => f.reportPost(text),
    }),
  ),
];

/** The agent sessions a shell command of theirs left held (SessionRecord.held). */
function heldSessions(ws: TempWorkspace): { id: string; held: string }[] {
  const dir = ws.path(".orchestration/.sessions");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json") && f !== "workspace.json")
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")))
    .filter((r) => typeof r.held === "string");
}

/** The hook in this process (runHookInProcess): what it decides is the subject; hookAgents.test.ts spawns each agent's. */
const hook = (p: Protocol, ws: TempWorkspace, payload: unknown): Promise<HookReply> => hookReplyInProcess(p.agent, payload, { cwd: ws.root });

const CLI_REASON = (sub: string) =>
  `This command runs \`intent ${sub}\`, which changes intent-lsp's rules or selection (which intents are in progress, their scopes, the selected intent). They decide which intent may write where, so changing them is the user's decision, not an agent's; intent-lsp puts it to the user.`;
const REDIRECT_REASON =
  "This command redirects output into a file and names intent-lsp's own files (the intents, settings, ignore files, ledger or selection under .orchestration/). They decide which intent may write where, so changing them is the user's decision, not an agent's; intent-lsp puts it to the user.";

describe.each(PROTOCOLS.map((p) => [p.agent, p] as const))("intent hook %s: shell commands that change the rules", (_name, p) => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.select("INT-001");
  });
  afterEach(() => ws.dispose());

  it("intent start / complete / select, however spelled, are put to the user (denied where the agent cannot ask)", async () => {
    expect(await hook(p, ws, p.pre(ws, "intent start INT-004"))).toEqual(p.asks(CLI_REASON("start")));
    expect(await hook(p, ws, p.pre(ws, "cd src && npx intent complete INT-001"))).toEqual(p.asks(CLI_REASON("complete")));
    expect(await hook(p, ws, p.pre(ws, "bash -c 'node dist/cli.js select INT-003 --session x'"))).toEqual(p.asks(CLI_REASON("select")));
  });

  it("intent complete with --yes or --skip-verify (which would run or skip the acceptance criteria) is put to the user too", async () => {
    expect(await hook(p, ws, p.pre(ws, "intent complete INT-001 --yes"))).toEqual(p.asks(CLI_REASON("complete")));
    expect(await hook(p, ws, p.pre(ws, "npm test && intent complete --skip-verify INT-001"))).toEqual(p.asks(CLI_REASON("complete")));
    expect(await hook(p, ws, p.pre(ws, "yes | node_modules/.bin/intent complete INT-001"))).toEqual(p.asks(CLI_REASON("complete")));
  });

  it("a redirect into active_intents.yaml is put to the user too", async () => {
    expect(await hook(p, ws, p.pre(ws, "echo '    status: IN_PROGRESS' >> .orchestration/active_intents.yaml"))).toEqual(p.asks(REDIRECT_REASON));
  });

  it("read-only commands are left alone", async () => {
    for (const command of ["intent status", "intent check", "intent blame src/api/weather.ts", "cat .orchestration/active_intents.yaml", "git status"]) {
      expect(await hook(p, ws, p.pre(ws, command)), command).toEqual(p.quiet);
    }
  });

  it("after a command that changed active_intents.yaml, the post hook reports the change", async () => {
    const command = "./scripts/release.sh";
    expect(await hook(p, ws, p.pre(ws, command))).toEqual(p.quiet); // nothing tells the gate this touches the rules
    ws.write(".orchestration/active_intents.yaml", ws.read(".orchestration/active_intents.yaml").replace("status: PENDING", "status: IN_PROGRESS"));
    const reply = await hook(p, ws, p.post(ws, command));
    // the user was not asked: the session is held until they select for it again
    const held = heldSessions(ws);
    expect(held.map((h) => h.held)).toEqual([".orchestration/active_intents.yaml changed (INT-004: PENDING → IN_PROGRESS)"]);
    expect(reply).toEqual(
      p.report(
        `intent-lsp: this command changed intent-lsp's rules: .orchestration/active_intents.yaml changed (INT-004: PENDING → IN_PROGRESS). Which intent may write where is the user's decision: tell the user what changed, and undo it unless the user asked for exactly this. Until the user has looked and selects for this session again (\`intent select ID --session ${held[0]!.id}\`), intent-lsp denies its writes.`,
      ),
    );
  });
});

describe("intent hook claude-code: a shell command that changed the selection", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.select("INT-001");
  });
  afterEach(() => ws.dispose());

  /** One tool call's hook replies by event (PreToolUse, PostToolUse, …), in this process. */
  const claudeCall =
    (tool_name: string, tool_input: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    async (event: string) =>
      (
        await hookReplyInProcess("claude-code", claudePayload(ws, event, { tool_name, tool_input, tool_use_id: `toolu_${tool_name}`, ...extra }), {
          cwd: ws.root,
        })
      ).stdout;

  it("is reported after it, with the selection before and after; the same post again reports nothing", async () => {
    const claude = PROTOCOLS[0]!;
    const command = "./scripts/switch.sh";
    expect(await hook(claude, ws, claude.pre(ws, command))).toEqual(claude.quiet);
    ws.select("INT-003");
    const reply = await hook(claude, ws, claude.post(ws, command));
    const [held] = heldSessions(ws);
    expect(reply).toEqual(
      claude.report(
        `intent-lsp: this command changed intent-lsp's rules: the workspace selection changed (INT-001 → INT-003). Which intent may write where is the user's decision: tell the user what changed, and undo it unless the user asked for exactly this. Until the user has looked and selects for this session again (\`intent select ID --session ${held!.id}\`), intent-lsp denies its writes.`,
      ),
    );
    expect(await hook(claude, ws, claude.post(ws, command))).toEqual(claude.quiet);
  });

  it("holds the session it was not asked about: its writes are denied until the user selects for it again", async () => {
    const claude = PROTOCOLS[0]!;
    const edit = () =>
      hookReplyInProcess("claude-code", claudeEdit(ws, "PreToolUse", "src/api/weather.ts", "interface Weather", "interface W"), { cwd: ws.root });
    const decision = async () => JSON.parse((await edit()).stdout).hookSpecificOutput.permissionDecision as string;
    expect(await decision()).toBe("allow");
    await hook(claude, ws, claude.pre(ws, "./scripts/switch.sh"));
    ws.select("INT-003");
    await hook(claude, ws, claude.post(ws, "./scripts/switch.sh"));
    const [held] = heldSessions(ws);
    expect(JSON.parse((await edit()).stdout).hookSpecificOutput).toEqual({
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: `[intent-lsp: rules-changed] A shell command of this session changed intent-lsp's rules without the user's approval (the workspace selection changed (INT-001 → INT-003)), so its writes are denied. Tell the user what changed; once they have looked, they select for this session again: \`intent select ID --session ${held!.id}\`.`,
    });
    // a shell command too: the session only reads until then
    expect(JSON.parse((await hook(claude, ws, claude.pre(ws, "echo hi > src/api/x.ts"))).stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    // intent status shows the hold, and how to release it
    expect((await runCliInProcess(["status"], { cwd: ws.root })).stdout).toContain(
      `    held: a command of it changed the rules unasked (the workspace selection changed (INT-001 → INT-003)); its writes are denied until \`intent select ID --session ${held!.id}\``,
    );
    await runCliInProcess(["select", "INT-001", "--session", held!.id], { cwd: ws.root });
    expect(heldSessions(ws)).toEqual([]);
    expect(await decision()).toBe("allow");
  });

  it("a command that failed after it changed the selection holds the session too (Claude Code's PostToolUseFailure)", async () => {
    const reply = claudeCall("Bash", { command: "./scripts/switch.sh" }, { error: "exit code 1" });
    expect(JSON.parse(await reply("PreToolUse"))).toEqual({});
    ws.select("INT-003");
    expect(await reply("PostToolUseFailure")).toContain("this command changed intent-lsp's rules: the workspace selection changed (INT-001 → INT-003)");
    expect(heldSessions(ws)).toHaveLength(1);
  });

  it("a tool that runs something and names a file is recorded as a shell command: the selection it changes holds the session", async () => {
    const reply = claudeCall("mcp__x__shell_exec", { cmd_line: "./scripts/switch.sh", output_path: "src/api/out.txt" });
    // in scope, and nothing the shell policy asks about: left to the agent's own permission rules
    expect(JSON.parse(await reply("PreToolUse"))).toEqual({});
    ws.write("src/api/out.txt", "ran\n");
    ws.select("INT-003");
    expect(await reply("PostToolUse")).toContain("this command changed intent-lsp's rules: the workspace selection changed (INT-001 → INT-003)");
    // (only a shell command's post hook compares the rules with the state before it)
    expect(heldSessions(ws)).toHaveLength(1);
  });

  it("a running tool asked about because it writes our files, approved, holds nothing", async () => {
    const reply = claudeCall("mcp__x__shell_exec", { cmd_line: "./scripts/switch.sh", output_path: ".orchestration/switch.log" });
    expect(JSON.parse(await reply("PreToolUse")).hookSpecificOutput).toMatchObject({ permissionDecision: "ask" });
    ws.select("INT-003"); // the user allowed it, and it ran
    expect(await reply("PostToolUse")).toContain("the workspace selection changed (INT-001 → INT-003)");
    expect(heldSessions(ws)).toEqual([]);
  });

  it("a change the user approved when asked (the command said it changes the rules) holds nothing", async () => {
    const claude = PROTOCOLS[0]!;
    const command = "intent select INT-003";
    expect(JSON.parse((await hook(claude, ws, claude.pre(ws, command))).stdout).hookSpecificOutput.permissionDecision).toBe("ask");
    ws.select("INT-003"); // the user allowed it, and it ran
    expect((await hook(claude, ws, claude.post(ws, command))).stdout).toContain("the workspace selection changed (INT-001 → INT-003)");
    expect(heldSessions(ws)).toEqual([]);
  });

  it("a command that cut the ledger is reported, and holds the session, however it named the file", async () => {
    const claude = PROTOCOLS[0]!;
    await hookReplyInProcess("claude-code", claudeEdit(ws, "PreToolUse", "src/api/weather.ts", "interface Weather", "interface W"), { cwd: ws.root });
    ws.write("src/api/weather.ts", ws.read("src/api/weather.ts").replace("interface Weather", "interface W"));
    await hookReplyInProcess("claude-code", claudeEdit(ws, "PostToolUse", "src/api/weather.ts", "interface Weather", "interface W"), { cwd: ws.root });
    const ledger = ".orchestration/agent_trace.jsonl";
    const size = ws.read(ledger).length;
    expect(size).toBeGreaterThan(0);
    const command = ": > .orches''tration/agent_tr''ace.jsonl";
    await hook(claude, ws, claude.pre(ws, command));
    ws.write(ledger, "");
    expect((await hook(claude, ws, claude.post(ws, command))).stdout).toContain(`${ledger} was cut from ${size} bytes to 0`);
    expect(heldSessions(ws).map((h) => h.held)).toEqual([`${ledger} was cut from ${size} bytes to 0`]);
  });
});
