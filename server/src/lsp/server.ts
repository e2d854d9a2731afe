import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  CodeActionKind,
  CodeLensRefreshRequest,
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
import { HEARTBEAT_MS, sessionFileName } from "../engine/sessions";
import { CONFIG_FILE, INTENTS_FILE, readOptional, SESSIONS_DIR } from "../engine/workspaceFiles";
import { findIntentsRoot } from "../engine/workspaceRoot";
import { fileHash } from "../engine/hashing";
import { parseLedgerLines } from "../engine/ledger/read";
import { lifecycleActions, scopeFixes } from "./codeActions";
import { codeLenses } from "./codeLens";
import { claimedElsewhere, fileFindings, untracedChange } from "./findings";
import { inlayHints } from "./inlayHints";
import { hover } from "./hover";
import { ledgerCommands } from "./ledgerCommands";
import { prepareSave, writeSave } from "./save";
import { commandHandlers, normalizeArgs, type CommandHost } from "./commands";
import { TrackedDocument, uriToPath } from "./documents";
import { configDiagnostics, intentFileDiagnostics, ledgerDiagnostics, scopeDiagnostics } from "./diagnostics";
import { editorSettings } from "./settings";
import { FallbackWatcher } from "./watcher";
import { WorkspaceContext } from "./workspaceContext";

declare const __INTENT_LSP_VERSION__: string;
export const SERVER_VERSION = typeof __INTENT_LSP_VERSION__ === "string" ? __INTENT_LSP_VERSION__ : "0.0.0-dev";

