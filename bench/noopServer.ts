/**
 * The keystroke baseline: a language server that does nothing but what every server must, keep the text in
 * sync (incremental) and publish diagnostics (none) after the same 40 ms typing pause intent-lsp waits. What
 * intent-lsp adds on top of this is its own cost. It also answers every hover at once with the same text (of
 * a hover's usual length): the floor of a hover's round trip over stdio on the machine, beside the hover row.
 */
import { createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind } from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";

const PUBLISH_DELAY_MS = 40;
const HOVER = `**Intent** INT-001 · AI (anthropic/claude-sonnet-4-5) · trace \`00000000\`\n\n${"written under the intent's scope; ".repeat(6)}`;

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
const pending = new Map<string, NodeJS.Timeout>();

connection.onInitialize(() => ({ capabilities: { textDocumentSync: TextDocumentSyncKind.Incremental, hoverProvider: true } }));
connection.onHover(() => ({ contents: { kind: "markdown", value: HOVER } }));
documents.onDidChangeContent(({ document }) => {
  clearTimeout(pending.get(document.uri));
  pending.set(
    document.uri,
    setTimeout(() => {
      pending.delete(document.uri);
      void connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics: [] });
    }, PUBLISH_DELAY_MS),
  );
});
documents.listen(connection);
connection.listen();
