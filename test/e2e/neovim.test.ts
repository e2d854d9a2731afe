// Neovim 0.10 and 0.12 as real LSP clients of the built server (dist/server.js), driven headless through
// the project's own Neovim plugin (clients/neovim), set up as its README says for each version (0.10:
// `setup({ cmd })`; 0.11+: `vim.lsp.config` + `setup()`, i.e. vim.lsp.enable): nvim/scope-quickfix.lua
// (scope diagnostic, quick fix, statusline, `intent select` in a terminal) and nvim/save-attribution.lua
// (:write records the edit; hover, CodeLens, inlay hints and :IntentBlame attribute it).
// Both versions run by default; INTENT_LSP_E2E_NVIM=nvim-0.10 (or nvim-sid) runs one of them.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { describeRun, type EditorName, ensureEditor, isolatedXdg, linesOf, repoRoot, runNvim } from "./editors";
import { CLI_JS, EditorRun, INSTALL_MS, intentsYaml, LEDGER, SERVER_JS, writeWorkspace } from "./editorRun";

const notes = Array.from({ length: 15 }, (_, i) => (i === 0 ? "# Notes" : `Note line ${i + 1}: nothing to see.`));
const EDIT_LINE = 9; // 0-based: line 10 of docs/notes.md
const EDIT_TEXT = "Edited by the Neovim end-to-end test.";
// 18 lines, as the file-summary lens counts them
const weather = [
  "// Weather API: forecasts for a city.",
  "export interface Forecast {",
  "  city: string;",
  "  hours: number[];",
  "}",
  "",
  "export async function forecast(city: string): Promise<Forecast> {",
  "  const hours = await fetchHours(city);",
  "  return { city, hours };",
  "}",
  "",
  "export function summary(f: Forecast): string {",
  "  const now = f.hours[0];",
  "  return `${f.city}: ${now} C`;",
  "}",
  "async function fetchHours(city: string): Promise<number[]> {",
  "  return city ? [12, 13, 14] : [];",
  "}",
];
const API_FILE = "src/api/weather.ts";
const API_EDIT_LINE = 12; // 0-based: `const now = …`
const API_EDIT_TEXT = "  const now = f.hours[0] ?? 0; // saved from Neovim";

/** A workspace where INT-001 (src/api/**) is selected and docs/notes.md belongs to other intents. */
function makeWorkspace(root: string): void {
  writeWorkspace(root, intentsYaml(["Use TypeScript", "No network calls in unit tests"], true), "INT-001", { "docs/notes.md": notes, [API_FILE]: weather });
}

const run = new EditorRun("nvim");

const versions: Partial<Record<EditorName, RegExp>> = { "nvim-0.10": /^0\.10\.\d+/, "nvim-sid": /^0\.(1[1-9]|[2-9]\d)\.\d+/ };
const editors = (process.env.INTENT_LSP_E2E_NVIM ?? "nvim-0.10,nvim-sid")
  .split(",")
  .map((e) => e.trim())
  .filter(Boolean);
for (const editor of editors) {
  if (!(editor in versions)) throw new Error(`INTENT_LSP_E2E_NVIM: unknown editor '${editor}' (known: ${Object.keys(versions).join(", ")})`);
}

// A first install is awaited inside each test rather than in beforeAll: vitest reports tests after a
// failed hook as skipped.

