import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { intentPicks, type IntentPick } from "../../clients/vscode/src/presentation";
import type { IntentRow } from "../../clients/vscode/src/server";
import { type LspClient, REPO_ROOT } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";
import { INTENTS_BY_STATUS } from "../support/intentsByStatus";

/**
 * The editor door's refusals of a selection or a lifecycle move: in the words the editor shows (its picker,
 * its code actions), never the protocol's (a command's arguments), and every step they name exists there.
 * The intent pickers of VS Code and Neovim offer one list: the rows the server marks `selectAs`.
 */

const YAML = ".orchestration/active_intents.yaml";
const INTENTS = INTENTS_BY_STATUS;
const IDS = ["INT-001", "INT-002", "INT-003", "INT-004", "INT-005", "INT-999"];
/** What the protocol calls things, which a person in an editor never types. */
const PROTOCOL_WORDS = /"start"|:\s*true|[{}]|\bintent\.[a-zA-Z]+|`intent /;

let ws: TempWorkspace;
let client: LspClient;
stopAfterEach(() => ({ client, ws }));

async function refusal(command: string, args: Record<string, unknown>): Promise<string | undefined> {
  try {
    await client.executeCommand(command, args);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

describe("the editor's refusals", () => {
  it("name the picker entries and code actions the editor shows, never protocol wording; each named one exists", async () => {
    ws = new TempWorkspace();
    ws.write(YAML, INTENTS);
    client = await startInProcess({ root: ws.root });
    await client.open(YAML);
    const rows = (await client.executeCommand("intent.listIntents", {})) as IntentRow[];
    const pickLabels = intentPicks(rows, undefined).map((p: IntentPick) => p.label);
    const lines = INTENTS.split("\n");
    const actionTitles = async (id: string) => {
      const at = lines.findIndex((l) => l.includes(`id: ${id}`));
      return (await client.codeActions(YAML, { start: { line: at + 2, character: 4 }, end: { line: at + 2, character: 4 } })).map((a) => a.title);
    };

    let refusals = 0;
    for (const id of IDS) {
      for (const [command, args] of [
        ["intent.selectIntent", { id }],
        ["intent.selectIntent", { id, start: true }],
        ["intent.transition", { id, to: "IN_PROGRESS" }],
        ["intent.transition", { id, to: "COMPLETE" }],
      ] as const) {
        ws.write(YAML, INTENTS); // a move that went through is undone before the next case
        await client.notifyWatched(YAML);
        await client.executeCommand("intent.listIntents", {}); // the server has read the file back
        const message = await refusal(command, args);
        if (message === undefined) continue;
        refusals++;
        const what = `${command} ${JSON.stringify(args)}: ${message}`;
        expect(message, what).not.toMatch(PROTOCOL_WORDS);
        const picks = [...message.matchAll(/pick "([^"]+)" in the intent picker/gi)].map((m) => m[1]!);
        const actions = [...message.matchAll(/the code action "([^"]+)"/gi)].map((m) => m[1]!);
        const lists = /the intent picker lists the intents/i.test(message);
        expect(picks.length + actions.length + (lists ? 1 : 0), what).toBeGreaterThan(0);
        for (const p of picks)
          expect(
            pickLabels.some((l) => l.includes(p)),
            `${what} (picker: ${pickLabels.join(" | ")})`,
          ).toBe(true);
        for (const a of actions) expect(await actionTitles(id), what).toContain(a);
      }
    }
    expect(refusals).toBeGreaterThan(10);
  });
});

describe("the intent pickers", () => {
  it("VS Code and Neovim offer the intents the server marks selectable: in progress, pending (start), blocked (resume)", async () => {
    ws = new TempWorkspace();
    ws.write(YAML, INTENTS);
    client = await startInProcess({ root: ws.root });
    const rows = (await client.executeCommand("intent.listIntents", {})) as IntentRow[];
    expect(rows.map((r) => [r.id, r.selectAs])).toEqual([
      ["INT-001", "start"],
      ["INT-002", "select"],
      ["INT-003", null],
      ["INT-004", "resume"],
      ["INT-005", null],
    ]);
    const offered = rows.filter((r) => r.selectAs).map((r) => r.id);
    expect(intentPicks(rows, undefined).map((p) => [p.id, p.start])).toEqual(offered.map((id) => [id, id !== "INT-002"]));
    // Neovim's picker keeps exactly the rows with a selectAs, and starts what is not "select" (no Lua runs here)
    const lua = readFileSync(join(REPO_ROOT, "clients/neovim/lua/intent_lsp/init.lua"), "utf8");
    const pickable = /function M\.pickable\(intents\)([\s\S]*?)\nend\n/.exec(lua)?.[1] ?? "";
    expect(pickable).toContain('if type(intent.selectAs) == "string" then table.insert(out, intent) end');
    expect(pickable).not.toMatch(/status/);
    expect(lua).toContain("local choices = M.pickable(intents)");
    expect(lua).toContain('M.select(choice.id, choice.selectAs ~= "select")');
  });
});
