import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { CLI_JS, runCli } from "../support/cliRunner";
import { git } from "../support/gitRepository";

/**
 * What a committed repository can do with symbolic links and hook configuration, each as the probe found
 * it: `intent init` writing through links to outside, the Bash pre-hook's snapshot landing outside, `intent
 * context` quoting a secret through a related_specs link, `intent doctor` running a planted command.
 */

beforeAll(ensureBuilt);

const SECRET = "SECRET-aws-key-0123456789";

let base: string;
let root: string;
let outside: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "intent-repo-links-"));
  root = join(base, "ws");
  outside = join(base, "outside");
  mkdirSync(join(root, ".orchestration"), { recursive: true });
  mkdirSync(join(root, "src"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(
    join(root, ".orchestration/active_intents.yaml"),
    `active_intents:\n  - id: INT-001\n    name: API\n    status: IN_PROGRESS\n    owned_scope: ["src/**"]\n    related_specs: [{ type: doc, ref: docs/secret.md }]\n`,
  );
  writeFileSync(join(root, "src/a.ts"), "export const a = 1;\n");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** Every entry under `dir`, with kind, content and modification time. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      out.push(`${relative(dir, p)} ${st.mode} ${st.mtimeMs} ${st.isFile() ? readFileSync(p, "utf8") : ""}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

describe("a repository's links and commands do not steer intent-lsp", () => {
  it("intent init does not write through a committed .gitignore, .claude or .clinerules link to outside", () => {
    writeFileSync(join(outside, "bashrc"), "export PATH=/usr/bin\n");
    mkdirSync(join(outside, "claude"));
    writeFileSync(join(outside, "claude/settings.json"), "{}\n");
    mkdirSync(join(outside, "clinerules"));
    symlinkSync(join(outside, "bashrc"), join(root, ".gitignore"));
    symlinkSync(join(outside, "claude"), join(root, ".claude"));
    symlinkSync(join(outside, "clinerules"), join(root, ".clinerules"));
    const before = tree(outside);

    const r = runCli(["init"], { cwd: root });

    expect(tree(outside)).toEqual(before);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/intent init: \.gitignore was not read: \.gitignore is a symbolic link to .*outside\/bashrc, outside the workspace/);
    expect(r.stderr).toMatch(
      /intent init: claude-code: \.claude\/settings\.json was not read: \.claude is a symbolic link to .*outside\/claude, outside the workspace/,
    );
    expect(r.stderr).toMatch(
      /intent init: cline: \.clinerules\/hooks\/PreToolUse was not read: \.clinerules is a symbolic link to .*outside\/clinerules, outside the workspace/,
    );
    // what can be set up inside still is
    expect(r.stdout).toContain("created .gitattributes");
    expect(lstatSync(join(root, ".gitignore")).isSymbolicLink()).toBe(true);
  });

  it("the Bash pre-hook does not write its snapshot through a committed .orchestration/.sessions/pending link", () => {
    writeFileSync(join(root, "src/draft.ts"), `// uncommitted: ${SECRET}\n`);
    git(root, "init", "-q");
    git(root, "add", ".orchestration", "src/a.ts");
    git(root, "commit", "-q", "-m", "initial");
    mkdirSync(join(root, ".orchestration/.sessions"));
    writeFileSync(
      join(root, ".orchestration/.sessions/workspace.json"),
      JSON.stringify({ intent: "INT-001", selectedAt: new Date().toISOString(), by: "test" }),
    );
    mkdirSync(join(outside, "stash"));
    symlinkSync(join(outside, "stash"), join(root, ".orchestration/.sessions/pending"));
    const before = tree(outside);

    const payload = {
      session_id: "s1",
      transcript_path: "",
      cwd: root,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "t1",
    };
    const r = runCli(["hook", "claude-code"], { cwd: root, input: JSON.stringify(payload), env: { INTENT_LSP_MODEL: "m" } });

    expect(tree(outside)).toEqual(before);
    expect(readdirSync(join(outside, "stash"))).toEqual([]);
    const answer = JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(answer.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(answer.hookSpecificOutput.permissionDecisionReason).toMatch(
      /^\[intent-lsp: outside-workspace\] \.orchestration\/\.sessions\/pending(\/[\w.-]+\.json)? leads outside the workspace .* through a symbolic link \(\.orchestration\/\.sessions\/pending is a symbolic link to .*outside\/stash, outside the workspace\)/,
    );
  });

  it("intent context does not quote a related_specs file that links outside the workspace, and says so", () => {
    writeFileSync(join(outside, "credentials"), `aws_secret_access_key = ${SECRET}\n`);
    mkdirSync(join(root, "docs"));
    symlinkSync(join(outside, "credentials"), join(root, "docs/secret.md"));

    const r = runCli(["context", "INT-001"], { cwd: root });

    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(r.stdout).toMatch(
      /<spec type="doc" ref="docs\/secret\.md" not_read="not read: docs\/secret\.md is a symbolic link to [^"]*outside\/credentials, outside the workspace"\/>/,
    );
  });

  it("intent doctor runs no command that merely mentions `intent hook AGENT`, and runs the exact one without a shell", () => {
    const ran = join(base, "ran");
    mkdirSync(join(root, ".cursor"));
    writeFileSync(
      join(root, ".cursor/hooks.json"),
      JSON.stringify({
        version: 1,
        hooks: { preToolUse: [{ command: `touch ${ran}; # intent hook cursor` }], afterFileEdit: [{ command: "intent hook cursor" }] },
      }),
    );
    mkdirSync(join(root, ".clinerules/hooks"), { recursive: true });
    writeFileSync(join(root, ".clinerules/hooks/PreToolUse"), `#!/bin/sh\ntouch ${ran}\nexec intent hook cline\n`, { mode: 0o755 });
    const bin = join(base, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "intent"), `#!/bin/sh\nexec "${process.execPath}" "${CLI_JS}" "$@"\n`, { mode: 0o755 });

    const r = runCli(["doctor"], { cwd: root, env: { PATH: `${bin}:${process.env["PATH"]}` } });

    expect(existsSync(ran)).toBe(false);
    expect(r.stdout).toContain(
      `problem  cursor hook: \`touch ${ran}; # intent hook cursor\` (.cursor/hooks.json): not an intent-lsp hook command; not run (doctor runs only the exact \`intent hook cursor\` that \`intent init\` writes)\n`,
    );
    expect(r.stdout).toContain("problem  cline hook: .clinerules/hooks/PreToolUse: not an intent-lsp hook command; not run");
    expect(r.stdout).toContain("ok       cursor hook: `intent hook cursor` (.cursor/hooks.json) answers\n");
    expect(r.status).toBe(1);
  });
});
