/**
 * Document events wait for the client's settings: a save recorded before they arrive would name the default
 * contributor, and a wrong record is wrong forever. Settings come in the first milliseconds; the ledger's
 * first read is not waited for. Events are queued until `drain`, then handled in the order they arrived;
 * requests wait for `ready`, so that a hover after a didOpen sees the document.
 */
export class EventQueue {
  /** Events that arrived before the client's settings; undefined once they are in. */
  private queued: (() => void)[] | undefined = [];
  private markReady: () => void = () => undefined;
  /** Resolves once queued document events have been handled. */
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));

  /** `fn`, queued while the settings are not known, else run at once. */
  inOrder<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
    return (...args) => {
      if (this.queued) this.queued.push(() => fn(...args));
      else fn(...args);
    };
  }

  /** `fn`, run once the queued events have been handled (a request answered after the events before it). */
  afterQueued<A extends unknown[], R>(fn: (...args: A) => R | Promise<R>): (...args: A) => Promise<R> {
    return async (...args) => {
      await this.ready;
      return fn(...args);
    };
  }

  /** Handles the queued events in order; from here on events run as they arrive. */
  drain(): void {
    const queued = this.queued ?? [];
    this.queued = undefined;
    for (const event of queued) event();
    this.markReady();
  }
}
