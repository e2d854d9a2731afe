// Helix 25.01 as a real LSP client of the built server (dist/server.js), configured the way a user does it
// (XDG_CONFIG_HOME/helix/languages.toml made from clients/helix/languages.toml) and typed at through tmux.
// What Helix shows is read from the screen (capture-pane); what it was told, from its log (`hx -v` logs
// every JSON-RPC message it sends and receives).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, expect, it } from "vitest";
import { endRun, ensureEditor, findTagged, isolatedXdg, repoRoot, waitFor } from "./editors";
import { Tmux } from "./tmux";

const serverJs = process.env.INTENT_LSP_SERVER_JS ?? path.join(repoRoot, "dist", "server.js");
const INSTALL_MS = 300_000;
const DEADLINE = 20_000;

const FILE = "docs/notes.md";
const LEDGER = ".orchestration/agent_trace.jsonl";
const notes = Array.from({ length: 20 }, (_, i) => `Note line ${i + 1}: nothing to see.`);
const EDIT_LINE = 9; // 0-based: line 10
// Typed as one paste: Helix 25.01 sends each keystroke's didChange from its own task, so a burst of
// keystrokes can reach the server out of order (seen here: version 21 before 20), after which Helix drops
// the server's diagnostics as outdated. One paste is one change. No brackets or quotes: Helix auto-pairs.
const EDIT_TEXT = " edited in Helix";
// Helix 25.01 asks for inlay hints only when the document changed or the view moved (and it does not
// support workspace/inlayHint/refresh), so the hint of a save shows with the next edit: this one.
const NEXT_LINE = 15; // 0-based: line 16, away from the diagnostic box Helix draws at the top right
const NEXT_TEXT = " and on it goes";
// the edit is out of INT-001's scope, and the label says so
const LABEL = "INT-001 (out of scope) · human · just now";

const intentsYaml = `active_intents:
  - id: INT-001
    name: Build Weather API
    status: IN_PROGRESS
    owned_scope: ["src/api/**"]
    constraints: ["Use TypeScript"]
  - id: INT-003
    name: Docs refresh
    status: IN_PROGRESS
    owned_scope: ["docs/**"]
`;

/** INT-001 (src/api/**) selected; docs/notes.md is outside its scope. A git repository: Helix's root. */
function makeWorkspace(root: string): void {
  mkdirSync(path.join(root, ".orchestration", ".sessions"), { recursive: true });
  mkdirSync(path.join(root, "docs"), { recursive: true });
  writeFileSync(path.join(root, ".orchestration", "active_intents.yaml"), intentsYaml);
  writeFileSync(path.join(root, ".orchestration", ".sessions", "workspace.json"), JSON.stringify({ intent: "INT-001" }) + "\n");
  writeFileSync(path.join(root, ...FILE.split("/")), notes.join("\n") + "\n");
  try {
    execFileSync("git", ["init", "-q", root], { stdio: "pipe" });
  } catch (e) {
    throw new Error(`git init failed (Helix needs a repository to send a workspace root; .ci/run installs git): ${(e as Error).message}`);
  }
}

/** The shipped clients/helix/languages.toml, pointed at this build and without the other servers it lists. */
function languagesToml(): string {
  const shipped = readFileSync(path.join(repoRoot, "clients", "helix", "languages.toml"), "utf8");
  const toml = (s: string) => JSON.stringify(s); // a TOML basic string is a JSON string for these paths
  let text = shipped
    .replace(/^command = .*$/m, `command = ${toml(process.execPath)}`)
    .replace(/^args = .*$/m, `args = [${toml(serverJs)}, "--stdio"]`)
    // marksman & co. are not installed here; Helix would only log that it cannot start them
    .replace(/^language-servers = \[.*\]$/gm, 'language-servers = ["intent-lsp"]');
  for (const needed of ["[language-server.intent-lsp]", 'name = "markdown"', "required-root-patterns", "inlayHints"]) {
    if (!text.includes(needed)) throw new Error(`clients/helix/languages.toml no longer has ${needed}; update helix.test.ts`);
  }
  if (!text.includes(toml(serverJs))) throw new Error("clients/helix/languages.toml: no `args = …` line to point at the build");
  text += "\n";
  return text;
}

