import type { TraceEntry } from "../engine/ledger/read";
import { entryKey, type DocumentLedger } from "./documentLedger";

/**
 * A reload that may have been this editor's own save: the save wrote the file before the server handled the
 * change that produced it, which looks exactly like a reload. The didSave of that content, arriving next,
 * says it was our own save; typing on, or a record of the file by another writer appended meanwhile, says it
 * was a reload. Until then the document's state before it is held, to go back to.
 */
export class TentativeReload<State> {
  private held: { state: State; records: ReadonlySet<string> } | undefined;

  constructor(private readonly ledger: DocumentLedger) {}

  /** A reload no record explains yet; `state`: the document before it. */
  hold(state: State): void {
    this.held = { state, records: this.ledger.recordIds() };
  }

  /** It was a reload after all (typing on, or a record pins the content). */
  drop(): void {
    this.held = undefined;
  }

  /**
   * The ledger brought `entries`: a record of this file by another writer that the ledger did not hold when
   * the reload was seen says it was one. Records that only came into view with the reloaded content (those
   * of a file git now names as its source) are no news.
   */
  ledgerBrought(entries: readonly TraceEntry[]): void {
    const held = this.held;
    if (held && entries.some((e) => this.ledger.isOfThisFile(e) && !this.ledger.isOurs(e) && !held.records.has(entryKey(e)))) this.held = undefined;
  }

  /** The didSave arrived: the state held, once (undefined: none). */
  take(): State | undefined {
    const state = this.held?.state;
    this.held = undefined;
    return state;
  }
}
