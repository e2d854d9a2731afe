import { CriteriaRunner } from "./criteria";
import type { WorkspaceContext } from "./workspaceContext";
import { IntentHealth } from "./intentHealth";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  CodeActionKind,
  CodeLensRefreshRequest,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  ErrorCodes,
  MessageType,
  ResponseError,
  ShowMessageNotification,
  TextDocumentSyncKind,
  type CodeAction,
  type CodeActionParams,
  type Connection,
  type InitializeParams,
  type InitializeResult,
} from "vscode-languageserver";
import { allCommands } from "@shared/commands";
import { RENAMES_PROCESSED, SAVE_PROCESSED } from "@shared/notifications";
import { renameRecords } from "./fileRenames";
import { SETTINGS_SECTION } from "@shared/settings";
import { INTENTS_FILE } from "../engine/workspaceFiles";
import { readOptional } from "../io/optionalFile";
import { clientCapabilities, ClientSettings, type ClientCapabilities } from "./clientSettings";
import { lifecycleActions, savedLineFixes, scopeFixes, driftActions } from "./codeActions";
import { codeLenses } from "./codeLens";
import { commandAnswer } from "./commandAnswers";
import { commandHandlers, normalizeArgs, type CommandHost } from "./commands";
import { uriToPath } from "./documents";
import { DocumentSync } from "./documentSync";
import { hover } from "./hover";
import { inlayHints } from "./inlayHints";
import { ledgerCommands } from "./ledgerCommands";
import { LedgerSync } from "./ledgerSync";
import { OpenDocuments } from "./openDocuments";
import { DiagnosticsPublisher } from "./publisher";
import { SaveHandler } from "./save";
import { SessionSync } from "./sessionSync";
import { TextBuffer } from "./textBuffer";
import { FileWatcher } from "../io/watcher";
import { Workspaces } from "./workspaces";
import { INTENT_LSP_VERSION } from "../version";

/** How long document events wait for the client's settings before going on without them. */
const SETTINGS_WAIT_MS = 3000;

/**
 * The language server, built from a `Connection` (stdio, node-ipc or an in-process pair of streams): the
 * wiring of the parts, each of which owns one concern and its state (see docs/ARCHITECTURE.md). Handlers
 * are thin; the rules live in the engine.
 */
