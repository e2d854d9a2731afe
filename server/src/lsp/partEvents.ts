import type { WorkspaceContext } from "./workspaceContext";

/** One kind of call between parts: the part that speaks emits it, the parts that listen subscribe. */
export class PartEvent<A extends unknown[]> {
  private readonly listeners: ((...args: A) => void)[] = [];

  on(listener: (...args: A) => void): void {
    this.listeners.push(listener);
  }

  /** Calls every listener in the order they subscribed; an error reaches the part that emitted. */
  emit(...args: A): void {
    for (const listener of this.listeners) listener(...args);
  }
}

/**
 * The calls between parts that need each other both ways (the document sync is built with the watcher,
 * the ledger reader and the publisher, and each of them has news for it). Created before any part: a part
 * that speaks is given this object, and a part that listens subscribes as soon as it is built. Nothing is
 * emitted before every part is built, because the connection listens only after that.
 */
export class PartEvents {
  /** Files changed on disk, as absolute paths (FileWatcher to DocumentSync). */
  readonly filesChanged = new PartEvent<[paths: string[]]>();
  /** A workspace folder was added (Workspaces to SessionSync). */
  readonly workspaceAdded = new PartEvent<[ctx: WorkspaceContext]>();
  /** The ledger, or git's history, says something new of these paths (LedgerSync, git to DocumentSync). */
  readonly ledgerChanged = new PartEvent<[ctx: WorkspaceContext, paths: ReadonlySet<string>, reset: boolean, first: boolean]>();
  /** The intents file's own diagnostics changed (CriteriaRunner, IntentHealth to DiagnosticsPublisher). */
  readonly intentsFileChanged = new PartEvent<[ctx: WorkspaceContext]>();
  /** A rule file changed on disk since the rules were read (DiagnosticsPublisher to DocumentSync). */
  readonly rulesStale = new PartEvent<[ctx: WorkspaceContext]>();
}
