import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { runCli, runHook } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { claudeEdit, writeTranscript } from "../support/hookPayloads";
import { LEDGER, ledgerRecords } from "../support/ledgerFile";
import { LspClient } from "../support/lspClient";
import type { TempWorkspace } from "../support/workspace";

/**
 * Names and paths from a repository or a ledger, holding terminal escape sequences (OSC 52 sets the
 * clipboard, CSI 2J clears the screen), C1 controls, bidi overrides and line breaks, and Markdown that
 * would fetch an image, show a link or mention a team: every command's text shows them as text.
 */

beforeAll(ensureBuilt);

/** Anything a terminal acts on: C0 controls but the line break and the tab, DEL, C1 controls, line separators, bidi overrides. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const MODEL = "anthropic/claude\u001b]52;c;ZXZpbA==\u0007\u202e\nx\u009b";
const MODEL_SHOWN = "claude\\u001b]52;c;ZXZpbA==\\u0007\\u202e\\nx\\u009b";
const PERSON = "Ada \u009b2J\u202eLovelace";
const PERSON_SHOWN = "Ada \\u009b2J\\u202eLovelace";
/** As YAML writes it in double quotes: ESC, BEL, a line break, RLO, CSI. */
const INTENT_NAME_YAML = "Build \\e]52;c;ZXZpbA==\\a API\\nsecond \\u202e line \\x9b";
const INTENT_NAME_SHOWN = "Build \\u001b]52;c;ZXZpbA==\\u0007 API\\nsecond \\u202e line \\u009b";
const PATH = "src/api/e\u001b[2Jvil\u202e/notes.ts";
const PATH_SHOWN = "src/api/e\\u001b[2Jvil\\u202e/notes.ts";

const WEATHER = "src/api/weather.ts";
const AI_BEFORE = "  city: string;";
const AI_AFTER = "  city: string; // the city asked for";

/** Claude Code, as `model`, changes one line of src/api/weather.ts through its hooks; the gate's answer. */
function agentEdits(ws: TempWorkspace, model: string): string {
  writeTranscript(ws, model);
  const pre = runHook("claude-code", claudeEdit(ws, "PreToolUse", WEATHER, AI_BEFORE, AI_AFTER), { cwd: ws.root });
  if (pre.status !== 0) throw new Error(`the agent's write was refused: ${pre.stdout}${pre.stderr}`);
  ws.write(WEATHER, ws.read(WEATHER).replace(AI_BEFORE, AI_AFTER));
  const post = runHook("claude-code", claudeEdit(ws, "PostToolUse", WEATHER, AI_BEFORE, AI_AFTER), { cwd: ws.root });
  if (post.status !== 0) throw new Error(`the agent's write was not recorded: ${post.stdout}${post.stderr}`);
  return pre.stdout;
}

const minute = (iso: string) => iso.slice(0, 16).replace("T", " ");

