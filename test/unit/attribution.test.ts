import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attribute, type LineAttribution, RecordGraph } from "../../server/src/engine/attribution";
import { contentHash, fileHash } from "../../server/src/engine/hashing";
import { borrowed } from "../../server/src/engine/lineage";
import { diffTexts } from "../../server/src/engine/lineChange";
import { prng } from "../support/protocolFuzz";
import { parseLedgerLines, type TraceEntry } from "../../server/src/engine/ledger/read";
import { buildRecord, type LineSpan } from "../../server/src/engine/ledger/record";
import type { ContributorType } from "@shared/agentTrace";

const fixture = (name: string) => readFileSync(join(__dirname, "../fixtures/agent-trace", name), "utf8");

let clock = Date.UTC(2026, 10, 22, 10);
/** A record as intent-lsp writes it, read back through the ledger reader like the server does. */
function recorded(path: string, content: string, ranges: LineSpan[], type: ContributorType, intentId?: string): TraceEntry[] {
  const record = buildRecord({
    path,
    content,
    ranges,
    contributor: type === "ai" ? { type, modelId: "anthropic/claude-sonnet-4-5" } : { type },
    sessionId: "attr",
    toolVersion: "0.1.0",
    mutationClass: "INTENT_EVOLUTION",
    preHash: null,
    scope: "PASS",
    intentId: intentId ?? null,
    now: new Date((clock += 60_000)),
  });
  return parseLedgerLines(JSON.stringify(record), 1).entries;
}

/** One letter per line: A(i), H(uman), ?(unknown/mixed), . untraced; lower case when not exact. */
function show(attrs: (LineAttribution | undefined)[]): string {
  return attrs
    .map((a) => {
      if (!a) return ".";
      const c = a.entry.contributor.type === "ai" ? "A" : a.entry.contributor.type === "human" ? "H" : "?";
      return a.exact ? c : c.toLowerCase();
    })
    .join("");
}

const block = ["function area(r) {", "  const pi = Math.PI;", "  const sq = r * r;", "  return pi * sq;", "}"];
const human = ["// utilities", "import { x } from 'y';", ""];
const file1 = [...human, ...block, ""];

