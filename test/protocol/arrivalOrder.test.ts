import { appendFileSync, renameSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runHook } from "../support/cliRunner";
import { claudePayload } from "../support/hookPayloads";
import { LEDGER, ledgerRecords } from "../support/ledgerFile";
import { blameOwners, InProcessEditor } from "../support/inProcessEditor";
import { claims, lineRange, OTHER, savedDocumentScene, SONNET, text } from "../support/savedDocument";
import { TempWorkspace } from "../support/workspace";

/**
 * Hover and `intent blame` agree on every line of an open document whose buffer equals the file on disk,
 * whatever order the editor's reload, an agent's record, a save and the watcher's events arrive in; and a
 * person's save claims only the lines the person edited. Each case is the smallest order that broke it.
 */

const PATH = "src/api/race.ts";
const FOREIGN_MODEL = "openai/gpt-4o";

describe("hover = blame on open documents, whatever order the events arrive in", () => {
  let ws: TempWorkspace;
  let editor: InProcessEditor;
  const scene = savedDocumentScene();

  async function setUp(lines: string[]): Promise<void> {
    ({ ws, editor } = await scene.open(PATH, lines));
  }

  /** Claude Code's Write of `content`: PreToolUse (the gate) and the file written; `record()` is its PostToolUse. */
  function agentWrites(content: string): { record: () => void } {
    const payload = (event: string) =>
      claudePayload(ws, event, {
        tool_name: "Write",
        tool_input: { file_path: ws.path(PATH), content },
        tool_use_id: "toolu_race",
        ...(event === "PostToolUse" ? { tool_response: { type: "update" } } : {}),
      });
    expect(runHook("claude-code", payload("PreToolUse"), { cwd: ws.root }).status).toBe(0);
    ws.write(PATH, content);
    return { record: () => expect(runHook("claude-code", payload("PostToolUse"), { cwd: ws.root }).status).toBe(0) };
  }

  /**
   * An agent's two hunks reloaded one didChange each before its record lands, its record stamped `skewMs`
   * off the clock that stamped the others; then the person edits the last line and saves.
   */
  async function agentHunksThenPersonSave(skewMs: number): Promise<void> {
    await setUp(["a1", "a2", "a3", "a4", "a5", "a6"]);
    const write = agentWrites(text(["a1", "A2", "a3", "a4", "A5", "a6"]));
    // the editor's watcher fires when the file is written: one didChange per hunk
    await editor.change(PATH, [{ range: lineRange(1, 2), text: "A2" }]);
    await editor.change(PATH, [{ range: lineRange(4, 2), text: "A5" }]);
    write.record(); // the hook runs after
    if (skewMs) {
      const lines = ws.read(LEDGER).trimEnd().split("\n");
      const last = JSON.parse(lines[lines.length - 1]!) as { timestamp: string };
      last.timestamp = new Date(Date.parse(last.timestamp) + skewMs).toISOString();
      lines[lines.length - 1] = JSON.stringify(last);
      writeFileSync(ws.path(LEDGER), `${lines.join("\n")}\n`);
    }
    await editor.setLine(PATH, 5, "a6 edited");
    expect(await editor.save(PATH)).not.toBeNull();

    expect(ledgerRecords(ws).map(claims)).toEqual([
      { ranges: [[1, 6]], contributor: "human" },
      {
        ranges: [
          [2, 2],
          [5, 5],
        ],
        contributor: SONNET,
      },
      { ranges: [[6, 6]], contributor: "human" },
    ]);
    const owners = ["human", SONNET, "human", "human", SONNET, "human"];
    expect(await editor.hoverOwners(PATH)).toEqual(owners);
    expect(blameOwners(ws.root, PATH)).toEqual(owners);
  }

  it("an agent's two hunks reloaded one didChange each before its record lands stay the agent's; the person's next save claims only the person's line", async () => {
    await agentHunksThenPersonSave(0);
  });

  it("so do they when the agent's clock runs an hour behind the one that stamped the person's first save", async () => {
    await agentHunksThenPersonSave(-3_600_000);
  });

  it("an agent's change reloaded before a foreign tool's record (no line map) lands is the model's, in hover as in blame", async () => {
    await setUp(["b1", "b2", "b3"]);
    ws.write(PATH, text(["b1", "B2", "b3"]));
    await editor.change(PATH, [{ range: lineRange(1, 2), text: "B2" }]);
    // another tool's Agent Trace record: ranges only, no content hashes, no line map
    const foreign = {
      version: "1.0",
      id: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
      timestamp: new Date().toISOString(),
      tool: { name: "other-agent" },
      files: [{ path: PATH, conversations: [{ contributor: { type: "ai", model_id: FOREIGN_MODEL }, ranges: [{ start_line: 2, end_line: 2 }] }] }],
    };
    appendFileSync(ws.path(LEDGER), `${JSON.stringify(foreign)}\n`);
    await editor.ledgerRead(OTHER);

    const owners = ["human", FOREIGN_MODEL, "human"];
    expect(blameOwners(ws.root, PATH)).toEqual(owners);
    expect(await editor.hoverOwners(PATH)).toEqual(owners);
  });

  it("didSave followed at once by didClose and didOpen: the saved line is the person's", async () => {
    await setUp(["c1", "c2"]);
    await editor.setLine(PATH, 1, "c2 edited");
    await editor.writeBuffer(PATH);
    const saves = editor.savesProcessed;
    await editor.sendDidSave(PATH);
    await editor.close(PATH);
    await editor.open(PATH, ws.read(PATH));
    await editor.savesHandled(saves + 1);
    await editor.ledgerRead(OTHER);

    expect(ledgerRecords(ws).map(claims)).toEqual([
      { ranges: [[1, 2]], contributor: "human" },
      { ranges: [[2, 2]], contributor: "human" },
    ]);
    expect(blameOwners(ws.root, PATH)).toEqual(["human", "human"]);
    expect(await editor.hoverOwners(PATH)).toEqual(["human", "human"]);
  });

  it("an agent writes a closed file that the editor opens and saves within milliseconds: the agent's line is the agent's", async () => {
    await setUp(["d1", "d2", "d3"]);
    await editor.setLine(PATH, 1, "X");
    expect(await editor.save(PATH)).not.toBeNull();
    await editor.close(PATH);
    // the agent puts back the text an older human record wrote
    const write = agentWrites(text(["d1", "d2", "d3"]));
    await editor.open(PATH, ws.read(PATH));
    expect(await editor.save(PATH)).toBeNull(); // nothing changed in the editor: nothing to record
    write.record();
    await editor.ledgerRead(OTHER);

    const owners = ["human", SONNET, "human"];
    expect(blameOwners(ws.root, PATH)).toEqual(owners);
    expect(await editor.hoverOwners(PATH)).toEqual(owners);
  });

  // `git rebase main` writes the ledger anew for each commit it replays (main's records, then the branch's up to
  // that commit), before the source files: a file may take the inode of the one before, so the server reads the
  // branch's records as appended to main's while the open file still holds main's content. They are records the
  // document knew before the rewrite.
  it.each(["the file first", "the ledger first"])(
    "a rebase read mid-rewrite (main's ledger, %s, then the branch's records appended while the file is main's) leaves every owner as it was",
    async (first) => {
      await setUp(["e1", "e2", "e3", "e4"]);
      const mainLedger = ws.read(LEDGER);
      const mainText = ws.read(PATH);
      const write = agentWrites(text(["e1", "E2", "e3", "e4"]));
      await editor.change(PATH, [{ range: lineRange(1, 2), text: "E2" }]);
      write.record();
      await editor.setLine(PATH, 3, "e4 edited");
      expect(await editor.save(PATH)).not.toBeNull();
      await editor.ledgerRead(OTHER);
      const owners = ["human", SONNET, "human", "human"];
      expect(await editor.hoverOwners(PATH)).toEqual(owners);
      const branchLedger = ws.read(LEDGER);
      const branchText = ws.read(PATH);

      // the checkout of main: a new ledger file, and the file as main has it, in either order
      const mainFile = () => ws.write(PATH, mainText);
      if (first === "the file first") mainFile();
      writeFileSync(ws.path(`${LEDGER}.new`), mainLedger);
      renameSync(ws.path(`${LEDGER}.new`), ws.path(LEDGER));
      await editor.ledgerRead(OTHER);
      if (first === "the ledger first") mainFile();
      // the cherry-pick: the branch's records after main's, read as an append, the file still main's
      appendFileSync(ws.path(LEDGER), branchLedger.slice(mainLedger.length));
      await editor.ledgerRead(OTHER);
      // then the file as the branch has it: the buffer's content again
      ws.write(PATH, branchText);
      await editor.watched(PATH);
      await editor.ledgerRead(OTHER);

      expect(blameOwners(ws.root, PATH)).toEqual(owners);
      expect(await editor.hoverOwners(PATH)).toEqual(owners);
    },
  );
});

