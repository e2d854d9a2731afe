import { pathToFileURL } from "node:url";
import {
  CodeActionKind,
  DidChangeWatchedFilesNotification,
  TextDocumentSyncKind,
  type Connection,
  type InitializeParams,
  type InitializeResult,
} from "vscode-languageserver";
import { allCommands } from "@shared/commands";
import { INTENT_LSP_VERSION } from "../version";

/** What the server offers the client in its `initialize` answer. */
export function initializeResult(): InitializeResult {
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

/** The workspace folders the client opens the server with, as URIs. */
export function workspaceFolders(params: InitializeParams): string[] {
  // Helix outside a git repository sends only the deprecated rootPath
  return params.workspaceFolders?.length
    ? params.workspaceFolders.map((f) => f.uri)
    : params.rootUri
      ? [params.rootUri]
      : params.rootPath
        ? [pathToFileURL(params.rootPath).href]
        : [];
}

/**
 * Asks the client to watch the files the server follows. The client's watcher sees the whole tree (a write by
 * someone else to any open file); ours (always on, see FileWatcher) covers clients that register none or send
 * nothing. A client refusing is not fatal.
 */
export function registerFileWatching(connection: Connection): void {
  void connection.client
    .register(DidChangeWatchedFilesNotification.type, {
      watchers: [
        { globPattern: "**/.orchestration/**" },
        { globPattern: "**/.intentignore" },
        { globPattern: "**/.agent-trace/**" },
        { globPattern: "**/*", kind: 2 },
      ],
    })
    .catch((err: unknown) =>
      connection.console.warn(`intent-lsp: the client refused file watching (${(err as Error)?.message ?? err}); using the server's own watcher`),
    );
}
