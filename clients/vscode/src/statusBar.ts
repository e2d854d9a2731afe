// The status-bar item: which intent an edit to the current file counts under, and how it was chosen. The
// server decides (intent.activeIntent); this only shows its answer.
import * as vscode from "vscode";
import { statusText } from "./presentation";
import { errorText, type ServerCommands } from "./server";

export const SELECT_COMMAND = "intentLsp.selectIntent";

export class IntentStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("intentLsp.status", vscode.StatusBarAlignment.Left, 0);
  private asked = 0;

  constructor(
    private readonly server: () => ServerCommands | undefined,
    private readonly uriOf: (uri: vscode.Uri) => string,
  ) {
    this.item.name = "Intent LSP: active intent";
    this.item.command = SELECT_COMMAND;
    this.item.text = "$(sync~spin) intent-lsp";
    this.item.show();
  }

  /** Asks the server for the current file; an answer that arrives after a newer question is dropped. */
  async update(): Promise<void> {
    const server = this.server();
    if (!server) return;
    const ask = ++this.asked;
    const doc = vscode.window.activeTextEditor?.document;
    const uri = doc && doc.uri.scheme === "file" ? this.uriOf(doc.uri) : undefined;
    try {
      const answer = await server.activeIntent(uri);
      if (ask !== this.asked) return;
      const { text, tooltip, warn } = statusText(answer);
      this.item.text = text;
      this.item.tooltip = tooltip;
      this.item.backgroundColor = warn ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
    } catch (err) {
      if (ask !== this.asked) return;
      this.item.text = "$(error) intent-lsp";
      this.item.tooltip = `intent-lsp could not answer: ${errorText(err)}`;
    }
  }

  stopped(reason: string): void {
    this.item.text = "$(error) intent-lsp";
    this.item.tooltip = reason;
    this.item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
  }

  dispose(): void {
    this.item.dispose();
  }
}
