// Gathers what VS Code tells about each change (changeOrigin.ts decides) and, for a change that is not the
// person's typing, tells the server just before the change itself is sent (`intent/changeOrigin`). Both go
// through the same client, one after the other in the same tick, so the server reads them in that order.
import * as vscode from "vscode";
import type { ChangeOriginParams } from "@shared/notifications";
import { untypedReason } from "./changeOrigin";

/**
 * VS Code's paste-edit provider API (finalized in 1.97): called with the pasted data before a paste lands.
 * Looked up at run time, so the extension still runs on the older VS Code its manifest allows (there, a
 * paste of more than a keystroke is recorded as not typed: never the person's by mistake, at worst unknown).
 */
interface PasteApi {
  registerDocumentPasteEditProvider(
    selector: vscode.DocumentSelector,
    provider: { provideDocumentPasteEdits(document: vscode.TextDocument, ranges: readonly vscode.Range[], data: vscode.DataTransfer): Promise<undefined> },
    metadata: { providedPasteEditKinds: readonly unknown[]; pasteMimeTypes: readonly string[] },
  ): vscode.Disposable;
}

interface PasteKinds {
  DocumentDropOrPasteEditKind?: { Empty: { append(...parts: string[]): unknown } };
}

export class ChangeWatch implements vscode.Disposable {
  /** What the person pasted into a document, by uri, until the change it makes arrives. */
  private readonly pasted = new Map<string, string>();
  /** Documents being saved: what changes them now (format and code actions on save) reformats, it does not author. */
  private readonly saving = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly send: (params: ChangeOriginParams) => void) {
    this.disposables.push(
      vscode.workspace.onWillSaveTextDocument((e) => this.saving.add(e.document.uri.toString())),
      vscode.workspace.onDidSaveTextDocument((d) => this.saving.delete(d.uri.toString())),
      vscode.workspace.onDidCloseTextDocument((d) => {
        this.saving.delete(d.uri.toString());
        this.pasted.delete(d.uri.toString());
      }),
    );
    const api = vscode.languages as unknown as Partial<PasteApi>;
    const kinds = (vscode as unknown as PasteKinds).DocumentDropOrPasteEditKind;
    if (typeof api.registerDocumentPasteEditProvider === "function" && kinds) {
      this.disposables.push(
        api.registerDocumentPasteEditProvider(
          { scheme: "file" },
          {
            provideDocumentPasteEdits: async (document, _ranges, data) => {
              const text = await data.get("text/plain")?.asString();
              if (text) this.pasted.set(document.uri.toString(), text);
              return undefined; // VS Code pastes as it always does
            },
          },
          { providedPasteEditKinds: [kinds.Empty.append("intentLsp", "observe")], pasteMimeTypes: ["text/plain"] },
        ),
      );
    }
  }

  /** Called for every change before the language client sends it (its didChange middleware). */
  before(event: vscode.TextDocumentChangeEvent, uri: string): void {
    if (event.contentChanges.length === 0) return;
    const key = event.document.uri.toString();
    const pasted = this.pasted.get(key);
    this.pasted.delete(key); // a paste explains the change it makes, and no later one
    const reason = untypedReason({
      focused: vscode.window.state.focused && vscode.window.activeTextEditor?.document === event.document,
      undoRedo: event.reason !== undefined,
      saving: this.saving.has(key),
      changes: event.contentChanges.map((c) => ({ text: c.text, rangeLength: c.rangeLength, singleLine: c.range.isSingleLine })),
      ...(pasted !== undefined ? { pasted } : {}),
    });
    if (reason) this.send({ uri, version: event.document.version, reason });
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
