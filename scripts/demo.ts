/**
 * `npm start`: a scripted editor session against a temporary copy of examples/workspace, printing what an
 * editor would show. It drives the built server over JSON-RPC exactly as the protocol tests do.
 */
import type { CodeLens, Diagnostic } from "vscode-languageserver-protocol";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LspClient, line, REPO_ROOT } from "./lspClient";

const NOTES = "docs/notes.md";
const API = "src/api/weather.ts";
const YAML = ".orchestration/active_intents.yaml";
const LEDGER = ".orchestration/agent_trace.jsonl";
const CLI = join(REPO_ROOT, "dist/cli.js");

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

const indent = (text: string) =>
  text
    .split("\n")
    .map((l) => `    │ ${l}`)
    .join("\n");

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the server");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A throwaway copy of examples/workspace, so the demo never changes the bundled one. */
function exampleCopy() {
  const root = mkdtempSync(join(tmpdir(), "intent-lsp-demo-"));
  cpSync(join(REPO_ROOT, "examples/workspace"), root, { recursive: true });
  return {
    root,
    read: (rel: string) => readFileSync(join(root, rel), "utf8"),
    write: (rel: string, text: string) => writeFileSync(join(root, rel), text),
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

async function main() {
  const ws = exampleCopy();
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

    heading(`Who wrote ${API}? (CodeLens, then hover on line 12)`);
    await client.open(API, "typescript");
    for (const lens of await client.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri: client.uri(API) } })) {
      out(`  line ${lens.range.start.line + 1}: ${lens.command?.title}`);
    }
    out(indent((await client.hoverText(API, 11)) || "(no hover)"));

    heading(`Save an edit to ${NOTES} (in scope of INT-003 now): one Agent Trace record is appended`);
    const before = ws.read(LEDGER).split("\n").filter(Boolean).length;
    await client.setLine(NOTES, 9, "- Write the onboarding guide this week.");
    ws.write(NOTES, client.text(NOTES));
    await client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: client.uri(NOTES) } });
    await waitFor(() => ws.read(LEDGER).split("\n").filter(Boolean).length > before);
    const record = JSON.parse(ws.read(LEDGER).trim().split("\n").pop()!);
    const conv = record.files[0].conversations[0];
    out(
      `  ${record.id}  ${record.files[0].path}  lines ${conv.ranges.map((r: { start_line: number; end_line: number }) => `${r.start_line}-${r.end_line}`).join(",")}  ${conv.contributor.type}  ${conv.related[0].url}`,
    );
    await waitFor(async () => (await client.hoverText(NOTES, 9)).includes("human"));
    out(indent((await client.hoverText(NOTES, 9)) || "(no hover)"));

    heading("An agent (Claude Code) asks to edit src/billing/export.ts: `intent hook claude-code`, PreToolUse");
    const payload = {
      session_id: "demo-session",
      transcript_path: `${ws.root}/.claude/transcript.jsonl`,
      cwd: ws.root,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "Edit",
      tool_input: { file_path: `${ws.root}/src/billing/export.ts`, old_string: "toFixed(2)", new_string: "toFixed(3)", replace_all: false },
      tool_use_id: "toolu_demo",
    };
    const hook = spawnSync(process.execPath, [CLI, "hook", "claude-code"], { cwd: ws.root, input: JSON.stringify(payload), encoding: "utf8" });
    out(`  exit ${hook.status}; stdout:`);
    out(indent(JSON.stringify(JSON.parse(hook.stdout), null, 2)));

    heading("`intent status` in a terminal sees the same workspace");
    out(indent(spawnSync(process.execPath, [CLI, "status"], { cwd: ws.root, encoding: "utf8" }).stdout.trimEnd()));

    heading("intent.verifyLedger");
    const report = (await client.executeCommand("intent.verifyLedger")) as { ok: boolean; records: number; problems: unknown[] };
    out(`  ${report.ok ? "ok" : "PROBLEMS"}: ${report.records} records, ${report.problems.length} problems`);
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
