import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  CodeActionKind,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  ResponseError,
  ErrorCodes,
  TextDocumentSyncKind,
  type CodeAction,
  type CodeActionParams,
  type Connection,
  type Diagnostic,
  type InitializeParams,
  type InitializeResult,
} from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { allCommands } from "@shared/commands";
import { SETTINGS_SECTION } from "@shared/settings";
import { HEARTBEAT_MS } from "../engine/sessions";
import { sanitize } from "../engine/settings";
import { CONFIG_FILE, INTENTS_FILE, readOptional, SESSIONS_DIR } from "../engine/workspaceFiles";
import { lifecycleActions, scopeFixes } from "./codeActions";
import { commandHandlers, normalizeArgs, type CommandHost } from "./commands";
import { TrackedDocument } from "./documents";
import { configDiagnostics, intentFileDiagnostics, scopeDiagnostics } from "./diagnostics";
import { FallbackWatcher } from "./watcher";
import { WorkspaceContext } from "./workspace";

declare const __INTENT_LSP_VERSION__: string;
export const SERVER_VERSION = typeof __INTENT_LSP_VERSION__ === "string" ? __INTENT_LSP_VERSION__ : "0.0.0-dev";

/** Diagnostics wait this long after the last keystroke, so a burst of typing publishes once. */
const PUBLISH_DELAY_MS = 40;
/** Rule files edited in the editor are re-read after a pause in typing. */
const RULE_RELOAD_DELAY_MS = 150;

/**
 * The language server: built from a `Connection` (stdio, node-ipc or an in-process pipe), it owns the
 * open documents and one WorkspaceContext per workspace folder. Handlers are thin: the rules live in
 * the engine.
 */
export class IntentServer {
  private readonly contexts = new Map<string, WorkspaceContext>();
  private readonly documents = new Map<string, TrackedDocument>();
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private readonly ruleReloads = new Map<WorkspaceContext, NodeJS.Timeout>();
  /** URIs of rule files we have published diagnostics for, so fixed files get cleared. */
  private readonly ruleFileUris = new Set<string>();
  private heartbeat: NodeJS.Timeout | undefined;
  private watcher: FallbackWatcher | undefined;
  private capabilities = { configuration: false, watchedFiles: false };

  constructor(private readonly connection: Connection) {
    connection.onInitialize((p) => this.initialize(p));
    connection.onInitialized(() => void this.initialized());
    connection.onShutdown(() => this.dispose());
    connection.onDidOpenTextDocument(({ textDocument: t }) => this.open(TextDocument.create(t.uri, t.languageId, t.version, t.text)));
    connection.onDidChangeTextDocument(({ textDocument, contentChanges }) => this.change(textDocument.uri, contentChanges, textDocument.version));
    connection.onDidCloseTextDocument(({ textDocument }) => this.close(textDocument.uri));
    connection.onDidSaveTextDocument(({ textDocument }) => this.saved(textDocument.uri));
    connection.onDidChangeWatchedFiles(({ changes }) => this.filesChanged(changes.map((c) => c.uri)));
    connection.onDidChangeConfiguration(() => void this.pullSettings().then(() => this.refreshAll()));
    connection.onCodeAction((p) => this.codeActions(p));
    connection.onExecuteCommand(async ({ command, arguments: args }) => {
      const handler = commandHandlers[command];
      if (!handler) throw new ResponseError(ErrorCodes.MethodNotFound, `Unknown command ${command}.`);
      return handler(this.commandHost, normalizeArgs(args));
    });
  }

  listen(): void {
    this.connection.listen();
  }

