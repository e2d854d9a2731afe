import {
  CodeActionRequest,
  CodeLensRequest,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidChangeWatchedFilesNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DidRenameFilesNotification,
  DidSaveTextDocumentNotification,
  ExecuteCommandRequest,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  InlayHintRequest,
  MessageType,
  ShowMessageNotification,
  ShutdownRequest,
  WillRenameFilesRequest,
  WillSaveTextDocumentWaitUntilRequest,
  type CodeAction,
  type CodeActionParams,
  type CodeLensParams,
  type Connection,
  type DidChangeConfigurationParams,
  type DidChangeTextDocumentParams,
  type DidChangeWatchedFilesParams,
  type DidCloseTextDocumentParams,
  type DidOpenTextDocumentParams,
  type DidSaveTextDocumentParams,
  type HoverParams,
  type InitializeParams,
  type InitializeResult,
  type InlayHintParams,
  type RenameFilesParams,
  type TextDocumentIdentifier,
  type WillSaveTextDocumentParams,
} from "vscode-languageserver";
import { CHANGE_ORIGIN, RENAMES_PROCESSED } from "@shared/notifications";
import { SETTINGS_SECTION } from "@shared/settings";
import { INTENTS_FILE } from "../engine/workspaceFiles";
import { INTENT_LSP_VERSION } from "../version";
import { initializeResult, registerFileWatching, workspaceFolders } from "./capabilities";
import { driftActions, lifecycleActions, savedLineFixes, scopeFixes } from "./codeActions";
import { codeLenses } from "./codeLens";
import { CommandRouter } from "./commandRouter";
import type { TrackedDocument } from "./documents";
import { EditorClient } from "./editorClient";
import { EventQueue } from "./eventQueue";
import { renameRecords } from "./fileRenames";
import { checkedParams } from "./requestParams";
import { hover } from "./hover";
import { GIT_SOURCES_TIMEOUT_MS } from "../io/gitSources";
import { inlayHints } from "./inlayHints";
import { buildParts, disposeParts, type ServerParts } from "./serverParts";
import { TextBuffer } from "./textBuffer";

/** A line's owner kinds that git's sources may still explain. */
const UNEXPLAINED = new Set(["untraced", "beforeAdoption"]);

/** How long document events wait for the client's settings before going on without them. */
const SETTINGS_WAIT_MS = 3000;

/**
 * The language server, built from a `Connection` (stdio, node-ipc or an in-process pair of streams): its
 * parts (serverParts.ts), each of which owns one concern and its state (see docs/ARCHITECTURE.md), and one
 * table of the LSP methods it handles, each served by a named method here. Handlers are thin; the rules
 * live in the engine.
 */
export class IntentServer {
  private readonly connection: Connection;
  /** Document events wait here for the client's settings; requests wait for the events before them. */
  private readonly queue = new EventQueue();

  private constructor(
    private readonly client: EditorClient,
    private readonly parts: ServerParts,
    private readonly commands: CommandRouter,
  ) {
    this.connection = client.connection;
  }

  /**
   * Builds the server in the order its pieces need each other (the client, then the parts, then the command
   * router) and registers its handlers; it serves once `listen` is called.
   */
  static async create(connection: Connection): Promise<IntentServer> {
    const client = new EditorClient(connection);
    const parts = buildParts(client);
    const server = new IntentServer(client, parts, new CommandRouter(connection, parts));
    for (const register of Object.values(server.handlers())) register();
    return server;
  }

