/**
 * The order of ledger entries in time, one rule for every reader: by timestamp, then by position in the
 * ledger (a later line wins a tie). An entry whose timestamp cannot be read counts as the oldest, so a
 * malformed record never hides a well-formed newer one.
 */
import type { TraceEntry } from "./read";

type Timed = Pick<TraceEntry, "timestamp" | "line">;

/** Newest first; does not change `entries`. */
export function newestFirst<T extends Timed>(entries: readonly T[]): T[] {
  return entries
    .map((entry) => ({ entry, time: entryTime(entry) }))
    .sort((a, b) => b.time - a.time || b.entry.line - a.entry.line)
    .map((x) => x.entry);
}

/** The newest entry, or undefined for none. */
export function newestOf<T extends Timed>(entries: Iterable<T>): T | undefined {
  let best: T | undefined;
  let bestTime = -Infinity;
  for (const e of entries) {
    const t = entryTime(e);
    if (best === undefined || t > bestTime || (t === bestTime && e.line > best.line)) {
      best = e;
      bestTime = t;
    }
  }
  return best;
}

/** Milliseconds of an entry's timestamp; entries without a usable timestamp sort as oldest. */
export function entryTime(entry: Pick<TraceEntry, "timestamp">): number {
  const t = isoTime(entry.timestamp);
  return Number.isNaN(t) ? -Infinity : t;
}

const digit = (s: string, i: number) => s.charCodeAt(i) - 48;
const two = (s: string, i: number) => digit(s, i) * 10 + digit(s, i + 1);

/**
 * `Date.parse` for the shape every Agent Trace writer uses (`2026-01-23T14:30:00Z`, optionally with
 * milliseconds), without its cost (it ran once per record over a million records); anything else, and days
 * past the 28th, go to `Date.parse` itself, so the result is always the same as its.
 */
export function isoTime(s: string): number {
  const n = s.length;
  if (
    (n === 20 || n === 24) &&
    s.charCodeAt(4) === 45 &&
    s.charCodeAt(7) === 45 &&
    s.charCodeAt(10) === 84 &&
    s.charCodeAt(13) === 58 &&
    s.charCodeAt(16) === 58 &&
    s.charCodeAt(n - 1) === 90
  ) {
    if (n === 24 && s.charCodeAt(19) !== 46) return Date.parse(s);
    for (const i of n === 24 ? DIGITS_MS : DIGITS) {
      const d = digit(s, i);
      if (d < 0 || d > 9) return Date.parse(s);
    }
    const year = two(s, 0) * 100 + two(s, 2);
    const month = two(s, 5);
    const day = two(s, 8);
    const hour = two(s, 11);
    const minute = two(s, 14);
    const second = two(s, 17);
    if (month < 1 || month > 12 || day < 1 || day > 28 || hour > 23 || minute > 59 || second > 59) return Date.parse(s);
    const ms = n === 24 ? digit(s, 20) * 100 + two(s, 21) : 0;
    return Date.UTC(year, month - 1, day, hour, minute, second, ms);
  }
  return Date.parse(s);
}

const DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];
const DIGITS_MS = [...DIGITS, 20, 21, 22];