/** Diagnostics wait this long after the last keystroke, so a burst of typing publishes once. */
const PUBLISH_DELAY_MS = 40;
/** Rule files edited in the editor are re-read after a pause in typing. */
const RULE_RELOAD_DELAY_MS = 150;
/** Appends by other processes show up within this (a stat per ledger; file events usually come sooner). */
const LEDGER_POLL_MS = 500;
/** A first read of a ledger larger than this reports work-done progress. */
const PROGRESS_THRESHOLD_BYTES = 1024 * 1024;

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
  /** A document became edited or clean: the session file's list of unsaved files is due with the next publish. */
  private dirtyChanged = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private disposed = false;
  private ledgerTimer: NodeJS.Timeout | undefined;
  private watcher: FallbackWatcher | undefined;
  private clientName = "unknown editor";
  private supportsFolderEvents = false;
  private capabilities = { configuration: false, configurationRegistration: false, watchedFiles: false, progress: false, codeLensRefresh: false, inlayHintRefresh: false, markdownHover: true };

  constructor(private readonly connection: Connection) {
    connection.onInitialize((p) => this.initialize(p));
    connection.onInitialized(this.guard("initialization", () => this.initialized()));
    connection.onShutdown(() => this.dispose());
    connection.onDidOpenTextDocument(this.guard("didOpen", ({ textDocument: t }) => this.open(TextDocument.create(t.uri, t.languageId, t.version, t.text))));
    connection.onDidChangeTextDocument(this.guard("didChange", ({ textDocument, contentChanges }) => this.change(textDocument.uri, contentChanges, textDocument.version)));
    connection.onDidCloseTextDocument(this.guard("didClose", ({ textDocument }) => this.close(textDocument.uri)));
    connection.onDidSaveTextDocument(this.guard("didSave", ({ textDocument }) => this.saved(textDocument.uri)));
    connection.onWillSaveTextDocumentWaitUntil(({ textDocument }) => {
      const doc = this.documents.get(textDocument.uri);
      if (doc) this.updateFindings(doc); // warn about a write underneath us; never hold up the save itself
      return [];
    });
    connection.onHover(({ textDocument, position }) => {
      const doc = this.documents.get(textDocument.uri);
      return doc ? hover(doc, position, Date.now(), this.capabilities.markdownHover) : null;
    });
    connection.onCodeLens(({ textDocument }) => {
      const doc = this.documents.get(textDocument.uri);
      return doc ? codeLenses(doc, Date.now()) : [];
    });
    connection.languages.inlayHint.on(({ textDocument, range }) => {
      const doc = this.documents.get(textDocument.uri);
      return doc ? inlayHints(doc, range, Date.now()) : [];
    });
    connection.onDidChangeWatchedFiles(this.guard("watched files", ({ changes }) => this.filesChanged(changes.map((c) => c.uri))));
    connection.onDidChangeConfiguration(this.guard("configuration", (p) => this.configurationChanged(p.settings)));
    connection.onCodeAction((p) => this.codeActions(p));
    connection.onExecuteCommand(async ({ command, arguments: args }) => {
      const handler = commandHandlers[command] ?? ledgerCommands[command];
      if (!handler) throw new ResponseError(ErrorCodes.MethodNotFound, `Unknown command ${command}.`);
      return handler(this.commandHost, normalizeArgs(args));
    });
  }

  listen(): void {
    this.connection.listen();
  }

  /**
   * Wraps a notification handler or timer body: an error is logged to the client and the server keeps
   * serving. Notifications have no response to carry an error, and an unhandled rejection would end the process.
   */
  private guard<A extends unknown[]>(what: string, fn: (...args: A) => unknown): (...args: A) => void {
    return (...args) => {
      const fail = (err: unknown) => this.connection.console.error(`intent-lsp: ${what} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      try {
        const r = fn(...args);
        if (r instanceof Promise) r.catch(fail);
      } catch (err) {
        fail(err);
      }
    };
  }

  private initialize(params: InitializeParams): InitializeResult {
    const client = params.clientInfo?.name ?? "unknown editor";
    // Helix outside a git repository sends only the deprecated rootPath
    const folders = params.workspaceFolders?.length
      ? params.workspaceFolders.map((f) => f.uri)
      : params.rootUri
        ? [params.rootUri]
        : params.rootPath
          ? [pathToFileURL(params.rootPath).href]
          : [];
    for (const uri of folders) this.addFolder(uri, client);
    this.clientName = client;
    const ws = params.capabilities.workspace;
    this.supportsFolderEvents = !!ws?.workspaceFolders;
    this.capabilities = {
      configuration: !!ws?.configuration,
      configurationRegistration: !!ws?.didChangeConfiguration?.dynamicRegistration,
      watchedFiles: !!ws?.didChangeWatchedFiles?.dynamicRegistration,
      progress: !!params.capabilities.window?.workDoneProgress,
      codeLensRefresh: !!ws?.codeLens?.refreshSupport,
      inlayHintRefresh: !!ws?.inlayHint?.refreshSupport,
      markdownHover: params.capabilities.textDocument?.hover?.contentFormat?.includes("markdown") ?? true,
    };
    if (!this.capabilities.configuration) this.applyClientSettings(params.initializationOptions?.[SETTINGS_SECTION] ?? params.initializationOptions);
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, willSave: true, willSaveWaitUntil: true, save: { includeText: false } },
        hoverProvider: true,
        codeLensProvider: { resolveProvider: false },
        inlayHintProvider: { resolveProvider: false },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.RefactorRewrite] },
        executeCommandProvider: { commands: allCommands },
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: "intent-lsp", version: SERVER_VERSION },
    };
  }

  private async initialized(): Promise<void> {
    if (this.supportsFolderEvents) {
      this.connection.workspace.onDidChangeWorkspaceFolders(
        this.guard("workspace folders", (e) => {
          for (const f of e.removed) this.removeFolder(f.uri);
          for (const f of e.added) this.addFolder(f.uri, this.clientName);
          this.refreshAll();
        }),
      );
    }
    if (this.capabilities.watchedFiles) {
      await this.connection.client.register(DidChangeWatchedFilesNotification.type, {
        // the whole workspace too: a write by someone else to an open file is a stale-file warning
        watchers: [{ globPattern: "**/.orchestration/**" }, { globPattern: "**/.intentignore" }, { globPattern: "**/.agent-trace/**" }, { globPattern: "**/*", kind: 2 }],
      });
    } else {
      // Clients without dynamic file watching (Neovim 0.10 on Linux, Helix, eglot) still need to see the
      // terminal's `intent select` and hand edits to the YAML: watch the few files that matter ourselves.
      this.watcher = new FallbackWatcher(this.guard("file watcher", (paths: string[]) => this.filesChanged(paths.map((p) => pathToFileURL(p).href))));
      for (const ctx of this.contexts.values()) this.watcher.watch(ctx.root);
    }
    if (this.capabilities.configuration) {
      if (this.capabilities.configurationRegistration) {
        void this.connection.client.register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION }).catch(() => undefined);
      }
      await this.pullSettings();
    }
    for (const ctx of this.contexts.values()) ctx.heartbeat();
    this.heartbeat = setInterval(this.guard("heartbeat", () => this.contexts.forEach((c) => c.heartbeat())), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.refreshAll();
    await Promise.all([...this.contexts.values()].map((ctx) => this.pollLedger(ctx, true)));
    this.ledgerTimer = setInterval(() => this.contexts.forEach((ctx) => void this.pollLedger(ctx)), LEDGER_POLL_MS); // pollLedger catches its own errors
    this.ledgerTimer.unref();
  }

  private addFolder(uri: string, client: string): void {
    const root = uriToPath(uri);
    if (!root || this.contexts.has(root)) return;
    const ctx = new WorkspaceContext(root, client);
    this.contexts.set(root, ctx);
    this.watcher?.watch(root);
    if (this.heartbeat) ctx.heartbeat(); // added after start-up: announce the session now
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

  /** Clients that push settings instead of answering workspace/configuration send them here. */
  private async configurationChanged(pushed: unknown): Promise<void> {
    if (this.capabilities.configuration) await this.pullSettings();
    else this.applyClientSettings((pushed as Record<string, unknown> | null)?.[SETTINGS_SECTION]);
    this.refreshAll();
  }

  private applyClientSettings(raw: unknown, only?: WorkspaceContext): void {
    if (!raw || typeof raw !== "object") return;
    const { values, issues } = editorSettings(raw);
    for (const issue of issues) this.connection.console.warn(`intent-lsp: editor setting ${SETTINGS_SECTION}: ${issue}`);
    for (const ctx of only ? [only] : this.contexts.values()) {
      ctx.setClientSettings(values);
      ctx.reload();
    }
  }

  // --- documents -------------------------------------------------------------------------------

  private open(doc: TextDocument): void {
    const fsPath = uriToPath(doc.uri);
    let ctx = fsPath ? this.contextOf(fsPath) : undefined;
    if (!ctx && fsPath) {
      // a file outside every workspace folder (or an editor that sent none): adopt the intent workspace above it
      const root = findIntentsRoot(dirname(fsPath));
      if (root) {
        this.addFolder(pathToFileURL(root).href, this.clientName);
        ctx = this.contexts.get(root);
        if (ctx) void this.pollLedger(ctx, true);
      }
    }
    const path = ctx && fsPath ? ctx.relativePath(fsPath) : undefined;
    const tracked = new TrackedDocument(doc, path, ctx, ctx && path !== undefined ? unrecordedBaseline(ctx, path, doc.getText()) : undefined);
    this.documents.set(doc.uri, tracked);
    if (ctx && path && ctx.ruleFileOf(path)) this.ruleFileEdited(tracked);
    if (ctx && path) {
      tracked.attribute(ctx.ledger.entriesFor(path));
      this.updateFindings(tracked);
      void this.pollLedger(ctx); // appends not read yet re-attribute this document when they arrive
    }
    this.schedule(doc.uri);
  }

  /** The keystroke path: work in proportion to the edit; anything else waits for the publish debounce. */
  private change(uri: string, changes: Parameters<TrackedDocument["applyChanges"]>[0], version: number): void {
    const tracked = this.documents.get(uri);
    if (!tracked) return;
    const wasEdited = tracked.edits.isEdited();
    tracked.applyChanges(changes, version);
    if (tracked.ctx && tracked.path && tracked.ctx.ruleFileOf(tracked.path)) this.ruleFileEdited(tracked);
    if (wasEdited !== tracked.edits.isEdited()) this.dirtyChanged = true;
    this.schedule(uri);
  }

  private close(uri: string): void {
    const tracked = this.documents.get(uri);
    this.documents.delete(uri);
    this.dirtyChanged = true;
    this.shareDirtyFiles(); // closed unsaved: no longer anyone's unsaved edits
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

  private async saved(uri: string): Promise<void> {
    const doc = this.documents.get(uri);
    if (!doc) return;
    let save: ReturnType<typeof prepareSave>;
    try {
      save = prepareSave(doc, SERVER_VERSION);
    } catch (err) {
      void this.connection.window.showErrorMessage(`intent-lsp could not record the save of ${doc.path}: ${(err as Error).message}`);
    }
    doc.rebase(); // the saved text is the new baseline, before typing can move on
    this.schedule(uri);
    const { ctx } = doc;
    if (!ctx || doc.path === undefined) return;
    if (save) {
      doc.attribute([...ctx.ledger.entriesFor(doc.path), ...save.entries]);
      try {
        await writeSave(ctx, save, () => this.pollLedger(ctx));
      } catch (err) {
        void this.connection.window.showErrorMessage(`intent-lsp could not record the save of ${save.path} in the ledger: ${(err as Error).message}`);
      }
    }
    await this.pollLedger(ctx);
    doc.attribute(ctx.ledger.entriesFor(doc.path));
    this.updateFindings(doc);
    this.dirtyChanged = true;
    this.refreshLenses();
  }

  /** Re-reads the file from disk and recomputes the whole-file findings of one open document. */
  private updateFindings(doc: TrackedDocument): void {
    const ctx = doc.ctx;
    if (!ctx || doc.path === undefined || ctx.ruleFileOf(doc.path)) return;
    doc.fileFindings = fileFindings(doc, readDisk(ctx, doc.path));
    this.schedule(doc.uri);
  }

  /** Tells other sessions which files have unsaved edits here (written off the keystroke path). */
  private shareDirtyFiles(): void {
    if (!this.dirtyChanged) return;
    this.dirtyChanged = false;
    for (const ctx of this.contexts.values()) {
      const dirty = [...this.documents.values()].filter((d) => d.ctx === ctx && d.path !== undefined && d.edits.isEdited());
      const intents = dirty.map((d) => d.verdict()).flatMap((v) => (v && (v.kind === "allowed" || v.kind === "out-of-scope") ? [v.intent.id] : []));
      ctx.setDirtyFiles(
        dirty.map((d) => d.path!),
        intents,
      );
    }
  }

  /** Reads new ledger lines; re-attributes open documents whose files they touch. */
  private async pollLedger(ctx: WorkspaceContext, first = false): Promise<void> {
    let progress: Awaited<ReturnType<Connection["window"]["createWorkDoneProgress"]>> | undefined;
    try {
      const size = first ? ledgerSize(ctx) : 0;
      if (first && this.capabilities.progress && size > PROGRESS_THRESHOLD_BYTES) {
        progress = await this.connection.window.createWorkDoneProgress();
        progress.begin("intent-lsp: indexing the trace ledger", 0, `${(size / 1048576).toFixed(1)} MiB`, false);
      }
      let lastPercent = -1;
      const result = await ctx.ledger.poll((read, total) => {
        const percent = total ? Math.floor((read / total) * 100) : 100;
        if (progress && percent !== lastPercent) progress.report(percent, `${(read / 1048576).toFixed(1)} of ${(total / 1048576).toFixed(1)} MiB`);
        lastPercent = percent;
      });
      if (!result.changed && !first) return;
      for (const doc of this.documents.values()) {
        if (doc.ctx !== ctx || doc.path === undefined) continue;
        if (result.reset || first || result.paths.has(doc.path)) {
          doc.attribute(ctx.ledger.entriesFor(doc.path));
          this.updateFindings(doc);
        }
      }
      this.publishWorkspaceFiles(ctx);
      this.refreshLenses();
    } catch (err) {
      this.connection.console.error(`intent-lsp: reading the ledger failed: ${(err as Error).message}`);
    } finally {
      progress?.done();
    }
  }

  private refreshLenses(): void {
    if (this.capabilities.codeLensRefresh) void this.connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
    if (this.capabilities.inlayHintRefresh) void this.connection.languages.inlayHint.refresh().catch(() => undefined);
  }

  /** A rule file changed in the editor: its buffer becomes the rules' source, after a pause in typing. */
  private ruleFileEdited(tracked: TrackedDocument): void {
    const ctx = tracked.ctx!;
    ctx.setOverlay(ctx.ruleFileOf(tracked.path!)!, tracked.doc.getText());
    clearTimeout(this.ruleReloads.get(ctx));
    this.ruleReloads.set(
      ctx,
      setTimeout(
        this.guard("reloading rules", () => {
          this.ruleReloads.delete(ctx);
          this.refresh(ctx);
        }),
        RULE_RELOAD_DELAY_MS,
      ),
    );
  }

  private filesChanged(uris: string[]): void {
    const touched = new Set<WorkspaceContext>();
    for (const uri of uris) {
      const fsPath = uriToPath(uri);
      const ctx = fsPath ? this.contextOf(fsPath) : undefined;
      const path = ctx && fsPath ? ctx.relativePath(fsPath) : undefined;
      if (!ctx || !path) continue;
      if (ctx.ruleFileOf(path) || isOtherSessionFile(ctx, path)) touched.add(ctx);
      else if (ctx.ledger.sources.some((s) => s.path === path)) void this.pollLedger(ctx);
      const open = this.documentAt(fsPath!);
      if (open) this.updateFindings(open);
    }
    for (const ctx of touched) this.refresh(ctx);
  }

  /** The open document of a file, whatever URI spelling its editor used (%3A, %40, …). */
  private documentAt(fsPath: string): TrackedDocument | undefined {
    for (const doc of this.documents.values()) if (doc.fsPath === fsPath) return doc;
    return undefined;
  }

  // --- diagnostics -----------------------------------------------------------------------------

  private refresh(ctx: WorkspaceContext): void {
    ctx.reload();
    this.publishWorkspaceFiles(ctx);
    for (const doc of this.documents.values()) {
      if (doc.ctx !== ctx) continue;
      this.updateFindings(doc);
      this.schedule(doc.uri);
    }
  }

  private refreshAll(): void {
    for (const ctx of this.contexts.values()) this.refresh(ctx);
  }

  private schedule(uri: string): void {
    if (this.disposed) return; // after shutdown (a save still finishing, say): nothing more is published
    clearTimeout(this.pending.get(uri));
    this.pending.set(
      uri,
      setTimeout(
        this.guard("publishing diagnostics", () => {
          this.pending.delete(uri);
          this.shareDirtyFiles();
          this.publish(uri);
        }),
        PUBLISH_DELAY_MS,
      ),
    );
  }

  private publish(uri: string): void {
    const doc = this.documents.get(uri);
    const rule = doc?.ctx && doc.path !== undefined ? doc.ctx.ruleFileOf(doc.path) : undefined;
    // A rule file typed ahead of the rules (they are re-read after a pause in typing): its problems' positions
    // are those of an older text. The reload publishes again for the version it read.
    if (rule && !doc!.ctx!.rulesReadFrom(rule, doc!.doc.getText())) return;
    const diagnostics: Diagnostic[] = [];
    if (doc) {
      diagnostics.push(...scopeDiagnostics(doc), ...doc.fileFindings);
      if (doc.ctx && doc.path !== undefined && !doc.ctx.ruleFileOf(doc.path)) diagnostics.push(...untracedChange(doc));
      const claimed = doc.ctx && doc.path !== undefined ? claimedElsewhere(doc, doc.ctx.sessions, Date.now()) : undefined;
      if (claimed) diagnostics.push(claimed);
    }
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
      const text = this.documents.get(uri)?.doc.getText() ?? readOptional(join(ctx.root, CONFIG_FILE)) ?? "";
      return configDiagnostics(rules.settings, text, rules.config.problems);
    }
    const ledger = ctx.ledger.unreadable().find((u) => u.path === path);
    if (!ledger) return [];
    // An open ledger with unsaved edits is published for its buffer's version: its own lines, not the disk's.
    const open = this.documents.get(uri);
    const unsaved = open && open.doc.getText() !== open.baseline; // (deleted lines are not "edited lines")
    const lines = unsaved ? parseLedgerLines(open.doc.getText(), 1).unreadable : ledger.lines;
    return ledgerDiagnostics(rules.settings, ledger.path, open ? lines.filter((l) => l.line <= open.doc.lineCount) : lines);
  }

  /** Diagnostics of the workspace's own files are published whether or not they are open, like a compiler's. */
  private publishWorkspaceFiles(ctx: WorkspaceContext): void {
    const uri = (rel: string) => this.documentAt(join(ctx.root, rel))?.uri ?? pathToFileURL(join(ctx.root, rel)).href;
    const problems: [string, number][] = [
      [uri(INTENTS_FILE), ctx.rules.intents.problems.length],
      [uri(CONFIG_FILE), ctx.rules.config.problems.length],
      ...ctx.ledger.unreadable().map((u): [string, number] => [uri(u.path), u.lines.length]),
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
    pollLedger: (ctx) => this.pollLedger(ctx),
    document: (uri) => this.documents.get(uri),
    now: () => new Date(),
  };

  private dispose(): void {
    this.disposed = true;
    clearInterval(this.heartbeat);
    clearInterval(this.ledgerTimer);
    this.watcher?.dispose();
    for (const t of this.pending.values()) clearTimeout(t);
    for (const t of this.ruleReloads.values()) clearTimeout(t);
    for (const ctx of this.contexts.values()) ctx.dispose();
  }
}

/** Another session's file or the workspace selection; our own heartbeats and temp files are not news. */
function isOtherSessionFile(ctx: WorkspaceContext, path: string): boolean {
  if (!path.startsWith(`${SESSIONS_DIR}/`)) return false;
  const name = path.slice(SESSIONS_DIR.length + 1);
  return !name.startsWith(".") && name !== sessionFileName(ctx.session.id);
}

/**
 * The baseline for a buffer that opens with changes nobody recorded: the file on disk, when the ledger says
 * the disk holds the last recorded content and the buffer differs from it (a restored session). Otherwise the
 * buffer itself is the baseline: a disk that differs for other reasons may be the editor's own write racing
 * the open notification, and its lines must not be taken for edits.
 */
function unrecordedBaseline(ctx: WorkspaceContext, path: string, opened: string): string | undefined {
  const disk = readDisk(ctx, path);
  if (disk === undefined || disk === opened) return undefined;
  return ctx.ledger.lastPostHash(path) === fileHash(disk) ? disk : undefined;
}

/** The file as saved, or undefined when it does not exist or cannot be read (a directory, no permission). */
function readDisk(ctx: WorkspaceContext, path: string): string | undefined {
  try {
    return readOptional(join(ctx.root, path));
  } catch {
    return undefined;
  }
}

function ledgerSize(ctx: WorkspaceContext): number {
  try {
    return statSync(ctx.ledger.file).size;
  } catch {
    return 0;
  }
}
