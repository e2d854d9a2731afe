// Emacs + eglot as a real LSP client of the built server (dist/server.js), through the project's own
// clients/emacs/intent-lsp.el, driven in batch mode by emacs/scope-quickfix.el. Emacs 28.2 and eglot 1.9
// come from apt (`emacs-nox elpa-eglot`, installed by .ci/run); a machine without them fails this test
// rather than skipping it, because a skipped e2e test looks like a pass.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, expect, it } from "vitest";
import { describeRun, endRun, isolatedXdg, linesOf, repoRoot, runProcess } from "./editors";

const serverJs = process.env.INTENT_LSP_SERVER_JS ?? path.join(repoRoot, "dist", "server.js");

const intentsYaml = `active_intents:
  - id: INT-001
    name: Build Weather API
    status: IN_PROGRESS
    owned_scope: ["src/api/**"]
  - id: INT-003
    name: Docs refresh
    status: IN_PROGRESS
    owned_scope: ["docs/**"]
  - id: INT-004
    name: Onboarding guide
    status: PENDING
    owned_scope: ["docs/guide/**", "docs/notes.txt"]
`;
// .txt opens in text-mode, one of intent-lsp-modes; Emacs 28 has no markdown-mode of its own
const FILE = "docs/notes.txt";
const notes = Array.from({ length: 15 }, (_, i) => `Note line ${i + 1}: nothing to see.`);
const EDIT_LINE = 9; // 0-based: the inserted line becomes line 10
const EDIT_TEXT = "Inserted by the Emacs end-to-end test.";

/** INT-001 selected; docs/notes.txt belongs to INT-003 and INT-004. No git: the root comes from intent-lsp.el. */
function makeWorkspace(root: string): void {
  mkdirSync(path.join(root, ".orchestration", ".sessions"), { recursive: true });
  mkdirSync(path.join(root, "docs"), { recursive: true });
  writeFileSync(path.join(root, ".orchestration", "active_intents.yaml"), intentsYaml);
  writeFileSync(path.join(root, ".orchestration", ".sessions", "workspace.json"), JSON.stringify({ intent: "INT-001" }) + "\n");
  writeFileSync(path.join(root, ...FILE.split("/")), notes.join("\n") + "\n");
}

function emacsBin(): string {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const bin = path.join(dir, "emacs");
    if (dir && existsSync(bin)) return bin;
  }
  throw new Error(
    "emacs is not installed, and this end-to-end test runs intent-lsp under Emacs + eglot.\n" +
    "Install them with `apt-get install -y emacs-nox elpa-eglot` (.ci/run does this on a fresh machine).");
}


let tmp: string | undefined;
let failed = true;
afterEach(() => {
  endRun("emacs", tmp, failed);
  tmp = undefined;
  failed = true;
});

it("emacs + eglot: flags an inserted out-of-scope line, offers the fixes, and clears after Select INT-003", async () => {
  const emacs = emacsBin();
  if (!existsSync(serverJs)) throw new Error(`${serverJs} is missing: run \`npm run build\` (npm run test:e2e builds first)`);
  tmp = mkdtempSync(path.join(tmpdir(), "intent-lsp-emacs-"));
  const ws = path.join(tmp, "ws");
  makeWorkspace(ws);
  const home = path.join(tmp, "home");
  mkdirSync(home);
  const events = path.join(tmp, "eglot-events.log");
  const env = {
    ...isolatedXdg(tmp),
    HOME: home, // no ~/.emacs.d, ~/.emacs or ELPA packages of the user's
    WS: ws,
    FILE,
    NODE: process.execPath,
    SERVER_JS: serverJs,
    CLIENT_DIR: path.join(repoRoot, "clients", "emacs"),
    EDIT_LINE: String(EDIT_LINE),
    EDIT_TEXT,
    SELECT_TITLE: "Select INT-003 — Docs refresh",
    TIMEOUT: "20",
    EVENTS_LOG: events,
  };
  // -q --no-site-file: no init file and no site-start, but site-lisp (where Debian puts elpa-eglot) stays
  const r = await runProcess(emacs, ["--batch", "-q", "--no-site-file", "-l", path.join(__dirname, "emacs", "scope-quickfix.el")],
    { env, cwd: ws, timeoutMs: 60_000 });
  const seen = `workspace kept at ${tmp}\n` + describeRun(r, [events]);

  expect(r.stdout, seen).not.toMatch(/^FAIL/m);
  expect(r.code, seen).toBe(0);
  expect(r.stdout, seen).toMatch(/^PASS$/m);
  expect(linesOf(r, "EMACS"), seen).toEqual([expect.stringMatching(/^\d+\.\d+/)]);
  // the project root came from intent-lsp.el (no version control here)
  expect(linesOf(r, "SERVER"), seen).toEqual([`intent-lsp ${ws}/`]);

  const diags = linesOf(r, "DIAG");
  expect(diags, seen).toHaveLength(1);
  const m = /^(\d+) (\d+) (\d+) (\d+) (\S+) (.*)$/.exec(diags[0] ?? "");
  expect(m, seen).not.toBeNull();
  const [, line, col, endLine, endCol, type, text] = m ?? [];
  expect([line, col, endLine, endCol].map(Number), seen).toEqual([EDIT_LINE, 0, EDIT_LINE, EDIT_TEXT.length]);
  expect(type, seen).toBe("eglot-error");
  expect(text, seen).toBe(
    `intent-lsp [out-of-scope]: ${FILE} is outside the scope of INT-001 (Build Weather API): src/api/**. ` +
    "Owned by INT-003 (IN_PROGRESS), INT-004 (PENDING).");

  expect(linesOf(r, "ACTION"), seen).toEqual(expect.arrayContaining([
    "Select INT-003 — Docs refresh",
    "Start and select INT-004 — Onboarding guide",
    `Add \`${FILE}\` to INT-001's scope`,
    "Add `docs/**` to INT-001's scope",
    `Add \`${FILE}\` to .intentignore`,
  ]));
  expect(linesOf(r, "PICKED"), seen).toEqual(["Select INT-003 — Docs refresh"]);
  expect(r.stdout, seen).toMatch(/^CLEARED$/m);

  // eglot ran the action's command on the server (workspace/executeCommand), which selected INT-003
  const log = existsSync(events) ? readFileSync(events, "utf8") : "";
  expect(log, seen).toMatch(/:method "workspace\/executeCommand"[\s\S]*?:command "intent\.selectIntent"/);
  const selection: unknown = JSON.parse(readFileSync(path.join(ws, ".orchestration", ".sessions", "workspace.json"), "utf8"));
  expect(selection, seen).toMatchObject({ intent: "INT-003" });
  failed = false;
}, 90_000);