interface Rpc {
  dir: "->" | "<-";
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  msg: any;
}
/** The JSON-RPC messages between Helix and intent-lsp, in log order. */
function rpcLog(logFile: string): Rpc[] {
  const text = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
  const out: Rpc[] = [];
  for (const line of text.split("\n")) {
    const m = / helix_lsp::transport \[\w+\] intent-lsp (->|<-) (\{.*\})$/.exec(line);
    if (!m) continue;
    try {
      const msg = JSON.parse(m[2] ?? "");
      if (msg?.jsonrpc === "2.0") out.push({ dir: m[1] as Rpc["dir"], msg });
    } catch {
      // a message cut by the end of the log; the next poll sees it whole
    }
  }
  return out;
}

/** Rows of the editor area: gutter mark ("●" for a diagnostic), line number (1-based), text. */
function rows(screen: string): { mark: string; line: number; text: string }[] {
  return screen.split("\n").flatMap((row) => {
    const m = /^(●?)\s*(\d+)\s+(.*)$/.exec(row);
    return m ? [{ mark: m[1] ?? "", line: Number(m[2]), text: (m[3] ?? "").trimEnd() }] : [];
  });
}
const statusLine = (screen: string) => screen.split("\n").find((r) => /^\s*(NOR|INS|SEL)\s/.test(r)) ?? "";
const mode = (screen: string) => /^\s*(NOR|INS|SEL)\s/.exec(statusLine(screen))?.[1];

let tmp: string | undefined;
let tmux: Tmux | undefined;
let failed = true;
afterEach(async () => {
  await tmux?.kill();
  tmux = undefined;
  endRun("helix", tmp, failed);
  tmp = undefined;
  failed = true;
});

