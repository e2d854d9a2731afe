import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli, runHook } from "../support/cliRunner";
import { git } from "../support/gitRepository";
import { claudeAnswer, claudeEdit, writeTranscript } from "../support/hookPayloads";

/**
 * A team's first day, as the README tells it: a repository cloned from its remote, `intent init`, intents
 * declared, the pre-commit hook (`intent check --staged`) on every commit, and CI (`intent check`) on the
 * branch. What `intent init` writes is intent-lsp's own setup and never held against the user.
 */

beforeAll(ensureBuilt);

const INTENTS = `active_intents:
  - id: INT-001
    name: Greet by name
    status: IN_PROGRESS
    owned_scope: ["src/**"]
`;

let upstream: TempWorkspace;
let ws: TempWorkspace;

beforeEach(() => {
  // the team's repository: a remote holding main, and a clone of it (origin/HEAD → origin/main)
  const seed = new TempWorkspace({ fromExample: false });
  seed.write("src/greet.ts", 'export const greet = () => "hello";\n');
  seed.write(".gitignore", "node_modules/"); // no final line break: init adds one to that line
  seed.write("CLAUDE.md", "# Notes for Claude\n");
  git(seed.root, "init", "-q");
  git(seed.root, "add", "-A");
  git(seed.root, "commit", "-q", "-m", "initial");
  upstream = new TempWorkspace({ fromExample: false });
  git(upstream.root, "clone", "-q", "--bare", seed.root, ".");
  seed.dispose();
  ws = new TempWorkspace({ fromExample: false });
  git(ws.root, "clone", "-q", upstream.root, ".");
  git(ws.root, "checkout", "-q", "-b", "adopt-intent-lsp");
});

afterEach(() => {
  ws.dispose();
  upstream.dispose();
});

/** What the pre-commit hook does: refuse the commit when `intent check --staged` fails. */
function commit(message: string) {
  git(ws.root, "add", "-A");
  const check = runCli(["check", "--staged"], { cwd: ws.root });
  expect(check.stdout, `pre-commit check for "${message}"`).toMatch(/^No findings in \d+ changed lines? of \d+ files? \(staged changes vs HEAD\)\.\n$/);
  expect(check.status).toBe(0);
  git(ws.root, "commit", "-q", "-m", message);
}

describe("the first day: init, the pre-commit hook and CI", () => {
  it("the setup commit, then an agent's in-scope edit, pass the pre-commit check; CI passes on the branch", () => {
    expect(runCli(["init"], { cwd: ws.root }).status).toBe(0);
    expect(ws.read(".gitignore")).toContain(".orchestration/.sessions/");
    expect(ws.read(".claude/settings.json")).toContain("intent hook claude-code");
    ws.write(".orchestration/active_intents.yaml", INTENTS);
    commit("Adopt intent-lsp");

    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    // the Edit's payload is exactly what the tool writes: the hook records what its tool wrote
    const from = '() => "hello"';
    const to = "(name: string) => `hello, ${name}`";
    const pre = runHook("claude-code", claudeEdit(ws, "PreToolUse", "src/greet.ts", from, to), { cwd: ws.root });
    expect(pre.json).toEqual(claudeAnswer("allow", expect.any(String) as unknown as string));
    ws.write("src/greet.ts", ws.read("src/greet.ts").replace(from, to));
    expect(runHook("claude-code", claudeEdit(ws, "PostToolUse", "src/greet.ts", from, to), { cwd: ws.root }).status).toBe(0);
    commit("Greet by name");

    const ci = runCli(["check"], { cwd: ws.root });
    expect(ci.stdout).toMatch(/^No findings in \d+ changed lines? of \d+ files? \(working tree vs merge-base of HEAD and origin\/HEAD \([0-9a-f]{12}\)\)\.\n$/);
    expect(ci.status).toBe(0);
  });

  it("a line the user adds to a file init also writes is checked like any other", () => {
    expect(runCli(["init"], { cwd: ws.root }).status).toBe(0);
    ws.write(".orchestration/active_intents.yaml", INTENTS);
    ws.write(".gitignore", `${ws.read(".gitignore")}coverage/\n`);
    git(ws.root, "add", "-A");
    const check = runCli(["check", "--staged"], { cwd: ws.root });
    const last = ws.read(".gitignore").split("\n").length - 1;
    expect(check.stdout.split("\n")[0]).toBe(
      `.gitignore:${last}: error unowned-change: .gitignore changed here, no ledger record explains it, and no intent in progress owns the file. No intent owns it. Start or select an intent that owns it (or add the path to one's scope) and make the change under it.`,
    );
    expect(check.status).toBe(1);
  });
});
