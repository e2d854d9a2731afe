import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { findIntentsRoot } from "../io/workspaceRoot";
import { uriToPath } from "./documents";
import type { FileWatcher } from "../io/watcher";
import { realRootOf } from "../io/realPath";
import { WorkspaceContext } from "./workspaceContext";

/** The workspace folders the client opened (and those adopted for files outside them), one context each. */
export class Workspaces {
  private readonly byRoot = new Map<string, WorkspaceContext>();
  /** The client's name, for session files. */
  clientName = "unknown editor";

  constructor(
    private readonly watcher: FileWatcher,
    /** A folder was added: announce its session, read its ledger. */
    private readonly added: (ctx: WorkspaceContext) => void = () => undefined,
    /** A problem the user should see in the log (a rule file that cannot be read). */
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  add(uri: string): WorkspaceContext | undefined {
    const root = uriToPath(uri);
    if (!root) return undefined;
    const known = this.byRoot.get(root);
    if (known) return known;
    // the same folder under another spelling (a symlinked path): one workspace, one session, never a claim against itself
    const real = realRootOf(root);
    for (const ctx of this.byRoot.values()) if (ctx.realRoot === real) return ctx;
    const ctx = new WorkspaceContext(root, this.clientName, this.warn);
    this.byRoot.set(root, ctx);
    this.watcher.watch(root, ctx.rules.settings.ledgerPath);
    this.added(ctx);
    return ctx;
  }

  remove(uri: string): void {
    const root = uriToPath(uri);
    const ctx = root ? this.byRoot.get(root) : undefined;
    if (!ctx || !root) return;
    ctx.dispose();
    this.watcher.unwatch(root, ctx.rules.settings.ledgerPath);
    this.byRoot.delete(root);
  }

  all(): WorkspaceContext[] {
    return [...this.byRoot.values()];
  }

  any(): WorkspaceContext | undefined {
    return this.byRoot.values().next().value;
  }

  /** The innermost workspace folder holding a file. */
  of(fsPath: string): WorkspaceContext | undefined {
    let best: WorkspaceContext | undefined;
    for (const ctx of this.byRoot.values()) {
      if (ctx.relativePath(fsPath) !== undefined && (!best || ctx.realRoot.length > best.realRoot.length)) best = ctx;
    }
    return best;
  }

  /**
   * The workspace of a file being opened: its folder's, or (for a file outside every folder, or an editor
   * that sent none) the intents workspace above it, adopted as a folder of its own.
   */
  forFile(fsPath: string): WorkspaceContext | undefined {
    const ctx = this.of(fsPath);
    if (ctx) return ctx;
    const root = findIntentsRoot(dirname(fsPath));
    return root ? this.add(pathToFileURL(root).href) : undefined;
  }

  dispose(): void {
    for (const ctx of this.byRoot.values()) ctx.dispose();
  }
}