it("helix: flags an out-of-scope edit on exactly that line, and shows the saved line's attribution as an inlay hint", async () => {
  const hx = await ensureEditor("helix");
  if (!existsSync(serverJs)) throw new Error(`${serverJs} is missing: run \`npm run build\` (npm run test:e2e builds first)`);
  tmp = mkdtempSync(path.join(tmpdir(), "intent-lsp-helix-"));
  const ws = path.join(tmp, "ws");
  makeWorkspace(ws);
  const env = isolatedXdg(tmp);
  const helixConfig = path.join(env.XDG_CONFIG_HOME ?? "", "helix");
  mkdirSync(helixConfig, { recursive: true });
  writeFileSync(path.join(helixConfig, "languages.toml"), languagesToml());
  writeFileSync(path.join(helixConfig, "config.toml"), "[editor.lsp]\ndisplay-inlay-hints = true\n");
  const log = path.join(tmp, "hx.log");
  const uri = "file://" + path.join(ws, ...FILE.split("/"));
  const ledgerFile = path.join(ws, ...LEDGER.split("/"));

  // what a failure message shows: the workspace, Helix's log (every JSON-RPC message) and the ledger ...
  const files = () => {
    const text = existsSync(log) ? readFileSync(log, "utf8") : "<no hx.log>";
    return `workspace kept at ${tmp}\n--- ${log} (last 12000 chars) ---\n${text.slice(-12_000)}` +
      `\n--- ${LEDGER} ---\n${existsSync(ledgerFile) ? readFileSync(ledgerFile, "utf8") : "<none>"}`;
  };
  // ... and the last screen captured
  const seen = () => `--- last screen ---\n${tmux?.lastScreen ?? ""}\n${files()}`;
  const t = (tmux = await Tmux.start({ cwd: ws, env, dir: tmp, command: [hx, "-v", "--log", log, FILE] }));
  const screenWhere = (what: string, check: (s: string) => boolean) => t.waitForScreen(what, check, DEADLINE, files);
  const rpcWhere = <T>(what: string, pick: (log: Rpc[]) => T | undefined) => waitFor(what, () => pick(rpcLog(log)), DEADLINE, seen);
  const didOpen = (l: Rpc[]) => l.find((r) => r.dir === "->" && r.msg.method === "textDocument/didOpen" && r.msg.params.textDocument.uri === uri);

  // Helix found the root, started intent-lsp from languages.toml and opened the file in it
  await screenWhere("Helix to show docs/notes.md", (s) => mode(s) === "NOR" && statusLine(s).includes(FILE));
  const init = await rpcWhere("the initialize request", (l) => l.find((r) => r.dir === "->" && r.msg.method === "initialize"));
  expect(init.msg.params.rootUri, seen()).toBe("file://" + ws);
  await rpcWhere("didOpen of docs/notes.md", didOpen);

  // line 10, append (one paste), back to normal mode; each step waits for Helix to show it
  await t.keys([":10", "Enter"]);
  await screenWhere("the cursor on line 10", (s) => mode(s) === "NOR" && / 10:1\s*$/.test(statusLine(s)));
  await t.keys(["A"]);
  await screenWhere("insert mode", (s) => mode(s) === "INS");
  await t.paste(EDIT_TEXT);
  const edited = notes[EDIT_LINE] + EDIT_TEXT;
  await screenWhere("the edit on screen", (s) => rows(s).some((r) => r.line === EDIT_LINE + 1 && r.text.startsWith(edited)));
  await t.keys(["Escape"]);
  await screenWhere("normal mode", (s) => mode(s) === "NOR");

  // the server's answer, as Helix received it: diagnostics for the latest version Helix sent, so it kept them
  const lastChange = await rpcWhere("the didChange", (l) =>
    l.filter((r) => r.dir === "->" && r.msg.method === "textDocument/didChange" && r.msg.params.textDocument.uri === uri).pop());
  const version: number = lastChange.msg.params.textDocument.version;
  const published = await rpcWhere(`publishDiagnostics for version ${version} with out-of-scope`, (l) =>
    l.filter((r) => r.dir === "<-" && r.msg.method === "textDocument/publishDiagnostics" && r.msg.params.uri === uri)
      .find((r) => r.msg.params.version === version && r.msg.params.diagnostics.some((d: { code?: string }) => d.code === "out-of-scope")));
  const diagnostics = published.msg.params.diagnostics;
  expect(diagnostics, seen()).toHaveLength(1);
  expect(diagnostics[0], seen()).toMatchObject({
    range: { start: { line: EDIT_LINE, character: 0 }, end: { line: EDIT_LINE, character: edited.length } },
    severity: 1,
    code: "out-of-scope",
    source: "intent-lsp",
  });
  expect(diagnostics[0].message, seen()).toContain(`${FILE} is outside the scope of INT-001`);
  // (Helix may drop an earlier publish for the version before the edit, which crossed the edit on the wire;
  // that the edit's own diagnostic is shown is what the screen check below proves.)

  // ... and as the user sees it: the gutter mark on line 10 only, the message at the cursor, "● 1" in the status line
  const flagged = await screenWhere("the diagnostic on screen", (s) => rows(s).some((r) => r.mark === "●"));
  expect(rows(flagged).filter((r) => r.mark === "●").map((r) => r.line), flagged).toEqual([EDIT_LINE + 1]);
  expect(flagged, flagged).toContain(`${FILE} is outside the scope of INT-001`);
  expect(statusLine(flagged), flagged).toMatch(/● 1\s/);

  // :w — Helix writes the file and sends didSave; the server appends one record for line 10
  await t.keys([":w", "Enter"]);
  await screenWhere("the write", (s) => s.includes(`'${FILE}' written`));
  await rpcWhere("didSave", (l) => l.find((r) => r.dir === "->" && r.msg.method === "textDocument/didSave"));
  const ledger = await waitFor("a record in the ledger", () => {
    const lines = existsSync(ledgerFile) ? readFileSync(ledgerFile, "utf8").split("\n").filter((l) => l.trim()) : [];
    return lines.length ? lines : undefined;
  }, DEADLINE, seen);
  expect(ledger, seen()).toHaveLength(1);
  const record = JSON.parse(ledger[0] ?? "null");
  expect(readFileSync(path.join(ws, ...FILE.split("/")), "utf8"), seen()).toBe(notes.map((l, i) => (i === EDIT_LINE ? edited : l)).join("\n") + "\n");
  expect(record.files?.map((f: { path: string }) => f.path), seen()).toEqual([FILE]);
  const conv = record.files[0].conversations[0];
  expect(conv.contributor, seen()).toEqual({ type: "human" });
  expect(conv.related, seen()).toEqual([{ type: "intent", url: "urn:intent:INT-001" }]);
  expect(conv.ranges, seen()).toEqual([{
    start_line: EDIT_LINE + 1, end_line: EDIT_LINE + 1,
    content_hash: "sha256:" + createHash("sha256").update(edited).digest("hex"),
  }]);
  expect(record.metadata?.["dev.intent-lsp"], seen()).toMatchObject({ intent_id: "INT-001", scope: "OUT_OF_SCOPE" });

  // hover (space k) on the saved line names the record at once
  await t.keys(["Space"]);
  await t.keys(["k"]);
  const hover = await screenWhere("the hover", (s) => s.includes(`trace ${record.id}`));
  expect(hover, hover).toContain("INT-001 — Build Weather API (IN_PROGRESS)");
  expect(hover, hover).toContain(`human · just now (${record.timestamp})`);
  await t.keys(["Escape"]);
  await screenWhere("the hover to close", (s) => !s.includes(`trace ${record.id}`) && mode(s) === "NOR");

  // keep working: the next edit makes Helix ask for inlay hints again, and the saved line carries its label
  const hintRequestsBefore = rpcLog(log).filter((r) => r.dir === "->" && r.msg.method === "textDocument/inlayHint").length;
  await t.keys([`:${NEXT_LINE + 1}`, "Enter"]);
  await screenWhere(`the cursor on line ${NEXT_LINE + 1}`, (s) => mode(s) === "NOR" && new RegExp(` ${NEXT_LINE + 1}:1\\s*$`).test(statusLine(s)));
  await t.keys(["A"]);
  await screenWhere("insert mode", (s) => mode(s) === "INS");
  await t.paste(NEXT_TEXT);
  await screenWhere("the second edit on screen", (s) => rows(s).some((r) => r.line === NEXT_LINE + 1 && r.text.startsWith(notes[NEXT_LINE] + NEXT_TEXT)));
  await t.keys(["Escape"]);
  await screenWhere("normal mode", (s) => mode(s) === "NOR");
  const hints = await rpcWhere("an inlay hint response after the save", (l) => {
    const requests = l.filter((r) => r.dir === "->" && r.msg.method === "textDocument/inlayHint").slice(hintRequestsBefore);
    const ids = new Set(requests.map((r) => r.msg.id));
    return l.find((r) => r.dir === "<-" && ids.has(r.msg.id) && Array.isArray(r.msg.result) && r.msg.result.length > 0)?.msg.result;
  });
  expect(hints, seen()).toEqual([expect.objectContaining({ position: { line: EDIT_LINE, character: edited.length }, label: LABEL })]);
  const hinted = await screenWhere("the inlay hint on line 10", (s) =>
    rows(s).some((r) => r.line === EDIT_LINE + 1 && r.text === `${edited} ${LABEL}`));
  expect(rows(hinted).filter((r) => r.text.includes(LABEL)).map((r) => r.line), hinted).toEqual([EDIT_LINE + 1]);

  // :q! — Helix shuts the server down; nothing of this run may keep running
  await t.keys([":q!", "Enter"]);
  await waitFor("Helix and intent-lsp to exit", () => {
    const left = [...findTagged(tmp ?? "").values()].filter((cmd) => !/\btmux\b/.test(cmd));
    return left.length === 0;
  }, DEADLINE, () => `still running:\n${[...findTagged(tmp ?? "").values()].join("\n")}\n${seen()}`);
  failed = false;
}, INSTALL_MS + 90_000);
