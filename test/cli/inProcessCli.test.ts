import { mkdirSync } from "node:fs";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { runCli, runCliInProcess, type CliResult } from "../support/cliRunner";
import { gitWorkspace } from "../support/gitRepository";
import type { TempWorkspace } from "../support/workspace";

/**
 * The CLI in the test process (runCliInProcess) answers what `node dist/cli.js` answers: the same standard
 * output, standard error and exit code for the same folder, environment and standard input. The CLI tests
 * that run commands in process rely on it; this file runs both side by side.
 */

beforeAll(ensureBuilt);

let ws: TempWorkspace;
beforeEach(() => {
  ws = gitWorkspace();
});
afterEach(() => ws.dispose());

const API = "src/api/weather.ts";

function claudePre(cwd: string | undefined, path: string): string {
  return JSON.stringify({
    session_id: "in-process",
    transcript_path: "",
    ...(cwd === undefined ? {} : { cwd }),
    hook_event_name: "PreToolUse",
    tool_name: "Write",
    tool_input: { file_path: path, content: "x\n" },
    tool_use_id: "t1",
  });
}

async function both(args: string[], opts: { cwd: string; input?: string; env?: NodeJS.ProcessEnv }): Promise<CliResult> {
  const spawned = runCli(args, opts);
  const inProcess = await runCliInProcess(args, opts);
  expect(inProcess).toEqual(spawned);
  return inProcess;
}

describe("the CLI in process answers as its process does", () => {
  it("status, help, an unknown command and a usage mistake", async () => {
    ws.select("INT-001");
    expect((await both(["status"], { cwd: ws.root })).stdout).toContain("INT-001");
    expect((await both(["--help"], { cwd: ws.root })).status).toBe(0);
    expect((await both(["nonsense"], { cwd: ws.root })).status).toBe(2);
    expect((await both(["status", "--bogus"], { cwd: ws.root })).status).toBe(2);
  });

  it("check finds the workspace from a folder inside it", async () => {
    ws.write("docs/notes.md", `${ws.read("docs/notes.md")}more\n`);
    const r = await both(["check", "--format", "json"], { cwd: ws.path("src/api") });
    expect(r.status).toBe(0);
  });

  it("a hook reads its payload from standard input and answers on standard output", async () => {
    ws.select("INT-001");
    const allow = await both(["hook", "claude-code"], { cwd: ws.root, input: claudePre(ws.root, ws.path(API)) });
    expect(allow.status).toBe(0);
    const deny = await both(["hook", "claude-code"], { cwd: ws.root, input: claudePre(ws.root, ws.path("docs/notes.md")) });
    expect(deny.stdout).toContain('"permissionDecision":"deny"');
    expect((await both(["hook", "claude-code"], { cwd: ws.root, input: "" })).stdout).toContain("not JSON");
  });

  it("a relative --root is taken from the command's folder", async () => {
    mkdirSync(ws.path("elsewhere"));
    const r = await both(["status", "--root", ".."], { cwd: ws.path("elsewhere") });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("INT-001");
  });

  it("a hook whose payload names no folder judges the path from the folder it runs in", async () => {
    ws.select("INT-001");
    const deny = await both(["hook", "claude-code"], { cwd: ws.root, input: claudePre(undefined, "docs/notes.md") });
    expect(deny.stdout).toContain("docs/notes.md is outside the scope of INT-001");
    const allow = await both(["hook", "claude-code"], { cwd: ws.root, input: claudePre(undefined, API) });
    expect(allow.stdout).not.toContain("deny");
  });
});
