import { pathToFileURL } from "node:url";
import { SAVE_PROCESSED } from "@shared/notifications";
import type { BlockSource } from "../engine/lineage";
import { FileWatcher } from "../io/watcher";
import { INTENT_LSP_VERSION } from "../version";
import { ClientSettings } from "./clientSettings";
import { CriteriaRunner } from "./criteria";
import { DocumentSync } from "./documentSync";
import type { EditorClient } from "./editorClient";
import { IntentHealth } from "./intentHealth";
import { LedgerSync } from "./ledgerSync";
import { OpenDocuments } from "./openDocuments";
import { PartEvents } from "./partEvents";
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

/**
 * Builds the parts in the order they depend on each other, each given the parts it calls. Where two parts
 * call each other (the watcher and the document sync, the publisher and the intents' health, …), the call
 * goes through `PartEvents`, made first: the speaker emits, the listener subscribes once it is built.
 */
export function buildParts(client: EditorClient): ServerParts {
  const { connection } = client;
  const guard = client.guard.bind(client);
  const events = new PartEvents();
  const watcher = new FileWatcher(guard("file watcher", (paths: string[]) => events.filesChanged.emit(paths)));
  const documents = new OpenDocuments();
  const workspaces = new Workspaces(
    watcher,
    (ctx) => {
      events.workspaceAdded.emit(ctx);
      // git named earlier paths of a file: its open document is attributed again, as on news from the ledger
      ctx.gitSources.onLearnt = (path) => events.ledgerChanged.emit(ctx, new Set([path]), false, false);
    },
    (message) => connection.console.warn(message),
  );
  const sessions = new SessionSync(workspaces, documents, guard, (message) => client.warn(message));
  events.workspaceAdded.on((ctx) => sessions.announce(ctx));
  const criteria = new CriteriaRunner(connection, (ctx) => {
    client.refreshLenses();
    events.intentsFileChanged.emit(ctx);
  });
  const health = new IntentHealth(
    criteria,
    (ctx) => events.intentsFileChanged.emit(ctx),
    (message) => connection.console.warn(message),
  );
  const publisher = new DiagnosticsPublisher(
    connection,
    documents,
    workspaces,
    () => sessions.share(),
    guard,
    (ctx) => events.rulesStale.emit(ctx),
    (ctx, text) => {
      health.ensure(ctx);
      return health.diagnostics(ctx, text);
    },
  );
  events.intentsFileChanged.on((ctx) => publisher.intentsFile(ctx));
  const ledgers = new LedgerSync(
    connection,
    () => !!client.caps()?.progress,
    (ctx, r, first) => {
      events.ledgerChanged.emit(ctx, r.paths, r.reset, first);
      health.update(ctx);
    },
  );
  const sync = new DocumentSync(documents, workspaces, publisher, ledgers, sessions, watcher, () => client.refreshLenses(), guard);
  events.filesChanged.on((paths) => sync.filesChanged(paths.map((p) => pathToFileURL(p).href)));
  events.ledgerChanged.on((ctx, paths, reset, first) => sync.ledgerChanged(ctx, paths, reset, first));
  events.rulesStale.on((ctx) => sync.refresh(ctx));
  const settings = new ClientSettings(connection, workspaces, () => client.caps()!);
  const saves = new SaveHandler(
    {
      poll: (ctx) => ledgers.poll(ctx),
      schedule: (uri) => publisher.schedule(uri),
      settled: (doc) => {
        sessions.markDue();
        client.refreshLenses();
        return sync.findings(doc);
      },
      processed: (params) => void connection.sendNotification(SAVE_PROCESSED, params),
      blockSources: (doc) => {
        if (!doc.ctx) return [];
        const out: BlockSource[] = [];
        for (const other of documents.inWorkspace(doc.ctx)) if (other !== doc && other.path !== doc.path) out.push(...other.blockSources());
        return out;
      },
      error: (message) => client.tellError(message),
      log: (message) => connection.console.info(message),
    },
    INTENT_LSP_VERSION,
  );
  return { watcher, workspaces, documents, sessions, publisher, ledgers, sync, saves, settings, criteria, health };
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
