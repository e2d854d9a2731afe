import { describe, expect, it } from "vitest";
import { isoTime } from "../../server/src/engine/ledger/entryOrder";
import { parseLedgerLines, StringPool } from "../../server/src/engine/ledger/read";
import { summarizeLine } from "../../server/src/engine/ledger/recordSummary";
import { corpus, ours } from "../support/ledgerCorpus";

describe("summarizeLine (what the index reads from a record)", () => {
  it("describes every line exactly as parseLedgerLines does", () => {
    const lines = corpus();
    expect(lines.length).toBeGreaterThan(30);
    for (const [i, text] of lines.entries()) {
      const full = parseLedgerLines(text, i + 1, new StringPool());
      const visited: unknown[] = [];
      const summary = summarizeLine(text, i + 1, new StringPool(), { entry: (path, intentId, postHash) => visited.push([path, intentId, postHash]) });
      expect(visited, text).toEqual(full.entries.map((e) => [e.path, e.intentId, e.postHash]));
      expect(summary.record, text).toBe(full.records === 1);
      expect(summary.parsed?.unreadable ?? [], text).toEqual(full.unreadable);
      if (full.entries.length) expect(summary.timestamp, text).toBe(full.entries[0]!.timestamp);
    }
  });

  it("reads our own records without the full reader", () => {
    const summary = summarizeLine(JSON.stringify(ours()), 1, new StringPool(), { entry: () => {} });
    expect(summary).toEqual({ record: true, timestamp: "2026-02-03T04:05:06.789Z" });
  });
});

describe("isoTime", () => {
  it("is Date.parse, for the usual shape and everything else", () => {
    const samples = [
      "2026-01-23T14:30:00Z",
      "2026-01-23T14:30:00.123Z",
      "1999-12-31T23:59:59.999Z",
      "2024-02-29T00:00:00Z",
      "2023-02-29T00:00:00Z",
      "2026-04-31T10:00:00Z",
    ];
    samples.push(
      "2026-13-01T00:00:00Z",
      "2026-01-23T24:00:00Z",
      "2026-01-23T14:30:60Z",
      "2026-01-23T14:30:00+02:00",
      "2026-01-23",
      "",
      "garbage",
      "2026-01-23T14:30:00.5Z",
      "2026-0a-23T14:30:00Z",
    );
    let t = Date.UTC(1990, 0, 1);
    for (let i = 0; i < 2000; i++) {
      t += 86_400_000 * 7 + 3_600_000 * 5 + 61_007 * i;
      samples.push(new Date(t).toISOString(), new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z"));
    }
    for (const s of samples) expect(isoTime(s), s).toEqual(Date.parse(s));
  });
});
