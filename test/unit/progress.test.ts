import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PROGRESS_DELAY_MS, startProgress, type ProgressTerminal } from "../../server/src/io/progress";

/** The progress line's policy (io/progress.ts), on a terminal that keeps what it was sent and a clock the test moves. */

function terminal(isTTY = true, columns?: number): ProgressTerminal & { sent: string[] } {
  const sent: string[] = [];
  return { isTTY, columns, sent, write: (text) => void sent.push(text) };
}

describe("startProgress", () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000;
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it("says nothing of work that ends before the delay", () => {
    const t = terminal();
    const p = startProgress(t, {}, "starting", clock);
    now += PROGRESS_DELAY_MS - 1;
    p.update("half way");
    p.done();
    vi.runAllTimers();
    expect(t.sent).toEqual([]);
  });

  it("draws the line once the work outlasts the delay, redraws it in place when it changes, and clears it at the end", () => {
    const t = terminal();
    const p = startProgress(t, {}, "starting", clock);
    p.update("reading: 1%");
    now += PROGRESS_DELAY_MS;
    p.update("reading: 50%");
    p.update("reading: 51%"); // at once: not drawn yet
    now += 100;
    p.update("reading: 51%");
    p.update("reading: 51%");
    now += 1_000;
    p.update("reading: 51%"); // the same text: not sent again
    p.done();
    p.done();
    expect(t.sent).toEqual(["\r\x1b[Kreading: 50%", "\r\x1b[Kreading: 51%", "\r\x1b[K"]);
  });

  it("draws the last text by itself when the work waits past the delay without a word", () => {
    const t = terminal();
    const p = startProgress(t, {}, "waiting for git", clock);
    vi.advanceTimersByTime(PROGRESS_DELAY_MS);
    expect(t.sent).toEqual(["\r\x1b[Kwaiting for git"]);
    p.done();
    expect(t.sent.at(-1)).toBe("\r\x1b[K");
  });

  it("cuts a line exactly as wide as the terminal (one column stays spare) and keeps a line of file names on one line", () => {
    const t = terminal(true, 12);
    const p = startProgress(t, {}, "twelve chars", clock);
    vi.advanceTimersByTime(PROGRESS_DELAY_MS);
    now += PROGRESS_DELAY_MS;
    p.update("eleven char");
    now += 1_000;
    p.update("a\nb\r\nc");
    expect(t.sent).toEqual(["\r\x1b[Ktwelve cha…", "\r\x1b[Keleven char", "\r\x1b[Ka b c"]);
  });

  it("cuts a line longer than the terminal, which would wrap and not redraw in place", () => {
    const t = terminal(true, 12);
    const p = startProgress(t, {}, "a line much longer than twelve", clock);
    vi.advanceTimersByTime(PROGRESS_DELAY_MS);
    expect(t.sent).toEqual(["\r\x1b[Ka line muc…"]);
    p.done();
  });

  it("is silent when standard error is not a terminal, under CI, and without a terminal", () => {
    for (const [t, env] of [
      [terminal(false), {}],
      [terminal(true), { CI: "true" }],
      [terminal(true), { CI: "1" }],
    ] as const) {
      const p = startProgress(t, env, "starting", clock);
      now += 10_000;
      p.update("late");
      vi.advanceTimersByTime(10_000);
      p.done();
      expect(t.sent).toEqual([]);
    }
    const p = startProgress(undefined, {}, "starting", clock);
    p.update("x");
    p.done();
  });
});
