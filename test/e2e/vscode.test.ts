// VS Code 1.100.3 (code-server 4.100.3) in headless Chromium, with the .vsix that `npm run package` builds
// installed into a clean extensions folder: the journey a VS Code user makes, asserted on what the workbench
// shows (status bar, Problems panel, squiggles, the quick-fix menu, the hover widget) and on the files on disk.
// Screenshots of each step go to .cache/artifacts/vscode/; "Intent: Show Report" run from the command palette
// opens the report in a webview with its charts drawn and no script error (.cache/artifacts/vscode-report/).
// The runs of this file share one install of the .vsix (codeServer.ts installVsixOnce).
//
// INTENT_LSP_SERVER_JS=<path> replaces the server inside the installed extension (a path that does not exist
// removes it): the journey must then fail, which is how this test is shown to be able to fail.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { beforeAll, expect, it } from "vitest";
import { insightWorkspace } from "../cli/insightWorkspace";
import { ensureBuilt } from "../support/builtDist";
import type { TempWorkspace } from "../support/workspace";
import { artifactsDir, BrowserRun, type Page } from "./browserRun";
import { copyExampleWorkspace, LEDGER } from "./editorRun";
import { ensureEditor, repoRoot, waitFor } from "./editors";
import { installAgentExtensionOnce } from "./codeServer";
import { UNTYPED_REASONS } from "../../server/src/engine/untypedLines";

const INSTALL_MS = 600_000;
const DEADLINE = 30_000;
// Loading the workbench and starting the extension host and its server are the slow steps on a busy machine
// (seen on a two-core CI runner: 50 s from code-server's start to the extension host's launch); each is
// still a wait for a fact, bounded so that a broken start fails instead of hanging.
const STARTUP_DEADLINE = 180_000;
const ARTIFACTS = artifactsDir("vscode");
const NOTES = "docs/notes.md";
const EDIT = " (edited in VS Code)";
const EDITED_LINE = `- The forecast service is rate limited to 60 requests a minute.${EDIT}`;
const API = "src/api/weather.ts";
// what the person types before the stand-in AI extension (test/e2e/vscode-agent/) inserts its lines
const TYPED_LINE = "Caching:";
const INSERTED_AT_ONCE = UNTYPED_REASONS["inserted-at-once"];
const NOT_FOCUSED = UNTYPED_REASONS["not-focused"];

/** The ids of the records the extension logged for the saves of `file`, in order. */
function savesOf(log: string, file: string): string[] {
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return [...log.matchAll(new RegExp(`save processed: ${escaped} \\(version \\d+\\) → ledger record (\\S+)`, "g"))].map((m) => m[1]!);
}

const run = new BrowserRun("vscode");

const ledgerLines = (ws: string) =>
  readFileSync(path.join(ws, LEDGER), "utf8")
    .split("\n")
    .filter((l) => l.trim());

/** The text of every editor line that carries an error squiggle (Monaco draws them in per-line overlays). */
function squiggleLines(page: Page): Promise<string[]> {
  // a string, evaluated in the page: the project's TypeScript has no DOM types
  return page.evaluate(`(() => {
    const editor = document.querySelector(".editor-instance .monaco-editor");
    if (!editor) return [];
    const lineAt = new Map();
    for (const l of editor.querySelectorAll(".view-lines .view-line")) lineAt.set(l.style.top, (l.textContent || "").replace(/\\u00a0/g, " "));
    const tops = new Set();
    for (const s of editor.querySelectorAll(".view-overlays .squiggly-error")) tops.add(s.parentElement.style.top);
    return [...tops].map((t) => lineAt.get(t) ?? "(no line at " + t + ")");
  })()`);
}

/** The editor line holding `needle`, with the inlay hints Monaco draws into it as CSS `content`. */
function lineWithHints(page: Page, needle: string): Promise<string> {
  return page.evaluate(`(() => {
    const line = [...document.querySelectorAll(".editor-instance .view-line")].find((l) => (l.textContent || "").replace(/\\u00a0/g, " ").includes(${JSON.stringify(needle)}));
    if (!line) return "";
    let text = "";
    const css = (el, pseudo) => {
      const c = getComputedStyle(el, pseudo).content;
      return c && c !== "none" && c !== "normal" ? JSON.parse(c) : "";
    };
    for (const span of line.querySelectorAll("span > span")) text += css(span, "::before") + span.textContent + css(span, "::after");
    return text.replace(/\\s+/g, " "); // Monaco's spaces are non-breaking, a hint's padding may be any space
  })()`);
}

