// "Intent: Revert an Intent's Work…": the server's intent.revert (what `intent revert --intent ID` computes)
// shown as a read-only patch, confirmed by the person, then written by the server. Every line is the
// server's decision; this module only shows it and asks.
import * as vscode from "vscode";
import type { RevertResult } from "@shared/commands";
import { revertCounts, revertPreview } from "./presentation";
import type { ServerCommands } from "./server";

export const REVERT_COMMAND = "intentLsp.revertIntent";
const SCHEME = "intent-revert";

/**
 * The previews, as read-only documents (a content provider's): a preview is the server's answer, not a file
 * to edit or to be asked to save on close.
 */
export class RevertPreviews implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, this);

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }

  async show(id: string, result: RevertResult): Promise<void> {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${id.replace(/[/\\]/g, "_")}.diff` });
    this.texts.set(uri.toString(), revertPreview(id, result));
    this.changed.fire(uri); // an open preview of an earlier run shows this one
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== "diff") doc = await vscode.languages.setTextDocumentLanguage(doc, "diff");
    await vscode.window.showTextDocument(doc, { preview: false });
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}

/** Shows what reverting `id`'s work would do, and does it once the person confirms. */
export async function revertIntent(server: ServerCommands, previews: RevertPreviews, id: string, uri: string | undefined): Promise<void> {
  const planned = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `intent-lsp: finding ${id}'s lines…` }, () =>
    server.revert(id, false, uri),
  );
  if (planned.leftAlone.length || planned.notes.length || planned.patch) await previews.show(id, planned);
  if (!planned.patch) {
    void vscode.window.showInformationMessage(
      `intent-lsp: nothing of ${id}'s work to take back: no line of it survives as it was written (${revertCounts(planned)}).`,
    );
    return;
  }
  const answer = await vscode.window.showWarningMessage(
    `Revert ${id}'s work? ${revertCounts(planned)}.`,
    {
      modal: true,
      detail: `Writes ${planned.reverted.map((f) => f.path).join(", ")} as the patch shows. Nothing is appended to the ledger: your next save records the change as yours.`,
    },
    "Revert",
  );
  if (answer !== "Revert") return;
  const applied = await server.revert(id, true, uri);
  await previews.show(id, applied);
  // the files may have changed between the preview and the write: then the patch written is the one now shown
  const moved = applied.patch === planned.patch ? "" : " The files had changed since the preview; it now shows the patch written.";
  void vscode.window.showInformationMessage(`intent-lsp: reverted ${id}'s work: ${revertCounts(applied)}.${moved}`);
}
