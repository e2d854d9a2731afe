import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { CLI_JS, runCli, runHook } from "../support/cliRunner";
import { git } from "../support/gitRepository";
import { claudeEdit } from "../support/hookPayloads";
import { LEDGER, ledgerRecords } from "../support/ledgerFile";

/**
 * `intent init` and `intent doctor` as a new user runs them: in a fresh repository, twice, over existing agent
 * configuration, and against the three ways a setup breaks (a hook command, the intents file, the ledger).
 */

beforeAll(ensureBuilt);

/** A folder on PATH with `intent` and `intent-lsp` as the built CLI and server, as `npm link` would provide. */
function shimBin(ws: TempWorkspace): NodeJS.ProcessEnv {
  const bin = ws.path(".bin-for-test");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "intent"), `#!/bin/sh\nexec "${process.execPath}" "${CLI_JS}" "$@"\n`);
  writeFileSync(join(bin, "intent-lsp"), `#!/bin/sh\nexec "${process.execPath}" "${join(CLI_JS, "../server.js")}" "$@"\n`);
  chmodSync(join(bin, "intent"), 0o755);
  chmodSync(join(bin, "intent-lsp"), 0o755);
  return { PATH: `${bin}:${process.env["PATH"]}` };
}

/** Every file under the root (but .git) with its content and mode: what "changes nothing" is checked against. */
function tree(root: string, dir = root, out: Record<string, string> = {}): Record<string, string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === ".git") continue;
    const st = statSync(p);
    if (st.isDirectory()) tree(root, p, out);
    else out[relative(root, p)] = `${(st.mode & 0o777).toString(8)} ${readFileSync(p, "utf8")}`;
  }
  return out;
}

const CLAUDE_SETTINGS = `{
  // the team's settings: comments survive
  "permissions": {
    "allow": ["Bash(npm test:*)", "Read(./docs/**)"],
    "deny": ["Read(./.env)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "./scripts/guard.sh", "timeout": 10 }]
      }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "./scripts/notify.sh" }] }]
  },
  "model": "opus",
  "env": { "FOO": "bar" }
}
`;

