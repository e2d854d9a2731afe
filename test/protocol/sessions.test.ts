import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type LspClient, REPO_ROOT } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

const NOTES = "docs/notes.md";
const API = "src/api/weather.ts";

function writeSession(ws: TempWorkspace, id: string, fields: Record<string, unknown>, heartbeat = new Date()) {
  ws.write(
    `.orchestration/.sessions/${id}.json`,
    JSON.stringify({ id, client: "claude-code", pid: 0, host: hostname(), startedAt: heartbeat.toISOString(), heartbeat: heartbeat.toISOString(), ...fields }),
  );
}

describe("parallel sessions", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  stopAfterEach(() => ({ client, ws }));

  it("claimed-elsewhere when another live session has unsaved edits to the same file; dead sessions expire", async () => {
    ws = new TempWorkspace();
    writeSession(ws, "claude-live", { dirtyFiles: [NOTES] });
    writeSession(ws, "claude-dead", { dirtyFiles: [API] }, new Date(Date.now() - 10 * 60_000));
    client = await startInProcess({ root: ws.root });
    await client.open(NOTES);
    const [d] = await client.waitForDiagnostics(NOTES, (x) => x.length === 1);
    expect(d.code).toBe("claimed-elsewhere");
    expect(d.range.start).toEqual({ line: 0, character: 0 });
    expect(d.message).toMatch(/^docs\/notes\.md has unsaved edits in another claude-code session claude-live/);
    await client.open(API);
    expect(await client.waitForPublishOfCurrentVersion(API)).toEqual([]);
  });

  it("claimed-elsewhere when another live session holds the intent this edit counts under, and it clears when that session ends", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    client = await startInProcess({ root: ws.root });
    await client.open(API);
    await client.setLine(API, 2, "export interface Weather { // edited");
    writeSession(ws, "claude-agent", { intent: "INT-001" });
    const [d] = await client.waitForDiagnostics(API, (x) => x.some((y) => y.code === "claimed-elsewhere"));
    expect(d.message).toMatch(/^INT-001 is held by another claude-code session claude-agent/);
    ws.write(
      ".orchestration/.sessions/claude-agent.json",
      JSON.stringify({
        id: "claude-agent",
        client: "claude-code",
        pid: 0,
        host: hostname(),
        startedAt: "2026-01-01T00:00:00Z",
        heartbeat: "2026-01-01T00:00:00Z",
        intent: "INT-001",
      }),
    );
    await client.waitForDiagnostics(API, (x) => !x.some((y) => y.code === "claimed-elsewhere"));
  });

  it("an agent working through the hooks and a person editing under the same intent see each other", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    client = await startInProcess({ root: ws.root });
    await client.open(API);
    await client.setLine(API, 2, "export interface Weather { // edited by a person");
    // the agent (a real `intent hook claude-code` call) is allowed a write under INT-001
    const payload = {
      session_id: "s-parallel",
      transcript_path: ws.path(".claude/t.jsonl"),
      cwd: ws.root,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "Edit",
      tool_input: { file_path: ws.path("src/api/forecast.ts"), old_string: "Hour", new_string: "HourlyForecast", replace_all: false },
      tool_use_id: "toolu_parallel",
    };
    const hook = spawnSync(process.execPath, [join(REPO_ROOT, "dist/cli.js"), "hook", "claude-code"], {
      cwd: ws.root,
      input: JSON.stringify(payload),
      encoding: "utf8",
    });
    expect(JSON.parse(hook.stdout).hookSpecificOutput.permissionDecision).toBe("allow");
    const [d] = await client.waitForDiagnostics(API, (x) => x.some((y) => y.code === "claimed-elsewhere"));
    expect(d.message).toMatch(/^INT-001 is held by another claude-code session claude-s-parallel/);
    // and the agent's `intent status` lists the editor's session with its unsaved file
    const status = spawnSync(process.execPath, [join(REPO_ROOT, "dist/cli.js"), "status", "--json"], { cwd: ws.root, encoding: "utf8" });
    expect(status.stdout).toContain("src/api/weather.ts");
  });

  it("the editor announces itself and its unsaved files in its own session file", async () => {
    ws = new TempWorkspace();
    client = await startInProcess({ root: ws.root });
    await client.open(NOTES);
    await client.setLine(NOTES, 1, "edited");
    const { readdirSync, readFileSync } = await import("node:fs");
    await expect
      .poll(() => {
        const dir = ws.path(".orchestration/.sessions");
        return readdirSync(dir)
          .filter((n) => n.startsWith("lsp-"))
          .map((n) => JSON.parse(readFileSync(`${dir}/${n}`, "utf8")).dirtyFiles);
      })
      .toEqual([[NOTES]]);
    expect(ws.read(".orchestration/.sessions/.gitignore")).toBe("*\n");
  });
});
