// Workspaces for `intent revert` and the editor's `intent.revert`, built by real hook calls and editor saves
// (test/cli/revert.test.ts, test/protocol/revertCommand.test.ts): the hooks and the editor run in this process.
import { spawnSync } from "node:child_process";
import { expect } from "vitest";
import { runHookInProcess } from "./cliRunner";
import { codexPayload } from "./agentFixtures";
import { claudeWritesInProcess } from "./agentWrites";
import { git, gitWorkspace } from "./gitRepository";
import { claudePayload, writeTranscript } from "./hookPayloads";
import { InProcessEditor } from "./inProcessEditor";
import type { TempWorkspace } from "./workspace";

export const SONNET = "anthropic/claude-sonnet-4-5-20250929";
export const WEATHER = "src/api/weather.ts";
export const ORIGINAL = [
  'import { fetchForecast } from "./forecast";',
  "",
  "export interface Weather {",
  "  city: string;",
  "  celsius: number;",
  "  summary: string;",
  "}",
  "",
  "/** Current weather for a city, from the forecast service. */",
  "export async function currentWeather(city: string): Promise<Weather> {",
  "  const forecast = await fetchForecast(city);",
  "  const now = forecast.hours[0];",
  "  return {",
  "    city,",
  "    celsius: Math.round(now.temperature),",
  "    summary: now.summary,",
  "  };",
  "}",
];
export const text = (lines: readonly string[]) => lines.map((l) => `${l}\n`).join("");

let calls = 0;

/** Claude Code edits `path` (PreToolUse, the edit on disk, PostToolUse), as the agent does. */
export async function claudeEdits(ws: TempWorkspace, path: string, from: string, to: string): Promise<void> {
  const id = `toolu_revert_${++calls}`;
  const input = { file_path: ws.path(path), old_string: from, new_string: to, replace_all: false };
  const pre = await runHookInProcess("claude-code", claudePayload(ws, "PreToolUse", { tool_name: "Edit", tool_input: input, tool_use_id: id }), {
    cwd: ws.root,
  });
  expect(pre.stdout).not.toContain('"deny"');
  const before = ws.read(path);
  expect(before).toContain(from);
  ws.write(path, before.replace(from, to));
  const post = { tool_name: "Edit", tool_input: input, tool_use_id: id, tool_response: { filePath: ws.path(path), success: true } };
  await runHookInProcess("claude-code", claudePayload(ws, "PostToolUse", post), { cwd: ws.root });
}

/** Codex runs `command` in its shell, between its hooks. */
export async function codexShell(ws: TempWorkspace, command: string): Promise<void> {
  await runHookInProcess("codex", codexPayload(ws, "pre", "Bash", { command }, `call-sh-${++calls}`), { cwd: ws.root });
  const sh = spawnSync("bash", ["-c", command], { cwd: ws.root, encoding: "utf8" });
  if (sh.status !== 0) throw new Error(`the test's command failed: ${sh.stderr}`);
  await runHookInProcess("codex", codexPayload(ws, "post", "Bash", { command }, `call-sh-${calls}`), { cwd: ws.root });
}

/** A person edits line `line` (1-based) of `path` in the editor and saves it: the save's record is theirs. */
export async function personEdits(ws: TempWorkspace, path: string, line: number, to: string): Promise<void> {
  const editor = await InProcessEditor.start(ws.root);
  try {
    await editor.open(path, ws.read(path));
    await editor.ledgerRead("README.md");
    await editor.setLine(path, line - 1, to);
    expect(await editor.save(path)).not.toBeNull();
  } finally {
    await editor.stop();
  }
}

export const B_LINES = [
  "    celsius: Math.round(now.temperature * 10) / 10,",
  "    summary: now.summary.trim(),",
  "    fahrenheit: Math.round(now.temperature * 1.8 + 32),",
];
export const PERSON_LINE = "    summary: now.summary.trim() || 'unknown',";
export const ALERTS = ["export interface Alert {", "  id: string;", "  severity: number;", "}"];
export const UNITS = ["export type Unit = 'metric' | 'imperial';", "export const DEFAULT_UNIT: Unit = 'metric';"];

/**
 * Claude (Sonnet) adds two fields (a pure insertion), rewrites the comment (one line for one), rewrites the
 * return's two fields as three lines, and creates two files; everything is committed; a person renames one
 * file with `git mv`, Codex moves the other with `mv` in its shell, and a person edits the middle one of
 * Claude's three return lines in the editor.
 */
export async function mixedWorkspace(): Promise<TempWorkspace> {
  const ws = gitWorkspace();
  git(ws.root, "config", "user.name", "Ada");
  ws.select("INT-001");
  writeTranscript(ws, "claude-sonnet-4-5-20250929");
  await claudeEdits(ws, WEATHER, "  summary: string;\n", "  summary: string;\n  fahrenheit: number;\n  windKph: number;\n");
  await claudeEdits(ws, WEATHER, "from the forecast service. */", "from the forecast service, cached for a minute. */");
  await claudeEdits(ws, WEATHER, "    celsius: Math.round(now.temperature),\n    summary: now.summary,\n", text(B_LINES));
  await claudeWritesInProcess(ws, "src/api/alerts.ts", text(ALERTS));
  await claudeWritesInProcess(ws, "src/api/units.ts", text(UNITS));
  git(ws.root, "add", "-A");
  git(ws.root, "commit", "-q", "-m", "weather fields, alerts, units");
  git(ws.root, "mv", "src/api/alerts.ts", "src/api/alerts-v2.ts");
  git(ws.root, "commit", "-q", "-m", "rename alerts");
  await codexShell(ws, "mkdir -p src/api/v2 && mv src/api/units.ts src/api/v2/units.ts");
  await personEdits(ws, WEATHER, 18, PERSON_LINE);
  return ws;
}

/** The weather file as Claude and the person left it. */
export const AFTER_BOTH = [
  ...ORIGINAL.slice(0, 6),
  "  fahrenheit: number;",
  "  windKph: number;",
  ...ORIGINAL.slice(6, 8),
  "/** Current weather for a city, from the forecast service, cached for a minute. */",
  ...ORIGINAL.slice(9, 14),
  B_LINES[0]!,
  PERSON_LINE,
  B_LINES[2]!,
  ...ORIGINAL.slice(16),
];

/** Without Claude's work: its lines out, the comment it replaced back; the person's line stays, and the two lines Claude's rewrite replaced cannot come back around it. */
export const WITHOUT_CLAUDE = [...ORIGINAL.slice(0, 14), PERSON_LINE, ...ORIGINAL.slice(16)];
