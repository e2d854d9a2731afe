import type { TrackedDocument } from "./documents";
import type { WorkspaceContext } from "./workspaceContext";

/**
 * The open documents, by URI and by file path: editors spell one file's URI in several ways (`%3A`, `%40`,
 * a drive letter's case), and file events arrive by path.
 */
export class OpenDocuments {
  private readonly byUri = new Map<string, TrackedDocument>();
  private readonly byPath = new Map<string, TrackedDocument>();

  get(uri: string): TrackedDocument | undefined {
    return this.byUri.get(uri);
  }

  /** The open document of a file, whatever URI spelling its editor used. */
  at(fsPath: string): TrackedDocument | undefined {
    return this.byPath.get(fsPath);
  }

  add(doc: TrackedDocument): void {
    this.byUri.set(doc.uri, doc);
    if (doc.fsPath) this.byPath.set(doc.fsPath, doc);
  }

  /** Forgets a document; the one removed, if it was open. */
  remove(uri: string): TrackedDocument | undefined {
    const doc = this.byUri.get(uri);
    if (!doc) return undefined;
    this.byUri.delete(uri);
    if (doc.fsPath && this.byPath.get(doc.fsPath) === doc) {
      this.byPath.delete(doc.fsPath);
      // another spelling of the same file may still be open
      for (const other of this.byUri.values()) if (other.fsPath === doc.fsPath) this.byPath.set(doc.fsPath, other);
    }
    return doc;
  }

  all(): IterableIterator<TrackedDocument> {
    return this.byUri.values();
  }

  /** The documents of one workspace that are files inside it. */
  *inWorkspace(ctx: WorkspaceContext): Generator<TrackedDocument & { path: string }> {
    for (const doc of this.byUri.values()) if (doc.ctx === ctx && doc.path !== undefined) yield doc as TrackedDocument & { path: string };
  }
}
