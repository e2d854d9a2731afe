/**
 * What the intents file says about each intent's work beyond its own text: drift (lines in its scope changed
 * since it started, or after it completed, not under it) and the criteria that failed when last verified in
 * this editor. Drift is measured in the background (git runs asynchronously), when the ledger changes or the
 * intents file is first shown; the file's publish then carries it. Nothing here runs a criterion.
 */
import type { Diagnostic } from "vscode-languageserver";
import { driftBase, driftMessage, type Drift } from "../engine/drift";
import { criterionText } from "../engine/intents/load";
import { measureDrift } from "../io/drift";
import { WorkspaceLifecycle } from "../io/intents/lifecycleLog";
import type { CriteriaRunner } from "./criteria";
import { makeDiagnostic } from "./diagnostics";
import type { WorkspaceContext } from "./workspaceContext";

interface State {
  drifts: Map<string, Drift>;
  log: WorkspaceLifecycle;
  running: boolean;
  again: boolean;
}

export class IntentHealth {
  private readonly states = new Map<WorkspaceContext, State>();

  constructor(
    private readonly criteria: CriteriaRunner,
    /** The drift of a workspace changed: its intents file is published again. */
    private readonly onChange: (ctx: WorkspaceContext) => void,
    private readonly log: (message: string) => void,
  ) {}

  driftOf(ctx: WorkspaceContext, id: string): Drift | undefined {
    return this.states.get(ctx)?.drifts.get(id);
  }

  /**
   * Measures drift once for a workspace whose intents file is shown for the first time. Until the ledger's
   * first read is complete, drift would count lines whose records are not indexed yet as not under their
   * intent: the workspace is only noted, and `update` (the end of that read) measures it.
   */
  ensure(ctx: WorkspaceContext): void {
    if (this.states.has(ctx)) return;
    if (ctx.ledger.indexed) this.measureNow(ctx);
    else this.states.set(ctx, this.stateOf(ctx));
  }

  /**
   * Measures every intent's drift again (the ledger or the rules changed), for a workspace whose intents file
   * was shown; one run at a time per workspace.
   */
  update(ctx: WorkspaceContext): void {
    if (this.states.has(ctx)) this.measureNow(ctx);
  }

  private measureNow(ctx: WorkspaceContext): void {
    let state = this.states.get(ctx);
    if (!state) {
      state = this.stateOf(ctx);
      this.states.set(ctx, state);
    }
    if (state.running) {
      state.again = true;
      return;
    }
    state.running = true;
    void this.measure(ctx, state.log)
      .then((drifts) => {
        const changed = key(drifts) !== key(state!.drifts);
        state!.drifts = drifts;
        if (changed) this.onChange(ctx);
      })
      .catch((err) => this.log(`intent-lsp: drift could not be measured in ${ctx.root}: ${(err as Error).message}`))
      .finally(() => {
        state!.running = false;
        if (state!.again) {
          state!.again = false;
          this.measureNow(ctx);
        }
      });
  }

  private stateOf(ctx: WorkspaceContext): State {
    return { drifts: new Map(), log: new WorkspaceLifecycle(ctx.root, () => ctx.rules.settings.ledgerPath), running: false, again: false };
  }

  private async measure(ctx: WorkspaceContext, log: WorkspaceLifecycle): Promise<Map<string, Drift>> {
    const out = new Map<string, Drift>();
    const intents = ctx.rules.catalogue.intents.filter((i) => i.status === "IN_PROGRESS" || i.status === "BLOCKED" || i.status === "COMPLETE");
    if (!intents.length) return out;
    const events = await log.read();
    for (const intent of intents) {
      if (!driftBase(intent, events)) continue;
      const drift = await measureDrift(ctx.root, ctx.rules, intent, events, (p) => ctx.ledger.entryBatches(p));
      if (drift) out.set(intent.id, drift);
    }
    return out;
  }

  /** The intents file's diagnostics beyond its schema: drift on each intent's line, failed criteria on theirs. */
  diagnostics(ctx: WorkspaceContext, text: string): Diagnostic[] {
    const lines = text.split(/\r\n|\r|\n/);
    const whole = (line: number) => ({ start: { line, character: 0 }, end: { line, character: (lines[line] ?? "").length } });
    const out: Diagnostic[] = [];
    const { settings } = ctx.rules;
    for (const intent of ctx.rules.catalogue.intents) {
      const drift = this.driftOf(ctx, intent.id);
      // a drift measured for a status the intent no longer has is not said (it is measured again)
      if (drift && (drift.since === "completed") === (intent.status === "COMPLETE")) {
        const d = makeDiagnostic(settings, "intent-drift", whole(intent.line), driftMessage(drift, intent.ownedScope));
        if (d) out.push({ ...d, data: { id: intent.id } });
      }
      const last = this.criteria.lastOf(ctx, intent.id);
      for (const f of last?.failed ?? []) {
        if (f.criterion.line >= lines.length) continue;
        const message = `Criterion "${criterionText(f.criterion)}" failed (${f.why}) when ${intent.id} was last verified.${f.tail ? `\n${f.tail}` : ""}`;
        const d = makeDiagnostic(settings, "criterion-failed", whole(f.criterion.line), message);
        if (d) out.push(d);
      }
    }
    return out;
  }
}

const key = (drifts: Map<string, Drift>) => JSON.stringify([...drifts.entries()].sort(([a], [b]) => a.localeCompare(b)));