describe("intent init", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace({ fromExample: false });
    git(ws.root, "init", "-q");
  });
  afterEach(() => ws.dispose());

  it("sets a fresh repository up in one step; a second run changes nothing", () => {
    ws.write(".gitignore", "node_modules/\n");
    const first = runCli(["init", "--agent", "claude-code", "--agent", "cline"], { cwd: ws.root });
    expect(first.stderr).toBe("");
    expect(first.stdout).toBe(
      [
        "created .orchestration/active_intents.yaml (a commented example: declare your intents there)",
        "created .gitattributes: .orchestration/agent_trace.jsonl merge=union, .orchestration/agent_trace.sealed merge=union",
        "updated .gitignore: .orchestration/.sessions/, .orchestration/*.lock, .orchestration/.cache/",
        "created .claude/settings.json: claude-code hooks for PreToolUse, PostToolUse, PostToolUseFailure, SessionStart, SessionEnd",
        "created .clinerules/hooks/PreToolUse (cline hook)",
        "created .clinerules/hooks/PostToolUse (cline hook)",
        "Next: `intent doctor` checks the setup (hooks answering, intents valid, ledger verifying).",
        "",
      ].join("\n"),
    );
    expect(first.status).toBe(0);
    expect(ws.read(".gitignore")).toBe("node_modules/\n\n# intent-lsp\n.orchestration/.sessions/\n.orchestration/*.lock\n.orchestration/.cache/\n");
    expect(ws.read(".gitattributes")).toBe("# intent-lsp\n.orchestration/agent_trace.jsonl merge=union\n.orchestration/agent_trace.sealed merge=union\n");
    expect(ws.read(".clinerules/hooks/PreToolUse")).toBe(
      "#!/usr/bin/env bash\n# intent-lsp: gate and record this agent's tool calls (see the intent-lsp README)\nexec intent hook cline\n",
    );
    expect(statSync(ws.path(".clinerules/hooks/PreToolUse")).mode & 0o777).toBe(0o755);
    // the example intents file is valid: `intent status` reads it without problems
    expect(runCli(["status"], { cwd: ws.root }).status).toBe(0);

    const before = tree(ws.root);
    // the detected agents (.claude/, .clinerules/) are set up again: nothing left to add
    const second = runCli(["init"], { cwd: ws.root });
    expect(second.stdout).toBe(
      `Nothing to change: ${ws.root} is set up.\nNext: \`intent doctor\` checks the setup (hooks answering, intents valid, ledger verifying).\n`,
    );
    expect(second.status).toBe(0);
    expect(tree(ws.root)).toEqual(before);
  });

  it("merges into an existing .claude/settings.json keeping every entry, comment and key (whole file)", () => {
    ws.write(".claude/settings.json", CLAUDE_SETTINGS);
    const r = runCli(["init"], { cwd: ws.root });
    expect(r.stdout).toContain("updated .claude/settings.json: claude-code hooks for PreToolUse, PostToolUse, PostToolUseFailure, SessionStart, SessionEnd\n");
    expect(ws.read(".claude/settings.json")).toBe(`{
  // the team's settings: comments survive
  "permissions": {
    "allow": ["Bash(npm test:*)", "Read(./docs/**)"],
    "deny": ["Read(./.env)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "./scripts/guard.sh", "timeout": 10 }]
      },
      {
        "matcher": "Write|Edit|MultiEdit|NotebookEdit|Bash|PowerShell|mcp__.*",
        "hooks": [
          {
            "type": "command",
            "command": "intent hook claude-code",
            "timeout": 30
          }
        ]
      }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "./scripts/notify.sh" }] }],
    "PostToolUse": [
      {
        "matcher": "Write|Edit|MultiEdit|NotebookEdit|Bash|PowerShell|mcp__.*",
        "hooks": [
          {
            "type": "command",
            "command": "intent hook claude-code",
            "timeout": 30
          }
        ]
      }
    ],
    "PostToolUseFailure": [
      {
        "matcher": "Write|Edit|MultiEdit|NotebookEdit|Bash|PowerShell|mcp__.*",
        "hooks": [
          {
            "type": "command",
            "command": "intent hook claude-code",
            "timeout": 30
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "intent hook claude-code"
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "intent hook claude-code"
          }
        ]
      }
    ]
  },
  "model": "opus",
  "env": { "FOO": "bar" }
}
`);
    // and again: nothing
    const again = runCli(["init"], { cwd: ws.root });
    expect(again.stdout).toMatch(/^Nothing to change/);
  });

  it("sets up every agent, and doctor finds each hook answering", () => {
    const agents = ["claude-code", "cursor", "codex", "gemini", "copilot", "windsurf", "cline", "droid", "qwen", "kiro", "goose", "auggie", "opencode", "amp"];
    const r = runCli(["init", ...agents.flatMap((a) => ["--agent", a])], { cwd: ws.root });
    expect(r.status).toBe(0);
    for (const f of [
      ".cursor/hooks.json",
      ".codex/hooks.json",
      ".gemini/settings.json",
      ".github/hooks/intent-lsp.json",
      ".windsurf/hooks.json",
      ".factory/hooks.json",
      ".qwen/settings.json",
      ".kiro/agents/intent-lsp.json",
      ".agents/plugins/intent-lsp/hooks/hooks.json",
      ".augment/settings.json",
    ]) {
      expect(r.stdout).toContain(`created ${f}:`);
    }
    expect(r.stdout).toContain("created .opencode/plugins/intent-lsp.js (opencode plugin running `intent hook opencode`)");
    expect(r.stdout).toContain("created .amp/plugins/intent-lsp.ts (amp plugin running `intent hook amp`)");
    expect(r.stdout).toContain("created .kiro/settings/cli.json (kiro setup)");
    expect(JSON.parse(ws.read(".kiro/settings/cli.json"))).toEqual({ "chat.defaultAgent": "intent-lsp" });
    expect(JSON.parse(ws.read(".kiro/agents/intent-lsp.json"))).toMatchObject({
      name: "intent-lsp",
      tools: ["*"],
      hooks: {
        preToolUse: [
          { matcher: "fs_write", command: "intent hook kiro", timeout_ms: 30000 },
          { matcher: "execute_bash", command: "intent hook kiro", timeout_ms: 30000 },
        ],
        postToolUse: [
          { matcher: "fs_write", command: "intent hook kiro", timeout_ms: 30000 },
          { matcher: "execute_bash", command: "intent hook kiro", timeout_ms: 30000 },
        ],
      },
    });
    expect(JSON.parse(ws.read(".agents/plugins/intent-lsp/hooks/hooks.json")).hooks.PreToolUse).toEqual([
      { matcher: "^developer__(write|edit|shell)$", hooks: [{ type: "command", command: "intent hook goose", timeout: 30, on_failure: "block" }] },
    ]);
    expect(JSON.parse(ws.read(".cursor/hooks.json"))).toMatchObject({
      version: 1,
      hooks: { preToolUse: [{ command: "intent hook cursor", failClosed: true }] },
    });
    expect(JSON.parse(ws.read(".windsurf/hooks.json")).hooks.pre_run_command).toEqual([{ command: "intent hook windsurf", show_output: true }]);

    const doctor = runCli(["doctor"], { cwd: ws.root, env: shimBin(ws) });
    const hookLines = doctor.stdout.split("\n").filter((l) => / hook: /.test(l));
    expect(hookLines).toHaveLength(15); // Cline: two scripts
    for (const l of hookLines) expect(l).toMatch(/^ok {7}[a-z-]+ hook: .* answers$/);
    // a fresh init declares no intent yet (its example is commented out): a warning, not a problem
    expect(doctor.stdout).toContain(
      `All ${doctor.stdout.split("\n").filter((l) => /^(ok|problem|warning)/.test(l)).length} checks passed, 1 warning in ${ws.root}.\n`,
    );
    expect(doctor.status).toBe(0);
    // the probes left no session behind
    expect(readdirSync(ws.path(".orchestration/.sessions")).filter((n) => n !== ".gitignore")).toEqual([]);
  });

  it("brings an earlier version's hook entries up to date: their matchers and missing events, the user's entries kept", () => {
    // as an earlier version wrote them: Codex's matcher reached no MCP tool, Cursor had no MCP events
    const codex = `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "./guard.sh" }] },
      { "matcher": "apply_patch|Bash", "hooks": [{ "type": "command", "command": "intent hook codex" }] }
    ],
    "PostToolUse": [{ "matcher": "apply_patch|Bash", "hooks": [{ "type": "command", "command": "intent hook codex" }] }]
  }
}
`;
    ws.write(".codex/hooks.json", codex);
    const cursor = `{
  "version": 1,
  "hooks": {
    "preToolUse": [{ "command": "intent hook cursor", "matcher": "Write|Edit|StrReplace|Delete", "failClosed": true }],
    "afterFileEdit": [{ "command": "intent hook cursor" }],
    "beforeShellExecution": [{ "command": "intent hook cursor", "failClosed": true }],
    "afterShellExecution": [{ "command": "intent hook cursor" }],
    "sessionEnd": [{ "command": "intent hook cursor" }]
  }
}
`;
    ws.write(".cursor/hooks.json", cursor);
    const r = runCli(["init", "--agent", "codex", "--agent", "cursor"], { cwd: ws.root });
    expect(r.stdout).toContain("updated .codex/hooks.json: the tools codex's PreToolUse and PostToolUse hooks reach brought up to date\n");
    expect(r.stdout).toContain("updated .cursor/hooks.json: cursor hooks for beforeMCPExecution, afterMCPExecution\n");
    const matcher = JSON.parse(ws.read(".codex/hooks.json")).hooks.PreToolUse[1].matcher as string;
    expect(matcher).toBe("apply_patch|Bash|mcp__.*");
    // only the matchers of our entries changed, byte for byte
    expect(ws.read(".codex/hooks.json")).toBe(codex.replaceAll('"matcher": "apply_patch|Bash"', `"matcher": ${JSON.stringify(matcher)}`));
    expect(JSON.parse(ws.read(".cursor/hooks.json")).hooks.beforeMCPExecution).toEqual([{ command: "intent hook cursor", failClosed: true }]);
    // a second run has nothing left to change
    expect(runCli(["init", "--agent", "codex", "--agent", "cursor"], { cwd: ws.root }).stdout).toMatch(/^Nothing to change: /);
  });

  it("leaves a file it cannot read as JSON as it is, and says where it is broken", () => {
    ws.write(".cursor/hooks.json", '{ "version": 1, "hooks": { "preToolUse": [ ');
    const r = runCli(["init"], { cwd: ws.root });
    expect(r.stderr).toBe(
      "intent init: .cursor/hooks.json is not valid JSON at line 1, column 44: CloseBracketExpected; it was left as it is. Fix it, then run `intent init` again\n",
    );
    expect(r.status).toBe(1);
    expect(ws.read(".cursor/hooks.json")).toBe('{ "version": 1, "hooks": { "preToolUse": [ ');
  });

  it("keeps a Cline hook script of the user's and says what to add", () => {
    ws.write(".clinerules/hooks/PreToolUse", "#!/bin/sh\n./my-check\n");
    const r = runCli(["init"], { cwd: ws.root });
    expect(r.stderr).toBe(
      "intent init: .clinerules/hooks/PreToolUse exists and does not run `intent hook cline`; it was left as it is. Add a line `intent hook cline` to it (its standard input is the event), or merge the two scripts\n",
    );
    expect(ws.read(".clinerules/hooks/PreToolUse")).toBe("#!/bin/sh\n./my-check\n");
    expect(ws.read(".clinerules/hooks/PostToolUse")).toContain("exec intent hook cline");
  });

  it("refuses an unknown agent", () => {
    expect(runCli(["init", "--agent", "vim"], { cwd: ws.root })).toMatchObject({
      status: 2,
      stderr:
        'intent init: unknown agent "vim"; use one of claude-code, cursor, codex, gemini, copilot, windsurf, cline, droid, qwen, kiro, goose, auggie, opencode, amp\n',
    });
  });
});

