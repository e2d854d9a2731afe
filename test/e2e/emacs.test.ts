// Emacs 28 as a real LSP client of the built server (dist/server.js), through the project's own
// clients/emacs/intent-lsp.el, driven in batch mode: with eglot (emacs/eglot-journey.el) and with lsp-mode
// running intent-lsp next to another language server (emacs/lsp-mode-journey.el, with
// test/fixtures/fake-language-server standing in for typescript-language-server). Emacs, eglot and
// lsp-mode are Debian 12's (emacs-nox, elpa-eglot, elpa-lsp-mode), fetched into the editor cache by
// tools/ensure-editor.sh like the other editors: a machine without them installs them, never skips.
// The files are .md and .ts, which stock Emacs 28 opens in fundamental-mode.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { describeRun, ensureEditor, isolatedXdg, linesOf, repoRoot, runProcess } from "./editors";
import { CLI_JS, EditorRun, INSTALL_MS, intentsYaml, LEDGER, ledgerText, SERVER_JS, writeWorkspace } from "./editorRun";

const fakeServer = path.join(repoRoot, "test", "fixtures", "fake-language-server", "server.js");

const NOTES = "docs/notes.md";
const notes = Array.from({ length: 15 }, (_, i) => (i === 0 ? "# Notes" : `Note line ${i + 1}: nothing to see.`));
const API_FILE = "src/api/weather.ts";
const weather = [
  "// Weather API: forecasts for a city.",
  "export interface Forecast {",
  "  city: string;",
  "  hours: number[];",
  "}",
  "",
  "export function summary(f: Forecast): string {",
  "  const now = f.hours[0];",
  "  return `${f.city}: ${now} C`;",
  "}",
];

/** No version control: the project root comes from intent-lsp.el. `selected` is the workspace's selection. */
function makeWorkspace(root: string, selected: string): void {
  writeWorkspace(root, intentsYaml(["Use TypeScript"], true), selected, { [NOTES]: notes, [API_FILE]: weather });
}

const run = new EditorRun("emacs");

/** Emacs from the cache, a fresh workspace, and the environment every driver gets. */
async function prepare(selected: string) {
  const emacs = await ensureEditor("emacs");
  const tmp = run.start();
  const ws = path.join(tmp, "ws");
  makeWorkspace(ws, selected);
  const home = path.join(tmp, "home");
  mkdirSync(home);
  const env = {
    ...isolatedXdg(tmp),
    HOME: home, // no ~/.emacs.d, ~/.emacs or ELPA packages of the user's
    WS: ws,
    NODE: process.execPath,
    SERVER_JS,
    CLIENT_DIR: path.join(repoRoot, "clients", "emacs"),
    HARNESS: path.join(__dirname, "emacs", "harness.el"),
    TIMEOUT: "20",
  };
  return { emacs, ws, env, dir: tmp };
}

function record(ws: string) {
  const lines = readFileSync(path.join(ws, ...LEDGER.split("/")), "utf8")
    .split("\n")
    .filter((l) => l.trim());
  expect(lines).toHaveLength(1);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return JSON.parse(lines[0] ?? "null") as any;
}

const hash = (line: string) => `sha256:${createHash("sha256").update(line).digest("hex")}`;