  /**
   * The registration table: every LSP method the server handles, and the named handler that serves it.
   * Document events keep their order and wait for the client's settings (`queue.inOrder`); requests wait
   * for the events queued before them (`queue.afterQueued`); notifications are guarded (`guard`).
   */
  private handlers(): Record<string, () => void> {
    const c = this.connection;
    const guard = this.client.guard.bind(this.client);
    const inOrder = this.queue.inOrder.bind(this.queue);
    const afterQueued = this.queue.afterQueued.bind(this.queue);
    // a request whose params are malformed is answered InvalidParams before it waits or runs (requestParams.ts)
    const checked = checkedParams;
    return {
      [InitializeRequest.method]: () => c.onInitialize(this.initialize.bind(this)),
      [InitializedNotification.method]: () => c.onInitialized(guard("initialization", this.initialized.bind(this))),
      [ShutdownRequest.method]: () => c.onShutdown(this.shutdown.bind(this)),
      [DidOpenTextDocumentNotification.method]: () => c.onDidOpenTextDocument(inOrder(guard("didOpen", this.didOpen.bind(this)))),
      [DidChangeTextDocumentNotification.method]: () => c.onDidChangeTextDocument(inOrder(guard("didChange", this.didChange.bind(this)))),
      // in order with didChange: it names the change that follows it
      [CHANGE_ORIGIN]: () => c.onNotification(CHANGE_ORIGIN, inOrder(guard(CHANGE_ORIGIN, (params: unknown) => this.parts.sync.announce(params)))),
      [DidCloseTextDocumentNotification.method]: () => c.onDidCloseTextDocument(inOrder(guard("didClose", this.didClose.bind(this)))),
      [DidSaveTextDocumentNotification.method]: () => c.onDidSaveTextDocument(inOrder(guard("didSave", this.didSave.bind(this)))),
      [WillSaveTextDocumentWaitUntilRequest.method]: () =>
        c.onWillSaveTextDocumentWaitUntil(checked(WillSaveTextDocumentWaitUntilRequest.method, this.willSaveWaitUntil.bind(this))),
      [HoverRequest.method]: () => c.onHover(checked(HoverRequest.method, afterQueued(this.hover.bind(this)))),
      [CodeLensRequest.method]: () => c.onCodeLens(checked(CodeLensRequest.method, afterQueued(this.codeLens.bind(this)))),
      [InlayHintRequest.method]: () => c.languages.inlayHint.on(checked(InlayHintRequest.method, afterQueued(this.inlayHint.bind(this)))),
      [CodeActionRequest.method]: () => c.onCodeAction(checked(CodeActionRequest.method, afterQueued(this.codeActions.bind(this)))),
      [ExecuteCommandRequest.method]: () => c.onExecuteCommand(checked(ExecuteCommandRequest.method, afterQueued(this.commands.execute.bind(this.commands)))),
      // the editor's file operations: a renamed file's lines keep their authors (fileRenames.ts); nothing to edit before
      [WillRenameFilesRequest.method]: () => c.workspace.onWillRenameFiles(() => null),
      [DidRenameFilesNotification.method]: () => c.workspace.onDidRenameFiles(guard("didRenameFiles", this.didRenameFiles.bind(this))),
      [DidChangeWatchedFilesNotification.method]: () => c.onDidChangeWatchedFiles(guard("watched files", this.watchedFiles.bind(this))),
      [DidChangeConfigurationNotification.method]: () => c.onDidChangeConfiguration(guard("configuration", this.configuration.bind(this))),
    };
  }

  listen(): void {
    this.connection.listen();
  }

  private didOpen({ textDocument: t }: DidOpenTextDocumentParams): void {
    this.parts.sync.open(new TextBuffer(t.uri, t.languageId, t.version, t.text));
  }

  private didChange({ textDocument, contentChanges }: DidChangeTextDocumentParams): void {
    this.parts.sync.change(textDocument.uri, contentChanges, textDocument.version);
  }

  private didClose({ textDocument }: DidCloseTextDocumentParams): void {
    this.parts.sync.close(textDocument.uri);
  }

  private didSave({ textDocument }: DidSaveTextDocumentParams): void {
    const doc = this.parts.documents.get(textDocument.uri);
    if (doc) this.parts.saves.saved(doc);
  }

  private willSaveWaitUntil({ textDocument }: WillSaveTextDocumentParams): [] {
    const doc = this.parts.documents.get(textDocument.uri);
    if (doc) this.parts.sync.findings(doc); // warn about a write underneath us; never hold up the save itself
    return [];
  }

  /** The open document a request names; `absent` when it is not open. */
  private withDocument<R>(textDocument: TextDocumentIdentifier, absent: R, fn: (doc: TrackedDocument) => R): R {
    const doc = this.parts.documents.get(textDocument.uri);
    return doc ? fn(doc) : absent;
  }

  /**
   * Git's answer for the document's path at the current HEAD, when it is being asked (io/gitSources.ts
   * `settled`, bounded by one git call's time): what a line's owner shows waits for what `intent blame`
   * reads. Only where the records leave some line (`line`, or any) unexplained: git adds owners to no other
   * line (docs/LEDGER.md "What decides a line's owner"). Undefined when there is nothing to wait for, so
   * that the request is answered at once.
   */
  private gitSettled(textDocument: TextDocumentIdentifier, line?: number): Promise<void> | undefined {
    const doc = this.parts.documents.get(textDocument.uri);
    if (!doc?.ctx || !doc.path) return undefined;
    if (line === undefined ? !doc.recordsLeaveLines : line >= doc.doc.lineCount || !UNEXPLAINED.has(doc.owner(line).kind)) return undefined;
    return doc.ctx.gitSources.settled(doc.path, GIT_SOURCES_TIMEOUT_MS);
  }

  /** `answer()` once git's pending answer for the document is in (`gitSettled`), or at once. */
  private afterGit<R>(textDocument: TextDocumentIdentifier, line: number | undefined, answer: () => R): R | Promise<R> {
    const waiting = this.gitSettled(textDocument, line);
    return waiting ? waiting.then(answer) : answer();
  }

