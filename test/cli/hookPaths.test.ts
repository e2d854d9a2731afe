/**
 * The gate judges the path a write really reaches, not another spelling of it: the real `intent hook`
 * process with an agent's payload, then the write done through the same spelling (as the agent's tool does
 * once allowed) to show where the file lands on disk.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runHook } from "../support/cliRunner";
import { claudePayload } from "../support/hookPayloads";
import { ledgerRecords } from "../support/ledgerFile";

beforeAll(ensureBuilt);

let ws: TempWorkspace;
/** A folder outside the workspace. */
let outside: string;

beforeEach(() => {
  ws = new TempWorkspace({ withLedger: false });
  outside = realpathSync(mkdtempSync(join(tmpdir(), "gate-paths-outside-")));
});
afterEach(() => {
  ws.dispose();
  rmSync(outside, { recursive: true, force: true });
});

const claudeWrite = (filePath: string, cwd = ws.root, event = "PreToolUse") =>
  runHook(
    "claude-code",
    { ...claudePayload(ws, event, { tool_name: "Write", tool_input: { file_path: filePath, content: "x\n" }, tool_use_id: "toolu_paths" }), cwd },
    { cwd },
  );
const decision = (r: { json: unknown }) =>
  (r.json as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } }).hookSpecificOutput;

/** Every file below `dir`, as paths relative to it. */
function filesBelow(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesBelow(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

describe("`..` after a symbolic link: the kernel follows the link first", () => {
  it("src/api/lnk/../x.txt with lnk leading out of the workspace is denied, and a write there lands outside", () => {
    ws.select("INT-001");
    mkdirSync(join(outside, "deep"));
    symlinkSync(join(outside, "deep"), ws.path("src/api/lnk"));
    const spelling = `${ws.root}/src/api/lnk/../x.txt`; // as written: join() would apply the `..` to the text
    const d = decision(claudeWrite(spelling));
    expect(d?.permissionDecision).toBe("deny");
    expect(d?.permissionDecisionReason).toBe(
      `[intent-lsp: outside-workspace] src/api/lnk/../x.txt leads outside the workspace through a symbolic link; intent-lsp lets agents write only inside it. Ask the user to make this change.`,
    );
    writeFileSync(spelling, "x\n"); // what the write would do
    expect(existsSync(join(outside, "x.txt"))).toBe(true);
    expect(existsSync(ws.path("src/api/x.txt"))).toBe(false);
  });

  it("src/api/lnk/../x.ts with lnk leading into a COMPLETE intent's folder is judged as that folder's file", () => {
    ws.select("INT-001");
    mkdirSync(ws.path("src/billing/reports"));
    symlinkSync("../billing/reports", ws.path("src/api/lnk"));
    const spelling = `${ws.root}/src/api/lnk/../x.ts`;
    const d = decision(claudeWrite(spelling));
    expect(d?.permissionDecision).toBe("deny");
    expect(d?.permissionDecisionReason).toMatch(/^\[intent-lsp: out-of-scope\] src\/billing\/x\.ts /);
    writeFileSync(spelling, "x\n");
    expect(existsSync(ws.path("src/billing/x.ts"))).toBe(true);
    expect(existsSync(ws.path("src/api/x.ts"))).toBe(false);
  });
});

describe("a backslash is part of a file name on POSIX, never a separator", () => {
  it("src/billing/x\\..\\..\\api\\y.ts is a file inside src/billing, judged as such", () => {
    ws.select("INT-001");
    const name = "x\\..\\..\\api\\y.ts";
    const spelling = ws.path(`src/billing/${name}`);
    const d = decision(claudeWrite(spelling));
    expect(d?.permissionDecision).toBe("deny");
    expect(d?.permissionDecisionReason).toMatch(/^\[intent-lsp: out-of-scope\] src\/billing\/x\\\.\.\\\.\.\\api\\y\.ts /);
    writeFileSync(spelling, "x\n");
    expect(filesBelow(ws.path("src/billing")).sort()).toEqual(["export.ts", name]);
    expect(existsSync(ws.path("src/api/y.ts"))).toBe(false);
  });
});

describe("~ in a path: the home folder where the agent expands it, never guessed at elsewhere", () => {
  const codexPatch = (cwd: string, file: string) => ({
    session_id: "019a-codex-paths",
    turn_id: "turn-1",
    transcript_path: null,
    cwd,
    hook_event_name: "PreToolUse",
    model: "gpt-5-codex",
    permission_mode: "default",
    tool_name: "apply_patch",
    tool_use_id: "call-patch-home",
    tool_input: { command: `*** Begin Patch\n*** Add File: ${file}\n+x\n*** End Patch\n` },
  });

  it("Codex: ~/evil.log is $HOME/evil.log, outside the workspace: denied (not an exempt *.log of a folder named ~)", () => {
    const home = join(outside, "home");
    mkdirSync(home);
    const r = runHook("codex", codexPatch(ws.root, "~/evil.log"), { cwd: ws.root, env: { HOME: home } });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `[intent-lsp: outside-workspace] ${home}/evil.log is outside the workspace ${ws.root}; intent-lsp lets agents write only inside it. Write the file inside the workspace, or ask the user to make this change.\n`,
    );
    // Codex writes it in the home folder: nothing of it in the workspace
    writeFileSync(join(home, "evil.log"), "x\n");
    expect(existsSync(ws.path("~"))).toBe(false);
  });

  it("an agent not known to expand ~: ~/.bashrc is denied even where an intent owns **", () => {
    ws.write(
      ".orchestration/active_intents.yaml",
      `${ws.read(".orchestration/active_intents.yaml")}\n  - id: INT-009\n    name: Everything\n    status: IN_PROGRESS\n    owned_scope: ["**"]\n    created_at: 2026-02-20T08:00:00Z\n    updated_at: 2026-02-20T08:00:00Z\n`,
    );
    ws.select("INT-009");
    expect(decision(claudeWrite(ws.path("src/api/new.ts")))?.permissionDecision).toBe("allow"); // ** really owns everything
    const d = decision(claudeWrite("~/.bashrc"));
    expect(d?.permissionDecision).toBe("deny");
    expect(d?.permissionDecisionReason).toMatch(/^\[intent-lsp: bad-path\] ~\/\.bashrc starts with ~, which this agent may mean as the home folder/);
    expect(existsSync(ws.path("~"))).toBe(false);
  });
});

describe("a workspace reached through a symlinked folder", () => {
  let link: string;
  beforeEach(() => {
    link = join(outside, "link-to-ws");
    symlinkSync(ws.root, link);
    ws.select("INT-001");
  });

  it("cwd through the link, file_path real (and the reverse): allowed, recorded on the real path, landing in the workspace", () => {
    for (const [cwd, file] of [
      [link, ws.path("src/api/x.ts")],
      [ws.root, join(link, "src/api/y.ts")],
    ] as const) {
      const d = decision(claudeWrite(file, cwd));
      expect(d?.permissionDecision, `${cwd} writing ${file}: ${d?.permissionDecisionReason}`).toBe("allow");
      expect(d?.permissionDecisionReason).toMatch(/^INT-001 \(Build Weather API\) owns src\/api\/[xy]\.ts/);
      writeFileSync(file, "x\n");
      expect(claudeWrite(file, cwd, "PostToolUse").status).toBe(0);
    }
    expect(filesBelow(ws.path("src/api")).sort()).toEqual(["forecast.ts", "weather.ts", "x.ts", "y.ts"]);
    expect(ledgerRecords(ws).map((r) => r.files[0].path)).toEqual(["src/api/x.ts", "src/api/y.ts"]);
  });
});
