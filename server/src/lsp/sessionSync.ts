import { HEARTBEAT_MS } from "../engine/sessions";
import type { OpenDocuments } from "./openDocuments";
import type { WorkspaceContext } from "./workspaceContext";
import type { Workspaces } from "./workspaces";

/**
 * This server's session files: a heartbeat, and which files have unsaved edits here under which intents,
 * so other sessions can warn about them (`claimed-elsewhere`). Written off the keystroke path: an edit only
 * marks the list as due; it is written with the next publish.
 */
export class SessionSync {
  private due = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly workspaces: Workspaces,
    private readonly documents: OpenDocuments,
    private readonly guard: (what: string, fn: () => void) => () => void,
  ) {}

  /** Announces every session now and keeps them alive. */
  start(): void {
    for (const ctx of this.workspaces.all()) ctx.heartbeat();
    this.timer = setInterval(
      this.guard("heartbeat", () => {
        for (const c of this.workspaces.all()) c.heartbeat();
      }),
      HEARTBEAT_MS,
    );
    this.timer.unref();
  }

  /** A workspace added after start-up announces its session at once. */
  announce(ctx: WorkspaceContext): void {
    if (this.timer) ctx.heartbeat();
  }

  /** A document became edited or clean, or closed: the list of unsaved files is due. */
  markDue(): void {
    this.due = true;
  }

  /** Writes the lists of unsaved files, if due. */
  share(): void {
    if (!this.due) return;
    this.due = false;
    for (const ctx of this.workspaces.all()) {
      const dirty = [...this.documents.inWorkspace(ctx)].filter((d) => d.edits.isEdited());
      const intents = dirty.map((d) => d.verdict()).flatMap((v) => (v && (v.kind === "allowed" || v.kind === "out-of-scope") ? [v.intent.id] : []));
      ctx.setDirtyFiles(
        dirty.map((d) => d.path),
        intents,
      );
    }
  }

  dispose(): void {
    clearInterval(this.timer);
  }
}
