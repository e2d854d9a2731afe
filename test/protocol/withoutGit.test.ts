// A workspace that is not a git repository has no base to tell changed lines from; what is known is the
// ledger's last recorded content of a file against the file. A file that differs shows it.
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { LspClient } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";
import { ledgerRecords } from "../support/ledgerFile";

const NOTES = "docs/notes.md"; // owned by INT-003, in progress
const short = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex").slice(0, 12)}`;

describe("a workspace without git", () => {
  let ws: TempWorkspace | undefined;
  let client: LspClient | undefined;
  stopAfterEach(() => ({ client, ws }));

  it("a recorded file emptied, saved, rewritten by someone else and reopened shows untraced-change over the file, saying what is not known", async () => {
    ws = new TempWorkspace(); // the example workspace, no git repository
    ws.select("INT-003");
    client = await startInProcess({ root: ws.root });
    await client.open(NOTES);
    await client.replaceAll(NOTES, "");
    expect(await client.save(NOTES)).not.toBeNull();
    expect(ledgerRecords(ws).at(-1)!.metadata["dev.intent-lsp"].post_hash).toBe(`sha256:${createHash("sha256").update("").digest("hex")}`);
    expect(await client.waitForPublishOfCurrentVersion(NOTES)).toEqual([]);
    await client.close(NOTES);

    const elsewhere = "# Notes\nwritten by another program\n";
    writeFileSync(join(ws.root, NOTES), elsewhere);
    await client.open(NOTES);
    const diags = await client.waitForDiagnostics(NOTES, (d) => d.length > 0);
    expect(diags.map((d) => ({ code: d.code, severity: d.severity, range: d.range, message: d.message }))).toEqual([
      {
        code: "untraced-change",
        severity: 3,
        range: { start: { line: 0, character: 0 }, end: { line: 1, character: "written by another program".length } },
        message: `${NOTES}: the file differs from what the ledger last recorded (${short("")}; on disk: ${short(elsewhere)}); without git, which lines changed is not known, and no ledger record explains it (untraced): the change was made outside intent-lsp and the agent hooks.`,
      },
    ]);
  });

  it("a file that holds what the ledger last recorded shows nothing", async () => {
    ws = new TempWorkspace();
    ws.select("INT-003");
    client = await startInProcess({ root: ws.root });
    await client.open(NOTES);
    await client.setLine(NOTES, 0, "# Notes, saved here");
    expect(await client.save(NOTES)).not.toBeNull();
    await client.close(NOTES);
    await client.open(NOTES);
    expect(await client.waitForPublishOfCurrentVersion(NOTES)).toEqual([]);
  });
});
