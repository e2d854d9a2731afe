import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Connection, Diagnostic } from "vscode-languageserver";
import { CONFIG_FILE, INTENTS_FILE } from "../engine/workspaceFiles";
import { parseLedgerLines } from "../engine/ledger/read";
import { configDiagnostics, intentFileDiagnostics, ledgerDiagnostics, MAX_DIAGNOSTICS, scopeDiagnostics, shownDiagnostics } from "./diagnostics";
import { uriToPath } from "./documents";
import { claimedElsewhere, savedLineDiagnostics } from "./findings";
import type { OpenDocuments } from "./openDocuments";
import type { WorkspaceContext } from "./workspaceContext";
import type { Workspaces } from "./workspaces";
import { appendAll } from "../engine/appendAll";

/** Diagnostics wait this long after the last keystroke, so a burst of typing publishes once. */
const PUBLISH_DELAY_MS = 40;

/**
 * Publishes diagnostics, one debounce timer per URI: an open document's (scope problems on its edited
 * lines, its whole-file findings) and the workspace's own files' (`active_intents.yaml`, `config.jsonc`, the
 * ledgers), which are published whether or not they are open, as a compiler's are. Each publish carries the
 * document's version, so a client can drop one made for text it no longer has.
 */
export class DiagnosticsPublisher {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** URIs of the workspace's own files we have published problems for, so fixed files get cleared. */
  private readonly ruleFileUris = new Set<string>();
  private disposed = false;

  constructor(
    private readonly connection: Connection,
    private readonly documents: OpenDocuments,
    private readonly workspaces: Workspaces,
    /** Runs before each publish (the session file's list of unsaved files is written then). */
    private readonly beforePublish: () => void,
    private readonly guard: (what: string, fn: () => void) => () => void,
    /** A rule file changed on disk since the rules were read: read them again (which publishes again). */
    private readonly rulesStale: (ctx: WorkspaceContext) => void,
    /** The intents file's diagnostics beyond its schema (drift, failed criteria), for the text it was read from. */
    private readonly intentsExtras: (ctx: WorkspaceContext, text: string) => Diagnostic[] = () => [],
  ) {}

  /** The intents file of a workspace is published again (its drift or criteria results changed). */
  intentsFile(ctx: WorkspaceContext): void {
    this.schedule(this.documents.at(join(ctx.root, INTENTS_FILE))?.uri ?? pathToFileURL(join(ctx.root, INTENTS_FILE)).href);
  }

  /** Publishes `uri`'s diagnostics after a pause in typing. */
  schedule(uri: string): void {
    if (this.disposed) return;
    clearTimeout(this.timers.get(uri));
    this.timers.set(
      uri,
      setTimeout(
        this.guard("publishing diagnostics", () => {
          this.timers.delete(uri);
          this.beforePublish();
          this.publish(uri);
        }),
        PUBLISH_DELAY_MS,
      ),
    );
  }

  /** A document closed: nothing more is published for it, and what was is withdrawn (unless it is a rule file). */
  closed(uri: string): void {
    clearTimeout(this.timers.get(uri));
    this.timers.delete(uri);
    if (!this.ruleFileUris.has(uri)) void this.connection.sendDiagnostics({ uri, diagnostics: [] });
  }

  /** The workspace's own files: publish those with problems, and once more (empty) those that had some. */
  workspaceFiles(ctx: WorkspaceContext): void {
    const uri = (rel: string) => this.documents.at(join(ctx.root, rel))?.uri ?? pathToFileURL(join(ctx.root, rel)).href;
    const problems: [string, number][] = [
      [uri(INTENTS_FILE), ctx.rules.intents.problems.length],
      [uri(CONFIG_FILE), ctx.rules.config.problems.length],
      ...ctx.ledger.unreadable().map((u): [string, number] => [uri(u.path), u.lines.length]),
    ];
    for (const [uri, count] of problems) {
      const had = this.ruleFileUris.has(uri);
      if (count) this.ruleFileUris.add(uri);
      if (count || had) this.schedule(uri);
    }
  }