/**
 * Opens a file from the Explorer, as a user clicks it (Quick Open's list re-sorts while files are searched,
 * so an Enter there can open whatever was first a moment before); waits for its editor to have the focus.
 */
async function openFromExplorer(page: Page, rel: string, deadline = DEADLINE): Promise<void> {
  const segments = rel.split("/");
  const explorer = page.locator(".explorer-folders-view");
  for (const [i, name] of segments.entries()) {
    const row = explorer.locator(".monaco-list-row", {
      has: page.locator(".label-name", { hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) }),
    });
    await row.waitFor({ timeout: deadline });
    if (i < segments.length - 1) {
      if ((await row.getAttribute("aria-expanded")) !== "true") await row.click();
    } else {
      await row.click();
    }
  }
  const tab = page.locator(".tab", { hasText: path.basename(rel) });
  await tab.and(page.locator(".tab.active")).waitFor({ timeout: deadline });
  // a click in the Explorer leaves the focus there; the user clicks the file's tab, which gives its editor the
  // focus. Not a click into the text: Playwright first scrolls the point it clicks into view, and a scroll of
  // Monaco's overflow-hidden containers moves the lines where Monaco does not look (the file's top and its
  // CodeLens are then drawn off screen)
  await tab.click();
  await page.locator(".editor-instance .monaco-editor.focused").waitFor();
}

async function goToLineOf(page: Page, line: number): Promise<void> {
  const quickInput = page.locator(".quick-input-widget");
  await page.keyboard.press("Control+G");
  await quickInput.locator("input").waitFor({ state: "visible" });
  await page.keyboard.type(String(line));
  await page.keyboard.press("Enter");
  await quickInput.waitFor({ state: "hidden" });
}

/**
 * The cursor at the end of `line` (1-based) of the active editor, which holds `text`, and the editor focused:
 * by its tab and Go to Line, not a click into the text, since a lens the server draws late moves the lines
 * under a click on its way. The status bar's cursor position is the fact waited for.
 */
async function cursorAtEnd(page: Page, line: number, text: string): Promise<void> {
  await page.locator(".tab.active").click();
  await page.locator(".editor-instance .monaco-editor.focused").waitFor();
  await goToLineOf(page, line);
  await page.keyboard.press("End");
  await page.locator("#workbench\\.parts\\.statusbar .statusbar-item", { hasText: `Ln ${line}, Col ${text.length + 1}` }).waitFor();
}

