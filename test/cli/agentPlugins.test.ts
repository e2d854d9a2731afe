import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { CLI_JS, runCli } from "../support/cliRunner";
import { gitWorkspace } from "../support/gitRepository";
import { ledgerRecords } from "../support/ledgerFile";
import type { TempWorkspace } from "../support/workspace";

/**
 * The plugins `intent init` writes for OpenCode and Amp, whose hooks are in-process modules: each file is
 * loaded as the agent loads it and its hooks are called with the arguments the agent documents. The plugin
 * runs the real `intent hook` from the PATH, so what is asserted is the whole path an agent's call takes:
 * a denial thrown (OpenCode) or returned (Amp), an allowed call, the record, and a hook that cannot run
 * refusing the call.
 */

beforeAll(ensureBuilt);

const API = "src/api/weather.ts";
const NOTES = "docs/notes.md";
const OUT_OF_SCOPE =
  "[intent-lsp: out-of-scope] docs/notes.md is outside the scope of INT-001 (Build Weather API): src/api/**, test/api/**. Owned by INT-003 (IN_PROGRESS), INT-004 (PENDING).";

let bin: string;
let savedPath: string | undefined;
beforeAll(() => {
  // `intent` on the PATH, as `npm link` provides it
  bin = mkdtempSync(join(tmpdir(), "intent-bin-"));
  writeFileSync(join(bin, "intent"), `#!/bin/sh\nexec "${process.execPath}" "${CLI_JS}" "$@"\n`);
  chmodSync(join(bin, "intent"), 0o755);
  savedPath = process.env["PATH"];
  process.env["PATH"] = `${bin}:${savedPath}`;
});
afterAll(() => {
  process.env["PATH"] = savedPath;
  rmSync(bin, { recursive: true, force: true });
});

type Hooks = Record<string, (input: any, output?: any) => Promise<any>>;

/** The plugin file `intent init --agent NAME` wrote, loaded as a module (a fresh copy each time). */
async function loadPlugin(ws: TempWorkspace, file: string): Promise<Record<string, unknown>> {
  return import(`${pathToFileURL(ws.path(file)).href}?t=${Date.now()}`);
}

function initAgent(ws: TempWorkspace, agent: string): void {
  const r = runCli(["init", "--agent", agent], { cwd: ws.root });
  expect(r.status, r.stderr).toBe(0);
}

