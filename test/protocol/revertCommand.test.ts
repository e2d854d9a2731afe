// The editor's `intent.revert` against the CLI's `intent revert --intent ID`: one plan behind two doors. The
// workspace is built by real hook calls and an editor save (test/support/revertWorkspace.ts); the server runs
// in process over JSON-RPC, the CLI in process too, each in its own identical copy when either writes.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RevertResult } from "@shared/commands";
import { ensureBuilt } from "../support/builtDist";
import { runCliInProcess } from "../support/cliRunner";
import { startInProcess } from "../support/inProcessServer";
import type { LspClient } from "../support/lspClient";
import { mixedWorkspace, WEATHER } from "../support/revertWorkspace";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

beforeAll(ensureBuilt);

const INTENT = "INT-001";

/** An identical copy of `ws`: its files, its git repository, its ledger and caches. */
function copyOf(ws: TempWorkspace): TempWorkspace {
  const copy = new TempWorkspace({ fromExample: false });
  cpSync(ws.root, copy.root, { recursive: true });
  return copy;
}

async function cliRevert(ws: TempWorkspace, ...args: string[]): Promise<RevertResult> {
  const r = await runCliInProcess(["revert", "--intent", INTENT, "--json", ...args], { cwd: ws.root });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as RevertResult;
}

/** Every file of the working tree git sees (tracked or untracked, not ignored, not deleted) but intent-lsp's own, with its text. */
function workingTree(ws: TempWorkspace): Record<string, string> {
  const listed = spawnSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], { cwd: ws.root, encoding: "utf8" }).stdout;
  const paths = listed.split("\0").filter((p) => p && !p.startsWith(".orchestration/") && existsSync(ws.path(p)));
  return Object.fromEntries(paths.sort().map((p) => [p, ws.read(p)]));
}

describe("intent.revert", () => {
  let built: TempWorkspace;
  let ws: TempWorkspace;
  let client: LspClient;
  stopAfterEach(() => ({ client, ws }));
  beforeAll(async () => {
    built = await mixedWorkspace();
  }, 120_000);
  afterAll(() => built?.dispose());

  it("without apply answers exactly what `intent revert --intent ID --json` prints, and writes nothing", async () => {
    ws = copyOf(built);
    const before = workingTree(ws);
    client = await startInProcess({ root: ws.root });
    const answer = (await client.executeCommand("intent.revert", { intent: INTENT })) as RevertResult;
    expect(answer).toEqual(await cliRevert(ws));
    // the workspace has work of the intent to take back, and lines of it to leave alone
    expect(answer.reverted.length).toBeGreaterThan(0);
    expect(answer.leftAlone.length).toBeGreaterThan(0);
    expect(answer.patch).toContain(`diff --git a/${WEATHER} b/${WEATHER}`);
    expect(answer.applied).toBe(false);
    expect(workingTree(ws)).toEqual(before);
    // the person who ran it by name (Helix, a command line) reads the answer
    const lines = answer.reverted.reduce((n, f) => n + f.lines.length, 0);
    await client.waitFor(() => client.logs.find((m) => m.startsWith("intent-lsp: ") && m.includes("to take back")), "the command's answer");
    expect(client.logs).toContain(
      `intent-lsp: ${lines} line(s) to take back in ${answer.reverted.length} file(s); ${answer.leftAlone.length} line(s) of it left alone (since edited, moved, or found by content only); run it again with "apply": true to write them.`,
    );
  });

  it("with apply: true writes what `intent revert --intent ID --apply` writes in an identical copy, and answers as its --json does", async () => {
    ws = copyOf(built);
    const other = copyOf(built);
    try {
      const before = workingTree(ws);
      client = await startInProcess({ root: ws.root });
      const answer = (await client.executeCommand("intent.revert", { intent: INTENT, apply: true, quiet: true })) as RevertResult;
      const cli = await cliRevert(other, "--apply");
      expect(answer).toEqual(cli);
      expect(answer.applied).toBe(true);
      const after = workingTree(ws);
      expect(after).toEqual(workingTree(other));
      expect(after[WEATHER]).not.toBe(before[WEATHER]);
      // the patch it answered is the change it wrote
      const replay = copyOf(built);
      try {
        const applied = spawnSync("git", ["apply", "-"], { cwd: replay.root, input: answer.patch, encoding: "utf8" });
        expect(applied.status, applied.stderr).toBe(0);
        expect(workingTree(replay)).toEqual(after);
      } finally {
        replay.dispose();
      }
    } finally {
      other.dispose();
    }
  });

  it("refuses to write a file open with unsaved edits, names it, and writes no file", async () => {
    ws = copyOf(built);
    const before = workingTree(ws);
    client = await startInProcess({ root: ws.root });
    await client.open(WEATHER, "typescript");
    await client.setLine(WEATHER, 0, "// typed, not saved");
    await expect(client.executeCommand("intent.revert", { intent: INTENT, apply: true, quiet: true })).rejects.toThrow(
      `${WEATHER} has unsaved changes in the editor, which the revert would overwrite; nothing was written. Save or undo them, then revert ${INTENT} again.`,
    );
    expect(workingTree(ws)).toEqual(before);
    // the dry run writes nothing, so it answers as the CLI does whatever the buffer holds
    expect(await client.executeCommand("intent.revert", { intent: INTENT, quiet: true })).toEqual(await cliRevert(ws));
  });

  it("an intent with no record, or none named, is refused with what to do", async () => {
    ws = copyOf(built);
    client = await startInProcess({ root: ws.root });
    await expect(client.executeCommand("intent.revert", { intent: "INT-009", quiet: true })).rejects.toThrow(
      `No record of intent INT-009 in the ledger of ${ws.root}, so none of its work can be taken back; \`intent stats\` lists the intents on record.`,
    );
    await expect(client.executeCommand("intent.revert", { quiet: true })).rejects.toThrow(/Missing argument "intent"/);
    await expect(client.executeCommand("intent.revert", { intent: INTENT, apply: "yes" })).rejects.toThrow(/apply/);
  });
});