it(
  "VS Code: the .vsix installs; select an intent from the status bar, an out-of-scope edit is flagged on its line, the quick fix clears it, a hover names intent and model, a save appends one record; an AI extension's text inserted at the cursor and its background edit are recorded as unknown, not as the person's; Revert an Intent's Work takes INT-001's lines back",
  async () => {
    const ws = copyExampleWorkspace(run.start());
    await installAgentExtensionOnce(await ensureEditor("code-server"));
    const { page, installed, shots, outputLog, describe, step } = await run.vscode(ws, ARTIFACTS, STARTUP_DEADLINE);
    expect(installed).toMatch(/Extension 'intent-lsp\.vsix' was successfully installed/);
    const statusItem = page.locator("#workbench\\.parts\\.statusbar .statusbar-item").filter({ hasText: /INT-\d+ · |No intent · / });
    const quickInput = page.locator(".quick-input-widget");

    const openFile = (rel: string) => openFromExplorer(page, rel);
    const goToLine = (line: number) => goToLineOf(page, line);

    // 1. The extension activated (workspaceContains:.orchestration/active_intents.yaml) and started its server:
    //    nothing is selected, so notes.md counts under its only IN_PROGRESS owner, INT-003.
    await step("auto-selected", async () => {
      await openFromExplorer(page, NOTES, STARTUP_DEADLINE);
      await expect.poll(() => statusItem.first().textContent(), { timeout: STARTUP_DEADLINE }).toContain("INT-003 · auto-selected");
    });

    // 2. Select from the editor's own UI: the status-bar item opens the quick pick of intents (the owners of
    //    this file marked); picking INT-001 selects it for the workspace, and the status bar warns that
    //    notes.md is outside its scope.
    await step("select-from-status-bar", async () => {
      await statusItem.first().click();
      const row = quickInput.locator(".monaco-list-row", { hasText: "INT-001 — Build Weather API" });
      await row.waitFor();
      await expect(quickInput.locator(".monaco-list-row", { hasText: "INT-003 — Docs refresh" }).textContent()).resolves.toContain(`owns ${NOTES}`);
      await expect(quickInput.locator(".monaco-list-row", { hasText: "INT-004" }).textContent()).resolves.toContain("Start and select INT-004");
      await shots.take(page, "quick-pick");
      await row.click();
      await expect.poll(() => statusItem.first().textContent(), { timeout: DEADLINE }).toContain("INT-001 · selected");
      await statusItem.locator(".codicon-warning").waitFor();
      expect(JSON.parse(readFileSync(path.join(ws, ".orchestration/.sessions/workspace.json"), "utf8"))).toMatchObject({ intent: "INT-001" });
    });

    // 3. An edit outside INT-001's scope: an error on exactly the edited line, in the editor and in Problems.
    const recordsBefore = ledgerLines(ws).length;
    await step("out-of-scope-error", async () => {
      await goToLine(4);
      await page.keyboard.press("End");
      await page.keyboard.type(EDIT);
      await page.keyboard.press("Control+Shift+M");
      const problem = page.locator(".markers-panel .monaco-list-row", { hasText: "docs/notes.md is outside the scope of INT-001" });
      await problem.waitFor({ timeout: DEADLINE });
      expect(await problem.textContent()).toMatch(/\[Ln 4, Col 1\]/);
      // the squiggle is drawn on the line that holds the edit, and on no other
      await expect.poll(() => squiggleLines(page), { timeout: DEADLINE }).toEqual([EDITED_LINE]);
    });

    // 4. Ctrl+. on the line offers the server's quick fixes; "Select INT-003 — Docs refresh" clears the error
    //    everywhere and the status bar names INT-003, now selected.
    await step("quick-fix", async () => {
      // back in the editor (Problems has the focus), at the end of the edited line
      await cursorAtEnd(page, 4, EDITED_LINE);
      await page.keyboard.press("Control+Period");
      const fix = page.locator(".action-widget .monaco-list-row", { hasText: "Select INT-003 — Docs refresh" });
      await fix.waitFor({ timeout: DEADLINE }).catch(async (e: Error) => {
        // what the editor showed instead: another menu, or its "No code actions available"
        const shown = [...(await page.locator(".action-widget").allTextContents()), ...(await page.locator(".monaco-editor-overlaymessage").allTextContents())];
        throw new Error(`${e.message}\nshown instead: ${JSON.stringify(shown)}`);
      });
      await shots.take(page, "quick-fix-menu");
      // the menu takes keys (a pointer block covers it): the server marks this fix preferred, so it comes first
      await page.locator(".action-widget .monaco-list-row.focused", { hasText: "Select INT-003 — Docs refresh" }).waitFor();
      await page.keyboard.press("Enter");
      await expect.poll(() => statusItem.first().textContent(), { timeout: DEADLINE }).toContain("INT-003 · selected");
      await expect.poll(() => squiggleLines(page), { timeout: DEADLINE }).toEqual([]);
      await page.locator(".markers-panel .monaco-list-row").first().waitFor({ state: "detached", timeout: DEADLINE });
      await statusItem.locator(".codicon-target").waitFor();
      expect(JSON.parse(readFileSync(path.join(ws, ".orchestration/.sessions/workspace.json"), "utf8"))).toMatchObject({ intent: "INT-003" });
    });

    // 5. Hovering a line the ledger attributes to an agent names its intent and model. Until the server has
    //    read the file's records its hover says "Indexing the ledger…", and the widget shows that answer until
    //    the pointer moves: the hover waits for the file's lens, which the server draws once it has them.
    await step("hover", async () => {
      await openFile("src/api/weather.ts");
      await page
        .locator(".editor-instance .codelens-decoration", { hasText: /lines traced/ })
        // the editor shown: one closed a moment ago may still be in the page, hidden, with a lens of its own
        .filter({ visible: true })
        .first()
        .waitFor({ timeout: DEADLINE });
      await page.locator(".editor-instance .view-line span", { hasText: "currentWeather" }).first().hover();
      const hover = page.locator(".monaco-hover", { hasText: "INT-001 — Build Weather API" });
      await hover.waitFor({ state: "visible", timeout: DEADLINE });
      const text = await hover.textContent();
      expect(text).toContain("INT-001 — Build Weather API (IN_PROGRESS)");
      expect(text).toContain("ai · anthropic/claude-sonnet-4-5");
    });

    // 6. Saving notes.md appends exactly one record, under INT-003, for that file. The extension logs the
    //    server's intent/saveProcessed (the save is handled completely) with the record's id: wait for that
    //    fact, then read the ledger.
    await step("save-one-record", async () => {
      await page.keyboard.press("Escape");
      await page.locator(".tab", { hasText: "notes.md" }).click();
      await page.locator(".tab.active", { hasText: "notes.md" }).waitFor();
      await page.locator(".editor-instance .monaco-editor.focused").waitFor();
      await page.keyboard.press("Control+S");
      const recordId = await waitFor(
        "the save of docs/notes.md to be processed",
        () => /save processed: docs\/notes\.md \(version \d+\) → ledger record (\S+)/.exec(outputLog())?.[1],
        DEADLINE,
        describe,
      );
      const lines = ledgerLines(ws);
      expect(lines.length).toBe(recordsBefore + 1);
      const record = JSON.parse(lines[lines.length - 1]);
      expect(record.id).toBe(recordId);
      expect(record.files.map((f: { path: string }) => f.path)).toEqual([NOTES]);
      expect(record.metadata["dev.intent-lsp"].intent_id).toBe("INT-003");
      expect(readFileSync(path.join(ws, NOTES), "utf8")).toContain(EDIT);
    });

    // 7. The saved line is now attributed to INT-003 and this editor's human, in the CodeLens above it, and
    //    said once: no inlay hint repeats it at the end of the line (Monaco draws inlay hints as CSS content,
    //    so the line is read with its computed style).
    await step("attribution-after-save", async () => {
      await page.locator(".editor-instance .codelens-decoration", { hasText: "INT-003 · human · just now" }).waitFor({ timeout: DEADLINE });
      const line = await lineWithHints(page, EDIT.trim());
      expect(line.trim().endsWith(EDIT.trim())).toBe(true); // the line's own text, nothing drawn after it
      expect(line).not.toContain("INT-003");
    });

    // 8. An AI extension inserts its answer at the cursor (as Copilot Chat's "Insert at Cursor" does, through
    //    VS Code's API): it reaches the server as an ordinary change. The line the person typed is theirs, the
    //    two lines the extension inserted are recorded as unknown, with the reason, and the hover says so
    //    (test/e2e/vscode-agent/ is the stand-in extension).
    await step("inserted-text-unknown", async () => {
      // the stand-in extension is active: its commands are registered
      await page.locator("#workbench\\.parts\\.statusbar .statusbar-item", { hasText: "E2E agent ready" }).waitFor({ timeout: DEADLINE });
      await page.keyboard.press("Control+End");
      await page.keyboard.type(TYPED_LINE);
      await page.keyboard.press("Escape"); // the word suggestions markdown offers
      await page.keyboard.press("F1");
      await quickInput.locator("input").waitFor({ state: "visible" });
      await page.keyboard.type("E2E Agent: Insert at Cursor");
      await quickInput.locator(".monaco-list-row", { hasText: "E2E Agent: Insert at Cursor" }).first().click();
      await page.locator(".editor-instance .view-line", { hasText: "Forecasts are cached for a minute." }).waitFor({ timeout: DEADLINE });
      await page.locator(".tab", { hasText: "notes.md" }).click();
      await page.locator(".editor-instance .monaco-editor.focused").waitFor();
      const saves = savesOf(outputLog(), NOTES).length;
      await page.keyboard.press("Control+S");
      const recordId = await waitFor("the save of the inserted lines to be processed", () => savesOf(outputLog(), NOTES)[saves], DEADLINE, describe);
      const record = ledgerLines(ws)
        .map((l) => JSON.parse(l))
        .find((r) => r.id === recordId);
      const { ranges } = record.files[0].conversations[0];
      expect(record.files[0].conversations[0].contributor).toEqual({ type: "human" });
      expect(
        ranges.map((r: { start_line: number; end_line: number; contributor?: { type: string } }) => [r.start_line, r.end_line, r.contributor?.type ?? "human"]),
      ).toEqual([
        [13, 13, "human"],
        [14, 15, "unknown"],
      ]);
      expect(record.metadata["dev.intent-lsp"].untyped).toEqual([[14, 15, INSERTED_AT_ONCE]]);
      await page.locator(".editor-instance .view-line span", { hasText: "Cached forecasts are served" }).first().hover();
      const hover = page.locator(".monaco-hover", { hasText: "unknown · inserted at once" });
      await hover.waitFor({ state: "visible", timeout: DEADLINE });
      expect(await hover.textContent()).not.toContain("human");
    });

    // 9. The extension edits a file in the background (weather.ts is open in another tab, not the one with the
    //    focus) and saves it: its lines are recorded as unknown, changed without the focus; `intent blame` agrees.
    await step("background-edit-unknown", async () => {
      await page.keyboard.press("Escape");
      const saves = savesOf(outputLog(), API).length;
      await page.keyboard.press("F1");
      await quickInput.locator("input").waitFor({ state: "visible" });
      await page.keyboard.type("E2E Agent: Write Into the Weather API");
      await quickInput.locator(".monaco-list-row", { hasText: "E2E Agent: Write Into the Weather API" }).first().click();
      const recordId = await waitFor("the agent's save of weather.ts to be processed", () => savesOf(outputLog(), API)[saves], DEADLINE, describe);
      const record = ledgerLines(ws)
        .map((l) => JSON.parse(l))
        .find((r) => r.id === recordId);
      expect(
        record.files[0].conversations[0].ranges.map((r: { start_line: number; end_line: number; contributor?: { type: string } }) => [
          r.start_line,
          r.end_line,
          r.contributor?.type,
        ]),
      ).toEqual([[3, 4, "unknown"]]);
      expect(record.metadata["dev.intent-lsp"].untyped).toEqual([[3, 4, NOT_FOCUSED]]);
      const blame = spawnSync(process.execPath, [path.join(repoRoot, "dist", "cli.js"), "blame", `${API}:3`, "--json"], { cwd: ws, encoding: "utf8" });
      expect(JSON.parse(blame.stdout).lines[0]).toMatchObject({ contributor: "unknown", why: NOT_FOCUSED });
    });

    // 10. "Intent: Revert an Intent's Work…" from the palette: INT-001 picked, its patch shown read-only, the
    //     modal confirmed; the files on disk lose exactly INT-001's lines, and `intent blame` names it on none.
    await step("revert-intent", async () => {
      const planned = JSON.parse(
        spawnSync(process.execPath, [path.join(repoRoot, "dist", "cli.js"), "revert", "--intent", "INT-001", "--json"], { cwd: ws, encoding: "utf8" }).stdout,
      );
      // the example's records carry no line maps: forecast.ts's lines are proven theirs, weather.ts's (saved
      // since by the person) only found by content, and left alone
      expect(planned.reverted.map((f: { path: string }) => f.path)).toEqual(["src/api/forecast.ts"]);
      await page.keyboard.press("F1");
      await quickInput.locator("input").waitFor({ state: "visible" });
      await page.keyboard.type("Intent: Revert an Intent's Work");
      await quickInput.locator(".monaco-list-row", { hasText: "Intent: Revert an Intent's Work" }).first().click();
      await quickInput.locator(".monaco-list-row", { hasText: "INT-001 — Build Weather API" }).first().click();
      const dialog = page.locator(".monaco-dialog-box", { hasText: "Revert INT-001's work?" });
      await dialog.waitFor({ timeout: DEADLINE });
      await page.locator(".tab", { hasText: "INT-001.diff" }).waitFor();
      await shots.take(page, "revert-confirm");
      await dialog.locator(".monaco-button", { hasText: /^Revert$/ }).click();
      await page.locator(".notification-toast", { hasText: "reverted INT-001's work" }).waitFor({ timeout: DEADLINE });
      // the files as the CLI's plan said: its patch, applied by git to the files before, gives the files now
      expect(readFileSync(path.join(ws, "src/api/forecast.ts"), "utf8")).toBe("");
      const blamed = spawnSync(process.execPath, [path.join(repoRoot, "dist", "cli.js"), "blame", API, "--json"], { cwd: ws, encoding: "utf8" });
      const left = planned.leftAlone.filter((l: { path: string }) => l.path === API).map((l: { line: number }) => l.line);
      expect(
        JSON.parse(blamed.stdout)
          .lines.filter((l: { intent?: string }) => l.intent === "INT-001")
          .map((l: { line: number }) => l.line),
      ).toEqual(left);
    });
    run.passed();
  },
  INSTALL_MS,
);