describe("attribute", () => {
  const ai = recorded("src/geo.ts", file1.join("\n"), [{ start_line: 4, end_line: 8 }], "ai", "INT-001");
  const hu = recorded("src/geo.ts", file1.join("\n"), [{ start_line: 1, end_line: 2 }], "human");
  const entries = [...ai, ...hu];

  it("attributes recorded ranges in place; untraced lines are undefined", () => {
    const attrs = attribute(entries, file1);
    expect(show(attrs)).toBe("HH.AAAAA.");
    expect(attrs[3]).toMatchObject({
      exact: true,
      anchor: "range",
      entry: { intentId: "INT-001", contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" } },
    });
    expect(attrs[2]).toBeUndefined();
  });

  it("keeps attribution when lines are inserted above (content moved within the file)", () => {
    const moved = ["// utilities", "// a new comment", "// and another", "import { x } from 'y';", "", ...block, ""];
    const attrs = attribute(entries, moved);
    // the AI block moved intact; the human range (lines 1-2) was split by the insertion, so it no longer
    // hashes as a block, and its two lines are re-anchored one by one
    expect(show(attrs)).toBe("H..H.AAAAA.");
    expect(attrs[5]).toMatchObject({ anchor: "moved", exact: true });
    expect(attrs[0]).toMatchObject({ anchor: "line", exact: true });
    expect(attrs[3]).toMatchObject({ anchor: "line", exact: true });
  });

  it("keeps attribution for a block moved below other code", () => {
    const moved = ["// utilities", "import { x } from 'y';", "", "export const k = 1;", "", ...block, ""];
    expect(show(attribute(ai, moved))).toBe(".....AAAAA.");
  });

  it("an edited line loses attribution, its unchanged neighbours keep it", () => {
    const edited = [...file1];
    edited[5] = "  const sq = r ** 2;";
    const attrs = attribute(entries, edited);
    expect(show(attrs)).toBe("HH.AA.AA.");
    expect(attrs[3]).toMatchObject({ exact: true, anchor: "line" });
  });

  it("follows lines through an edit that also inserted lines inside the block", () => {
    const edited = [...human, block[0]!, "  // why: pi is cached", block[1]!, block[2]!, "  console.log(sq);", block[3]!, block[4]!, ""];
    expect(show(attribute(ai, edited))).toBe("...A.AA.AA.");
  });

  it("a human line inside an AI block is never reported as AI", () => {
    const edited = [...file1];
    edited[5] = "  const sq = r * r; // checked by hand";
    const later = recorded("src/geo.ts", edited.join("\n"), [{ start_line: 6, end_line: 6 }], "human");
    const attrs = attribute([...entries, ...later], edited);
    expect(show(attrs)).toBe("HH.AAHAA.");
    expect(attrs[5]!.entry.contributor.type).toBe("human");
    // the same edit without a record is untraced, not AI
    expect(attrs.filter((a) => a?.entry.contributor.type === "ai")).toHaveLength(4);
    expect(show(attribute(entries, edited))).toBe("HH.AA.AA.");
  });

  it("the newest record wins a line, whatever the order of entries", () => {
    const rewrite = recorded("src/geo.ts", file1.join("\n"), [{ start_line: 4, end_line: 5 }], "human");
    expect(show(attribute([...rewrite, ...entries], file1))).toBe("HH.HHAAA.");
    expect(show(attribute([...entries, ...rewrite], file1))).toBe("HH.HHAAA.");
  });

  it("matches through CRLF and trailing whitespace changes", () => {
    const crlf = file1.map((l) => `${l}  \r`);
    expect(show(attribute(entries, crlf))).toBe("HH.AAAAA.");
  });

  it("attributes nothing when the whole block was rewritten", () => {
    const rewritten = [...human, "const area = (r) => Math.PI * r ** 2;", ""];
    expect(show(attribute(entries, rewritten))).toBe("HH...");
  });

  it("prefers the copy nearest the recorded position when a block is duplicated", () => {
    const entry = recorded("d.ts", ["a", "b", ...block].join("\n"), [{ start_line: 3, end_line: 7 }], "ai");
    // recorded at 0-based 2; copies now at 0 (distance 2) and 8 (distance 6)
    expect(show(attribute(entry, [...block, "x", "y", "z", ...block]))).toBe("AAAAA........");
    expect(show(attribute(entry, ["x", "y", "z", "w", "v", "u", "t", ...block, ...block]))).toBe(".......AAAAA.....");
  });
});

describe("attribute with other dialects", () => {
  it("reference-impl ranges (no hash) are placed at their position, not exact, only when they fit", () => {
    const { entries } = parseLedgerLines(fixture("reference-impl-traces.jsonl"), 1);
    const short = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`);
    expect(attribute(entries, short).every((a) => a === undefined)).toBe(true);
    const long = Array.from({ length: 80 }, (_, i) => `line ${i + 1}`);
    const attrs = attribute(entries, long);
    expect(
      attrs.slice(41, 67).every((a) => a?.exact === false && a.anchor === "position" && a.entry.contributor.modelId === "anthropic/claude-opus-4-5-20251101"),
    ).toBe(true);
    expect(attrs[40]).toBeUndefined();
    expect(attrs[67]).toBeUndefined();
  });

  it("a hash in another algorithm (spec example's murmur3) cannot be checked: position only", () => {
    const { entries } = parseLedgerLines(fixture("spec-examples.jsonl"), 1);
    const parser = entries.filter((e) => e.path === "src/utils/parser.ts");
    const attrs = attribute(
      parser,
      Array.from({ length: 70 }, () => "x"),
    );
    expect(attrs[41]).toMatchObject({ exact: false, anchor: "position" });
  });

  it("a sha256 hash that does not match is never attributed, even at its position", () => {
    const { entries } = parseLedgerLines(fixture("older-dialect.jsonl"), 1);
    const weather = entries.filter((e) => e.path === "src/api/weather.ts");
    expect(
      attribute(
        weather,
        Array.from({ length: 60 }, (_, i) => `l${i}`),
      ).every((a) => a === undefined),
    ).toBe(true);
  });

  it("a truncated sha256 (older tools) is checked as a prefix", () => {
    const lines = ["alpha", "beta", "gamma"];
    const full = contentHash(lines.slice(1, 3));
    const entry: TraceEntry = {
      ...parseLedgerLines(fixture("older-dialect.jsonl"), 1).entries[0]!,
      startLine: 2,
      endLine: 3,
      contentHash: full.slice(0, 7 + 32),
    };
    expect(show(attribute([entry], lines))).toBe(".AA");
    expect(show(attribute([entry], ["alpha", "beta", "delta"]))).toBe("...");
  });

  it("flat records attribute the whole file only when the file hash matches", () => {
    const { entries } = parseLedgerLines(fixture("flat-dialect.jsonl"), 1);
    const middleware = entries.filter((e) => e.path === "src/auth/middleware.ts");
    expect(attribute(middleware, ["test"])).toEqual([{ entry: middleware[0], exact: true, anchor: "file" }]);
    expect(attribute(middleware, ["test", ""])).toEqual([undefined, undefined]);
    expect(attribute(middleware, ["tost"])).toEqual([undefined]);
  });

  it("ignores file-level entries without a hash (deletions)", () => {
    const del = parseLedgerLines(
      JSON.stringify(
        buildRecord({
          path: "gone.ts",
          content: null,
          ranges: [],
          contributor: { type: "ai" },
          sessionId: "s",
          toolVersion: "0",
          mutationClass: "FILE_DELETION",
          preHash: null,
          scope: "PASS",
        }),
      ),
      1,
    ).entries;
    expect(del).toHaveLength(1);
    expect(attribute(del, ["recreated"])).toEqual([undefined]);
  });
});

describe("attribute on a large file", () => {
  it("re-anchors 500 records over a 5,000-line file quickly after an insertion at the top", () => {
    const lines = Array.from({ length: 5000 }, (_, i) => (i % 10 === 9 ? "}" : `  statement_${i}();`));
    const text = lines.join("\n");
    const entries: TraceEntry[] = [];
    for (let r = 0; r < 500; r++) {
      entries.push(...recorded("big.ts", text, [{ start_line: r * 10 + 1, end_line: r * 10 + 10 }], r % 2 ? "ai" : "human"));
    }
    // every record's post_hash is now stale and every block moved down by 3 lines; one line per block edited
    const now = ["// header", "// header 2", "", ...lines.map((l, i) => (i % 100 === 5 ? `${l} // edited` : l))];
    // how long this takes is measured by the benchmark (npm run bench), not asserted here
    const attrs = attribute(entries, now);
    expect(attrs.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    expect(attrs.filter((a) => a === undefined)).toHaveLength(3 + 50);
    expect(attrs[3 + 5]).toBeUndefined();
    expect(attrs[3 + 6]).toMatchObject({ anchor: "line" });
    expect(attrs[3 + 15]).toMatchObject({ anchor: "moved" });
    expect(attrs[3 + 10]!.entry.contributor.type).toBe("ai");
  });
});

/**
 * A record with its line map, as intent-lsp writes it, changing `path` from `before` to `after`, by `who`
 * ("person" or a model), stamped `at` (ms), read back as ledger line `line`.
 */
function mapped(path: string, before: string, after: string, who: string, at: number, id: string, line: number, extra: object = {}): TraceEntry[] {
  const record = buildRecord({
    path,
    content: after,
    change: diffTexts(before, after),
    contributor: who === "person" ? { type: "human" } : { type: "ai", modelId: `lab/${who}` },
    sessionId: "skew",
    toolVersion: "0.1.0",
    mutationClass: "INTENT_EVOLUTION",
    preHash: fileHash(before),
    scope: "PASS",
    intentId: null,
    now: new Date(at),
    id,
    ...extra,
  });
  return parseLedgerLines(JSON.stringify(record), line).entries;
}
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

describe("records whose clocks disagree with the order they were written in", () => {
  /**
   * Six records of one file, each changing one line after the one before (their `pre_hash` the one before's
   * `post_hash`), stamped with `hours` (as machines with skewed clocks, or branches merged later, stamp them).
   */
  function history(hours: number[]): { entries: TraceEntry[]; lines: string[] } {
    const lines = Array.from({ length: 8 }, (_, i) => `const v${i} = ${i};`);
    const entries: TraceEntry[] = [];
    for (let r = 0; r < hours.length; r++) {
      const before = `${lines.join("\n")}\n`;
      lines[r] = `const v${r} = ${r * 100 + 1};`;
      entries.push(...mapped("src/f.ts", before, `${lines.join("\n")}\n`, `model-${r}`, T0 + hours[r]! * HOUR, `id-${r}`, r + 1));
    }
    return { entries, lines: `${lines.join("\n")}\n`.split("\n") };
  }
  const owners = (attrs: (LineAttribution | undefined)[]) => attrs.map((a) => (a ? `${a.entry.recordId} ${a.anchor}` : "."));

  it("replays the chain of line maps as the hashes link it, as when the clocks agree", () => {
    const ordered = history([1, 2, 3, 4, 5, 6]);
    const skewed = history([5, 1, 4, 2, 6, 3]);
    const expected = ["id-0 carried", "id-1 carried", "id-2 carried", "id-3 carried", "id-4 carried", "id-5 carried", ".", ".", "."];
    expect(owners(attribute(ordered.entries, ordered.lines))).toEqual(expected);
    expect(owners(attribute(skewed.entries, skewed.lines))).toEqual(expected);
  });

  it("gives a copy of the file (another path's records, followed through the chain only) the same owners", () => {
    const skewed = history([5, 1, 4, 2, 6, 3]);
    const copy = attribute(skewed.entries.map(borrowed), skewed.lines);
    expect(owners(copy)).toEqual(["id-0 carried", "id-1 carried", "id-2 carried", "id-3 carried", "id-4 carried", "id-5 carried", ".", ".", "."]);
  });

  // (content that comes back, a revert, is left out: which of two records of the same content is the newest
  // is decided by their times, entryOrder.ts's one definition, so skewed clocks may pick the other one)
  it("credits every line as the same history with agreeing clocks does, on 300 random histories", () => {
    let carried = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const rand = prng(9_100 + seed);
      const lines = Array.from({ length: 3 + Math.floor(rand() * 10) }, (_, i) => `line ${i}`);
      const steps: { before: string; after: string }[] = [];
      for (let r = 0; r < 2 + Math.floor(rand() * 10); r++) {
        const before = `${lines.join("\n")}\n`;
        const at = Math.floor(rand() * (lines.length + 1));
        const roll = rand();
        // a line changed, added or removed (never the last one), or a block of new lines
        if (roll < 0.4 && at < lines.length) lines[at] = `changed ${r}`;
        else if (roll < 0.6 && lines.length > 1 && at < lines.length) lines.splice(at, 1);
        else lines.splice(at, 0, ...Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, k) => `added ${r}.${k}`));
        steps.push({ before, after: `${lines.join("\n")}\n` });
      }
      const entriesAt = (minutes: number[]) =>
        steps.flatMap(({ before, after }, r) => mapped("src/f.ts", before, after, `model-${r}`, T0 + minutes[r]! * 60_000, `id-${r}`, r + 1));
      const ordered = entriesAt(steps.map((_, r) => r * 10));
      // each stamp moved by up to half an hour of skew: stamps out of order and ties
      const skewed = entriesAt(steps.map((_, r) => r * 10 + Math.floor(rand() * 61) - 30));
      const text = steps[steps.length - 1]!.after.split("\n");
      const plain = owners(attribute(ordered, text));
      expect(owners(attribute(skewed, text)), `seed ${seed}`).toEqual(plain);
      // a copy, whose lines only the chain of line maps explains
      expect(owners(attribute(skewed.map(borrowed), text)), `seed ${seed}`).toEqual(owners(attribute(ordered.map(borrowed), text)));
      carried += plain.filter((o) => o.endsWith("carried")).length;
    }
    expect(carried).toBeGreaterThan(1000);
  });
});

