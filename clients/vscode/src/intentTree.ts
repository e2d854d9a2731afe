// The "Intents" view in the explorer: each intent with its status and scope, the files the ledger records
// under it as children, and inline actions for the lifecycle moves the server says it may make.
import * as vscode from "vscode";
import { intentContextValue, intentTreeLabel } from "./presentation";
import { errorText, type IntentRow, type ServerCommands } from "./server";

export type IntentNode = { kind: "intent"; intent: IntentRow; root: vscode.Uri } | { kind: "file"; path: string; root: vscode.Uri };

export class IntentTree implements vscode.TreeDataProvider<IntentNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<IntentNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly server: () => ServerCommands | undefined) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(node: IntentNode): vscode.TreeItem {
    if (node.kind === "file") {
      const uri = vscode.Uri.joinPath(node.root, ...node.path.split("/"));
      const item = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.None);
      item.description = node.path.includes("/") ? node.path.slice(0, node.path.lastIndexOf("/")) : "";
      item.command = { title: "Open", command: "vscode.open", arguments: [uri] };
      return item;
    }
    const { label, description, tooltip } = intentTreeLabel(node.intent);
    const item = new vscode.TreeItem(label, node.intent.files.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `${node.root.toString()}#${node.intent.id}`;
    item.description = description;
    item.tooltip = tooltip;
    item.contextValue = intentContextValue(node.intent);
    item.iconPath = new vscode.ThemeIcon(node.intent.selected ? "target" : "circle-outline");
    return item;
  }

  async getChildren(node?: IntentNode): Promise<IntentNode[]> {
    if (node) return node.kind === "intent" ? node.intent.files.map((path) => ({ kind: "file", path, root: node.root })) : [];
    const server = this.server();
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!server || !folder) return [];
    try {
      const intents = await server.listIntents(folder.uri.toString());
      return intents.map((intent) => ({ kind: "intent", intent, root: folder.uri }));
    } catch (err) {
      void vscode.window.showErrorMessage(`intent-lsp: could not list intents: ${errorText(err)}`);
      return [];
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