  private initialize(params: InitializeParams): InitializeResult {
    const client = params.clientInfo?.name ?? "unknown editor";
    const folders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
    for (const uri of folders) this.addFolder(uri, client);
    const ws = params.capabilities.workspace;
    this.capabilities = {
      configuration: !!ws?.configuration,
      watchedFiles: !!ws?.didChangeWatchedFiles?.dynamicRegistration,
    };
    if (!this.capabilities.configuration) this.applyClientSettings(params.initializationOptions?.[SETTINGS_SECTION] ?? params.initializationOptions);
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.RefactorRewrite] },
        executeCommandProvider: { commands: allCommands },
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: "intent-lsp", version: SERVER_VERSION },
    };
  }

  private async initialized(): Promise<void> {
    this.connection.workspace.onDidChangeWorkspaceFolders((e) => {
      for (const f of e.removed) this.removeFolder(f.uri);
      for (const f of e.added) this.addFolder(f.uri, this.anyContext()?.session.client ?? "unknown editor");
      this.refreshAll();
    });
    if (this.capabilities.watchedFiles) {
      await this.connection.client.register(DidChangeWatchedFilesNotification.type, {
        watchers: [{ globPattern: "**/.orchestration/**" }, { globPattern: "**/.intentignore" }],
      });
    } else {
      // Clients without dynamic file watching (Neovim 0.10 on Linux, Helix, eglot) still need to see the
      // terminal's `intent select` and hand edits to the YAML: watch the few files that matter ourselves.
      this.watcher = new FallbackWatcher((paths) => this.filesChanged(paths.map((p) => pathToFileURL(p).href)));
      for (const ctx of this.contexts.values()) this.watcher.watch(ctx.root);
    }
    if (this.capabilities.configuration) {
      void this.connection.client.register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION }).catch(() => undefined);
      await this.pullSettings();
    }
    for (const ctx of this.contexts.values()) ctx.heartbeat();
    this.heartbeat = setInterval(() => this.contexts.forEach((c) => c.heartbeat()), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.refreshAll();
  }

  private addFolder(uri: string, client: string): void {
    const root = uriToPath(uri);
    if (!root || this.contexts.has(root)) return;
    const ctx = new WorkspaceContext(root, client);
    this.contexts.set(root, ctx);
    this.watcher?.watch(root);
  }

  private removeFolder(uri: string): void {
    const root = uriToPath(uri);
    const ctx = root ? this.contexts.get(root) : undefined;
    if (!ctx || !root) return;
    ctx.dispose();
    this.watcher?.unwatch(root);
    this.contexts.delete(root);
  }

  private anyContext(): WorkspaceContext | undefined {
    return this.contexts.values().next().value;
  }

  /** The innermost workspace folder holding a file. */
  private contextOf(fsPath: string): WorkspaceContext | undefined {
    let best: WorkspaceContext | undefined;
    for (const ctx of this.contexts.values()) {
      if (ctx.relativePath(fsPath) !== undefined && (!best || ctx.root.length > best.root.length)) best = ctx;
    }
    return best;
  }

  private async pullSettings(): Promise<void> {
    if (!this.capabilities.configuration) return;
    for (const ctx of this.contexts.values()) {
      try {
        const [raw] = await this.connection.workspace.getConfiguration([{ scopeUri: pathToFileURL(ctx.root).href, section: SETTINGS_SECTION }]);
        this.applyClientSettings(raw, ctx);
      } catch (err) {
        this.connection.console.warn(`intent-lsp: could not read client settings: ${(err as Error).message}`);
      }
    }
  }

  private applyClientSettings(raw: unknown, only?: WorkspaceContext): void {
    if (!raw || typeof raw !== "object") return;
    const { values, issues } = sanitize(raw as Record<string, unknown>);
    for (const issue of issues) this.connection.console.warn(`intent-lsp: editor setting ${SETTINGS_SECTION}: ${issue}`);
    for (const ctx of only ? [only] : this.contexts.values()) {
      ctx.setClientSettings(values);
      ctx.reload();
    }
  }

  // --- documents -------------------------------------------------------------------------------

  private open(doc: TextDocument): void {
    const fsPath = uriToPath(doc.uri);
    const ctx = fsPath ? this.contextOf(fsPath) : undefined;
    const path = ctx && fsPath ? ctx.relativePath(fsPath) : undefined;
    const tracked = new TrackedDocument(doc, path, ctx);
    this.documents.set(doc.uri, tracked);
    if (ctx && path && ctx.ruleFileOf(path)) this.ruleFileEdited(tracked);
    this.schedule(doc.uri);
  }

  private change(uri: string, changes: Parameters<TrackedDocument["applyChanges"]>[0], version: number): void {
    const tracked = this.documents.get(uri);
    if (!tracked) return;
    tracked.applyChanges(changes, version);
    if (tracked.ctx && tracked.path && tracked.ctx.ruleFileOf(tracked.path)) this.ruleFileEdited(tracked);
    this.schedule(uri);
  }

  private close(uri: string): void {
    const tracked = this.documents.get(uri);
    this.documents.delete(uri);
    clearTimeout(this.pending.get(uri));
    this.pending.delete(uri);
    const rule = tracked?.ctx && tracked.path ? tracked.ctx.ruleFileOf(tracked.path) : undefined;
    if (tracked?.ctx && rule) {
      tracked.ctx.setOverlay(rule, undefined); // back to the disk's version
      this.refresh(tracked.ctx);
    } else if (!this.ruleFileUris.has(uri)) {
      void this.connection.sendDiagnostics({ uri, diagnostics: [] });
    }
  }

  private saved(uri: string): void {
    const tracked = this.documents.get(uri);
    if (!tracked) return;
    tracked.rebase();
    this.schedule(uri);
  }

  /** A rule file changed in the editor: its buffer becomes the rules' source, after a pause in typing. */
  private ruleFileEdited(tracked: TrackedDocument): void {
    const ctx = tracked.ctx!;
    ctx.setOverlay(ctx.ruleFileOf(tracked.path!)!, tracked.doc.getText());
    clearTimeout(this.ruleReloads.get(ctx));
    this.ruleReloads.set(
      ctx,
      setTimeout(() => {
        this.ruleReloads.delete(ctx);
        this.refresh(ctx);
      }, RULE_RELOAD_DELAY_MS),
    );
  }

  private filesChanged(uris: string[]): void {
    const touched = new Set<WorkspaceContext>();
    for (const uri of uris) {
      const fsPath = uriToPath(uri);
      const ctx = fsPath ? this.contextOf(fsPath) : undefined;
      const path = ctx && fsPath ? ctx.relativePath(fsPath) : undefined;
      if (!ctx || !path) continue;
      if (ctx.ruleFileOf(path) || path.startsWith(`${SESSIONS_DIR}/`)) touched.add(ctx);
    }
    for (const ctx of touched) this.refresh(ctx);
  }

  // --- diagnostics -----------------------------------------------------------------------------

  private refresh(ctx: WorkspaceContext): void {
    ctx.reload();
    this.publishRuleFiles(ctx);
    for (const doc of this.documents.values()) if (doc.ctx === ctx) this.schedule(doc.uri);
  }

  private refreshAll(): void {
    for (const ctx of this.contexts.values()) this.refresh(ctx);
  }

  private schedule(uri: string): void {
    clearTimeout(this.pending.get(uri));
    this.pending.set(
      uri,
      setTimeout(() => {
        this.pending.delete(uri);
        this.publish(uri);
      }, PUBLISH_DELAY_MS),
    );
  }

  private publish(uri: string): void {
    const doc = this.documents.get(uri);
    const diagnostics: Diagnostic[] = doc ? scopeDiagnostics(doc) : [];
    if (this.ruleFileUris.has(uri)) diagnostics.push(...this.ruleFileDiagnostics(uri));
    void this.connection.sendDiagnostics({ uri, version: doc?.doc.version, diagnostics });
  }

  private ruleFileDiagnostics(uri: string): Diagnostic[] {
    const fsPath = uriToPath(uri);
    const ctx = fsPath ? this.contextOf(fsPath) : undefined;
    const path = ctx && fsPath ? ctx.relativePath(fsPath) : undefined;
    if (!ctx) return [];
    const { rules } = ctx;
    if (path === INTENTS_FILE) return intentFileDiagnostics(rules.settings, rules.intents.problems, rules.usingLastGood);
    if (path === CONFIG_FILE) {
      const text = this.documents.get(uri)?.doc.getText() ?? "";
      return configDiagnostics(rules.settings, text, rules.config.problems);
    }
    return [];
  }

  /** Rule-file diagnostics are published whether or not the file is open, like a compiler's. */
  private publishRuleFiles(ctx: WorkspaceContext): void {
    const intentsUri = pathToFileURL(`${ctx.root}/${INTENTS_FILE}`).href;
    const configUri = pathToFileURL(`${ctx.root}/${CONFIG_FILE}`).href;
    const problems: [string, number][] = [
      [intentsUri, ctx.rules.intents.problems.length],
      [configUri, ctx.rules.config.problems.length],
    ];
    for (const [uri, count] of problems) {
      const had = this.ruleFileUris.has(uri);
      if (count) this.ruleFileUris.add(uri);
      if (count || had) this.schedule(uri);
      if (!count && had) {
        // publish once more (empty), then forget it
        setTimeout(() => this.ruleFileUris.delete(uri), PUBLISH_DELAY_MS * 2);
      }
    }
  }

  // --- code actions and commands ---------------------------------------------------------------

  private codeActions({ textDocument, range, context }: CodeActionParams): CodeAction[] {
    const doc = this.documents.get(textDocument.uri);
    if (!doc) return [];
    if (doc.ctx && doc.path === INTENTS_FILE) return lifecycleActions(doc.ctx.rules.catalogue.intents, doc.doc.offsetAt(range.start));
    return scopeFixes(doc, range, context.diagnostics);
  }

  private readonly commandHost: CommandHost = {
    context: (args) => {
      const uri = typeof args.uri === "string" ? args.uri : undefined;
      const fsPath = uri ? uriToPath(uri) : undefined;
      const ctx = (fsPath && this.contextOf(fsPath)) || this.anyContext();
      if (!ctx) throw new ResponseError(ErrorCodes.InvalidRequest, "No workspace folder is open; open the folder that holds .orchestration/.");
      return ctx;
    },
    hasUnsavedIntents: (ctx) => {
      const doc = [...this.documents.values()].find((d) => d.ctx === ctx && d.path === INTENTS_FILE);
      return !!doc && doc.doc.getText() !== readOptional(join(ctx.root, INTENTS_FILE));
    },
    refresh: (ctx) => this.refresh(ctx),
    now: () => new Date(),
  };

  private dispose(): void {
    clearInterval(this.heartbeat);
    this.watcher?.dispose();
    for (const t of this.pending.values()) clearTimeout(t);
    for (const ctx of this.contexts.values()) ctx.dispose();
  }
}

function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