describe("lines moved from another file whose record's clock runs ahead", () => {
  const block = ["function urgent(a) {", "  return a.severity >= 3;", "}"];
  const aInit = ["// alerts", "export const LIMIT = 42;"];
  const bInit = ["// urgent"];
  const txt = (lines: readonly string[]) => `${lines.join("\n")}\n`;
  /** a.ts gets a block from model-A (at `written`), a person cuts it, model-B pastes it into b.ts (at `pasted`). */
  function moved(written: number, pasted: number): { a: TraceEntry[]; b: TraceEntry[] } {
    const a0 = txt([...aInit.slice(0, 1), ...block, ...aInit.slice(1)]);
    const written0 = mapped("a.ts", txt(aInit), a0, "model-a", T0 + written * HOUR, "write", 1);
    const cut = mapped("a.ts", a0, txt(aInit), "person", T0 + 3 * HOUR, "cut", 2);
    const paste = mapped("b.ts", txt(bInit), txt([...bInit, ...block]), "model-b", T0 + pasted * HOUR, "paste", 3, {
      movedIn: [{ from: "a.ts", preHash: fileHash(a0), runs: [{ oldStart: 1, newStart: 1, length: 3 }] }],
    });
    return { a: [...written0, ...cut], b: paste };
  }
  const ownersOf = (m: { a: TraceEntry[]; b: TraceEntry[] }) =>
    attribute([...m.b, ...m.a.map(borrowed)], txt([...bInit, ...block]).split("\n")).map((a) => (a ? `${a.entry.recordId} ${a.anchor}` : "."));

  it("keep the owner they had there, as when the clocks agree", () => {
    const agreeing = ownersOf(moved(1, 4));
    expect(agreeing.slice(1, 4)).toEqual(["write carried", "write carried", "write carried"]);
    expect(ownersOf(moved(6, 4))).toEqual(agreeing);
  });

  it("keep it when the editor carries the file's owners through the paste's record", () => {
    const m = moved(6, 4);
    const graph = RecordGraph.of([...m.b, ...m.a.map(borrowed)]);
    const paste = graph.newestPinning(fileHash(txt([...bInit, ...block])))!;
    const after = graph.apply({ owners: [undefined], hashes: [undefined] }, paste)!;
    expect(after.owners.map((o) => o?.entry.recordId)).toEqual([undefined, "write", "write", "write"]);
  });
});

describe("a record appended after the one it would precede", () => {
  it("never explains, through the chain, content that was there before it wrote it again", () => {
    const txt = (lines: readonly string[]) => `${lines.join("\n")}\n`;
    const x = txt(["a", "b"]);
    const y = txt(["a", "b", "c"]);
    const z = txt(["A", "b", "c"]);
    // s adds "c" to the file as it was (x); t changes "a"; a person then writes x back, later in the ledger and
    // by the clock: the file as s found it was nobody's record, so its "a" and "b" are carried from nobody
    const entries = [
      ...mapped("src/f.ts", x, y, "s", T0 + 5 * HOUR, "s", 1),
      ...mapped("src/f.ts", y, z, "t", T0 + 6 * HOUR, "t", 2),
      ...mapped("src/f.ts", z, x, "person", T0 + 9 * HOUR, "person", 3),
    ];
    const attrs = attribute(entries, y.split("\n"));
    expect(attrs[2]).toMatchObject({ anchor: "carried", entry: { recordId: "s" } });
    expect(attrs.slice(0, 2).map((a) => a?.anchor)).not.toContain("carried");
  });
});
