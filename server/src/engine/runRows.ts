/**
 * A file's runs of lines (engine/insight.ts `Run`) as numbers: what the insight cache keeps of each file, and
 * what a report adds to its numbers without making an object of each run (a workspace has hundreds of
 * thousands). RUN_FIELDS numbers per run: start, end, author × 2 + out of scope, then the numbers of its
 * intent, model, person, record id and record time in a table of strings, counted from 1 (0: absent), then
 * its confidence (engine/confidence.ts, its place in CONFIDENCES; `untraced` for a run no record owns).
 */
import { AUTHORS, type Author } from "./authorship";
import { CONFIDENCES, type Confidence } from "./confidence";
import type { Run } from "./insight";

export const RUN_FIELDS = 9;

const UNTRACED_CONFIDENCE = CONFIDENCES.indexOf("untraced");

/** A run's confidence as a number (`untraced` when it has none). */
export const confidenceCode = (c: Confidence | undefined): number => (c === undefined ? UNTRACED_CONFIDENCE : CONFIDENCES.indexOf(c));

/** The confidence a number stands for; undefined for `untraced`, which a run no record owns leaves out. */
export const confidenceOfCode = (code: number): Confidence | undefined => (code === UNTRACED_CONFIDENCE ? undefined : CONFIDENCES[code]);

/** An author and a scope as one number: author × 2 + out of scope. */
export const authorCode = (author: Author, out: boolean | undefined): number => AUTHORS.indexOf(author) * 2 + (out ? 1 : 0);

/** Numbers strings from 1 as they first come (0: absent). */
export class StringTable {
  readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();

  id(v: string | undefined): number {
    if (v === undefined) return 0;
    let i = this.ids.get(v);
    if (i === undefined) {
      this.strings.push(v);
      i = this.strings.length;
      this.ids.set(v, i);
    }
    return i;
  }
}

/** Appends run `r`'s RUN_FIELDS numbers to `row`, its strings numbered in `t`. */
export function pushRun(row: (string | number)[], r: Run, t: StringTable): void {
  row.push(
    r.start,
    r.end,
    authorCode(r.author, r.outOfScope),
    t.id(r.intent),
    t.id(r.model),
    t.id(r.person),
    t.id(r.traceId),
    t.id(r.timestamp),
    confidenceCode(r.confidence),
  );
}

/** The run whose numbers start at `n[i]`; `str` gives a string's number back. */
export function readRun(n: ArrayLike<number>, i: number, str: (i: number) => string | undefined): Run {
  const c = n[i + 2]!;
  // one shape for every run (absent fields undefined, which no output writes): decoded fast
  return {
    start: n[i]!,
    end: n[i + 1]!,
    author: AUTHORS[c >> 1]!,
    intent: str(n[i + 3]!),
    model: str(n[i + 4]!),
    person: str(n[i + 5]!),
    traceId: str(n[i + 6]!),
    timestamp: str(n[i + 7]!),
    confidence: confidenceOfCode(n[i + 8]!),
    outOfScope: c & 1 ? true : undefined,
  } as Run;
}
