// intent-lsp for VS Code: starts the bundled server over Node IPC, shows what it publishes (diagnostics, hover,
// CodeLens, inlay hints and quick fixes come through vscode-languageclient) and offers its commands. Every rule
// lives in the server; this file only launches, presents and runs commands.
import * as vscode from "vscode";
import { LanguageClient, State, TransportKind, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";
import { CHANGE_ORIGIN, SAVE_PROCESSED, type SaveProcessedParams } from "@shared/notifications";
import { ChangeWatch } from "./changeWatch";
import { SETTINGS_SECTION } from "@shared/settings";
import { explicitSettings } from "./configuration";
import { IntentTree, type IntentNode } from "./intentTree";
import { blameItem, blockHintsWanted, intentPicks, MOVES, type Move } from "./presentation";
import { REVERT_COMMAND, RevertPreviews, revertIntent } from "./revertIntent";
import { errorText, serverCommands, type ServerCommands } from "./server";
import type { ReportResult } from "@shared/commands";
import { IntentStatusBar, SELECT_COMMAND } from "./statusBar";

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("intent-lsp");
  const serverModule = context.asAbsolutePath("dist/server.js");
  // announces changes the person did not type, just before the change itself goes (changeOrigin.ts)
  const changes = new ChangeWatch((params) => void client?.sendNotification(CHANGE_ORIGIN, params).catch(() => undefined));
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ["--nolazy", "--inspect=6010"] } },
  };
  const clientOptions: LanguageClientOptions = {
    // every file of the workspace: the server decides what is in scope, exempt or outside the workspace
    documentSelector: [{ scheme: "file" }],
    outputChannel: output,
    middleware: {
      didChange: (event, next) => {
        if (client) changes.before(event, client.code2ProtocolConverter.asUri(event.document.uri));
        return next(event);
      },
      // who wrote a block is said once: by the CodeLens above it while CodeLens shows, else by the inlay hint
      provideInlayHints: (document, range, token, next) => (blockHintsShown(document) ? next(document, range, token) : []),
      workspace: {
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) return answers;
          return params.items.map((item, i) => (item.section === SETTINGS_SECTION ? settingsFor(item.scopeUri) : answers[i]));
        },
      },
    },
  };
  const lc = new LanguageClient("intentLsp", "intent-lsp", serverOptions, clientOptions);
  client = lc;
  const toServer = (uri: vscode.Uri) => lc.code2ProtocolConverter.asUri(uri);
  let server: ServerCommands | undefined;
  const running = () => server;

  const status = new IntentStatusBar(running, toServer);
  const tree = new IntentTree(running);
  const treeView = vscode.window.createTreeView("intentLsp.intents", { treeDataProvider: tree, showCollapseAll: true });
  const refresh = debounce(() => {
    void status.update();
    tree.refresh();
  }, 150);

  context.subscriptions.push(
    output,
    changes,
    status,
    tree,
    treeView,
    lc.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        server = serverCommands(lc);
        refresh();
      } else if (e.newState === State.Stopped) {
        server = undefined;
        status.stopped("The intent-lsp server is not running; see the intent-lsp output (command: Intent: Show Output).");
      }
    }),
    vscode.window.onDidChangeActiveTextEditor(() => void status.update()),
    // the server re-publishes diagnostics when the selection or the rules change: the status may have too
    vscode.languages.onDidChangeDiagnostics(() => refresh()),
    ...watchRuleFiles(refresh),
    ...registerCommands(running, output, refresh, toServer),
  );
  void vscode.commands.executeCommand("setContext", "intentLsp.active", true);

  try {
    await lc.start();
  } catch (err) {
    status.stopped(`intent-lsp could not start: ${errorText(err)}`);
    output.appendLine(`intent-lsp could not start the server ${serverModule}: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`intent-lsp could not start its server: ${errorText(err)}`, "Show Output").then((a) => a && output.show());
    return;
  }
  // a processed save is when the ledger and the attribution changed: log it (users and tests read it) and refresh
  context.subscriptions.push(
    lc.onNotification(SAVE_PROCESSED, (p: SaveProcessedParams) => {
      const where = vscode.workspace.asRelativePath(vscode.Uri.parse(p.uri));
      output.appendLine(`save processed: ${where} (version ${p.version}) → ${p.recordId ? `ledger record ${p.recordId}` : "no record"}`);
      refresh();
    }),
  );
}

export function deactivate(): Thenable<void> | undefined {
  return client?.stop();
}

/** Only what the user set: defaults stay the server's, so `.orchestration/config.jsonc` is not overridden. */
function settingsFor(scopeUri: string | undefined): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION, scopeUri ? vscode.Uri.parse(scopeUri) : undefined);
  return explicitSettings(
    (key) => config.inspect(key),
    (key) => config.get(key),
  );
}

/** The rule files change under the editor too (an agent, `intent` in a terminal, git). */
function watchRuleFiles(changed: () => void): vscode.Disposable[] {
  const watcher = vscode.workspace.createFileSystemWatcher("**/.orchestration/{active_intents.yaml,agent_trace.jsonl,.sessions/workspace.json}");
  return [watcher, watcher.onDidChange(changed), watcher.onDidCreate(changed), watcher.onDidDelete(changed)];
}

function registerCommands(
  running: () => ServerCommands | undefined,
  output: vscode.OutputChannel,
  refresh: () => void,
  toServer: (uri: vscode.Uri) => string,
): vscode.Disposable[] {
  const currentUri = () => {
    const doc = vscode.window.activeTextEditor?.document;
    if (doc?.uri.scheme === "file") return toServer(doc.uri);
    const folder = vscode.workspace.workspaceFolders?.[0];
    return folder ? toServer(folder.uri) : undefined;
  };
  /** Runs a command against the server; its refusal (it says what to do) becomes an error message. */
  const command = (id: string, fn: (server: ServerCommands, ...args: unknown[]) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      const server = running();
      if (!server) {
        void vscode.window.showErrorMessage("intent-lsp is not running; see its output (Intent: Show Output).", "Show Output").then((a) => a && output.show());
        return;
      }
      try {
        await fn(server, ...args);
      } catch (err) {
        void vscode.window.showErrorMessage(`intent-lsp: ${errorText(err)}`);
      } finally {
        refresh();
      }
    });

  const pickIntent = async (server: ServerCommands, placeHolder: string, accept: (status: string, transitions: string[]) => boolean) => {
    const intents = (await server.listIntents(currentUri())).filter((i) => accept(i.status, i.transitions));
    if (!intents.length) {
      void vscode.window.showInformationMessage(`intent-lsp: no intent fits (${placeHolder.toLowerCase()}).`);
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      intents.map((i) => ({ label: `${i.id} — ${i.name}`, description: `${i.status} · ${i.owned_scope.join(", ")}`, id: i.id })),
      { placeHolder },
    );
    return pick?.id;
  };
  const intentOf = (arg: unknown): string | undefined =>
    (arg as IntentNode | undefined)?.kind === "intent" ? (arg as Extract<IntentNode, { kind: "intent" }>).intent.id : undefined;

  const moves = (Object.keys(MOVES) as Move[]).map((move) =>
    command(`intentLsp.${move}Intent`, async (server, arg) => {
      const { to, title } = MOVES[move];
      const id = intentOf(arg) ?? (await pickIntent(server, `${title} which intent?`, (_, transitions) => transitions.includes(to)));
      if (!id) return;
      await server.transition(id, to, currentUri());
      void vscode.window.setStatusBarMessage(`intent-lsp: ${id} is now ${to}`, 5000);
    }),
  );

  const previews = new RevertPreviews();

  return [
    ...moves,
    previews,
    command(REVERT_COMMAND, async (server, arg) => {
      const id = intentOf(arg) ?? (await pickIntent(server, "Revert the work of which intent?", () => true));
      if (id) await revertIntent(server, previews, id, currentUri());
    }),
    command(SELECT_COMMAND, async (server, arg) => {
      const uri = currentUri();
      const fromTree = intentOf(arg);
      if (fromTree) {
        const row = (arg as Extract<IntentNode, { kind: "intent" }>).intent;
        await server.select(fromTree, row.status !== "IN_PROGRESS", uri);
        return;
      }
      const [intents, active] = await Promise.all([server.listIntents(uri), server.activeIntent(uri).catch(() => undefined)]);
      const picks: (vscode.QuickPickItem & { id?: string; start?: boolean })[] = intentPicks(intents, active);
      if (intents.some((i) => i.selected))
        picks.push({ label: "$(close) Clear the selection", description: "edits count under the file's only intent in progress, if any" });
      const pick = await vscode.window.showQuickPick(picks, {
        placeHolder: "Select the intent your edits count under",
        matchOnDescription: true,
        matchOnDetail: true,
      });
      if (!pick) return;
      if (pick.id) await server.select(pick.id, !!pick.start, uri);
      else await server.clear(uri);
    }),
    command("intentLsp.clearIntent", (server) => server.clear(currentUri())),
    command("intentLsp.showContext", async (server, arg) => {
      const uri = currentUri();
      let id = intentOf(arg);
      if (!id) {
        const active = await server.activeIntent(uri).catch(() => undefined);
        id = active?.intent?.id ?? (await pickIntent(server, "Show the context of which intent?", () => true));
      }
      if (!id) return;
      const { xml } = await server.showContext(id, uri);
      const doc = await vscode.workspace.openTextDocument({ language: "xml", content: xml });
      await vscode.window.showTextDocument(doc, { preview: false });
    }),
    command("intentLsp.blameSelection", async (server) => {
      const editor = vscode.window.activeTextEditor;
      if (editor?.document.uri.scheme !== "file") {
        void vscode.window.showInformationMessage("intent-lsp: open a file of the workspace and select the lines to blame.");
        return;
      }
      const { start, end } = editor.selection;
      const { path, lines } = await server.blame(toServer(editor.document.uri), start.line, end.line);
      const pick = await vscode.window.showQuickPick(
        lines.map((row) => ({ ...blameItem(row), line: row.line })),
        { placeHolder: `Who wrote ${path}, lines ${start.line + 1}–${end.line + 1}`, matchOnDescription: true },
      );
      if (pick) {
        const at = new vscode.Position(pick.line - 1, 0);
        editor.selection = new vscode.Selection(at, at);
        editor.revealRange(new vscode.Range(at, at));
      }
    }),
    command("intentLsp.verifyLedger", async (server) => {
      const report = await server.verifyLedger(currentUri());
      if (report.ok && !report.problems.length) {
        void vscode.window.showInformationMessage(`intent-lsp: ${report.path} verified: ${report.records} records, no problems.`);
        return;
      }
      output.appendLine(`${report.path}: ${report.records} records, ${report.problems.length} problem(s):`);
      for (const p of report.problems) output.appendLine(`  line ${p.line} [${p.kind}] ${p.message}`);
      const message = `intent-lsp: ${report.path} has ${report.problems.length} problem(s)${report.ok ? " (legacy records only)" : ""}.`;
      const show = await (report.ok ? vscode.window.showInformationMessage(message, "Show Output") : vscode.window.showErrorMessage(message, "Show Output"));
      if (show) output.show();
    }),
    command("intentLsp.regenerateMap", async (server) => {
      const result = await server.regenerateMap(currentUri());
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (folder) await vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, ...result.path.split("/")), { preview: false });
      void vscode.window.setStatusBarMessage(`intent-lsp: ${result.path} ${result.changed ? "rebuilt" : "already up to date"}`, 5000);
    }),
    command("intentLsp.showReport", async (server) => {
      const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: "intent-lsp: counting who wrote each line…" }, () =>
        server.report(currentUri()),
      );
      showReport(result);
    }),
    vscode.commands.registerCommand("intentLsp.showOutput", () => output.show()),
    vscode.commands.registerCommand("intentLsp.refreshIntents", () => refresh()),
  ];
}

let reportPanel: vscode.WebviewPanel | undefined;

/**
 * The report in a webview: the page is self-contained (its script, styles and charts inline; its own
 * Content-Security-Policy allows no request), so the webview needs scripts and nothing else.
 */
function showReport(result: ReportResult): void {
  if (!reportPanel) {
    reportPanel = vscode.window.createWebviewPanel("intentLsp.report", "Intent Report", vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [],
    });
    reportPanel.onDidDispose(() => (reportPanel = undefined));
  } else reportPanel.reveal();
  reportPanel.webview.html = result.html ?? "";
  void vscode.window.setStatusBarMessage(`intent-lsp: report written to ${result.path}`, 5000);
}

function debounce(fn: () => void, ms: number): () => void {
  let timer: NodeJS.Timeout | undefined;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
}

/** Whether the server's block inlay hints are shown in `document`: only where no CodeLens says the same. */
function blockHintsShown(document: vscode.TextDocument): boolean {
  const editor = vscode.workspace.getConfiguration("editor", document).get<boolean>("codeLens", true);
  const ours = vscode.workspace.getConfiguration(SETTINGS_SECTION, document).get<boolean>("codeLens.enabled", true);
  return blockHintsWanted(editor, ours);
}