export class IntentServer {
  private caps: ClientCapabilities | undefined;
  private readonly watcher: FileWatcher;
  private readonly workspaces: Workspaces;
  private readonly documents = new OpenDocuments();
  private readonly sessions: SessionSync;
  private readonly publisher: DiagnosticsPublisher;
  private readonly ledgers: LedgerSync;
  private readonly sync: DocumentSync;
  private readonly saves: SaveHandler;
  private readonly settings: ClientSettings;
  private readonly criteria: CriteriaRunner;
  private readonly health: IntentHealth;
  /** Document events that arrived before the client's settings (see `inOrder`); undefined once they are in. */
  private queued: (() => void)[] | undefined = [];
  private markReady: () => void = () => undefined;
  /** Resolves once queued document events have been handled. */
  private readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));

  constructor(private readonly connection: Connection) {
    const guard = this.guard.bind(this);
    this.watcher = new FileWatcher(guard("file watcher", (paths: string[]) => this.sync.filesChanged(paths.map((p) => pathToFileURL(p).href))));
    this.workspaces = new Workspaces(
      this.watcher,
      (ctx) => {
        this.sessions.announce(ctx);
        // git named earlier paths of a file: its open document is attributed again, as on news from the ledger
        ctx.gitSources.onLearnt = (path) => this.sync.ledgerChanged(ctx, new Set([path]), false, false);
      },
      (message) => this.connection.console.warn(message),
    );
    this.sessions = new SessionSync(this.workspaces, this.documents, guard);
    this.criteria = new CriteriaRunner(connection, (ctx) => this.criteriaChanged(ctx));
    this.health = new IntentHealth(
      this.criteria,
      (ctx) => this.publisher.intentsFile(ctx),
      (message) => connection.console.warn(message),
    );
    this.publisher = new DiagnosticsPublisher(
      connection,
      this.documents,
      this.workspaces,
      () => this.sessions.share(),
      guard,
      (ctx) => this.sync.refresh(ctx),
      (ctx, text) => {
        this.health.ensure(ctx);
        return this.health.diagnostics(ctx, text);
      },
    );
    this.ledgers = new LedgerSync(
      connection,
      () => !!this.caps?.progress,
      (ctx, r, first) => {
        this.sync.ledgerChanged(ctx, r.paths, r.reset, first);
        this.health.update(ctx);
      },
    );
    this.sync = new DocumentSync(this.documents, this.workspaces, this.publisher, this.ledgers, this.sessions, this.watcher, () => this.refreshLenses(), guard);
    this.settings = new ClientSettings(connection, this.workspaces, () => this.caps!);
    this.saves = new SaveHandler(
      {
        poll: (ctx) => this.ledgers.poll(ctx),
        schedule: (uri) => this.publisher.schedule(uri),
        settled: (doc) => {
          this.sessions.markDue();
          this.refreshLenses();
          return this.sync.findings(doc);
        },
        processed: (params) => void connection.sendNotification(SAVE_PROCESSED, params),
        blockSources: (doc) => {
          if (!doc.ctx) return [];
          const out = [];
          for (const other of this.documents.inWorkspace(doc.ctx)) if (other !== doc && other.path !== doc.path) out.push(...other.blockSources());
          return out;
        },
        error: (message) => this.tellError(message),
        log: (message) => connection.console.info(message),
      },
      INTENT_LSP_VERSION,
    );

    connection.onInitialize((p) => this.initialize(p));
    connection.onInitialized(guard("initialization", () => this.initialized()));
    connection.onShutdown(() => {
      const kept = this.saves.shutdownMessage(this.workspaces.all());
      if (kept) {
        void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message: kept });
        connection.console.warn(kept);
      }
      this.dispose();
    });
    connection.onDidOpenTextDocument(
      this.inOrder(guard("didOpen", ({ textDocument: t }) => this.sync.open(new TextBuffer(t.uri, t.languageId, t.version, t.text)))),
    );
    connection.onDidChangeTextDocument(
      this.inOrder(guard("didChange", ({ textDocument, contentChanges }) => this.sync.change(textDocument.uri, contentChanges, textDocument.version))),
    );
    connection.onDidCloseTextDocument(this.inOrder(guard("didClose", ({ textDocument }) => this.sync.close(textDocument.uri))));
    connection.onDidSaveTextDocument(
      this.inOrder(
        guard("didSave", ({ textDocument }) => {
          const doc = this.documents.get(textDocument.uri);
          if (doc) this.saves.saved(doc);
        }),
      ),
    );
    connection.onWillSaveTextDocumentWaitUntil(({ textDocument }) => {
      const doc = this.documents.get(textDocument.uri);
      if (doc) this.sync.findings(doc); // warn about a write underneath us; never hold up the save itself
      return [];
    });
    // requests wait for document events queued before them (see `inOrder`): a hover after a didOpen sees the document
    connection.onHover(async ({ textDocument, position }) => {
      await this.ready;
      const doc = this.documents.get(textDocument.uri);
      return doc ? hover(doc, position, Date.now(), this.caps?.markdownHover ?? true) : null;
    });
    connection.onCodeLens(async ({ textDocument }) => {
      await this.ready;
      const doc = this.documents.get(textDocument.uri);
      return doc ? codeLenses(doc, Date.now(), (ctx, intent) => this.criteria.lens(ctx, intent, Date.now())) : [];
    });
    connection.languages.inlayHint.on(async ({ textDocument, range }) => {
      await this.ready;
      const doc = this.documents.get(textDocument.uri);
      return doc ? inlayHints(doc, range, Date.now()) : [];
    });
    connection.onCodeAction(async (p) => {
      await this.ready;
      return this.codeActions(p);
    });
    connection.onExecuteCommand(async ({ command, arguments: args }) => {
      await this.ready;
      const handler = commandHandlers[command] ?? ledgerCommands[command];
      if (!handler) throw new ResponseError(ErrorCodes.MethodNotFound, `Unknown command ${command}.`);
      const params = normalizeArgs(args);
      // the person who ran the command sees its answer, whatever the client does with the return value
      const tell = (type: MessageType, message: string) => {
        if (params.quiet !== true) void connection.sendNotification(ShowMessageNotification.type, { type, message });
      };
      try {
        const result = await handler(this.commandHost, params);
        tell(MessageType.Info, commandAnswer(command, result));
        return result;
      } catch (err) {
        tell(MessageType.Error, `intent-lsp: ${command} failed: ${err instanceof Error ? err.message : String(err)}`);
        throw err;
      }
    });
    // the editor's file operations: a renamed file's lines keep their authors (fileRenames.ts); nothing to edit before
    connection.workspace.onWillRenameFiles(() => null);
    connection.workspace.onDidRenameFiles(
      guard("didRenameFiles", async ({ files }) => {
        await this.ready;
        const renames = renameRecords(this.workspaces, files, INTENT_LSP_VERSION);
        const written = await Promise.all(renames.map(({ ctx, save }) => this.saves.recordOther(ctx, save)));
        const recordIds = renames.filter((_, i) => written[i]).map((r) => r.save.record!.id);
        // the document open under the new name: our own record now explains its content (who moved it)
        for (const f of files) {
          const doc = this.documents.get(f.newUri);
          if (doc?.ctx && written.some((w, i) => w && renames[i]!.save.path === doc.path)) {
            doc.ledgerChanged(doc.ledgerEntries(), true);
            this.publisher.schedule(doc.uri);
          }
        }
        void connection.sendNotification(RENAMES_PROCESSED, { files: files.map((f) => ({ oldUri: f.oldUri, newUri: f.newUri })), recordIds });
      }),
    );
    connection.onDidChangeWatchedFiles(guard("watched files", ({ changes }) => this.sync.filesChanged(changes.map((c) => c.uri))));
    connection.onDidChangeConfiguration(
      guard("configuration", async (p) => {
        await this.settings.changed(p.settings);
        this.sync.refreshAll();
      }),
    );
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
      const fail = (err: unknown) =>
        this.connection.console.error(`intent-lsp: ${what} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      try {
        const r = fn(...args);
        if (r instanceof Promise) r.catch(fail);
      } catch (err) {
        fail(err);
      }
    };
  }

  /**
   * Document events wait for the client's settings: a save recorded before they arrive would name the
   * default contributor, and a wrong record is wrong forever. Settings come in the first milliseconds;
   * the ledger's first read is not waited for.
   */
  private inOrder<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
    return (...args) => {
      if (this.queued) this.queued.push(() => fn(...args));
      else fn(...args);
    };
  }

  private drainQueued(): void {
    const queued = this.queued ?? [];
    this.queued = undefined;
    for (const event of queued) event();
    this.markReady();
  }

  private initialize(params: InitializeParams): InitializeResult {
    this.workspaces.clientName = params.clientInfo?.name ?? "unknown editor";
    // Helix outside a git repository sends only the deprecated rootPath
    const folders = params.workspaceFolders?.length
      ? params.workspaceFolders.map((f) => f.uri)
      : params.rootUri
        ? [params.rootUri]
        : params.rootPath
          ? [pathToFileURL(params.rootPath).href]
          : [];
    for (const uri of folders) this.workspaces.add(uri);
    this.caps = clientCapabilities(params);
    if (!this.caps.configuration) this.settings.apply(params.initializationOptions?.[SETTINGS_SECTION] ?? params.initializationOptions);
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, willSave: true, willSaveWaitUntil: true, save: { includeText: false } },
        hoverProvider: true,
        codeLensProvider: { resolveProvider: false },
        inlayHintProvider: { resolveProvider: false },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.RefactorRewrite] },
        executeCommandProvider: { commands: allCommands },
        workspace: {
          workspaceFolders: { supported: true, changeNotifications: true },
          fileOperations: { willRename: { filters: [{ pattern: { glob: "**/*" } }] }, didRename: { filters: [{ pattern: { glob: "**/*" } }] } },
        },
      },
      serverInfo: { name: "intent-lsp", version: INTENT_LSP_VERSION },
    };
  }

  private async initialized(): Promise<void> {
    const caps = this.caps!;
    if (caps.workspaceFolders) {
      this.connection.workspace.onDidChangeWorkspaceFolders(
        this.guard("workspace folders", (e) => {
          for (const f of e.removed) this.workspaces.remove(f.uri);
          for (const f of e.added) this.workspaces.add(f.uri);
          this.sync.refreshAll();
        }),
      );
    }
    if (caps.watchedFiles) {
      // The client's watcher sees the whole tree (a write by someone else to any open file); ours (always on,
      // see FileWatcher) covers clients that register none or send nothing. A client refusing is not fatal.
      void this.connection.client
        .register(DidChangeWatchedFilesNotification.type, {
          watchers: [
            { globPattern: "**/.orchestration/**" },
            { globPattern: "**/.intentignore" },
            { globPattern: "**/.agent-trace/**" },
            { globPattern: "**/*", kind: 2 },
          ],
        })
        .catch((err: unknown) =>
          this.connection.console.warn(`intent-lsp: the client refused file watching (${(err as Error)?.message ?? err}); using the server's own watcher`),
        );
    }
    try {
      if (caps.configuration) {
        if (caps.configurationRegistration) {
          void this.connection.client.register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION }).catch(() => undefined);
        }
        await this.settings.pullWithin(SETTINGS_WAIT_MS);
      }
    } finally {
      this.sync.refreshAll(); // the rules with the client's settings, before any queued save is recorded
      this.drainQueued();
    }
    this.sessions.start();
    await Promise.all(this.workspaces.all().map((ctx) => this.ledgers.poll(ctx, true)));
    this.saves.flush(this.workspaces.all()); // records an earlier server kept for the ledger
    this.ledgers.start(
      () => this.workspaces.all(),
      () => this.saves.flush(this.workspaces.all()),
    );
  }

  private refreshLenses(): void {
    if (this.caps?.codeLensRefresh) void this.connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
    if (this.caps?.inlayHintRefresh) void this.connection.languages.inlayHint.refresh().catch(() => undefined);
  }

  /**
   * An error the user must see. `window/showMessage` (a notification) rather than the request form: every
   * client shows it, and nothing waits for an answer.
   */
  private tellError(message: string): void {
    void this.connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Error, message });
    this.connection.console.error(message);
  }

  private codeActions({ textDocument, range, context }: CodeActionParams): CodeAction[] {
    const doc = this.documents.get(textDocument.uri);
    if (!doc) return [];
    if (doc.ctx && doc.path === INTENTS_FILE)
      return [...lifecycleActions(doc.ctx.rules.catalogue.intents, doc.doc.offsetAt(range.start)), ...driftActions(doc.uri, context.diagnostics)];
    return [...savedLineFixes(doc, context.diagnostics), ...scopeFixes(doc, range, context.diagnostics)];
  }

  private readonly commandHost: CommandHost = {
    context: (args) => {
      const uri = typeof args.uri === "string" ? args.uri : undefined;
      const fsPath = uri ? uriToPath(uri) : undefined;
      const ctx = (fsPath && this.workspaces.of(fsPath)) || this.workspaces.any();
      if (!ctx) throw new ResponseError(ErrorCodes.InvalidRequest, "No workspace folder is open; open the folder that holds .orchestration/.");
      return ctx;
    },
    hasUnsavedIntents: (ctx) => {
      const doc = this.documents.at(join(ctx.root, INTENTS_FILE));
      return !!doc && doc.doc.getText() !== readOptional(join(ctx.root, INTENTS_FILE));
    },
    refresh: (ctx) => this.sync.refresh(ctx),
    pollLedger: (ctx) => this.ledgers.poll(ctx),
    document: (uri) => this.documents.get(uri),
    verify: (ctx, intent) => this.criteria.verifyForCompletion(ctx, intent),
    runCriteria: (ctx, intent) => this.criteria.runCommands(ctx, intent).then((r) => r.result),
    driftOf: (ctx, id) => this.health.driftOf(ctx, id),
    warn: (message) => this.criteria.warn(message),
    now: () => new Date(),
  };

  /** A criteria run started or ended: the CodeLens titles and the failing criteria's diagnostics follow. */
  private criteriaChanged(ctx: WorkspaceContext): void {
    this.refreshLenses();
    this.publisher.intentsFile(ctx);
  }

  private dispose(): void {
    this.sessions.dispose();
    this.ledgers.dispose();
    this.watcher.dispose();
    this.publisher.dispose();
    this.sync.dispose();
    this.workspaces.dispose();
  }
}