describe("the OpenCode plugin", () => {
  let ws: TempWorkspace;
  let hooks: Hooks;
  beforeEach(async () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    initAgent(ws, "opencode");
    const mod = await loadPlugin(ws, ".opencode/plugins/intent-lsp.js");
    // OpenCode runs every exported function as a plugin: the file exports exactly one
    expect(Object.keys(mod)).toEqual(["IntentLsp"]);
    hooks = await (mod["IntentLsp"] as (ctx: unknown) => Promise<Hooks>)({ directory: ws.root, worktree: ws.root });
  });
  afterEach(() => ws.dispose());

  it("refuses an out-of-scope edit by throwing the reason, lets an in-scope one run, and records it with the model", async () => {
    await hooks["chat.message"]!({ sessionID: "ses_1", model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" } }, {});
    const call = (path: string) => [
      { tool: "edit", sessionID: "ses_1", callID: "call_1" },
      { args: { filePath: ws.path(path), oldString: "a", newString: "b" } },
    ];
    await expect(hooks["tool.execute.before"]!(...(call(NOTES) as [unknown, unknown]))).rejects.toThrow(OUT_OF_SCOPE);

    const edit = { filePath: ws.path(API), oldString: "export interface Weather {", newString: "export interface Weather { // v2" };
    await expect(hooks["tool.execute.before"]!({ tool: "edit", sessionID: "ses_1", callID: "call_2" }, { args: edit })).resolves.toBeUndefined();
    ws.write(API, ws.read(API).replace(edit.oldString, edit.newString));
    const output = { title: "edit", output: "Edit applied successfully.", metadata: {} };
    await hooks["tool.execute.after"]!({ tool: "edit", sessionID: "ses_1", callID: "call_2", args: edit }, output);
    expect(output.output).toBe("Edit applied successfully.");
    const [record] = ledgerRecords(ws);
    expect(record!.files[0].path).toBe(API);
    expect(record!.files[0].conversations[0].contributor).toEqual({ type: "ai", model_id: "anthropic/claude-sonnet-4-5" });
    expect(record!.files[0].conversations[0].url).toBe("urn:intent-lsp:session:opencode-ses_1");
  });

  it("records a write whose after-hook gets no arguments (older OpenCode builds), from the arguments its before-hook saw", async () => {
    const edit = { filePath: ws.path(API), oldString: "export interface Weather {", newString: "export interface Weather { // v2" };
    await hooks["tool.execute.before"]!({ tool: "edit", sessionID: "ses_2", callID: "call_9" }, { args: edit });
    ws.write(API, ws.read(API).replace(edit.oldString, edit.newString));
    await hooks["tool.execute.after"]!({ tool: "edit", sessionID: "ses_2", callID: "call_9" }, { title: "edit", output: "ok", metadata: {} });
    expect(ledgerRecords(ws).map((r) => r.files[0].path)).toEqual([API]);
  });

  it("gates an apply_patch by every file it names", async () => {
    const patch = (paths: string[]) => ({
      args: { patchText: `*** Begin Patch\n${paths.map((p) => `*** Update File: ${p}\n@@\n-a\n+b\n`).join("")}*** End Patch\n` },
    });
    await expect(hooks["tool.execute.before"]!({ tool: "apply_patch", sessionID: "ses_1", callID: "c" }, patch([API, NOTES]))).rejects.toThrow(OUT_OF_SCOPE);
    await expect(
      hooks["tool.execute.before"]!({ tool: "apply_patch", sessionID: "ses_1", callID: "c" }, patch([API, "src/api/forecast.ts"])),
    ).resolves.toBeUndefined();
  });

  it("adds what a shell command changed out of scope to the tool's result, which the model reads", async () => {
    const command = "echo '- Ship it.' >> docs/notes.md";
    await hooks["tool.execute.before"]!({ tool: "bash", sessionID: "ses_1", callID: "sh" }, { args: { command, description: "note" } });
    expect(spawnSync("bash", ["-c", command], { cwd: ws.root }).status).toBe(0);
    const output = { title: "bash", output: "", metadata: {} };
    await hooks["tool.execute.after"]!({ tool: "bash", sessionID: "ses_1", callID: "sh", args: { command } }, output);
    expect(output.output).toMatch(/^\n\nintent-lsp: this command changed a file outside the session's intent: docs\/notes\.md is outside the scope of INT-001/);
  });

  it("refuses every call when the hook cannot run (fail closed)", async () => {
    const path = process.env["PATH"];
    process.env["PATH"] = "/nonexistent";
    try {
      await expect(
        hooks["tool.execute.before"]!({ tool: "edit", sessionID: "ses_1", callID: "c" }, { args: { filePath: ws.path(API), oldString: "a", newString: "b" } }),
      ).rejects.toThrow("could not run intent hook opencode: spawn intent ENOENT");
    } finally {
      process.env["PATH"] = path;
    }
  });
});

describe("the Amp plugin", () => {
  let ws: TempWorkspace;
  let handlers: Record<string, (event: unknown, ctx?: unknown) => Promise<unknown>>;
  beforeEach(async () => {
    ws = gitWorkspace();
    ws.select("INT-001");
    initAgent(ws, "amp");
    const mod = await loadPlugin(ws, ".amp/plugins/intent-lsp.ts");
    handlers = {};
    const amp = { system: { workspaceRoot: pathToFileURL(ws.root).href }, on: (name: string, fn: (typeof handlers)[string]) => (handlers[name] = fn) };
    (mod["default"] as (amp: unknown) => void)(amp);
    expect(Object.keys(handlers).sort()).toEqual(["tool.call", "tool.result"]);
  });
  afterEach(() => ws.dispose());

  it("rejects an out-of-scope edit with the reason and allows an in-scope one, which it records", async () => {
    const call = (path: string, id: string) => ({
      toolUseID: id,
      tool: "edit_file",
      input: { path: ws.path(path), old_str: "export interface Weather {", new_str: "export interface Weather { // v2" },
      thread: { id: "T-1" },
    });
    const denied = (await handlers["tool.call"]!(call(NOTES, "t1"), {})) as { action: string; message: string };
    expect(denied.action).toBe("reject-and-continue");
    expect(denied.message.startsWith(OUT_OF_SCOPE)).toBe(true);
    expect(await handlers["tool.call"]!(call(API, "t2"), {})).toEqual({ action: "allow" });
    ws.write(API, ws.read(API).replace("export interface Weather {", "export interface Weather { // v2"));
    await handlers["tool.result"]!({ ...call(API, "t2"), status: "done", output: "ok" }, {});
    const [record] = ledgerRecords(ws);
    expect(record!.files[0].path).toBe(API);
    expect(record!.files[0].conversations[0].url).toBe("urn:intent-lsp:session:amp-T-1");
  });
});

describe("the plugins' sources", () => {
  it("the Amp plugin is TypeScript that compiles under strict settings", () => {
    const dir = mkdtempSync(join(tmpdir(), "amp-plugin-"));
    try {
      const ws = gitWorkspace();
      try {
        initAgent(ws, "amp");
        writeFileSync(join(dir, "intent-lsp.ts"), ws.read(".amp/plugins/intent-lsp.ts"));
      } finally {
        ws.dispose();
      }
      mkdirSync(join(dir, "node_modules"), { recursive: true });
      const tsc = spawnSync(
        process.execPath,
        [
          join(process.cwd(), "node_modules/typescript/bin/tsc"),
          "--noEmit",
          "--strict",
          "--module",
          "nodenext",
          "--moduleResolution",
          "nodenext",
          "--target",
          "es2022",
          "--types",
          "node",
          "--typeRoots",
          join(process.cwd(), "node_modules/@types"),
          join(dir, "intent-lsp.ts"),
        ],
        { encoding: "utf8" },
      );
      expect(`${tsc.stdout}${tsc.stderr}`).toBe("");
      expect(tsc.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
