/**
 * `npm start`: a scripted editor session against a temporary copy of examples/workspace, printing what an
 * editor would show. It drives the built server over JSON-RPC exactly as the protocol tests do.
 */
import type { Diagnostic } from "vscode-languageserver-protocol";
import { LspClient, line } from "../test/support/lspClient";
import { TempWorkspace } from "../test/support/workspace";

const NOTES = "docs/notes.md";
const YAML = ".orchestration/active_intents.yaml";

const out = (s = "") => process.stdout.write(`${s}\n`);
const heading = (s: string) => out(process.stdout.isTTY ? `\n\x1b[1m== ${s}\x1b[0m` : `\n== ${s}`);
const SEVERITY = ["", "error", "warning", "info", "hint"];

function showDiagnostics(file: string, diags: Diagnostic[]) {
  if (!diags.length) out(`  ${file}: no diagnostics`);
  for (const d of diags) {
    const r = d.range;
    out(`  ${file}:${r.start.line + 1}:${r.start.character + 1}-${r.end.line + 1}:${r.end.character + 1} ${SEVERITY[d.severity ?? 1]} [${String(d.code)}]`);
    out(`      ${d.message}`);
  }
}

async function main() {
  const ws = new TempWorkspace();
  const client = await LspClient.start({ root: ws.root });
  try {
    out(`intent-lsp demo — workspace copied to ${ws.root}`);

    heading("The catalogue (intent.listIntents)");
    const intents = (await client.executeCommand("intent.listIntents")) as { id: string; name: string; status: string; owned_scope: string[] }[];
    for (const i of intents) out(`  ${i.id}  ${i.status.padEnd(11)} ${i.name.padEnd(36)} ${i.owned_scope.join(", ")}`);

    heading("Select INT-001 (intent.selectIntent, the same as `intent select INT-001`)");
    await client.executeCommand("intent.selectIntent", { id: "INT-001" });
    out(`  .orchestration/.sessions/workspace.json → ${ws.read(".orchestration/.sessions/workspace.json").replace(/\s+/g, " ").trim()}`);

    heading(`Edit line 10 of ${NOTES} (outside INT-001's scope)`);
    await client.open(NOTES, "markdown");
    const original = client.text(NOTES).split("\n")[9];
    await client.setLine(NOTES, 9, "- Write the onboarding guide this week.");
    showDiagnostics(NOTES, await client.waitForDiagnostics(NOTES, (d) => d.length === 1));

    heading("Insert 5 lines above it: the squiggle moves to line 15, and the new lines are edits too");
    await client.insertLines(NOTES, 2, ["", "## New section", "- one", "- two", ""]);
    showDiagnostics(NOTES, await client.waitForDiagnostics(NOTES, (d) => d.length === 2));

    heading("Undo everything: no diagnostics");
    await client.deleteLines(NOTES, 2, 5);
    await client.setLine(NOTES, 9, original);
    showDiagnostics(NOTES, await client.waitForDiagnostics(NOTES, (d) => d.length === 0));

    heading("Edit again and ask for quick fixes (textDocument/codeAction)");
    await client.setLine(NOTES, 9, "- Write the onboarding guide this week.");
    const [diag] = await client.waitForDiagnostics(NOTES, (d) => d.length === 1);
    const actions = await client.codeActions(NOTES, line(9), [diag]);
    for (const a of actions) out(`  ${a.isPreferred ? "★" : "•"} ${a.title}`);

    heading(`Apply "${actions[0].title}"`);
    await client.executeCommand(actions[0].command!.command, ...(actions[0].command!.arguments ?? []));
    showDiagnostics(NOTES, await client.waitForDiagnostics(NOTES, (d) => d.length === 0));
    const selected = JSON.parse(ws.read(".orchestration/.sessions/workspace.json")) as { intent: string };
    out(`  workspace selection is now ${selected.intent}; the editor, \`intent status\` and agent hooks all follow it`);

    heading("A mistake in active_intents.yaml shows at the offending node; the last good intents stay in force");
    const yaml = ws.read(YAML);
    ws.write(YAML, yaml.replace("status: BLOCKED", "status: STUCK"));
    await client.notifyWatched(YAML);
    showDiagnostics(YAML, await client.waitForDiagnostics(YAML, (d) => d.length > 0));
    ws.write(YAML, yaml);
    await client.notifyWatched(YAML);
    await client.waitForDiagnostics(YAML, (d) => d.length === 0);
    out("  (fixed: diagnostics cleared)");

    heading("Lifecycle moves offered on an intent in active_intents.yaml");
    await client.open(YAML, "yaml");
    for (const a of await client.codeActions(YAML, line(3, 5))) out(`  • ${a.title}`);
    out();
  } finally {
    await client.stop();
    ws.dispose();
  }
}

main().catch((err) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
