import { LspClient } from "../support/lspClient";
import type { TempWorkspace } from "../support/workspace";
import { runHook } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { claudeEdit, writeTranscript } from "../support/hookPayloads";

/**
 * A workspace built the way real work builds it, for `intent stats` and `intent report`: an agent writes
 * through its hooks, a person saves through the language server (once outside the selected intent's scope),
 * committed lines nobody recorded, an untracked file, an ignored one, an exempt one. Every count is known
 * from the steps taken.
 */
export const AI_LINES = ["  city: string; // the city asked for", "  country?: string;", "  fetchedAt: Date;"];
export const MODEL = "anthropic/claude-sonnet-4-5-20250929";
export const PERSON = "Ada Lovelace";

/** Lines of each counted file once the steps below are done (the example workspace's files as they are). */
export const FILE_LINES: Record<string, number> = {
  "src/api/weather.ts": 18 + 2, // the agent replaced one line with three
  "src/api/forecast.ts": 10 + 2, // the person inserted two
  "docs/notes.md": 12, // the person changed one, out of INT-001's scope
  "src/auth/middleware.ts": 4,
  "src/billing/export.ts": 3,
  "README.md": 3,
  ".gitattributes": 1,
  ".gitignore": 1,
  "scratch/untracked.txt": 2, // never committed, never recorded
};
export const TOTAL = Object.values(FILE_LINES).reduce((a, b) => a + b, 0);

export const counts = (c: Partial<Record<"total" | "ai" | "human" | "mixed" | "unknown" | "untraced" | "beforeAdoption" | "outOfScope", number>>) => ({
  total: 0,
  ai: 0,
  human: 0,
  mixed: 0,
  unknown: 0,
  untraced: 0,
  beforeAdoption: 0,
  outOfScope: 0,
  ...c,
});

/** Claude Code replaces one line of src/api/weather.ts with `AI_LINES`, through its hooks. */
export function agentEditsWeather(ws: TempWorkspace): void {
  const weather = "src/api/weather.ts";
  const before = "  city: string;";
  const after = AI_LINES.join("\n");
  const pre = runHook("claude-code", claudeEdit(ws, "PreToolUse", weather, before, after), { cwd: ws.root });
  if (pre.status !== 0) throw new Error(`the agent's write was refused: ${pre.stdout}${pre.stderr}`);
  ws.write(weather, ws.read(weather).replace(before, after));
  const post = runHook("claude-code", claudeEdit(ws, "PostToolUse", weather, before, after), { cwd: ws.root });
  if (post.status !== 0) throw new Error(`the agent's write was not recorded: ${post.stdout}${post.stderr}`);
}

export async function insightWorkspace(): Promise<TempWorkspace> {
  const ws = gitWorkspace();
  git(ws.root, "config", "user.name", PERSON);
  ws.select("INT-001");
  writeTranscript(ws, "claude-sonnet-4-5-20250929");

  agentEditsWeather(ws);

  // the person, through the editor: two lines in scope, one out of scope
  const client = await LspClient.start({ root: ws.root });
  try {
    await client.open("src/api/forecast.ts");
    await client.insertLines("src/api/forecast.ts", 4, ["export const HOURS = 24;", "export const DAYS = 7;"]);
    await client.save("src/api/forecast.ts");
    await client.open("docs/notes.md");
    await client.setLine("docs/notes.md", 10, "- Write the onboarding guide this week.");
    await client.save("docs/notes.md");
  } finally {
    await client.stop();
  }

  ws.write("scratch/untracked.txt", "one\ntwo\n");
  ws.write("dist/bundle.js", "ignored\nby\ngit\n");
  ws.write(".orchestration/notes.txt", "exempt\n");
  return ws;
}
