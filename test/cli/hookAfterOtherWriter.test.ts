import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DROID } from "../support/agentFixtures";
import { ensureBuilt } from "../support/builtDist";
import { runHook } from "../support/cliRunner";
import { claudePayload, writeTranscript } from "../support/hookPayloads";
import { ledgerRecords } from "../support/ledgerFile";
import { TempWorkspace } from "../support/workspace";
import { fileHash } from "../../server/src/engine/hashing";

/**
 * A post hook that runs after another writer changed the file the agent's tool wrote (a person's save of the
 * reloaded file): the record claims only the lines the tool changed, pins the tool's own content, and names
 * the content it found on disk (`on_disk_hash`, docs/LEDGER.md).
 */

const API = "src/api/weather.ts";

describe("intent hook: the file changed again between the tool's write and its post hook", () => {
  let ws: TempWorkspace;
  beforeAll(ensureBuilt);
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.write(".orchestration/agent_trace.jsonl", "");
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
  });
  afterEach(() => ws.dispose());

  /** Runs the pre hook, lets the tool write, lets a person change another line, then runs the post hook. */
  function race(agent: "claude-code" | "droid", pre: unknown, post: unknown, tool: (text: string) => string) {
    const original = ws.read(API);
    expect(runHook(agent, pre, { cwd: ws.root, env: { INTENT_LSP_MODEL: "anthropic/claude-sonnet-4-5" } }).status).toBe(0);
    const toolWrote = tool(original);
    ws.write(API, toolWrote);
    const onDisk = toolWrote.replace("  city: string;", "  city: string; // the person's line");
    ws.write(API, onDisk);
    expect(runHook(agent, post, { cwd: ws.root, env: { INTENT_LSP_MODEL: "anthropic/claude-sonnet-4-5" } }).status).toBe(0);
    const records = ledgerRecords(ws);
    expect(records).toHaveLength(1);
    const ours = records[0]!.metadata["dev.intent-lsp"];
    expect({ pre: ours.pre_hash, post: ours.post_hash, disk: ours.on_disk_hash }).toEqual({
      pre: fileHash(original),
      post: fileHash(toolWrote),
      disk: fileHash(onDisk),
    });
    return records[0]!.files[0].conversations[0].ranges.map((r: any) => [r.start_line, r.end_line]);
  }

  it("Claude Code's MultiEdit: only the replaced lines, never the person's line 4", () => {
    const edits = [
      { old_string: "  celsius: number;", new_string: "  celsius: number; // rounded" },
      { old_string: "  summary: string;", new_string: "  summary: string; // short" },
    ];
    const payload = (event: string) =>
      claudePayload(ws, event, {
        tool_name: "MultiEdit",
        tool_input: { file_path: ws.path(API), edits },
        tool_use_id: "toolu_multi",
        ...(event === "PostToolUse" ? { tool_response: { filePath: ws.path(API) } } : {}),
      });
    const ranges = race("claude-code", payload("PreToolUse"), payload("PostToolUse"), (t) =>
      edits.reduce((text, e) => text.replace(e.old_string, e.new_string), t),
    );
    expect(ranges).toEqual([[5, 6]]);
  });

  it("Droid's Edit: only the replaced line, never the person's line 4", () => {
    const edit = { path: API, from: "  summary: string;", to: "  summary: string; // short" };
    const ranges = race("droid", DROID.write(ws, "pre", edit), DROID.write(ws, "post", edit), (t) => t.replace(edit.from, edit.to));
    expect(ranges).toEqual([[6, 6]]);
  });
});
