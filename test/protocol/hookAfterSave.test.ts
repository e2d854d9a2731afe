import { describe, expect, it } from "vitest";
import { runHook } from "../support/cliRunner";
import { claudeEdit, claudePayload } from "../support/hookPayloads";
import { ledgerRecords } from "../support/ledgerFile";
import { blameOwners, type InProcessEditor } from "../support/inProcessEditor";
import { claims, lineRange, OTHER, savedDocumentScene, SONNET, text } from "../support/savedDocument";
import type { TempWorkspace } from "../support/workspace";

/**
 * An agent's tool writes a file open in the editor, the editor reloads it, the person edits another line and
 * saves, and only then does the agent's PostToolUse hook run: the file on disk holds the agent's change and
 * the person's line. The agent's record claims only what its tool wrote (the payload says what), and the
 * person's save gets a record of its own for the person's line, in whichever order the hook and the server's
 * handling of the didSave come.
 */

const PATH = "src/api/hookrace.ts";

describe("an agent's post hook that runs after a person saved the file its tool wrote", () => {
  let ws: TempWorkspace;
  let editor: InProcessEditor;
  const scene = savedDocumentScene();

  async function setUp(lines: string[]): Promise<void> {
    ({ ws, editor } = await scene.open(PATH, lines));
  }

  /** PreToolUse (the gate and its stash), then the tool's write lands on disk; `post` is the PostToolUse payload. */
  function agentCall(pre: unknown, post: unknown, content: string): { record: () => void } {
    expect(runHook("claude-code", pre, { cwd: ws.root }).status).toBe(0);
    ws.write(PATH, content);
    return { record: () => expect(runHook("claude-code", post, { cwd: ws.root }).status).toBe(0) };
  }

  function claudeWrite(content: string): { record: () => void } {
    const payload = (event: string) =>
      claudePayload(ws, event, {
        tool_name: "Write",
        tool_input: { file_path: ws.path(PATH), content },
        tool_use_id: "toolu_hookrace",
        ...(event === "PostToolUse" ? { tool_response: { type: "update", filePath: ws.path(PATH), content } } : {}),
      });
    return agentCall(payload("PreToolUse"), payload("PostToolUse"), content);
  }

  function claudeEditOf(oldString: string, newString: string, content: string): { record: () => void } {
    return agentCall(claudeEdit(ws, "PreToolUse", PATH, oldString, newString), claudeEdit(ws, "PostToolUse", PATH, oldString, newString), content);
  }

  /** The editor's reload of the agent's line, the person's edit of another line, and the file written. */
  async function reloadEditWrite(agentLine: number, agentText: string, oldLength: number, personLine: number, personText: string): Promise<void> {
    await editor.change(PATH, [{ range: lineRange(agentLine, oldLength), text: agentText }]);
    await editor.setLine(PATH, personLine, personText);
    await editor.writeBuffer(PATH);
  }

  /** The server handles the didSave, and reads the ledger the hook appended to. */
  async function didSaveHandled(): Promise<void> {
    const saves = editor.savesProcessed;
    await editor.sendDidSave(PATH);
    await editor.savesHandled(saves + 1);
    await editor.ledgerRead(OTHER);
  }

  async function expectOwners(owners: string[]): Promise<void> {
    expect(await editor.hoverOwners(PATH)).toEqual(owners);
    expect(blameOwners(ws.root, PATH)).toEqual(owners);
  }

  const expectedRecords = [
    { ranges: [[1, 4]], contributor: "human" },
    { ranges: [[2, 2]], contributor: SONNET },
    { ranges: [[4, 4]], contributor: "human" },
  ];

  it("Write: the hook runs between the person's file write and the server's didSave", async () => {
    await setUp(["w1", "w2", "w3", "w4"]);
    const write = claudeWrite(text(["w1", "W2 agent", "w3", "w4"]));
    await reloadEditWrite(1, "W2 agent", 2, 3, "w4 person");
    write.record();
    await didSaveHandled();

    expect(ledgerRecords(ws).map(claims)).toEqual(expectedRecords);
    await expectOwners(["human", SONNET, "human", "human"]);
    // the agent's record pins what its tool wrote and names the content it found on disk: the person's save
    const [first, agent, person] = ledgerRecords(ws).map((r) => r.metadata["dev.intent-lsp"]);
    expect(agent).toMatchObject({ pre_hash: first.post_hash, line_count: 4, on_disk_hash: person.post_hash });
    expect(person.pre_hash).toBe(agent.post_hash);
    expect(person.on_disk_hash).toBeUndefined();
  });

  it("Write: the hook runs after the server recorded the person's save", async () => {
    await setUp(["x1", "x2", "x3", "x4"]);
    const write = claudeWrite(text(["x1", "X2 agent", "x3", "x4"]));
    await reloadEditWrite(1, "X2 agent", 2, 3, "x4 person");
    await didSaveHandled();
    write.record();
    await editor.ledgerRead(OTHER);

    expect(ledgerRecords(ws).map(claims)).toEqual([expectedRecords[0], expectedRecords[2], expectedRecords[1]]);
    await expectOwners(["human", SONNET, "human", "human"]);
  });

  it("Edit: the hook runs between the person's file write and the server's didSave", async () => {
    await setUp(["e1", "e2", "e3", "e4"]);
    const edit = claudeEditOf("e2", "E2 agent", text(["e1", "E2 agent", "e3", "e4"]));
    await reloadEditWrite(1, "E2 agent", 2, 3, "e4 person");
    edit.record();
    await didSaveHandled();

    expect(ledgerRecords(ws).map(claims)).toEqual(expectedRecords);
    await expectOwners(["human", SONNET, "human", "human"]);
  });

  it("Edit: the hook runs after the server recorded the person's save", async () => {
    await setUp(["f1", "f2", "f3", "f4"]);
    const edit = claudeEditOf("f2", "F2 agent", text(["f1", "F2 agent", "f3", "f4"]));
    await reloadEditWrite(1, "F2 agent", 2, 3, "f4 person");
    await didSaveHandled();
    edit.record();
    await editor.ledgerRead(OTHER);

    expect(ledgerRecords(ws).map(claims)).toEqual([expectedRecords[0], expectedRecords[2], expectedRecords[1]]);
    await expectOwners(["human", SONNET, "human", "human"]);
  });
});