it(
  "emacs + eglot: any file of the workspace; flag, quick fix, save → one record, hover, a second file joins, select, blame",
  async () => {
    const { emacs, ws, env, dir } = await prepare("INT-003");
    const EDIT_LINE = 7; // 0-based
    const EDIT_TEXT = "  // Inserted by the Emacs end-to-end test.";
    const events = path.join(dir, "eglot-events.log");
    const r = await runProcess(emacs, ["--batch", "-q", "--no-site-file", "-l", path.join(__dirname, "emacs", "eglot-journey.el")], {
      env: {
        ...env,
        FILE: API_FILE,
        OTHER_FILE: NOTES,
        EDIT_LINE: String(EDIT_LINE),
        EDIT_TEXT,
        SELECT_TITLE: "Select INT-001 — Build Weather API",
        SELECT_AFTER: "INT-003",
        EVENTS_LOG: events,
      },
      cwd: ws,
      timeoutMs: 90_000,
    });
    const seen = `workspace kept at ${run.dir}\n${describeRun(r, [events])}\n--- ${LEDGER} ---\n${ledgerText(ws)}`;

    expect(r.stdout, seen).not.toMatch(/^FAIL/m);
    expect(r.code, seen).toBe(0);
    expect(r.stdout, seen).toMatch(/^PASS$/m);
    expect(linesOf(r, "EMACS"), seen).toEqual([expect.stringMatching(/^28\.2/)]);
    expect(linesOf(r, "EGLOT"), seen).toEqual([expect.stringContaining("/site-lisp/elpa/eglot-1.9/eglot.elc")]);
    // stock Emacs 28 has no TypeScript mode; eglot runs intent-lsp all the same
    expect(linesOf(r, "MODE"), seen).toEqual(["fundamental-mode"]);
    expect(linesOf(r, "SERVER"), seen).toEqual([`intent-lsp ${ws}/`]);

    expect(linesOf(r, "DIAG"), seen).toEqual([
      `${EDIT_LINE} 0 ${EDIT_LINE} ${EDIT_TEXT.length} eglot-error intent-lsp [out-of-scope]: ${API_FILE} is outside the scope of INT-003 ` +
        "(Docs refresh): docs/**. Owned by INT-001 (IN_PROGRESS).",
    ]);
    expect(linesOf(r, "ACTION"), seen).toEqual(
      expect.arrayContaining([
        "Select INT-001 — Build Weather API",
        `Add ${API_FILE} to INT-003's scope`,
        "Add src/api/** to INT-003's scope",
        `Add ${API_FILE} to .intentignore`,
      ]),
    );
    expect(linesOf(r, "PICKED"), seen).toEqual(["Select INT-001 — Build Weather API"]);
    expect(r.stdout, seen).toMatch(/^CLEARED$/m);

    // C-x C-s: exactly one record, for exactly the inserted line, under the intent the quick fix selected
    expect(linesOf(r, "SAVED"), seen).toEqual(["1"]);
    const rec = record(ws);
    expect(
      rec.files.map((f: { path: string }) => f.path),
      seen,
    ).toEqual([API_FILE]);
    const conv = rec.files[0].conversations[0];
    expect(conv.contributor, seen).toEqual({ type: "human" });
    expect(conv.related, seen).toEqual([{ type: "intent", url: "urn:intent:INT-001" }]);
    expect(conv.ranges, seen).toEqual([{ start_line: EDIT_LINE + 1, end_line: EDIT_LINE + 1, content_hash: hash(EDIT_TEXT) }]);

    // hover (what eldoc shows) names the intent, who and when, and the very record
    const hover = linesOf(r, "HOVER").join("\n");
    expect(hover, seen).toContain("INT-001 — Build Weather API (IN_PROGRESS)");
    expect(hover, seen).toContain(`human · just now (${rec.timestamp})`);
    expect(hover, seen).toContain(`trace \`${rec.id}\``);

    // docs/notes.md, in another major mode, joined the one server of the workspace
    expect(linesOf(r, "JOINED"), seen).toEqual(["markdown-mode t"]); // markdown-mode: Debian's elpa-markdown-mode, installed with lsp-mode
    expect(linesOf(r, "SERVERS"), seen).toEqual(["1"]);
    // M-x intent-lsp-select is the same selection as `intent select`
    expect(linesOf(r, "SELECTED"), seen).toEqual(["INT-003"]);
    expect(JSON.parse(readFileSync(path.join(ws, ".orchestration", ".sessions", "workspace.json"), "utf8")), seen).toMatchObject({ intent: "INT-003" });
    // M-x intent-lsp-blame prints what `intent blame` prints in a terminal
    const terminal = execFileSync(process.execPath, [CLI_JS, "blame", `${API_FILE}:${EDIT_LINE + 1}`], { cwd: ws, encoding: "utf8" });
    expect(linesOf(r, "BLAME"), seen).toEqual(terminal.replace(/\n$/, "").split("\n"));
    expect(linesOf(r, "BLAME"), seen).toEqual([
      `${EDIT_LINE + 1}  INT-001  human  ${rec.timestamp.slice(0, 16).replace("T", " ")}  ${rec.id.slice(0, 8)} │ ${EDIT_TEXT}`,
    ]);

    // eglot ran the action's command on the server (workspace/executeCommand)
    const log = existsSync(events) ? readFileSync(events, "utf8") : "";
    expect(log, seen).toMatch(/:method "workspace\/executeCommand"[\s\S]*?:command "intent\.selectIntent"/);
    run.passed();
  },
  INSTALL_MS + 120_000,
);