  private publish(uri: string): void {
    const doc = this.documents.get(uri);
    // a closed document's withdrawal was published when it closed, once; work it started before (its
    // findings) may still ask to publish, and nothing of it is news. The workspace's own files are published
    // closed as well (see workspaceFiles).
    if (!doc && !this.ruleFileUris.has(uri) && !this.isIntentsFile(uri)) return;
    const rule = doc?.ctx && doc.path !== undefined ? doc.ctx.ruleFileOf(doc.path) : undefined;
    // A rule file typed ahead of the rules (they are re-read after a pause in typing): its problems' positions
    // are those of an older text. The reload publishes again for the version it read.
    if (rule && !doc!.ctx!.rulesReadFrom(rule, doc!.doc.getText())) return;
    const diagnostics: Diagnostic[] = [];
    // what the sources counted past their first MAX_DIAGNOSTICS + 1, without making them (shownDiagnostics)
    let omitted = 0;
    if (doc) {
      // the saved lines' findings are being computed for this very content: their completion publishes,
      // so a save does not briefly show its lines clean (auto-save saves after every pause in typing)
      if (!rule && doc.findings.isDue(doc.diskHash)) return;
      doc.refine(); // edited lines exact: an untouched line between two edits is not one
      // appended one at a time: a file edited on every other line has more diagnostics than a spread may pass
      const scope = scopeDiagnostics(doc, MAX_DIAGNOSTICS + 1);
      appendAll(appendAll(diagnostics, scope.list), doc.findings.file);
      omitted += scope.more;
      // mapped onto the version published now
      if (doc.ctx && doc.path !== undefined && !rule) {
        const saved = savedLineDiagnostics(doc, MAX_DIAGNOSTICS + 1);
        appendAll(diagnostics, saved.list);
        omitted += saved.more;
      }
      const claimed = doc.ctx && doc.path !== undefined ? claimedElsewhere(doc, doc.ctx.sessions, Date.now()) : undefined;
      if (claimed) diagnostics.push(claimed);
    }
    if (this.ruleFileUris.has(uri)) {
      const ruleFile = this.ruleFileDiagnostics(uri);
      // the file changed since the rules were read: their problems are positioned in a text it no longer
      // holds. Nothing is published for it; the reload publishes what the new text holds
      if (ruleFile === "stale") return;
      diagnostics.push(...ruleFile);
      // published empty once: forgotten now, in the same step (a second timer raced the publish before)
      if (!ruleFile.length) this.ruleFileUris.delete(uri);
    }
    diagnostics.push(...this.intentsFileExtras(uri));
    const fsPath = uriToPath(uri);
    const ctx = doc?.ctx ?? (fsPath ? this.workspaces.of(fsPath) : undefined);
    void this.connection.sendDiagnostics({
      uri,
      version: doc?.doc.version,
      diagnostics: ctx ? shownDiagnostics(ctx.rules.settings, diagnostics, omitted) : diagnostics,
    });
  }

  private intentsFileExtras(uri: string): Diagnostic[] {
    const fsPath = uriToPath(uri);
    const ctx = fsPath ? this.workspaces.of(fsPath) : undefined;
    if (!ctx || !fsPath || ctx.relativePath(fsPath) !== INTENTS_FILE || ctx.rules.usingLastGood || ctx.rules.intentsText === undefined) return [];
    return this.intentsExtras(ctx, ctx.rules.intentsText);
  }

  private isIntentsFile(uri: string): boolean {
    const fsPath = uriToPath(uri);
    const ctx = fsPath ? this.workspaces.of(fsPath) : undefined;
    return !!ctx && ctx.relativePath(fsPath!) === INTENTS_FILE;
  }

  private ruleFileDiagnostics(uri: string): Diagnostic[] | "stale" {
    const fsPath = uriToPath(uri);
    const ctx = fsPath ? this.workspaces.of(fsPath) : undefined;
    const path = ctx && fsPath ? ctx.relativePath(fsPath) : undefined;
    if (!ctx) return [];
    const { rules } = ctx;
    const rule = path !== undefined ? ctx.ruleFileOf(path) : undefined;
    if (rule && !this.documents.get(uri) && ctx.ruleFileChangedOnDisk(rule)) {
      this.rulesStale(ctx);
      return "stale";
    }
    if (path === INTENTS_FILE) return intentFileDiagnostics(rules.settings, rules.intents.problems, rules.usingLastGood);
    // positions in the text the problems were found in (an open file's buffer is that text: see publish)
    if (path === CONFIG_FILE) return configDiagnostics(rules.settings, ctx.ruleFileText(CONFIG_FILE) ?? "", rules.config.problems);
    const ledger = ctx.ledger.unreadable().find((u) => u.path === path);
    if (!ledger) return [];
    // An open ledger with unsaved edits is published for its buffer's version: its own lines, not the disk's.
    const open = this.documents.get(uri);
    const unsaved = open && open.doc.getText() !== open.baseline; // (deleted lines are not "edited lines")
    const lines = unsaved ? parseLedgerLines(open.doc.getText(), 1).unreadable : ledger.lines;
    return ledgerDiagnostics(rules.settings, ledger.path, open ? lines.filter((l) => l.line <= open.doc.lineCount) : lines);
  }

  dispose(): void {
    this.disposed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