/** `intent check --format json` in the workspace: the findings for one file, as "line code". */
function checkFindings(ws: string, file: string): string[] {
  const r = spawnSync(process.execPath, [path.join(repoRoot, "dist", "cli.js"), "check", "--format", "json"], { cwd: ws, encoding: "utf8" });
  const report = JSON.parse(r.stdout) as { findings: { path: string; startLine: number; endLine: number; code: string }[] };
  return report.findings.filter((f) => f.path === file).map((f) => `${f.startLine}-${f.endLine} ${f.code}`);
}

it(
  "VS Code with auto-save: an out-of-scope line stays flagged after its record lands, Ctrl+. re-records it under its owner, the squiggle goes away",
  async () => {
    const ws = copyExampleWorkspace(run.start());
    // a repository, as `intent check` needs; INT-001 selected, so an edit to notes.md is outside its scope
    const git = (...args: string[]) =>
      execFileSync(
        "git",
        ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", ...args],
        { cwd: ws, stdio: "pipe" },
      );
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "initial");
    mkdirSync(path.join(ws, ".orchestration", ".sessions"), { recursive: true });
    writeFileSync(
      path.join(ws, ".orchestration", ".sessions", "workspace.json"),
      JSON.stringify({ intent: "INT-001", selectedAt: new Date().toISOString(), by: "test" }),
    );
    // VS Code in the browser saves a second after typing stops; many desktop users turn the same on
    const autoSave = { "files.autoSave": "afterDelay", "files.autoSaveDelay": 1000 };
    const { page, shots, outputLog, describe, step } = await run.vscode(ws, path.join(ARTIFACTS, "auto-save"), STARTUP_DEADLINE, autoSave);
    const problem = page.locator(".markers-panel .monaco-list-row", { hasText: "docs/notes.md is outside the scope of INT-001" });
    const recordsBefore = ledgerLines(ws).length;

    // 1. Type outside INT-001's scope and stop: auto-save writes the file and the server records it.
    const recordId = await step("auto-saved-and-recorded", async () => {
      await openFromExplorer(page, NOTES, STARTUP_DEADLINE);
      // the server has the document (its file lens answers for it) before the user types: keystrokes made while
      // the extension still starts reach the server only as the text it opens with, which is not an edit
      await page
        .locator(".editor-instance .codelens-decoration", { hasText: /lines traced/ })
        // the editor shown: one closed a moment ago may still be in the page, hidden, with a lens of its own
        .filter({ visible: true })
        .first()
        .waitFor({ timeout: STARTUP_DEADLINE });
      await expect
        .poll(() => page.locator("#workbench\\.parts\\.statusbar .statusbar-item", { hasText: "INT-001 · selected" }).count(), { timeout: DEADLINE })
        .toBeGreaterThan(0);
      await goToLineOf(page, 4);
      await page.keyboard.press("End");
      await page.keyboard.type(EDIT);
      const id = await waitFor(
        "the auto-save of docs/notes.md to be recorded",
        () => [...outputLog().matchAll(/save processed: docs\/notes\.md \(version \d+\) → ledger record (\S+)/g)].at(-1)?.[1],
        DEADLINE,
        describe,
      );
      await page.locator(".tab.active.dirty").waitFor({ state: "detached", timeout: DEADLINE }); // saved: no unsaved edits left
      expect(readFileSync(path.join(ws, NOTES), "utf8")).toContain(EDIT);
      const records = ledgerLines(ws).map((l) => JSON.parse(l));
      expect(records.length).toBeGreaterThan(recordsBefore);
      expect(records.at(-1)).toMatchObject({ id, metadata: { "dev.intent-lsp": { intent_id: "INT-001", scope: "OUT_OF_SCOPE" } } });
      return id;
    });

    // 2. The squiggle stays on that line, from the ledger, where `intent check` reports it (the check runs for
    //    far longer than the server's publish delay: a squiggle that a publish after the save removed is gone by then).
    await step("still-flagged-after-save", async () => {
      expect(checkFindings(ws, NOTES)).toEqual(["4-4 out-of-scope"]);
      // the line's text, then the inlay hint drawn after it ("INT-001 (out of scope)")
      await expect
        .poll(async () => (await squiggleLines(page)).map((l) => (l.startsWith(EDITED_LINE) ? EDITED_LINE : l)), { timeout: DEADLINE })
        .toEqual([EDITED_LINE]);
      await page.keyboard.press("Control+Shift+M");
      await problem.waitFor({ timeout: DEADLINE });
      expect(await problem.textContent()).toMatch(/\[Ln 4, Col 1\]/);
    });

    // 3. Ctrl+. on the line offers to re-record it under INT-003, which owns notes.md (preferred, so first);
    //    applying it appends one record and leaves the earlier ones as they were; the squiggle goes away.
    await step("re-record-fix", async () => {
      const before = readFileSync(path.join(ws, LEDGER), "utf8");
      await cursorAtEnd(page, 4, EDITED_LINE);
      await page.keyboard.press("Control+Period");
      await page
        .locator(".action-widget .monaco-list-row.focused", { hasText: "Re-record line 4 under INT-003 — Docs refresh" })
        .waitFor({ timeout: DEADLINE });
      await shots.take(page, "re-record-menu");
      await page.keyboard.press("Enter");
      await expect.poll(() => ledgerLines(ws).length, { timeout: DEADLINE }).toBe(before.split("\n").filter((l) => l.trim()).length + 1);
      expect(readFileSync(path.join(ws, LEDGER), "utf8").startsWith(before)).toBe(true);
      const last = JSON.parse(ledgerLines(ws).at(-1)!);
      expect(last.metadata["dev.intent-lsp"]).toMatchObject({ intent_id: "INT-003", reattributes: [recordId] });
      await expect.poll(() => squiggleLines(page), { timeout: DEADLINE }).toEqual([]);
      await problem.waitFor({ state: "detached", timeout: DEADLINE });
      expect(checkFindings(ws, NOTES)).toEqual([]);
    });
    run.passed();
  },
  INSTALL_MS,
);

