import type { RecordRef } from "./recordRows";

export interface IntentState {
  files: Set<string>;
  edits: number;
  lastRecordLine: number;
  last: RecordRef | undefined;
  lastTime: number;
}

/** The ledger index's intents: for each, its files, its edit count and its newest record. */
export class IntentIndex {
  private readonly byIntent = new Map<string, IntentState>();
  /** Intents of a loaded index, made when first asked for. */
  private savedIntents = new Map<string, () => IntentState>();

  add(intentId: string, path: string, ref: RecordRef, time: number): void {
    let s = this.get(intentId);
    if (!s) {
      s = { files: new Set(), edits: 0, lastRecordLine: 0, last: undefined, lastTime: -Infinity };
      this.byIntent.set(intentId, s);
    }
    s.files.add(path);
    // a record with several ranges or files yields several entries on one line: one edit
    if (s.lastRecordLine !== ref.line) {
      s.edits++;
      s.lastRecordLine = ref.line;
    }
    if (time >= s.lastTime) {
      s.last = ref;
      s.lastTime = time;
    }
  }

  /** Forgets every intent. */
  reset(): void {
    this.byIntent.clear();
    this.savedIntents = new Map();
  }

  /** Takes a loaded index's intents: those made (`intents`) and those made when first asked for (`saved`). */
  restore(intents: ReadonlyMap<string, IntentState>, saved: ReadonlyMap<string, () => IntentState> | undefined): void {
    for (const [id, s] of intents) this.byIntent.set(id, s);
    this.savedIntents = new Map(saved);
  }

  /** Every intent, each made from the saved index if it was not yet. */
  all(): Map<string, IntentState> {
    for (const id of this.ids()) this.get(id);
    return this.byIntent;
  }

  /** An intent's state, made from the saved index when first asked for. */
  get(id: string): IntentState | undefined {
    let s = this.byIntent.get(id);
    if (s) return s;
    const make = this.savedIntents.get(id);
    if (!make) return undefined;
    s = make();
    this.savedIntents.delete(id);
    this.byIntent.set(id, s);
    return s;
  }

  ids(): string[] {
    return [...new Set([...this.savedIntents.keys(), ...this.byIntent.keys()])];
  }
}
