import { existsSync } from "node:fs";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startInProcess } from "../support/inProcessServer";
import { TempWorkspace } from "../support/workspace";
import { NEW_AGENTS } from "../support/agentFixtures";
import { ensureBuilt } from "../support/builtDist";
import { runCliInProcess, runHookInProcess } from "../support/cliRunner";
import { claudeEdit, claudePayload, cursorPayload } from "../support/hookPayloads";

/**
 * Acceptance criteria run only when a person asks for exactly that (`intent complete`, the editor's Verify
 * or Complete): never when a workspace opens, never in `intent doctor`, never inside an agent's hook. Each
 * path here meets an intent whose only criterion would leave a sentinel file behind. The server, the CLI and
 * the hooks run in the test process: a criterion runs as a child process whoever starts it, and the last test
 * shows the same runner leaving the sentinel when a person asks.
 */

beforeAll(ensureBuilt);

const YAML = ".orchestration/active_intents.yaml";
const SENTINEL = "criterion-ran.txt";

describe("acceptance criteria never run by themselves", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    ws.write(
      YAML,
      ws.read(YAML).replace('acceptance_criteria: ["Unit tests in test/api pass"]', `acceptance_criteria: [{ run: "touch ${SENTINEL}", name: Sentinel }]`),
    );
  });
  afterEach(() => ws.dispose());

  it("not when the language server starts, opens the intents file and shows its lenses", async () => {
    const client = await startInProcess({ root: ws.root });
    try {
      await client.open(YAML, "yaml");
      await client.waitForPublishOfCurrentVersion(YAML);
      await client.request("textDocument/codeLens", { textDocument: { uri: client.uri(YAML) } });
      await client.codeActions(YAML, { start: { line: 2, character: 4 }, end: { line: 2, character: 4 } });
    } finally {
      await client.stop();
    }
    expect(existsSync(ws.path(SENTINEL))).toBe(false);
  });

  it("not in intent doctor (with or without --fix), status, check or context", async () => {
    for (const args of [["doctor"], ["doctor", "--fix"], ["status"], ["status", "INT-001"], ["check"], ["context", "INT-001"]]) {
      await runCliInProcess(args, { cwd: ws.root });
      expect(existsSync(ws.path(SENTINEL)), args.join(" ")).toBe(false);
    }
  });

  it("not inside any agent's hook, before or after a write or a shell command", async () => {
    const edit = { path: "src/api/weather.ts", from: "a", to: "b" };
    const payloads: [string, unknown][] = [
      ["claude-code", claudeEdit(ws, "PreToolUse", edit.path, edit.from, edit.to)],
      ["claude-code", claudeEdit(ws, "PostToolUse", edit.path, edit.from, edit.to)],
      ["claude-code", claudePayload(ws, "SessionStart", { source: "startup" })],
      ["cursor", cursorPayload(ws, "beforeShellExecution", { command: "intent status INT-001", cwd: ws.root })],
      ["cursor", cursorPayload(ws, "afterShellExecution", { command: "intent status INT-001", cwd: ws.root, output: "", duration: 5 })],
      ...NEW_AGENTS.flatMap((f): [string, unknown][] => [
        [f.agent, f.write(ws, "pre", edit)],
        [f.agent, f.write(ws, "post", edit)],
        [f.agent, f.shell(ws, "pre", "intent status INT-001")],
        [f.agent, f.shell(ws, "post", "intent status INT-001")],
        [f.agent, f.otherEvent(ws)],
      ]),
    ];
    for (const [agent, payload] of payloads) {
      await runHookInProcess(agent as never, payload, { cwd: ws.root });
      expect(existsSync(ws.path(SENTINEL)), agent).toBe(false);
    }
  });

  it("and they do run when the person asks: intent complete", async () => {
    expect((await runCliInProcess(["complete", "INT-001"], { cwd: ws.root })).status).toBe(0);
    expect(existsSync(ws.path(SENTINEL))).toBe(true);
  });
});
