// intent.activeIntent (what a status bar shows) and the `files` of intent.listIntents (what an intent tree
// shows), asked of the built server over JSON-RPC as the VS Code extension asks them.
import { describe, expect, it } from "vitest";
import type { LspClient } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

describe("intent.activeIntent", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  stopAfterEach(() => ({ client, ws }));

  it("names the intent a file's edits count under and how it was chosen: auto-selected, selected, none, exempt", async () => {
    ws = new TempWorkspace();
    client = await startInProcess({ root: ws.root });
    const ask = (rel: string) => client.executeCommand("intent.activeIntent", { uri: client.uri(rel) });

    // nothing selected: the one IN_PROGRESS owner counts (autoSelect is on in the example)
    expect(await ask("docs/notes.md")).toEqual({
      path: "docs/notes.md",
      intent: { id: "INT-003", name: "Docs refresh", status: "IN_PROGRESS" },
      how: "auto-selected",
      problem: null,
      exempt: false,
      owners: ["INT-003", "INT-004"],
    });
    // only a COMPLETE owner: nothing counts
    expect(await ask("src/billing/export.ts")).toEqual({
      path: "src/billing/export.ts",
      intent: null,
      how: "none",
      problem: "no-active-intent",
      exempt: false,
      owners: ["INT-005"],
    });

    await client.executeCommand("intent.selectIntent", { id: "INT-001" });
    expect(await ask("src/api/weather.ts")).toMatchObject({ intent: { id: "INT-001" }, how: "selected", problem: null });
    // the selection counts, and the file is outside it
    expect(await ask("docs/notes.md")).toMatchObject({ intent: { id: "INT-001" }, how: "selected", problem: "out-of-scope", owners: ["INT-003", "INT-004"] });
    // exempt files show the selection and say they are exempt
    expect(await ask(".orchestration/config.jsonc")).toMatchObject({ intent: { id: "INT-001" }, how: "selected", problem: null, exempt: true });
    // an open document is judged by the same rule
    await client.open("docs/notes.md");
    expect(await ask("docs/notes.md")).toMatchObject({ path: "docs/notes.md", problem: "out-of-scope" });
  });

  it("listIntents gives each intent the files the ledger records under it and the moves it may make", async () => {
    ws = new TempWorkspace();
    client = await startInProcess({ root: ws.root });
    const list = (await client.executeCommand("intent.listIntents")) as { id: string; files: string[] }[];
    const files = Object.fromEntries(list.map((i) => [i.id, i.files]));
    expect(files).toEqual({
      "INT-001": ["src/api/forecast.ts", "src/api/weather.ts"],
      "INT-002": ["src/auth/middleware.ts"],
      "INT-003": ["docs/notes.md"],
      "INT-004": [],
      "INT-005": [],
    });
    const moves = Object.fromEntries((list as unknown as { id: string; transitions: string[] }[]).map((i) => [i.id, i.transitions]));
    expect(moves).toEqual({
      "INT-001": ["COMPLETE", "BLOCKED", "ARCHIVED"],
      "INT-002": ["IN_PROGRESS", "ARCHIVED"],
      "INT-003": ["COMPLETE", "BLOCKED", "ARCHIVED"],
      "INT-004": ["IN_PROGRESS", "ARCHIVED"],
      "INT-005": ["ARCHIVED"],
    });
  });
});
