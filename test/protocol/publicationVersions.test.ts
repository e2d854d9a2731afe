// The diagnostics a client keeps for a document are those of the text it has: the last publication for an
// open document carries its current version, and a closed document's are withdrawn once.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { LspClient } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

const API = "src/api/weather.ts";

describe("publication versions", () => {
  let ws: TempWorkspace | undefined;
  let client: LspClient | undefined;
  stopAfterEach(() => ({ client, ws }));

  it("a document closed while its findings are computed is withdrawn once; reopened at version 1, its last publication carries version 1", async () => {
    ws = new TempWorkspace();
    client = await startInProcess({ root: ws.root });
    const uri = client.uri(API);
    await client.open(API);
    await client.waitForPublishOfCurrentVersion(API);
    await client.setLine(API, 3, "// typed, then saved");
    // the editor's save: willSaveWaitUntil (which looks at the disk), the file written, didSave; then the close
    await client.request("textDocument/willSaveWaitUntil", { textDocument: { uri }, reason: 1 });
    writeFileSync(join(ws.root, API), client.text(API));
    await client.connection.sendNotification("textDocument/didSave", { textDocument: { uri } });
    const fromClose = client.publications.length;
    await client.close(API);
    await client.waitFor(() => client!.savesProcessed.find((s) => s.uri === uri), "the save to be handled");
    await client.open(API); // numbered 1 again, as several editors number a reopened document
    await client.waitForPublishOfCurrentVersion(API);
    await client.hoverText(API, 0); // answered after every notification before it
    // publications sent before the server took the close may still arrive; from the withdrawal on, the
    // closed document is not published again and the reopened one only at its version
    const seen = client.publications.slice(fromClose).filter((p) => p.uri === uri);
    const withdrawn = seen.findIndex((p) => p.version === undefined);
    expect(seen[withdrawn]).toEqual({ uri, diagnostics: [] });
    expect(seen.slice(withdrawn + 1).map((p) => p.version)).toEqual(seen.slice(withdrawn + 1).map(() => 1));
    expect(client.publications.filter((p) => p.uri === uri).at(-1)!.version).toBe(1);
  });
});