describe("terminal text", () => {
  let ws: TempWorkspace;
  let gateAnswer: string;

  beforeAll(async () => {
    ws = gitWorkspace();
    ws.write(
      ".orchestration/active_intents.yaml",
      ws.read(".orchestration/active_intents.yaml").replace("name: Build Weather API", `name: "${INTENT_NAME_YAML}"`),
    );
    git(ws.root, "config", "user.name", PERSON);
    ws.write(".orchestration/.sessions/workspace.json", JSON.stringify({ intent: "INT-001", selectedAt: new Date().toISOString(), by: "Ada\u001b[2J\nBob" }));
    gateAnswer = agentEdits(ws, MODEL);
    // a person's save, through the editor: the record names them as git does
    const client = await LspClient.start({ root: ws.root });
    try {
      await client.open("src/api/forecast.ts");
      await client.insertLines("src/api/forecast.ts", 4, ["export const HOURS = 24;"]);
      await client.save("src/api/forecast.ts");
    } finally {
      await client.stop();
    }
    ws.write(PATH, "one\n");
    ws.write("src/api/term.ts", "a\u001b[2Jb\tc\u009b\n");
  }, 120_000);

  afterAll(() => ws?.dispose());

  /** Runs `intent args` and checks that nothing a terminal acts on reaches either stream. */
  function run(...args: string[]) {
    const r = runCli(args, { cwd: ws.root });
    expect(r.stdout, `intent ${args.join(" ")}: stdout`).not.toMatch(RAW);
    expect(r.stderr, `intent ${args.join(" ")}: stderr`).not.toMatch(RAW);
    return r;
  }

  it("blame shows the model, the person and the file's own text escaped, its columns in line", () => {
    const [ai, human] = ledgerRecords(ws);
    expect(ai!.files[0].conversations[0].contributor.model_id).toBe(MODEL);
    expect(human!.metadata["dev.intent-lsp"].person.name).toBe(PERSON);
    const weather = run("blame", `${WEATHER}:3-5`);
    expect(weather.status).toBe(0);
    const width = `INT-001   ${MODEL_SHOWN}  ${minute(ai!.timestamp)}  ${ai!.id.slice(0, 8)}`.length;
    expect(weather.stdout).toBe(
      [
        `3  ${"untraced".padEnd(width)} │ export interface Weather {`,
        `4  INT-001   ${MODEL_SHOWN}  ${minute(ai!.timestamp)}  ${ai!.id.slice(0, 8)} │ ${AI_AFTER}`,
        `5  ${"untraced".padEnd(width)} │   celsius: number;`,
        "",
      ].join("\n"),
    );
    expect(run("blame", "src/api/forecast.ts:5").stdout).toBe(
      `5  INT-001  ${PERSON_SHOWN}  ${minute(human!.timestamp)}  ${human!.id.slice(0, 8)} │ export const HOURS = 24;\n`,
    );
    expect(run("blame", "src/api/term.ts").stdout).toBe("1  untraced       │ a\\u001b[2Jb\tc\\u009b\n");
  });

  it("the agent gate's answer names the intent with its control characters escaped, for the agent's terminal", () => {
    expect(gateAnswer).not.toMatch(RAW);
    expect(JSON.parse(gateAnswer).hookSpecificOutput.permissionDecisionReason).toBe(
      `INT-001 (${INTENT_NAME_SHOWN.replace("\\n", "\n")}) owns src/api/weather.ts.`,
    );
  });

  it("stats shows the model and the person escaped in their tables", () => {
    const r = run("stats");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^anthropic/${MODEL_SHOWN.replace(/[\\[\]]/g, "\\$&")} +1 +100% +1 +0 +0 +0 +0$`, "m"));
    expect(r.stdout).toMatch(new RegExp(`^${PERSON_SHOWN.replace(/\\/g, "\\\\")} +1 +0% +0 +1 +0 +0 +0$`, "m"));
    const history = run("stats", "--by", "month", "--since", "2000-01-01");
    expect(history.status).toBe(0);
    expect(history.stdout).toContain(`anthropic/${MODEL_SHOWN}`);
  });

  it("status shows the intent's name and the selection's author escaped", () => {
    const r = run("status");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`\nSelection: INT-001 — ${INTENT_NAME_SHOWN} (workspace, by Ada\\u001b[2J\\nBob, just now)\n`);
    expect(r.stdout).toMatch(
      new RegExp(`^  \\* INT-001  IN_PROGRESS  ${INTENT_NAME_SHOWN.replace(/[\\[\]]/g, "\\$&")}  src/api/\\*\\*, test/api/\\*\\*$`, "m"),
    );
    const one = run("status", "INT-001");
    expect(one.stdout.split("\n")[0]).toBe(`INT-001 — ${INTENT_NAME_SHOWN}`);
  });

  it("check's text and an error quoting a path show them escaped; export gives the records byte for byte", () => {
    const r = run("check", "--base", "HEAD");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      `${PATH_SHOWN}:1: information untraced-change: ${PATH_SHOWN} changed here and no ledger record explains it (untraced): the change was made outside intent-lsp and the agent hooks.\n`,
    );
    const missing = run("blame", "src/gone\u001b[2J.ts");
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(`intent blame: src/gone\\u001b[2J.ts: no such file in ${ws.root}\n`);
    const broken = run("blame", "src/gone\nsecond.ts");
    expect(broken.status).toBe(2);
    expect(broken.stderr).toBe('intent blame: "src/gone\\nsecond.ts" is not FILE[:LINE[-LINE]]\n');
    for (const args of [["verify"], ["context", "INT-001"], ["status", "--json"], ["stats", "--json"], ["blame", WEATHER, "--json"]]) run(...args);
    expect(JSON.parse(run("stats", "--json").stdout).byModel[0].model).toBe(MODEL);
    // the records as their writer wrote them: a program reads them, not a terminal
    expect(runCli(["export"], { cwd: ws.root }).stdout).toBe(ws.read(LEDGER));
  });
});

describe("Markdown text", () => {
  let ws: TempWorkspace;
  const model = "acme/![x](https://evil.example/b.png) [Approve](https://x) @org/team <img src=x> | `t` *e* www.evil.example";
  const path = "docs/[Approve](https:/x)/@org/team <img src=x> | `b` *e*.md";

  beforeAll(() => {
    ws = gitWorkspace();
    ws.select("INT-001");
    agentEdits(ws, model);
    ws.write(path, "one\n");
  }, 60_000);

  afterAll(() => ws?.dispose());

  it("check's summary shows the model and the path as text, in --format markdown and in $GITHUB_STEP_SUMMARY", () => {
    const r = runCli(["check", "--base", "HEAD", "--format", "markdown"], { cwd: ws.root });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const lines = r.stdout.split("\n");
    // a code span: no image, link, HTML, mention or emphasis inside; its `|` escaped for the table
    expect(lines).toContain(
      "| ``acme/![x](https://evil.example/b.png) [Approve](https://x) @org/team <img src=x> \\| `t` *e* www.evil.example`` | 1 | 100% | 1 | 0 | 0 | 0 |",
    );
    expect(lines).toContain(
      "| ℹ️ note | ``docs/[Approve](https:/x)/@org/team <img src=x> \\| `b` *e*.md:1`` | untraced-change | " +
        "docs/\\[Approve\\](https:/x)/@\u200dorg/team \\<img src=x\\> \\| \\`b\\` \\*e\\*.md changed here and no ledger record explains it (untraced): the change was made outside intent-lsp and the agent hooks. |",
    );
    const summary = ws.path(".orchestration/.cache/step-summary.md");
    ws.write(".orchestration/.cache/step-summary.md", "");
    const github = runCli(["check", "--base", "HEAD", "--format", "github"], { cwd: ws.root, env: { GITHUB_STEP_SUMMARY: summary } });
    expect(github.status).toBe(0);
    expect(ws.read(".orchestration/.cache/step-summary.md")).toBe(r.stdout);
  });
});