describe("a save handled while the server's first read of the ledger is under way", () => {
  let ws: TempWorkspace | undefined;
  let editor: InProcessEditor | undefined;
  afterEach(async () => {
    await editor?.stop();
    ws?.dispose();
  });

  // The first read's news reaches the document while the save's record is due; once the record is appended,
  // the ledger's answer must not be taken before the read that brings the record back.
  it("the saved line is never shown untraced while the save is handled, and is the person's once it is, in hover as in blame", async () => {
    const path = "src/api/weather.ts";
    ws = new TempWorkspace({ withLedger: false });
    ws.select("INT-001");
    const lines = Array.from({ length: 18 }, (_, i) => `line ${i}`);
    ws.write(path, text(lines));
    editor = await InProcessEditor.start(ws.root);
    // at once: no waiting for the server's first read of the ledger
    await editor.open(path, text(lines));
    await editor.setLine(path, 12, "line 12 edited");
    await editor.writeBuffer(path);
    const saves = editor.savesProcessed;
    await editor.sendDidSave(path);
    // the editor asks as it goes while the save is handled: the line is an edit, or not known yet, or the
    // person's (the save is made the baseline before its record is read back), never anyone else's
    const shown = new Set<string>();
    while (editor.savesProcessed === saves) shown.add(await editor.hoverOwner(path, 12));
    expect([...shown].filter((o) => !["edited", "indexing", "human"].includes(o))).toEqual([]);

    const owners = lines.map((_, i) => (i === 12 ? "human" : "untraced"));
    expect(await editor.hoverOwners(path)).toEqual(owners);
    expect(blameOwners(ws.root, path)).toEqual(owners);
  });
});
