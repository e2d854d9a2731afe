import { CHANGE_ORIGIN, type ChangeOriginParams } from "@shared/notifications";
import { isUntypedReason, UNTYPED_REASONS } from "../engine/untypedLines";
import { sealedManifestPath } from "../io/ledger/segments";
import type { TextDocumentContentChangeEvent } from "vscode-languageserver";
import { fileHash } from "../engine/hashing";
import { sessionFileName } from "../engine/sessions";
import { SESSIONS_DIR } from "../engine/workspaceFiles";
import { readDiskState, type DiskState } from "../io/diskState";
import { TrackedDocument, uriToPath } from "./documents";
import { computeSavedFindings, fileFindings } from "./findings";
import type { LedgerSync } from "./ledgerSync";
import type { OpenDocuments } from "./openDocuments";
import type { DiagnosticsPublisher } from "./publisher";
import type { SessionSync } from "./sessionSync";
import type { TextBuffer } from "./textBuffer";
import type { FileWatcher } from "../io/watcher";
import type { WorkspaceContext } from "./workspaceContext";
import { hashYielding } from "./yielding";
import type { Workspaces } from "./workspaces";

/** Rule files edited in the editor are re-read after a pause in typing. */
const RULE_RELOAD_DELAY_MS = 150;

/**
 * Keeps the open documents in step with what happens to them: edits (the keystroke path: work in proportion
 * to the edit, the rest waits for the publish), files written underneath them, rule files and selections
 * changing (`refresh`), and the ledger. Owns the debounce of rule-file reloads.
 */
export class DocumentSync {
  private readonly ruleReloads = new Map<WorkspaceContext, NodeJS.Timeout>();

  constructor(
    private readonly documents: OpenDocuments,
    private readonly workspaces: Workspaces,
    private readonly publisher: DiagnosticsPublisher,
    private readonly ledgers: LedgerSync,
    private readonly sessions: SessionSync,
    private readonly watcher: FileWatcher,
    private readonly refreshLenses: () => void,
    private readonly guard: (what: string, fn: () => void) => () => void,
  ) {}

  open(text: TextBuffer): void {
    const fsPath = uriToPath(text.uri);
    const known = fsPath ? this.workspaces.of(fsPath) : undefined;
    const ctx = known ?? (fsPath ? this.workspaces.forFile(fsPath) : undefined);
    if (ctx && !known) void this.ledgers.poll(ctx, true); // a workspace adopted for this file
    const path = ctx && fsPath ? ctx.relativePath(fsPath) : undefined;
    // the file is read once here, for the baseline and for the document's view of its disk
    const disk = fsPath ? readDiskState(fsPath, undefined) : undefined;
    const doc = new TrackedDocument(text, path, ctx, ctx && path !== undefined && disk ? unrecordedBaseline(ctx, path, text.getText(), disk) : undefined, disk);
    this.documents.add(doc);
    if (ctx && path && ctx.ruleFileOf(path)) this.ruleFileEdited(doc);
    if (ctx && path) {
      // before the ledger's first read completes the owners are not known: hover says so, never "untraced"
      if (ctx.ledger.indexed) doc.ledgerChanged(doc.ledgerEntries());
      this.findings(doc);
      this.watcher.watchFile(doc.fsPath);
      void this.ledgers.poll(ctx); // appends not read yet reach this document when they arrive
    }
    this.publisher.schedule(doc.uri);
  }

  /** The keystroke path: work in proportion to the edit; anything else waits for the publish debounce. */
  change(uri: string, changes: readonly TextDocumentContentChangeEvent[], version: number): void {
    const doc = this.documents.get(uri);
    if (!doc) return;
    const wasEdited = doc.edits.isEdited();
    const reloaded = doc.applyChanges(changes, version);
    if (doc.ctx && doc.path && doc.ctx.ruleFileOf(doc.path)) this.ruleFileEdited(doc);
    if (wasEdited !== doc.edits.isEdited()) this.sessions.markDue();
    if (reloaded && doc.ctx) {
      // the editor took another writer's content: its record (maybe still being appended) says who wrote it
      this.findings(doc);
      void this.ledgers.poll(doc.ctx);
      this.refreshLenses();
    }
    this.publisher.schedule(uri);
  }

  /**
   * `intent/changeOrigin`: the change that follows is not the person's typing (engine/untypedLines.ts).
   * Malformed, it is refused with the reason (logged) and the change stays the person's, as without it.
   */
  announce(params: unknown): void {
    const p = params as Partial<ChangeOriginParams> | null;
    if (typeof p?.uri !== "string" || !Number.isInteger(p.version) || !isUntypedReason(p.reason))
      throw new Error(`${CHANGE_ORIGIN} needs a uri, an integer version and a reason of ${Object.keys(UNTYPED_REASONS).join(" or ")}; ignored`);
    this.documents.get(p.uri)?.announceUntyped(p.version!, p.reason);
  }

