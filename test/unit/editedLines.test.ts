import { describe, expect, it } from "vitest";
import { EditedLines, SPLICED_REGIONS } from "../../server/src/engine/editedLines";
import { normalizeLine } from "../../server/src/engine/hashing";
import { matchLines, type Segment } from "../../server/src/engine/lineChange";
import { Prng } from "../oracle/prng";

/** A document as an editor holds it, applying LSP-style range edits and feeding the tracker. */
class Doc {
  lines: string[];
  tracker: EditedLines;
  constructor(text: string) {
    this.lines = text.split("\n");
    this.tracker = new EditedLines(this.lines.slice());
  }
  edit(sl: number, sc: number, el: number, ec: number, text: string) {
    const head = this.lines[sl].slice(0, sc);
    const tail = this.lines[el].slice(ec);
    const inserted = (head + text + tail).split("\n");
    this.lines.splice(sl, el - sl + 1, ...inserted);
    this.tracker.replace(sl, el, inserted.length, (i) => this.lines[i]);
    expect(this.tracker.lineCount).toBe(this.lines.length);
    return inserted.length;
  }
  blocks() {
    return this.tracker.blocks().map((b) => [b.start, b.end]);
  }
}

const twenty = `${Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

describe("EditedLines", () => {
  it("blockFinder: where baseline lines are now, edited ones left out", () => {
    const d = new Doc(twenty);
    d.edit(0, 0, 0, 0, "new first\n"); // everything moves down one
    d.edit(6, 0, 6, 7, "changed"); // baseline line 5 (0-based) is edited
    expect(
      d.tracker
        .blockFinder()(3, 7)
        .map((b) => [b.start, b.end]),
    ).toEqual([
      [4, 5],
      [7, 8],
    ]);
    expect(d.tracker.blockFinder()(5, 5)).toEqual([]);
    expect(
      d.tracker
        .blockFinder()(19, 30)
        .map((b) => [b.start, b.end]),
    ).toEqual([[20, 21]]); // the last line and the empty one after the final newline
  });

  it("marks exactly the edited line", () => {
    const d = new Doc(twenty);
    d.edit(9, 0, 9, 7, "changed");
    expect(d.blocks()).toEqual([[9, 9]]);
  });

  it("moves the edited line down when lines are inserted above, and marks the inserted lines", () => {
    const d = new Doc(twenty);
    d.edit(9, 0, 9, 7, "changed");
    d.edit(2, 0, 2, 0, "a\nb\nc\nd\ne\n");
    expect(d.blocks()).toEqual([
      [2, 6],
      [14, 14],
    ]);
    expect(d.tracker.origin(7)).toBe(2);
    expect(d.tracker.origin(15)).toBe(10);
  });

  it("forgets edits that are undone back to the baseline text", () => {
    const d = new Doc(twenty);
    d.edit(9, 0, 9, 7, "changed");
    d.edit(2, 0, 2, 0, "a\nb\nc\nd\ne\n");
    d.edit(2, 0, 7, 0, ""); // delete the five inserted lines
    expect(d.blocks()).toEqual([[9, 9]]);
    d.edit(9, 0, 9, 7, "line 10");
    expect(d.blocks()).toEqual([]);
    expect(d.tracker.origin(9)).toBe(9);
  });

  it("treats typing a character and deleting it as no edit", () => {
    const d = new Doc(twenty);
    d.edit(4, 3, 4, 3, "x");
    expect(d.blocks()).toEqual([[4, 4]]);
    d.edit(4, 3, 4, 4, "");
    expect(d.blocks()).toEqual([]);
  });

  it("handles deletions of whole lines: no line is edited but the join point", () => {
    const d = new Doc(twenty);
    d.edit(3, 0, 6, 0, ""); // remove lines 4..6
    expect(d.blocks()).toEqual([]);
    expect(d.tracker.origin(3)).toBe(6);
    d.edit(3, 0, 3, 0, "line 4\nline 5\nline 6\n");
    expect(d.blocks()).toEqual([]);
    expect(d.tracker.origin(19)).toBe(19);
  });

  it("keeps separate blocks separate and merges touching ones", () => {
    const d = new Doc(twenty);
    d.edit(1, 0, 1, 0, "X");
    d.edit(5, 0, 5, 0, "Y");
    d.edit(2, 0, 2, 0, "Z");
    expect(d.blocks()).toEqual([
      [1, 2],
      [5, 5],
    ]);
  });

  it("does work proportional to the runs, not the document", () => {
    const big = Array.from({ length: 200_000 }, (_, i) => `l${i}`);
    const d = new Doc(big.join("\n"));
    let reads = 0;
    const lineAt = (i: number) => {
      reads++;
      return d.lines[i];
    };
    d.lines[100_000] = "edited";
    d.tracker.replace(100_000, 100_000, 1, lineAt);
    expect(reads).toBeLessThan(5);
    expect(d.blocks()).toEqual([[100_000, 100_000]]);
  });
});

/**
 * The plain tracker the in-place one is held to: every edit copies the runs, splits them at the edit and
 * merges them again over the whole list. Slow on a file of many edited runs, obviously right.
 */
type PlainRun = { base: number; length: number } | { base: null; length: number; refined: boolean };
class PlainTracker {
  reformatted = new Set<number>();
  constructor(
    readonly baseline: readonly string[],
    public runs: PlainRun[],
  ) {}

  replace(startLine: number, endLine: number, newLineCount: number, lineAt: (line: number) => string): void {
    const removed = endLine - startLine + 1;
    if (removed <= 0 && newLineCount <= 0) return;
    const [before, rest] = plainSplit(this.runs, startLine);
    const [, after] = plainSplit(rest, removed);
    this.runs = [...before, { base: null, length: newLineCount, refined: false }, ...after];
    // merge the edited region with edited neighbours, then give back equal lines at either end
    let lo = before.length;
    let hi = lo;
    while (lo > 0 && this.runs[lo - 1]!.base === null) lo--;
    while (hi + 1 < this.runs.length && this.runs[hi + 1]!.base === null) hi++;
    let length = 0;
    for (let i = lo; i <= hi; i++) length += this.runs[i]!.length;
    let first = 0;
    for (let i = 0; i < lo; i++) first += this.runs[i]!.length;
    const prev = this.runs[lo - 1] as { base: number; length: number } | undefined;
    const next = this.runs[hi + 1] as { base: number; length: number } | undefined;
    let gapStart = prev ? prev.base + prev.length : 0;
    let gapEnd = next ? next.base : this.baseline.length;
    const same = (a: string, b: string | undefined) => b !== undefined && normalizeLine(a) === normalizeLine(b);
    const giveBack = (base: number, text: string) =>
      normalizeLine(text) === normalizeLine(this.baseline[base]!) ? this.reformatted.delete(base) : this.reformatted.add(base);
    let head = 0;
    while (head < length && gapStart < gapEnd && same(lineAt(first + head), this.baseline[gapStart])) {
      giveBack(gapStart++, lineAt(first + head++));
    }
    let tail = 0;
    while (tail < length - head && gapStart < gapEnd && same(lineAt(first + length - 1 - tail), this.baseline[gapEnd - 1])) {
      giveBack(--gapEnd, lineAt(first + length - 1 - tail++));
    }
    const middle: PlainRun[] = [];
    if (head) middle.push({ base: gapStart - head, length: head });
    if (length - head - tail) middle.push({ base: null, length: length - head - tail, refined: false });
    if (tail) middle.push({ base: gapEnd, length: tail });
    this.runs = plainJoin([...this.runs.slice(0, lo), ...middle, ...this.runs.slice(hi + 1)]);
  }

  /** Each edited region not compared yet, matched line by line against the baseline lines between its neighbours. */
  refine(lineAt: (line: number) => string): void {
    const out: PlainRun[] = [];
    let at = 0;
    this.runs.forEach((r, i) => {
      if (r.base !== null || r.refined) {
        out.push(r);
        at += r.length;
        return;
      }
      const baseRuns = (list: PlainRun[]) => list.filter((x): x is { base: number; length: number } => x.base !== null);
      const gapStart =
        baseRuns(out)
          .map((x) => x.base + x.length)
          .pop() ?? 0;
      const gapEnd = baseRuns(this.runs.slice(i + 1)).map((x) => x.base)[0] ?? this.baseline.length;
      if (gapEnd <= gapStart) out.push({ base: null, length: r.length, refined: true });
      else {
        const oldLines = this.baseline.slice(gapStart, gapEnd);
        const newLines = Array.from({ length: r.length }, (_, k) => lineAt(at + k));
        const segments: Segment[] = [];
        matchLines(oldLines, newLines, 0, oldLines.length, 0, newLines.length, segments);
        let n = 0;
        for (const seg of segments) {
          if (seg.newStart > n) out.push({ base: null, length: seg.newStart - n, refined: true });
          out.push({ base: gapStart + seg.oldStart, length: seg.length });
          for (let k = 0; k < seg.length; k++) {
            const base = gapStart + seg.oldStart + k;
            if (normalizeLine(newLines[seg.newStart + k]!) === normalizeLine(this.baseline[base]!)) this.reformatted.delete(base);
            else this.reformatted.add(base);
          }
          n = seg.newStart + seg.length;
        }
        if (n < r.length) out.push({ base: null, length: r.length - n, refined: true });
      }
      at += r.length;
    });
    this.runs = plainJoin(out);
  }
}

/** Neighbouring runs of a kind joined (baseline runs when their numbers run on), empty ones dropped. */
function plainJoin(runs: readonly PlainRun[]): PlainRun[] {
  const out: PlainRun[] = [];
  for (const r of runs) {
    if (r.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.base === null && r.base === null) out[out.length - 1] = { base: null, length: last.length + r.length, refined: last.refined && r.refined };
    else if (last && last.base !== null && r.base !== null && last.base + last.length === r.base)
      out[out.length - 1] = { base: last.base, length: last.length + r.length };
    else out.push({ ...r });
  }
  return out;
}

function plainSplit(runs: readonly PlainRun[], lines: number): [PlainRun[], PlainRun[]] {
  const before: PlainRun[] = [];
  let i = 0;
  let left = lines;
  while (i < runs.length && left >= runs[i]!.length) {
    left -= runs[i]!.length;
    before.push(runs[i++]!);
  }
  if (i < runs.length && left > 0) {
    const r = runs[i]!;
    const [a, b]: [PlainRun, PlainRun] =
      r.base === null
        ? [
            { base: null, length: left, refined: r.refined },
            { base: null, length: r.length - left, refined: r.refined },
          ]
        : [
            { base: r.base, length: left },
            { base: r.base + left, length: r.length - left },
          ];
    return [
      [...before, a],
      [b, ...runs.slice(i + 1)],
    ];
  }
  return [before, runs.slice(i)];
}

describe("EditedLines in place, held to the plain tracker", () => {
  // "alpha  " is "alpha" to the hashes; "x  y" is "x y" reformatted
  const words = ["alpha", "beta", "gamma", "delta", "alpha  ", "", "omega", "x y", "x  y"];

  it("gives the same runs and reformatted lines after every edit and refinement of 300 random sessions; each carried line is its baseline line, and each baseline range is found where its lines are", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rng = new Prng(seed);
      const pick = () => words[rng.int(0, words.length - 1)]!;
      const text = Array.from({ length: rng.int(0, 40) }, pick).join("\n");
      const d = new Doc(text);
      const plain = new PlainTracker(d.lines.slice(), d.lines.length ? [{ base: 0, length: d.lines.length }] : []);
      for (let step = 0; step < 60; step++) {
        const sl = rng.int(0, d.lines.length - 1);
        const el = rng.next() < 0.6 ? sl : rng.int(sl, Math.min(d.lines.length - 1, sl + 4));
        const sc = rng.int(0, d.lines[sl]!.length);
        const ec = el === sl ? rng.int(sc, d.lines[el]!.length) : rng.int(0, d.lines[el]!.length);
        const inserted = Array.from({ length: rng.int(0, 3) }, pick).join("\n") + (rng.next() < 0.3 ? "\n" : "");
        const count = d.edit(sl, sc, el, ec, inserted);
        plain.replace(sl, el, count, (i) => d.lines[i]!);
        const where = `seed ${seed}, step ${step}`;
        expect(d.tracker.snapshot().runs, where).toEqual(plain.runs);
        expect([...d.tracker.snapshot().reformatted].sort(), where).toEqual([...plain.reformatted].sort());
        const origins = d.tracker.origins();
        origins.forEach((o, line) => {
          if (o !== undefined && !d.tracker.isReformatted(o)) expect(normalizeLine(d.lines[line]!), where).toBe(normalizeLine(plain.baseline[o]!));
        });
        // the first blocks a capped publish makes, and the count of all
        const limit = rng.int(0, 3);
        const blocks = d.tracker.blocks();
        expect(d.tracker.firstBlocks(limit), where).toEqual({ blocks: blocks.slice(0, limit), total: blocks.length });
        // whether a range of current lines touches an edited one (a code action's question), against the blocks
        for (let k = 0; k < 2; k++) {
          const s1 = rng.int(0, d.lines.length);
          const e1 = rng.int(s1, d.lines.length + 1);
          const touches = blocks.some((b) => b.start <= e1 && b.end >= s1);
          expect(d.tracker.touchesEdited(s1, e1), `${where}, lines ${s1}-${e1}`).toBe(touches);
        }
        // where baseline ranges are now, found by binary search, against the lines whose origin is in range
        const whereNow = d.tracker.blockFinder();
        for (let k = 0; k < 4; k++) {
          const s0 = rng.int(-1, plain.baseline.length);
          const e0 = rng.int(s0 - 1, plain.baseline.length + 1);
          const expected: number[][] = [];
          origins.forEach((o, line) => {
            if (o === undefined || o < s0 || o > e0) return;
            const last = expected[expected.length - 1];
            if (last && last[1] === line - 1) last[1] = line;
            else expected.push([line, line]);
          });
          expect(
            whereNow(s0, e0).map((b) => [b.start, b.end]),
            `${where}, baseline ${s0}..${e0}`,
          ).toEqual(expected);
        }
        if (rng.next() < 0.15) {
          d.tracker.refine((i) => d.lines[i]!);
          plain.refine((i) => d.lines[i]!);
          expect(d.tracker.snapshot().runs, `${where}, refined`).toEqual(plain.runs);
          expect([...d.tracker.snapshot().reformatted].sort(), `${where}, refined`).toEqual([...plain.reformatted].sort());
        }
      }
    }
    // a few seconds alone; several times that beside the rest of `npm test` on two cores
  }, 120_000);

  it(`refines more regions than it splices in (over ${SPLICED_REGIONS}, a replace-all) in one pass, as the plain tracker does`, () => {
    for (let seed = 1; seed <= 20; seed++) {
      const rng = new Prng(seed);
      const pick = () => words[rng.int(0, words.length - 1)]!;
      const d = new Doc(Array.from({ length: 600 }, pick).join("\n"));
      const plain = new PlainTracker(d.lines.slice(), [{ base: 0, length: d.lines.length }]);
      // one edit every third line, from the bottom up so that each lands where it was meant: 200 regions
      for (let line = 597; line >= 0; line -= 3) {
        const text = d.lines[line]!;
        const count = d.edit(line, 0, line, text.length, rng.next() < 0.5 ? `${pick()}\n${pick()}` : pick());
        plain.replace(line, line, count, (i) => d.lines[i]!);
      }
      expect(d.tracker.snapshot().runs.filter((r) => r.base === null).length, `seed ${seed}`).toBeGreaterThan(SPLICED_REGIONS);
      expect(
        d.tracker.refine((i) => d.lines[i]!),
        `seed ${seed}`,
      ).toBe(true);
      plain.refine((i) => d.lines[i]!);
      expect(d.tracker.snapshot().runs, `seed ${seed}`).toEqual(plain.runs);
      expect([...d.tracker.snapshot().reformatted].sort(), `seed ${seed}`).toEqual([...plain.reformatted].sort());
    }
  });

  it("finds where a keystroke lands by walking from the last edit: typing at one place in a file of 100,000 edited runs steps over a few runs", () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `l${i}`);
    const d = new Doc(lines.join("\n"));
    // every other line edited: 100,000 edited runs between 100,000 baseline runs
    for (let i = 0; i < 200_000; i += 2) d.lines[i] = `${d.lines[i]}!`;
    d.tracker.replace(0, 199_999, 200_000, (i) => d.lines[i]!);
    d.tracker.refine((i) => d.lines[i]!);
    expect(d.tracker.blocks()).toHaveLength(100_000);
    const before = d.tracker.runsWalked;
    for (let k = 0; k < 100; k++) d.edit(150_000, k, 150_000, k, "x");
    expect(d.tracker.blocks()).toHaveLength(100_000);
    expect(d.tracker.origin(150_001)).toBe(150_001);
    // the first keystroke walks there from the top; each one after it, a few runs
    expect(d.tracker.runsWalked - before).toBeLessThan(150_000 + 100 * 8);
    const afterFirst = d.tracker.runsWalked;
    for (let k = 0; k < 100; k++) d.edit(150_000, k, 150_000, k, "y");
    expect(d.tracker.runsWalked - afterFirst).toBeLessThan(100 * 8);
  });
});
