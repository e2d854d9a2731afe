/**
 * A report adds a kept file's runs as the cache's numbers (`InsightBuilder.addRunRows`), without making
 * objects of them. Its numbers, history and blocks must be those of the same runs made into objects and
 * dated (`addRuns` of `datedRuns`), and its blocks the runs joined as `blocksOf` joins them: checked on
 * seeded random files.
 */
import { describe, expect, it } from "vitest";
import { AUTHORS, type Author } from "../../server/src/engine/authorship";
import { BLOCK_FIELDS, type PackedBlocks } from "../../server/src/engine/blockTable";
import {
  blocksOf as joined,
  datedRuns,
  InsightBuilder,
  tallyOf,
  type CommitDate,
  type Insight,
  type InsightOptions,
  type Run,
  type UntracedDates,
} from "../../server/src/engine/insight";
import { pushRun, StringTable } from "../../server/src/engine/runRows";
import { prng } from "../support/protocolFuzz";

const DAY = 86_400_000;
const T0 = Date.parse("2026-03-01T00:00:00.000Z");
const NOW = Date.parse("2026-11-27T09:30:00.000Z");

/** A file's runs: traced ones of a few records (some out of scope, one with a time of another form), untraced ones between. */
function randomFile(rand: () => number): { runs: Run[]; dates: UntracedDates | undefined } {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const runs: Run[] = [];
  let line = 1;
  for (let n = 1 + Math.floor(rand() * 12); n > 0; n--) {
    const length = 1 + Math.floor(rand() * 6);
    const author = pick<Author>(["ai", "human", "mixed", "unknown", "untraced", "untraced"]);
    const run: Run = { start: line, end: line + length - 1, author };
    if (author !== "untraced") {
      const record = Math.floor(rand() * 4);
      run.traceId = `rec-${record}`;
      // one record's time in another ISO form, one record with none
      if (record === 1) run.timestamp = "2026-05-04T10:00:00+02:00";
      else if (record !== 3) run.timestamp = new Date(T0 + record * 17 * DAY + 3_600_000).toISOString();
      if (rand() < 0.7) run.intent = pick(["INT-1", "INT-2"]);
      if (author !== "human" && rand() < 0.8) run.model = pick(["openai/gpt-5", "anthropic/claude"]);
      if (author !== "ai" && rand() < 0.8) run.person = pick(["ana", "bo"]);
      if (rand() < 0.2) run.outOfScope = true;
    }
    runs.push(run);
    line += length;
  }
  const last = line - 1;
  const roll = rand();
  if (roll < 0.15) return { runs, dates: undefined };
  // commit times over some of the lines, in no order; some lines left without one
  const dates: CommitDate[] = [];
  for (let at = 1; at <= last; ) {
    const length = 1 + Math.floor(rand() * 5);
    if (rand() < 0.8) dates.push({ start: at, end: Math.min(last, at + length - 1), ms: rand() < 0.15 ? null : T0 + Math.floor(rand() * 200) * DAY });
    at += length;
  }
  dates.sort(() => rand() - 0.5);
  return { runs, dates: roll < 0.3 ? { undated: "git stopped", dates } : dates };
}

/** The blocks as objects (strings resolved): the table's layout may differ, the blocks may not. */
function blocksOf(p: PackedBlocks | undefined): unknown[] {
  const str = (i: number) => (i === -1 ? undefined : p!.strings[i]);
  const out: unknown[] = [];
  for (let i = 0; i < (p?.rows.length ?? 0); i += BLOCK_FIELDS) {
    const r = p!.rows;
    out.push([
      str(r[i]!),
      r[i + 1],
      r[i + 2],
      AUTHORS[r[i + 3]!],
      str(r[i + 4]!),
      str(r[i + 5]!),
      str(r[i + 6]!),
      str(r[i + 7]!),
      str(r[i + 8]!),
      r[i + 9],
      str(r[i + 10]!),
      r[i + 11],
    ]);
  }
  return out;
}

const comparable = (i: Insight) => ({ ...i, blocks: blocksOf(i.blocks) });

describe("a kept file's runs added as numbers", () => {
  for (const opts of [
    { by: "week", blocks: true },
    { by: "day" },
    { blocks: true },
    { by: "month", blocks: true, since: T0 + 30 * DAY, until: T0 + 120 * DAY },
  ] as InsightOptions[])
    it(`counts as its runs made into objects and dated (${JSON.stringify(opts)})`, () => {
      for (let seed = 1; seed <= 40; seed++) {
        const rand = prng(seed);
        const files = Array.from({ length: 1 + Math.floor(rand() * 6) }, (_, k) => ({ path: `src/f${k}.ts`, ...randomFile(rand) }));
        const objects = new InsightBuilder({ ...opts, now: NOW });
        const numbers = new InsightBuilder({ ...opts, now: NOW });
        const table = new StringTable();
        for (const f of files) {
          const row: number[] = [];
          for (const r of f.runs) pushRun(row, r, table);
          objects.addRuns(f.path, f.dates ? datedRuns(f.runs, f.dates, NOW) : f.runs, tallyOf(f.runs));
          numbers.addRunRows(f.path, Int32Array.from(row), table.strings, f.dates, NOW, tallyOf(f.runs));
        }
        const result = comparable(numbers.result());
        expect(result, `seed ${seed}`).toEqual(comparable(objects.result()));
        // the blocks join runs as `blocksOf` does
        if (opts.blocks) {
          const expected = files.flatMap((f) =>
            joined(f.dates ? datedRuns(f.runs, f.dates, NOW) : f.runs).map((b) => [
              f.path,
              b.start,
              b.end,
              b.author,
              b.intent,
              b.model,
              b.person,
              b.traceId,
              b.timestamp,
              b.outOfScope ? 1 : 0,
              b.committed,
              b.uncommitted ? 1 : 0,
            ]),
          );
          expect(result.blocks, `seed ${seed}`).toEqual(expected);
        }
      }
    });
});