it(
  "emacs + lsp-mode: intent-lsp as an add-on next to the language's server; flag, quick fix, save → one record, CodeLens, hover, select, blame",
  async () => {
    const { emacs, ws, env, dir } = await prepare("INT-003");
    const EDIT_LINE = 7; // 0-based
    const EDIT_TEXT = "  // Inserted by the Emacs end-to-end test.";
    const events = path.join(dir, "lsp-io.log");
    const r = await runProcess(emacs, ["--batch", "-q", "--no-site-file", "-l", path.join(__dirname, "emacs", "lsp-mode-journey.el")], {
      env: {
        ...env,
        FILE: API_FILE,
        OTHER_FILE: NOTES,
        FAKE_SERVER_JS: fakeServer,
        EDIT_LINE: String(EDIT_LINE),
        EDIT_TEXT,
        SELECT_TITLE: "Select INT-001 — Build Weather API",
        SELECT_AFTER: "INT-003",
        EVENTS_LOG: events,
      },
      cwd: ws,
      timeoutMs: 90_000,
    });
    const seen = `workspace kept at ${run.dir}\n${describeRun(r, [events])}\n--- ${LEDGER} ---\n${ledgerText(ws)}`;

    expect(r.stdout, seen).not.toMatch(/^FAIL/m);
    expect(r.code, seen).toBe(0);
    expect(r.stdout, seen).toMatch(/^PASS$/m);
    expect(linesOf(r, "EMACS"), seen).toEqual([expect.stringMatching(/^28\.2/)]);
    expect(linesOf(r, "LSP_MODE"), seen).toEqual([expect.stringContaining("/site-lisp/elpa/lsp-mode-8.0.0/lsp-mode.elc")]);
    expect(linesOf(r, "MODE"), seen).toEqual(["fundamental-mode"]);
    // both servers run for the one buffer
    expect(linesOf(r, "SERVERS"), seen).toEqual(["fake-typescript intent-lsp"]);
    const diags = linesOf(r, "DIAG");
    expect(diags, seen).toHaveLength(2);
    expect(diags, seen).toEqual(
      expect.arrayContaining([
        `0 0 0 ${weather[0]!.length} warning fake-typescript: checked`,
        expect.stringMatching(
          new RegExp(`^${EDIT_LINE} 0 ${EDIT_LINE} ${EDIT_TEXT.length} error .*${API_FILE.replace(/\//g, "\\/")} is outside the scope of INT-003`),
        ),
      ]),
    );
    expect(linesOf(r, "ACTION"), seen).toEqual(
      expect.arrayContaining([
        "Select INT-001 — Build Weather API",
        `Add ${API_FILE} to INT-003's scope`,
        "Add src/api/** to INT-003's scope",
        `Add ${API_FILE} to .intentignore`,
      ]),
    );
    expect(linesOf(r, "PICKED"), seen).toEqual(["Select INT-001 — Build Weather API"]);
    expect(r.stdout, seen).toMatch(/^CLEARED$/m);
    // the other server's warning is untouched
    expect(linesOf(r, "REMAINING"), seen).toEqual([`0 0 0 ${weather[0]!.length} warning fake-typescript: checked`]);

    expect(linesOf(r, "SAVED"), seen).toEqual(["1"]);
    const rec = record(ws);
    expect(
      rec.files.map((f: { path: string }) => f.path),
      seen,
    ).toEqual([API_FILE]);
    const conv = rec.files[0].conversations[0];
    expect(conv.contributor, seen).toEqual({ type: "human" });
    expect(conv.related, seen).toEqual([{ type: "intent", url: "urn:intent:INT-001" }]);
    expect(conv.ranges, seen).toEqual([{ start_line: EDIT_LINE + 1, end_line: EDIT_LINE + 1, content_hash: hash(EDIT_TEXT) }]);

    // lsp-mode's lenses after the save: the file summary and the saved line's block
    expect(linesOf(r, "LENS"), seen).toEqual([
      `0 1/${weather.length + 1} lines traced · AI 0 (0%) · human 1 · untraced ${weather.length} · 1 record · INT-001 · last human just now`,
      `${EDIT_LINE} INT-001 · human · just now`,
    ]);
    const hover = linesOf(r, "HOVER").join("\n");
    expect(hover, seen).toContain("INT-001 — Build Weather API (IN_PROGRESS)");
    expect(hover, seen).toContain(`human · just now (${rec.timestamp})`);
    expect(hover, seen).toContain(rec.id);

    expect(linesOf(r, "SELECTED"), seen).toEqual(["INT-003"]);
    expect(JSON.parse(readFileSync(path.join(ws, ".orchestration", ".sessions", "workspace.json"), "utf8")), seen).toMatchObject({ intent: "INT-003" });
    const terminal = execFileSync(process.execPath, [CLI_JS, "blame", `${API_FILE}:${EDIT_LINE + 1}`], { cwd: ws, encoding: "utf8" });
    expect(linesOf(r, "BLAME"), seen).toEqual(terminal.replace(/\n$/, "").split("\n"));
    // docs/notes.md: intent-lsp alone (the other server serves TypeScript only)
    expect(linesOf(r, "NOTES"), seen).toEqual(["markdown-mode intent-lsp"]);
    run.passed();
  },
  INSTALL_MS + 120_000,
);