describe("intent doctor", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.write(LEDGER, "");
    git(ws.root, "init", "-q");
    runCli(["init", "--agent", "claude-code"], { cwd: ws.root });
  });
  afterEach(() => ws.dispose());

  const doctor = () => runCli(["doctor"], { cwd: ws.root, env: shimBin(ws) });
  const lineOf = (out: string, name: string) => {
    const lines = out.split("\n");
    const i = lines.findIndex((l) => l.includes(` ${name}: `));
    return [lines[i], lines[i + 1]].join("\n");
  };

  it("all ok on a set-up repository", () => {
    const r = doctor();
    expect(r.stdout).toMatch(/^ok {7}intents file: \.orchestration\/active_intents\.yaml: 5 intents, 2 in progress\n/);
    expect(r.status).toBe(0);
  });

  it("warns when no intent is declared, and says how to declare one", () => {
    ws.write(".orchestration/active_intents.yaml", "active_intents: []\n");
    const r = doctor();
    expect(lineOf(r.stdout, "intents file")).toBe(
      'warning  intents file: no intent declared in .orchestration/active_intents.yaml: edits are flagged "no active intent" and agents may write only exempt paths\n' +
        '         fix: declare one under active_intents: (id, name, status: IN_PROGRESS, owned_scope: ["src/**"]), e.g. by uncommenting the example `intent init` wrote; `intent status` then lists it',
    );
    expect(r.stdout).toMatch(/checks passed, 1 warning in /);
    expect(r.status).toBe(0);
  });

  it("finds hooks an earlier version wrote, whose matcher leaves tools that write ungated", () => {
    const settings = ws.read(".claude/settings.json").replaceAll(/"matcher": "Write\|Edit[^"]*"/g, '"matcher": "Write|Edit|MultiEdit|NotebookEdit|Bash"');
    ws.write(".claude/settings.json", settings);
    const r = doctor();
    expect(r.stdout).toContain(
      "problem  claude-code hooks: .claude/settings.json: the matcher of PreToolUse, PostToolUse and PostToolUseFailure is not this version's, so some tools that write are not gated\n" +
        "         fix: run `intent init --agent claude-code`\n",
    );
    expect(r.status).toBe(1);
    runCli(["init", "--agent", "claude-code"], { cwd: ws.root });
    expect(doctor().stdout).not.toContain("claude-code hooks:");
  });

  it("finds a broken hook command, with its fix", () => {
    // the hook says `intent`, but `intent` is not on this PATH (never linked, or another Node's global bin)
    const r = runCli(["doctor"], { cwd: ws.root, env: { PATH: "/usr/bin:/bin" } });
    expect(lineOf(r.stdout, "claude-code hook")).toMatch(
      new RegExp(
        "^problem  claude-code hook: `intent hook claude-code` \\(\\.claude/settings\\.json\\) cannot run: no intent in PATH\\n" +
          `         fix: make the command run from ${ws.root}: put \`intent\` on PATH \\(\`npm link\` in the intent-lsp checkout\\), then run \`intent doctor\` again$`,
      ),
    );
    expect(r.status).toBe(1);
  });

  it("finds a broken intents file, with its fix", () => {
    ws.write(
      ".orchestration/active_intents.yaml",
      'active_intents:\n  - id: INT-001\n    name: Build Weather API\n    status: IN_PROGRESS\n    owned_scope: ["src/api/**"\n',
    );
    const r = doctor();
    expect(lineOf(r.stdout, "intents file")).toBe(
      "problem  intents file: .orchestration/active_intents.yaml:6:1: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]\n" +
        "         fix: correct .orchestration/active_intents.yaml at that line; while it has errors every agent write is denied. `intent status` lists every problem",
    );
    // the hook still answers (it denies writes, not reads)
    expect(lineOf(r.stdout, "claude-code hook")).toMatch(/^ok {7}claude-code hook: /);
    expect(r.status).toBe(1);
  });

  it("finds a tampered ledger, with its fix", () => {
    ws.select("INT-001");
    for (const [from, to] of [
      ["export interface Weather {", "export interface Weather { // v2"],
      ["  city: string;", "  city: string; // v2"],
    ]) {
      runHook("claude-code", claudeEdit(ws, "PreToolUse", "src/api/weather.ts", from!, to!), { cwd: ws.root });
      ws.write("src/api/weather.ts", ws.read("src/api/weather.ts").replace(from!, to!));
      runHook("claude-code", claudeEdit(ws, "PostToolUse", "src/api/weather.ts", from!, to!), { cwd: ws.root });
    }
    expect(ledgerRecords(ws)).toHaveLength(2);
    expect(lineOf(doctor().stdout, "ledger")).toMatch(/^ok {7}ledger: \.orchestration\/agent_trace\.jsonl: 2 records verify\n/);
    ws.write(LEDGER, ws.read(LEDGER).replace('"INT-001"', '"INT-003"')); // someone rewrites history
    const r = doctor();
    expect(lineOf(r.stdout, "ledger")).toMatch(
      /^problem {2}ledger: \.orchestration\/agent_trace\.jsonl:1: chain: does not match the hash line 2 recorded for the line before it \(prev\).*\n {9}fix: a record was edited, removed or inserted by hand: compare with git \(`git diff -- \.orchestration\/agent_trace\.jsonl`\) and restore it \(`git checkout -- \.orchestration\/agent_trace\.jsonl`\); `intent verify` lists every problem$/,
    );
    expect(r.status).toBe(1);
  });

  it("finds missing git settings, an agent without hooks, intent-lsp not on PATH and a stale lock", () => {
    ws.write(".gitattributes", "");
    ws.write(".cursor/rules.md", "be nice\n"); // Cursor is used here, without intent-lsp's hooks
    mkdirSync(ws.path(".orchestration/agent_trace.jsonl.lock"));
    const old = new Date(Date.now() - 60_000);
    utimesSync(ws.path(".orchestration/agent_trace.jsonl.lock"), old, old);
    const r = runCli(["doctor"], { cwd: ws.root, env: { PATH: "/usr/bin:/bin" } });
    expect(lineOf(r.stdout, ".gitattributes")).toBe(
      "problem  .gitattributes: missing .orchestration/agent_trace.jsonl merge=union, .orchestration/agent_trace.sealed merge=union (so that the ledger merges without conflicts)\n         fix: run `intent init` (it appends the missing lines and changes nothing else)",
    );
    expect(lineOf(r.stdout, "cursor hooks")).toBe(
      "problem  cursor hooks: cursor is used here but its hooks do not call `intent hook cursor`\n         fix: run `intent init --agent cursor`",
    );
    expect(lineOf(r.stdout, "intent-lsp on PATH")).toMatch(/^problem {2}intent-lsp on PATH: no intent-lsp in PATH/);
    expect(lineOf(r.stdout, "locks")).toBe(
      "problem  locks: stale lock directory (not refreshed for more than 10 s): .orchestration/agent_trace.jsonl.lock\n" +
        "         fix: if no editor or agent is writing right now, remove it: `rm -r .orchestration/agent_trace.jsonl.lock` (the next writer would also take it over)",
    );
    expect(r.status).toBe(1);
  });
});
