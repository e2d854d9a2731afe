/**
 * The editor identifies a document by the file it really is (links followed, then `..`), as the agent gate
 * judges a write: one file open under two spellings is one file of one workspace, never a claim against
 * itself, and a link is judged where it leads.
 */
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LspClient } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

const API = "src/api/weather.ts";

describe("one file under two spellings", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  let outside: string;
  stopAfterEach(() => ({ client, ws }));
  afterEach(() => rmSync(outside, { recursive: true, force: true }));

  it("a workspace opened through a symlinked folder and the same file opened by its real path: one session, no claimed-elsewhere", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    outside = realpathSync(mkdtempSync(join(tmpdir(), "real-paths-")));
    const link = join(outside, "link-to-ws");
    symlinkSync(ws.root, link);
    client = await startInProcess({ root: link });
    const real = relative(link, ws.path(API)); // the client joins it to its root: the real spelling
    expect(client.uri(real)).toBe(`file://${ws.path(API)}`);
    await client.open(API);
    await client.open(real);
    await client.setLine(API, 2, "export interface Weather { // edited through the link");
    await client.setLine(real, 3, "  // edited by the real path");
    for (const spelling of [API, real]) {
      expect((await client.waitForPublishOfCurrentVersion(spelling)).map((d) => d.code)).not.toContain("claimed-elsewhere");
    }
    // one editor, one session: its unsaved file listed once, by its workspace path
    const dir = ws.path(".orchestration/.sessions");
    const editorSessions = () =>
      readdirSync(dir)
        .filter((n) => n.startsWith("lsp-"))
        .map((n) => JSON.parse(readFileSync(join(dir, n), "utf8")).dirtyFiles);
    await expect.poll(editorSessions).toEqual([[API]]);
    // another round of edits after the session file is written: still no claim against itself
    await client.setLine(API, 2, "export interface Weather { // edited again");
    await client.setLine(real, 3, "  // and again");
    for (const spelling of [API, real]) {
      expect((await client.waitForPublishOfCurrentVersion(spelling)).map((d) => d.code)).not.toContain("claimed-elsewhere");
    }
    expect(editorSessions()).toEqual([[API]]);
  });

  it("a link in an owned folder is judged as the file it leads to, as the gate judges a write through it", async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    outside = realpathSync(mkdtempSync(join(tmpdir(), "real-paths-")));
    symlinkSync("../billing/export.ts", ws.path("src/api/export-link.ts"));
    client = await startInProcess({ root: ws.root });
    await client.open("src/api/export-link.ts");
    await client.setLine("src/api/export-link.ts", 0, "// edited through the link");
    const diagnostics = await client.waitForDiagnostics("src/api/export-link.ts", (d) => d.some((x) => x.code === "out-of-scope"));
    expect(diagnostics.find((x) => x.code === "out-of-scope")!.message).toMatch(/^src\/billing\/export\.ts /);
  });
});