  close(uri: string): void {
    const doc = this.documents.remove(uri);
    if (doc?.ctx && doc.fsPath && !this.documents.at(doc.fsPath)) this.watcher.unwatchFile(doc.fsPath);
    this.sessions.markDue();
    this.sessions.share(); // closed unsaved: no longer anyone's unsaved edits
    this.publisher.closed(uri);
    const rule = doc?.ctx && doc.path ? doc.ctx.ruleFileOf(doc.path) : undefined;
    if (doc?.ctx && rule) {
      doc.ctx.setOverlay(rule, undefined); // back to the disk's version
      this.refresh(doc.ctx);
    }
  }

  /**
   * Re-reads the file from disk and recomputes the whole-file findings of one open document and those of
   * its saved lines; resolves when both are in place (a publish is scheduled then).
   */
  findings(doc: TrackedDocument): Promise<void> {
    const ctx = doc.ctx;
    if (!ctx || doc.path === undefined || ctx.ruleFileOf(doc.path)) {
      doc.findings.cancel();
      return Promise.resolve();
    }
    return (async () => {
      // a large file is read and hashed without holding up other requests (hashes are remembered)
      await doc.lookAtDiskAsync();
      if (doc.diskText !== undefined) await hashYielding(doc.diskText);
      this.guard("the file's findings", () => doc.findings.setFile(fileFindings(doc, doc.diskText)))();
      this.publisher.schedule(doc.uri);
      await computeSavedFindings(doc);
      this.publisher.schedule(doc.uri);
    })();
  }

  /** A ledger read brought news: the documents it touches take it, then their findings and the lenses. */
  ledgerChanged(ctx: WorkspaceContext, paths: ReadonlySet<string>, reset: boolean, first: boolean): void {
    for (const doc of this.documents.inWorkspace(ctx)) {
      if (!(reset || first || paths.has(doc.path))) continue;
      // a ledger replaced or truncated underneath us: what we carried forward may no longer be on record
      doc.ledgerChanged(doc.ledgerEntries(), reset);
      this.findings(doc);
    }
    this.publisher.workspaceFiles(ctx);
    this.refreshLenses();
  }

  /** Files changed on disk (the client's events or our watcher's): rule files, selections, ledgers, open files. */
  filesChanged(uris: readonly string[]): void {
    const touched = new Set<WorkspaceContext>();
    for (const uri of uris) {
      const fsPath = uriToPath(uri);
      const ctx = fsPath ? this.workspaces.of(fsPath) : undefined;
      const path = ctx && fsPath ? ctx.relativePath(fsPath) : undefined;
      if (!ctx || !path) continue;
      if (ctx.ruleFileOf(path) || isOtherSessionFile(ctx, path)) touched.add(ctx);
      // a merge can change the manifest alone (another branch sealed only records both branches hold)
      else if (ctx.ledger.sources.some((s) => s.path === path) || path === sealedManifestPath(ctx.ledger.ledgerPath)) void this.ledgers.poll(ctx);
      const open = this.documents.at(fsPath!);
      if (open) this.findings(open);
    }
    for (const ctx of touched) this.refresh(ctx);
  }

  /** The rules or the selection changed: everything of the workspace is judged again. */
  refresh(ctx: WorkspaceContext): void {
    ctx.reload();
    this.sessions.sessionsRead(ctx);
    this.publisher.workspaceFiles(ctx);
    for (const doc of this.documents.inWorkspace(ctx)) this.findings(doc);
    for (const doc of this.documents.all()) if (doc.ctx === ctx) this.publisher.schedule(doc.uri);
  }

  refreshAll(): void {
    for (const ctx of this.workspaces.all()) this.refresh(ctx);
  }

  /** A rule file changed in the editor: its buffer becomes the rules' source, after a pause in typing. */
  private ruleFileEdited(doc: TrackedDocument): void {
    const ctx = doc.ctx!;
    ctx.setOverlay(ctx.ruleFileOf(doc.path!)!, doc.doc.getText());
    clearTimeout(this.ruleReloads.get(ctx));
    this.ruleReloads.set(
      ctx,
      setTimeout(
        this.guard("reloading rules", () => {
          this.ruleReloads.delete(ctx);
          this.refresh(ctx);
        }),
        RULE_RELOAD_DELAY_MS,
      ),
    );
  }

  dispose(): void {
    for (const t of this.ruleReloads.values()) clearTimeout(t);
  }
}

/** Another session's file or the workspace selection; our own heartbeats and temp files are not news. */
function isOtherSessionFile(ctx: WorkspaceContext, path: string): boolean {
  if (!path.startsWith(`${SESSIONS_DIR}/`)) return false;
  const name = path.slice(SESSIONS_DIR.length + 1);
  return !name.startsWith(".") && name !== sessionFileName(ctx.session.id);
}

/**
 * The baseline for a buffer that opens with changes nobody recorded: the file on disk, when the ledger says
 * the disk holds the last recorded content and the buffer differs from it (a restored session). Otherwise the
 * buffer itself is the baseline: a disk that differs for other reasons may be the editor's own write racing
 * the open notification, and its lines must not be taken for edits.
 */
function unrecordedBaseline(ctx: WorkspaceContext, path: string, opened: string, onDisk: DiskState): string | undefined {
  // undefined: missing, a directory, unreadable: no file to compare with
  const disk = onDisk.text;
  if (disk === undefined || disk === opened) return undefined;
  return ctx.ledger.lastPostHash(path) === fileHash(disk) ? disk : undefined;
}
