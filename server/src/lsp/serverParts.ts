import { pathToFileURL } from "node:url";
import type { Connection } from "vscode-languageserver";
import { SAVE_PROCESSED } from "@shared/notifications";
import type { BlockSource } from "../engine/lineage";
import { FileWatcher } from "../io/watcher";
import { INTENT_LSP_VERSION } from "../version";
import { ClientSettings, type ClientCapabilities } from "./clientSettings";
import { CriteriaRunner } from "./criteria";
import { DocumentSync } from "./documentSync";
import { IntentHealth } from "./intentHealth";
import { LedgerSync } from "./ledgerSync";
import { OpenDocuments } from "./openDocuments";
import { DiagnosticsPublisher } from "./publisher";
import { SaveHandler } from "./save";
import { SessionSync } from "./sessionSync";
import { Workspaces } from "./workspaces";

/** The language server's parts, one per concern (docs/ARCHITECTURE.md). */
export interface ServerParts {
  readonly watcher: FileWatcher;
  readonly workspaces: Workspaces;
  readonly documents: OpenDocuments;
  readonly sessions: SessionSync;
  readonly publisher: DiagnosticsPublisher;
  readonly ledgers: LedgerSync;
  readonly sync: DocumentSync;
  readonly saves: SaveHandler;
  readonly settings: ClientSettings;
  readonly criteria: CriteriaRunner;
  readonly health: IntentHealth;
}

/** What the parts ask of the server that holds them. */
export interface PartsHost {
  guard<A extends unknown[]>(what: string, fn: (...args: A) => unknown): (...args: A) => void;
  /** The client's capabilities; undefined before `initialize`. */
  caps(): ClientCapabilities | undefined;
  refreshLenses(): void;
  tellError(message: string): void;
}

/**
 * Builds the parts in the order they depend on each other. Where two parts call each other (the watcher and
 * the document sync, the publisher and the intents' health, …), the later one is reached through `parts`,
 * which is complete before any event can reach a part: the connection does not listen yet.
 */
export function buildParts(connection: Connection, host: PartsHost): ServerParts {
  const guard = host.guard.bind(host);
  // filled below, read only by callbacks, which run once the connection listens
  let parts: ServerParts;
  const watcher = new FileWatcher(guard("file watcher", (paths: string[]) => parts.sync.filesChanged(paths.map((p) => pathToFileURL(p).href))));
  const documents = new OpenDocuments();
  const workspaces = new Workspaces(
    watcher,
    (ctx) => {
      parts.sessions.announce(ctx);
      // git named earlier paths of a file: its open document is attributed again, as on news from the ledger
      ctx.gitSources.onLearnt = (path) => parts.sync.ledgerChanged(ctx, new Set([path]), false, false);
    },
    (message) => connection.console.warn(message),
  );
  const sessions = new SessionSync(workspaces, documents, guard);
  const criteria = new CriteriaRunner(connection, (ctx) => {
    host.refreshLenses();
    parts.publisher.intentsFile(ctx);
  });
  const health = new IntentHealth(
    criteria,
    (ctx) => parts.publisher.intentsFile(ctx),
    (message) => connection.console.warn(message),
  );
  const publisher = new DiagnosticsPublisher(
    connection,
    documents,
    workspaces,
    () => sessions.share(),
    guard,
    (ctx) => parts.sync.refresh(ctx),
    (ctx, text) => {
      health.ensure(ctx);
      return health.diagnostics(ctx, text);
    },
  );
  const ledgers = new LedgerSync(
    connection,
    () => !!host.caps()?.progress,
    (ctx, r, first) => {
      parts.sync.ledgerChanged(ctx, r.paths, r.reset, first);
      health.update(ctx);
    },
  );
  const sync = new DocumentSync(documents, workspaces, publisher, ledgers, sessions, watcher, () => host.refreshLenses(), guard);
  const settings = new ClientSettings(connection, workspaces, () => host.caps()!);
  const saves = new SaveHandler(
    {
      poll: (ctx) => ledgers.poll(ctx),
      schedule: (uri) => publisher.schedule(uri),
      settled: (doc) => {
        sessions.markDue();
        host.refreshLenses();
        return sync.findings(doc);
      },
      processed: (params) => void connection.sendNotification(SAVE_PROCESSED, params),
      blockSources: (doc) => {
        if (!doc.ctx) return [];
        const out: BlockSource[] = [];
        for (const other of documents.inWorkspace(doc.ctx)) if (other !== doc && other.path !== doc.path) out.push(...other.blockSources());
        return out;
      },
      error: (message) => host.tellError(message),
      log: (message) => connection.console.info(message),
    },
    INTENT_LSP_VERSION,
  );
  parts = { watcher, workspaces, documents, sessions, publisher, ledgers, sync, saves, settings, criteria, health };
  return parts;
}

/** Stops every part's timers and watchers. */
export function disposeParts(parts: ServerParts): void {
  parts.sessions.dispose();
  parts.ledgers.dispose();
  parts.watcher.dispose();
  parts.publisher.dispose();
  parts.sync.dispose();
  parts.workspaces.dispose();
}