  private hover({ textDocument, position }: HoverParams) {
    return this.afterGit(textDocument, position.line, () =>
      this.withDocument(textDocument, null, (doc) => hover(doc, position, Date.now(), this.client.caps()?.markdownHover ?? true)),
    );
  }

  private codeLens({ textDocument }: CodeLensParams) {
    return this.afterGit(textDocument, undefined, () =>
      this.withDocument(textDocument, [], (doc) => codeLenses(doc, Date.now(), (ctx, intent) => this.parts.criteria.lens(ctx, intent, Date.now()))),
    );
  }

  private inlayHint({ textDocument, range }: InlayHintParams) {
    return this.afterGit(textDocument, undefined, () => this.withDocument(textDocument, [], (doc) => inlayHints(doc, range, Date.now())));
  }

  private codeActions({ textDocument, range, context }: CodeActionParams): CodeAction[] {
    return this.withDocument(textDocument, [], (doc) => {
      if (doc.ctx && doc.path === INTENTS_FILE)
        return [...lifecycleActions(doc.ctx.rules.catalogue.intents, doc.doc.offsetAt(range.start)), ...driftActions(doc.uri, context.diagnostics)];
      return [...savedLineFixes(doc, context.diagnostics), ...scopeFixes(doc, range, context.diagnostics)];
    });
  }

  private async didRenameFiles({ files }: RenameFilesParams): Promise<void> {
    await this.queue.ready;
    const { workspaces, saves, documents, publisher } = this.parts;
    const renames = renameRecords(workspaces, files, INTENT_LSP_VERSION);
    const written = await Promise.all(renames.map(({ ctx, save }) => saves.recordOther(ctx, save)));
    const recordIds = renames.filter((_, i) => written[i]).map((r) => r.save.record!.id);
    // the document open under the new name: our own record now explains its content (who moved it)
    for (const f of files) {
      const doc = documents.get(f.newUri);
      if (doc?.ctx && written.some((w, i) => w && renames[i]!.save.path === doc.path)) {
        doc.ledgerChanged(doc.ledgerEntries(), true);
        publisher.schedule(doc.uri);
      }
    }
    void this.connection.sendNotification(RENAMES_PROCESSED, { files: files.map((f) => ({ oldUri: f.oldUri, newUri: f.newUri })), recordIds });
  }

  private watchedFiles({ changes }: DidChangeWatchedFilesParams): void {
    this.parts.sync.filesChanged(changes.map((c) => c.uri));
  }

  private async configuration(p: DidChangeConfigurationParams): Promise<void> {
    await this.parts.settings.changed(p.settings);
    this.parts.sync.refreshAll();
  }

  private shutdown(): void {
    const kept = this.parts.saves.shutdownMessage(this.parts.workspaces.all());
    if (kept) {
      void this.connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message: kept });
      this.connection.console.warn(kept);
    }
    disposeParts(this.parts);
  }

  private initialize(params: InitializeParams): InitializeResult {
    this.parts.workspaces.clientName = params.clientInfo?.name ?? "unknown editor";
    for (const uri of workspaceFolders(params)) this.parts.workspaces.add(uri);
    // each saved index loads while the client answers (initialized, settings, progress), once this answer is out
    setImmediate(() => {
      for (const ctx of this.parts.workspaces.all()) void ctx.ledger.loadSaved();
    });
    const caps = this.client.initialize(params);
    if (!caps.configuration) this.parts.settings.apply(params.initializationOptions?.[SETTINGS_SECTION] ?? params.initializationOptions);
    return initializeResult();
  }

  private async initialized(): Promise<void> {
    const caps = this.client.caps()!;
    if (caps.workspaceFolders) {
      this.connection.workspace.onDidChangeWorkspaceFolders(
        this.client.guard("workspace folders", (e) => {
          for (const f of e.removed) this.parts.workspaces.remove(f.uri);
          for (const f of e.added) this.parts.workspaces.add(f.uri);
          this.parts.sync.refreshAll();
        }),
      );
    }
    if (caps.watchedFiles) registerFileWatching(this.connection);
    try {
      if (caps.configuration) {
        if (caps.configurationRegistration) {
          void this.connection.client.register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION }).catch(() => undefined);
        }
        await this.parts.settings.pullWithin(SETTINGS_WAIT_MS);
      }
    } finally {
      this.parts.sync.refreshAll(); // the rules with the client's settings, before any queued save is recorded
      this.queue.drain();
    }
    this.parts.sessions.start();
    await Promise.all(this.parts.workspaces.all().map((ctx) => this.parts.ledgers.poll(ctx, true)));
    this.parts.saves.flush(this.parts.workspaces.all()); // records an earlier server kept for the ledger
    this.parts.ledgers.start(
      () => this.parts.workspaces.all(),
      () => this.parts.saves.flush(this.parts.workspaces.all()),
    );
  }
}
