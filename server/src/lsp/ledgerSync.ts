import type { Connection } from "vscode-languageserver";
import type { LedgerPoll } from "../io/ledger/workspaceLedger";
import type { WorkspaceContext } from "./workspaceContext";

/** Appends by other processes show up within this (a stat per ledger; file events usually come sooner). */
const LEDGER_POLL_MS = 500;
/** A first read of a ledger larger than this reports work-done progress. */
const PROGRESS_THRESHOLD_BYTES = 1024 * 1024;

/**
 * Reads what other writers append to each workspace's ledgers: at start (with work-done progress for a
 * large ledger; reading yields to requests), on file events, and on a timer. What a read brings goes to
 * `changed`, which re-attributes the open documents it touches.
 */
export class LedgerSync {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly progressSupported: () => boolean,
    /** A read brought something (`first`: the first read of this workspace). */
    private readonly changed: (ctx: WorkspaceContext, result: LedgerPoll, first: boolean) => void,
  ) {}

  /** Reads new ledger lines; never throws (a ledger that cannot be read is logged, and read again later). */
  async poll(ctx: WorkspaceContext, first = false): Promise<void> {
    let progress: Awaited<ReturnType<Connection["window"]["createWorkDoneProgress"]>> | undefined;
    let created: Promise<void> | undefined;
    try {
      // every ledger the first read takes in: after `intent ledger compact` most of the history is in the
      // decoded copy of the sealed segments, not the live file
      const size = first ? ctx.ledger.ledgerBytes() : 0;
      if (first && this.progressSupported() && size > PROGRESS_THRESHOLD_BYTES) {
        // the read does not wait for the client's token: progress begins when the token comes back (a
        // client that refuses one gets none, and the read goes on)
        created = this.connection.window.createWorkDoneProgress().then(
          (p) => {
            progress = p;
            p.begin("intent-lsp: indexing the trace ledger", 0, `${(size / 1048576).toFixed(1)} MiB`, false);
          },
          () => undefined,
        );
      }
      let lastPercent = -1;
      const result = await ctx.ledger.poll((read, total) => {
        const percent = total ? Math.floor((read / total) * 100) : 100;
        if (progress && percent !== lastPercent) progress.report(percent, `${(read / 1048576).toFixed(1)} of ${(total / 1048576).toFixed(1)} MiB`);
        lastPercent = percent;
      });
      // the ledger is indexed: what follows (documents attributed again, drift) is not indexing. The end goes
      // out first (the writer sends it once this turn's work is done); the rest runs in the next turn, long
      // before any request the client sends on seeing the end can arrive, so that request is answered after it
      await created;
      if (progress) {
        progress.done();
        progress = undefined;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (result.changed || first) this.changed(ctx, result, first);
    } catch (err) {
      this.connection.console.error(`intent-lsp: reading the ledger failed: ${(err as Error).message}`);
      await created;
    } finally {
      progress?.done();
    }
  }

  /** Polls every workspace on a timer; `alsoEachTick` runs with each round (waiting save records). */
  start(workspaces: () => WorkspaceContext[], alsoEachTick: () => void): void {
    this.timer = setInterval(() => {
      for (const ctx of workspaces()) void this.poll(ctx);
      alsoEachTick();
    }, LEDGER_POLL_MS);
    this.timer.unref();
  }

  dispose(): void {
    clearInterval(this.timer);
  }
}
