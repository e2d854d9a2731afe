import { HEARTBEAT_MS } from "../engine/sessions";
import { tripped } from "../engine/agent/circuitBreaker";
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
  /** Agent sessions the circuit breaker stopped that the person has been told of, by workspace and session id. */
  private readonly toldStops = new WeakMap<WorkspaceContext, Set<string>>();

  constructor(
    private readonly workspaces: Workspaces,
    private readonly documents: OpenDocuments,
    private readonly guard: (what: string, fn: () => void) => () => void,
    /** Shows the person a warning (`window/showMessage`). */
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  /**
   * The sessions were read again: an agent session the circuit breaker stopped (engine/agent/circuitBreaker.ts)
   * is shown to the person once per stop, as the agent was told to ask them.
   */
  sessionsRead(ctx: WorkspaceContext, now = Date.now()): void {
    const told = this.toldStops.get(ctx) ?? new Set<string>();
    this.toldStops.set(ctx, told);
    const settings = ctx.rules.settings.circuitBreaker;
    const stopped = ctx.sessions.filter((s) => s.denials && tripped(s.denials, now, settings));
    for (const id of told) if (!stopped.some((s) => s.id === id)) told.delete(id);
    for (const s of stopped) {
      if (told.has(s.id)) continue;
      told.add(s.id);
      this.warn(
        `intent-lsp stopped ${s.client} session ${s.id}: the gate denied it ${settings.denials} times within ${settings.windowSeconds} s, and it was told to ask you how to go on (select an intent for it, or widen a scope). Its next allowed call resumes it.`,
      );
    }
  }

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