it(
  "VS Code: the Verify CodeLens on an intent in active_intents.yaml runs its criteria with progress, then shows the result and the failed criterion's diagnostic",
  async () => {
    const ws = copyExampleWorkspace(run.start());
    const yamlPath = path.join(ws, ".orchestration", "active_intents.yaml");
    const criteria = [
      "    acceptance_criteria:",
      "      - run: 'sleep 2; echo compiled'",
      "        name: Build",
      "      - run: 'echo broken >&2; exit 3'",
      "        name: API tests",
      "",
    ].join("\n");
    writeFileSync(yamlPath, readFileSync(yamlPath, "utf8").replace('    acceptance_criteria: ["Unit tests in test/api pass"]\n', criteria));
    const { page, step } = await run.vscode(ws, path.join(ARTIFACTS, "criteria"), STARTUP_DEADLINE);
    const lens = (text: string | RegExp) => page.locator(".editor-instance .codelens-decoration a", { hasText: text });

    // 1. The intents file shows, on INT-001, a lens that offers to verify its two commands; nothing ran yet.
    await step("verify-lens", async () => {
      await openFromExplorer(page, ".orchestration/active_intents.yaml", STARTUP_DEADLINE);
      await lens("Verify 2 criteria").waitFor({ timeout: STARTUP_DEADLINE });
    });

    // 2. A click runs them: the progress is shown while the first one (two seconds) runs.
    await step("progress", async () => {
      await lens("Verify 2 criteria").click();
      await page
        .locator(".notification-toast, .statusbar-item", { hasText: /Verifying INT-001/ })
        .first()
        .waitFor({ timeout: DEADLINE });
    });

    // 3. The lens says how it went, and the failed criterion has its diagnostic (with its output) on its line.
    await step("result", async () => {
      await lens("✗ 1 of 2 failed").waitFor({ timeout: DEADLINE });
      await page.keyboard.press("Control+Shift+M");
      const problem = page.locator(".markers-panel .monaco-list-row", { hasText: 'Criterion "API tests" failed (exit 3) when INT-001 was last verified.' });
      await problem.waitFor({ timeout: DEADLINE });
      expect(await problem.textContent()).toMatch(/\[Ln 11, Col 1\]/);
    });
    run.passed();
  },
  INSTALL_MS,
);

