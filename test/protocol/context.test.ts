import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { type LspClient, REPO_ROOT } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

let ws: TempWorkspace;
let client: LspClient;
stopAfterEach(() => ({ client, ws }));

it("intent.showContext returns the same <intent_context> as `intent context`", async () => {
  ws = new TempWorkspace();
  ws.select("INT-001");
  client = await startInProcess({ root: ws.root });
  const fromEditor = (await client.executeCommand("intent.showContext", {})) as { id: string; xml: string; bytes: number };
  const cli = spawnSync(process.execPath, [join(REPO_ROOT, "dist/cli.js"), "context", "INT-001", "--root", ws.root], { encoding: "utf8" });
  expect(cli.status, cli.stderr).toBe(0);
  expect(fromEditor.id).toBe("INT-001");
  expect(fromEditor.xml).toContain('<intent_context id="INT-001" status="IN_PROGRESS">');
  expect(fromEditor.xml).toContain("src/api/weather.ts");
  expect(cli.stdout.trimEnd()).toBe(fromEditor.xml.trimEnd());
  await expect(client.executeCommand("intent.showContext", { id: "INT-404" })).rejects.toThrow("No intent INT-404 in active_intents.yaml.");
});