describe.each(editors as EditorName[])("%s", (editor) => {
  /** The editor, a fresh workspace in `tmp`, and the driver's environment for FILE plus `extra`. */
  async function prepareRun(file: string, extra: Record<string, string>) {
    const nvim = await ensureEditor(editor);
    const tmp = run.start();
    const ws = path.join(tmp, "ws");
    makeWorkspace(ws);
    const dir = tmp;
    const env = {
      ...isolatedXdg(dir),
      WS: ws,
      FILE: file,
      SERVER_CMD: `${process.execPath} ${SERVER_JS} --stdio`,
      PLUGIN_DIR: path.join(repoRoot, "clients", "neovim"),
      INTENT_CLI: `${process.execPath} ${CLI_JS}`,
      TIMEOUT_MS: "15000",
      ...extra,
    };
    return { nvim, ws, env, dir };
  }

  it(
    "runs headless Lua under the harness, isolated from user config",
    async () => {
      const nvim = await ensureEditor(editor);
      const tmp = run.start(false);
      const script = path.join(tmp, "version.lua");
      writeFileSync(script, 'io.stdout:write("VERSION ", tostring(vim.version()), "\\n", "CONFIG ", vim.fn.stdpath("config"), "\\n")\n');
      const r = await runNvim({ nvim, script, env: isolatedXdg(tmp), cwd: tmp, timeoutMs: 20_000 });
      const seen = describeRun(r);
      expect(r.code, seen).toBe(0);
      expect(linesOf(r, "VERSION"), seen).toEqual([expect.stringMatching(versions[editor] ?? /^$/)]);
      expect(linesOf(r, "CONFIG"), seen).toEqual([path.join(tmp, "xdg", "config", "nvim")]);
      run.passed();
    },
    INSTALL_MS + 20_000,
  );

  // the README's setup for this version, as the driver reports it: the route and whether intent_lsp is enabled
  const setupLine = editor === "nvim-0.10" ? "setup true" : "vim.lsp.config true";

  it(
    "flags an out-of-scope edit on exactly that line, clears it with Select INT-003, and follows `intent select` from a terminal",
    async () => {
      const { nvim, ws, env, dir } = await prepareRun("docs/notes.md", {
        EDIT_LINE: String(EDIT_LINE),
        EDIT_TEXT,
        SELECT_PATTERN: "^Select INT%-003",
        SELECTED: "INT-001",
        SELECTED_STATUS: "INT-001 · out of scope",
        SELECT_ID: "INT-003",
      });
      const r = await runNvim({
        nvim,
        script: path.join(__dirname, "nvim", "scope-quickfix.lua"),
        env,
        cwd: ws,
        timeoutMs: 60_000,
      });
      const seen = `workspace kept at ${run.dir}\n${describeRun(r, [path.join(dir, "xdg", "state", "nvim", "lsp.log")])}`;

      expect(r.stdout, seen).not.toMatch(/^(FAIL|LUA ERROR)/m);
      expect(r.code, seen).toBe(0);
      expect(linesOf(r, "SETUP"), seen).toEqual([setupLine]);
      expect(linesOf(r, "CLIENT"), seen).toEqual([`intent_lsp ${ws}`]);

      const diags = linesOf(r, "DIAG");
      expect(diags, seen).toHaveLength(1);
      const m = /^(\d+) (\d+) (\d+) (\d+) (\S+) (\S+) (.*)$/.exec(diags[0] ?? "");
      expect(m, seen).not.toBeNull();
      const [, lnum, col, endLnum, endCol, severity, code, message] = m ?? [];
      expect([lnum, col, endLnum, endCol].map(Number), seen).toEqual([EDIT_LINE, 0, EDIT_LINE, EDIT_TEXT.length]);
      expect(severity, seen).toBe("ERROR");
      expect(code, seen).toBe("out-of-scope");
      expect(message, seen).toContain("docs/notes.md");
      expect(message, seen).toContain("INT-001");
      expect(message, seen).toContain("src/api/**");

      expect(linesOf(r, "ACTION"), seen).toEqual(
        expect.arrayContaining([
          "Select INT-003 — Docs refresh",
          "Start and select INT-004 — Onboarding guide",
          "Add docs/notes.md to INT-001's scope",
          "Add docs/** to INT-001's scope",
          "Add docs/notes.md to .intentignore",
        ]),
      );
      const commands = linesOf(r, "COMMAND");
      expect(commands, seen).toHaveLength(1);
      const [title, command, json] = /^(.*) => (\S+) (.*)$/.exec(commands[0] ?? "")?.slice(1) ?? [];
      expect([title, command], seen).toEqual(["Select INT-003 — Docs refresh", "intent.selectIntent"]);
      expect(JSON.parse(json ?? "null"), seen).toEqual([expect.objectContaining({ id: "INT-003" })]);
      // the action went through Neovim's client, not around it, and the server acted on it
      expect(r.stdout, seen).toMatch(/^CLEARED$/m);
      // the statusline component: the selection before the fix (docs/notes.md is out of its scope), after
      // it, and after the terminal's select
      expect(linesOf(r, "STATUS"), seen).toEqual(["INT-001 · out of scope", "INT-003", "INT-001 · out of scope"]);
      expect(linesOf(r, "TERMINAL"), seen).toEqual([expect.stringContaining("INT-001")]);
      expect(r.stdout, seen).toMatch(/^REFLAGGED$/m);
      expect(r.stdout, seen).toMatch(/^PASS$/m);

      const selection: unknown = JSON.parse(readFileSync(path.join(ws, ".orchestration", ".sessions", "workspace.json"), "utf8"));
      expect(selection, seen).toMatchObject({ intent: "INT-001" });
      run.passed();
    },
    INSTALL_MS + 90_000,
  );

  it(
    "records a :write in the ledger and shows the attribution in hover, CodeLens, inlay hints and :IntentBlame",
    async () => {
      const { nvim, ws, env, dir } = await prepareRun(API_FILE, {
        EDIT_LINE: String(API_EDIT_LINE),
        EDIT_TEXT: API_EDIT_TEXT,
        OTHER_LINE: "2",
        LEDGER,
        BLAME_RANGE: `:${API_EDIT_LINE},${API_EDIT_LINE + 2}`,
      });
      const r = await runNvim({
        nvim,
        script: path.join(__dirname, "nvim", "save-attribution.lua"),
        env,
        cwd: ws,
        timeoutMs: 60_000,
      });
      const ledgerFile = path.join(ws, ...LEDGER.split("/"));
      const ledgerText = existsSync(ledgerFile) ? readFileSync(ledgerFile, "utf8") : "<no ledger file>";
      const seen = `workspace kept at ${run.dir}\n${describeRun(r, [path.join(dir, "xdg", "state", "nvim", "lsp.log")])}\n--- ${LEDGER} ---\n${ledgerText}`;

      expect(r.stdout, seen).not.toMatch(/^(FAIL|LUA ERROR)/m);
      expect(r.code, seen).toBe(0);
      expect(r.stdout, seen).toMatch(/^PASS$/m);
      expect(linesOf(r, "SETUP"), seen).toEqual([setupLine]);
      expect(linesOf(r, "CLIENT"), seen).toEqual([`intent_lsp ${ws}`]);

      // Neovim wrote the file itself ...
      const saved = [...weather];
      saved[API_EDIT_LINE] = API_EDIT_TEXT;
      expect(readFileSync(path.join(ws, ...API_FILE.split("/")), "utf8"), seen).toBe(`${saved.join("\n")}\n`);
      // ... and its didSave produced exactly one record, for exactly the edited line (1-based in the ledger)
      const lines = ledgerText.split("\n").filter((l) => l.trim() !== "");
      expect(lines, seen).toHaveLength(1);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const record = JSON.parse(lines[0] ?? "null") as any;
      expect(record.version, seen).toBe("0.1.0");
      expect(record.tool?.name, seen).toBe("intent-lsp");
      expect(record.files, seen).toHaveLength(1);
      expect(record.files[0].path, seen).toBe(API_FILE);
      expect(record.files[0].conversations, seen).toHaveLength(1);
      const conv = record.files[0].conversations[0];
      expect(conv.contributor, seen).toEqual({ type: "human" });
      expect(conv.related, seen).toEqual([{ type: "intent", url: "urn:intent:INT-001" }]);
      const lineHash =
        "sha256:" +
        createHash("sha256")
          .update(API_EDIT_TEXT.replace(/[ \t]+$/, ""))
          .digest("hex");
      expect(conv.ranges, seen).toEqual([{ start_line: API_EDIT_LINE + 1, end_line: API_EDIT_LINE + 1, content_hash: lineHash }]);
      expect(record.metadata?.["dev.intent-lsp"], seen).toMatchObject({ intent_id: "INT-001", scope: "PASS" });

      // before the save, hover says the line is edited and where it will be recorded
      expect(linesOf(r, "HOVER_EDITED").join("\n"), seen).toMatch(/^\*\*Edited, not saved yet\.\*\* .*INT-001/);

      // after it: the intent, the contributor, when, the very record just written, and the constraints
      const hover = linesOf(r, "HOVER");
      expect(hover[0], seen).toBe("**INT-001 — Build Weather API (IN_PROGRESS)**");
      expect(hover, seen).toContain(`human · just now (${record.timestamp})`);
      expect(hover, seen).toContain(`trace \`${record.id}\` · intent-lsp · exact`);
      expect(hover, seen).toEqual(expect.arrayContaining(["- Use TypeScript", "- No network calls in unit tests"]));
      expect(linesOf(r, "HOVER_OTHER"), seen).toEqual(["**Untraced:** no ledger record covers this line."]);

      // the plugin's lenses, refreshed by the save itself: the file summary at line 0 and the block's lens
      // at its first line
      expect(linesOf(r, "LENS"), seen).toEqual([
        `0 1/${weather.length} lines traced · AI 0 (0%) · human 1 · untraced ${weather.length - 1} · 1 record · INT-001 · last human just now`,
        `${API_EDIT_LINE} INT-001 · human · just now`,
      ]);
      // vim.lsp.inlay_hint.get(): the short label (intent and who) at the end of the block's first line
      expect(linesOf(r, "HINT"), seen).toEqual([`${API_EDIT_LINE} ${API_EDIT_TEXT.length} INT-001 · human`]);
      // :IntentBlame prints the lines `intent blame` prints in a terminal for the same range
      const terminalBlame = execFileSync(process.execPath, [CLI_JS, "blame", `${API_FILE}:${API_EDIT_LINE}-${API_EDIT_LINE + 2}`], {
        cwd: ws,
        encoding: "utf8",
      });
      const blameLines = linesOf(r, "BLAME");
      expect(blameLines, seen).toEqual(terminalBlame.replace(/\n$/, "").split("\n"));
      expect(blameLines, seen).toEqual([
        expect.stringMatching(/^12 {2}untraced +│ export function summary\(f: Forecast\): string \{$/),
        `13  INT-001   human  ${record.timestamp.slice(0, 16).replace("T", " ")}  ${record.id.slice(0, 8)} │ ${API_EDIT_TEXT}`,
        expect.stringMatching(/^14 {2}untraced +│ {3}return/),
      ]);
      // an in-scope edit, saved: nothing to flag
      expect(linesOf(r, "DIAG"), seen).toEqual([]);
      run.passed();
    },
    INSTALL_MS + 90_000,
  );

  it(
    "statusline: the auto-selected intent, then out of scope; a saved line's inlay hint names the person without another edit",
    async () => {
      const { nvim, ws, env, dir } = await prepareRun(API_FILE, {
        EDIT_LINE: String(API_EDIT_LINE),
        EDIT_TEXT: API_EDIT_TEXT,
        AUTO_STATUS: "INT-001 (auto)",
        SELECT_ID: "INT-003",
        OUT_STATUS: "INT-003 · out of scope",
        LEDGER,
      });
      // nothing selected (auto-selection applies), and the person is git's, as `git config user.name` sets it
      rmSync(path.join(ws, ".orchestration", ".sessions", "workspace.json"));
      execFileSync("git", ["init", "-q"], { cwd: ws });
      execFileSync("git", ["config", "user.name", "Ada Lovelace"], { cwd: ws });
      const r = await runNvim({ nvim, script: path.join(__dirname, "nvim", "status-hints.lua"), env, cwd: ws, timeoutMs: 60_000 });
      const seen = `workspace kept at ${run.dir}\n${describeRun(r, [path.join(dir, "xdg", "state", "nvim", "lsp.log")])}`;

      expect(r.stdout, seen).not.toMatch(/^(FAIL|LUA ERROR)/m);
      expect(r.code, seen).toBe(0);
      expect(r.stdout, seen).toMatch(/^PASS$/m);
      expect(linesOf(r, "STATUS"), seen).toEqual(["INT-001 (auto)", "INT-003 · out of scope"]);
      expect(linesOf(r, "HINT"), seen).toEqual([`${API_EDIT_LINE} ${API_EDIT_TEXT.length} INT-001 · Ada Lovelace`]);
      run.passed();
    },
    INSTALL_MS + 90_000,
  );
});