// --- Intent: Show Report ----------------------------------------------------------------------------------

const REPORT_DEADLINE = STARTUP_DEADLINE;
let reportWs: TempWorkspace | undefined;
const reportRun = new BrowserRun("vscode-report", () => {
  reportWs?.dispose();
  reportWs = undefined;
});

// the report's workspace is built by the CLI's hooks (dist/)
beforeAll(ensureBuilt);

it("VS Code: Intent: Show Report opens the report in a webview, charts drawn, no script error", async () => {
  reportRun.start();
  reportWs = await insightWorkspace();
  const { page, errors, step } = await reportRun.vscode(reportWs.root, artifactsDir("vscode-report"), REPORT_DEADLINE);
  const root = reportWs.root;
  await step("report-webview", async () => {
    // the extension is active once its status bar item shows (workspaceContains:.orchestration/active_intents.yaml)
    await page
      .locator("#workbench\\.parts\\.statusbar .statusbar-item")
      .filter({ hasText: /INT-\d+ · |No intent · / })
      .first()
      .waitFor({ timeout: REPORT_DEADLINE });
    await page.keyboard.press("F1");
    const quickInput = page.locator(".quick-input-widget");
    await quickInput.locator("input").waitFor({ state: "visible" });
    await page.keyboard.type("Intent: Show Report");
    const row = quickInput.locator(".monaco-list-row", { hasText: "Intent: Show Report" }).first();
    await row.waitFor({ timeout: REPORT_DEADLINE });
    await row.click();
    await page.locator(".tab", { hasText: "Intent Report" }).waitFor({ timeout: REPORT_DEADLINE });
    // a webview is an iframe holding the page's own iframe
    const report = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
    await report.locator("body[data-ready=true]").waitFor({ timeout: REPORT_DEADLINE });
    expect(await report.locator("h1").textContent()).toBe(`How much of ${path.basename(root)} AI wrote`);
    expect(await report.locator(".card.untraced span").textContent()).toBe("untraced (52 lines no record explains)");
    const ink = await report.locator("canvas").evaluateAll((canvases) =>
      canvases.map((c) => {
        const canvas = c as unknown as {
          id: string;
          width: number;
          height: number;
          getContext(k: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
        };
        const d = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
        return [canvas.id, n] as const;
      }),
    );
    expect(ink.map(([id]) => id).sort()).toEqual(["chart-folder", "chart-history", "chart-intent", "chart-model", "chart-person", "chart-untraced"]);
    for (const [id, n] of ink) expect(n, id).toBeGreaterThan(500);
    expect(errors).toEqual([]);
    expect(readFileSync(path.join(root, ".orchestration/.cache/report.html"), "utf8")).toMatch(/^<!doctype html>/);
  });
  reportRun.passed();
}, 900_000);
