import { describe, expect, it } from "vitest";
import { attribute } from "../../server/src/engine/attribution";
import { attributeChanged, blame, blameNewestFirst } from "../../server/src/engine/blame";
import { checkChanges } from "../../server/src/engine/check";
import { LedgerIndex } from "../../server/src/engine/ledger/ledgerIndex";
import { entryTime } from "../../server/src/engine/ledger/entryOrder";
import type { TraceEntry } from "../../server/src/engine/ledger/read";
import { buildRecord, changedRanges } from "../../server/src/engine/ledger/record";
import { fileHash, splitLines } from "../../server/src/engine/hashing";
import { diffTexts } from "../../server/src/engine/lineChange";
import { buildRules } from "../../server/src/engine/rules";
import { INTENTS_FILE } from "../../server/src/engine/workspaceFiles";

/** Deterministic pseudo-random numbers. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A file's history: edits that replace, insert, delete and move lines, some recorded, some not, with
 * timestamps that tie and go backwards (merged branches). Returns the ledger text and the final content.
 * `mapped`: the records carry line maps (a chain, broken where an edit went unrecorded), as intent-lsp's own
 * records do; otherwise ranges only, as other tools' records (attributed by content).
 */
function history(seed: number, path: string, mapped = false): { ledger: string[]; lines: string[]; lastChanged: number[] } {
  const rand = seeded(seed);
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i} of ${path}`);
  const ledger: string[] = [];
  let serial = 0;
  let before: string | null = null;
  let lastChanged: number[] = [];
  for (let step = 0; step < 40; step++) {
    const changed: number[] = [];
    const roll = rand();
    const at = Math.floor(rand() * lines.length);
    if (roll < 0.5) {
      for (let i = at; i < Math.min(lines.length, at + 1 + Math.floor(rand() * 4)); i++) {
        lines[i] = `edit ${serial++} in ${path}`;
        changed.push(i + 1);
      }
    } else if (roll < 0.7) {
      const n = 1 + Math.floor(rand() * 3);
      lines.splice(at, 0, ...Array.from({ length: n }, () => `new ${serial++} in ${path}`));
      for (let i = 0; i < n; i++) changed.push(at + i + 1);
    } else if (roll < 0.85 && lines.length > 10) {
      lines.splice(at, 1 + Math.floor(rand() * 3));
    } else {
      // a block moves: unchanged lines elsewhere
      const block = lines.splice(at, Math.min(4, lines.length - at));
      const to = Math.floor(rand() * lines.length);
      lines.splice(to, 0, ...block);
    }
    const content = `${lines.join("\n")}\n`;
    const previous = before;
    before = content;
    if (rand() < 0.15) continue; // edited outside the hooks: no record
    lastChanged = changed;
    // some records a few minutes back in time, some at the same minute as the one before
    const minute = step + (rand() < 0.2 ? -5 : 0) - (rand() < 0.3 ? 1 : 0);
    ledger.push(
      JSON.stringify(
        buildRecord({
          path,
          content,
          ...(mapped ? { change: diffTexts(previous, content) } : { ranges: changedRanges(changed) }),
          contributor: { type: rand() < 0.5 ? "human" : "ai" },
          sessionId: "s",
          toolVersion: "0.1.0",
          mutationClass: "INTENT_EVOLUTION",
          preHash: mapped && previous !== null ? fileHash(previous) : null,
          scope: "PASS",
          intentId: rand() < 0.7 ? "INT-001" : "INT-002",
          now: new Date(Date.UTC(2026, 0, 1) + minute * 60_000),
        }),
      ),
    );
  }
  return { ledger, lines, lastChanged };
}

describe("checking changed lines from the newest records first", () => {
  it("attributes every changed line as attributing from all records does", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { ledger, lines } = history(seed, `src/f${seed}.ts`);
      const index = new LedgerIndex();
      index.ingest(`${ledger.join("\n")}\n`, 1);
      const all = index.entriesFor(`src/f${seed}.ts`);
      const full = attribute(all, lines);
      const rand = seeded(seed * 7);
      const changed = lines.map((_, i) => i + 1).filter(() => rand() < 0.4);
      const partial = attributeChanged(lines, changed, index.entryBatches(`src/f${seed}.ts`, 1));
      for (const line of changed) expect(partial[line - 1], `seed ${seed} line ${line}`).toEqual(full[line - 1]);
    }
  });

  it("attributes every line, asked or not, as attributing the records read before it stopped does", () => {
    // the chain is worked out batch by batch and content anchoring once, at the end: the lines not asked
    // for must still be those of the records read, neither of the first batch alone nor of every record
    let stoppedEarly = 0;
    let settledSome = 0;
    for (let seed = 200; seed < 280; seed++) {
      const path = `src/p${seed}.ts`;
      const { ledger, lines: written, lastChanged } = history(seed, path, seed % 2 === 0);
      // the content as read from disk: split as attribution splits text (a last, empty piece after the newline)
      const lines = splitLines(`${written.join("\n")}\n`);
      const index = new LedgerIndex();
      index.ingest(`${ledger.join("\n")}\n`, 1);
      const rand = seeded(seed * 3);
      const one = () => [1 + Math.floor(rand() * lines.length)];
      // counted from the batches themselves: `entriesFor` would keep the file's entries parsed, and the
      // batches would then come as one
      const total = [...index.entryBatches(path, 1)].flat().length;
      // every line; none; some; one; and the lines of the newest record, which its line map settles at once
      const asked = [lines.map((_, i) => i + 1), [], lines.map((_, i) => i + 1).filter(() => rand() < 0.2), one(), lastChanged];
      for (const changed of asked) {
        const read: TraceEntry[] = [];
        const counted = (function* () {
          for (const batch of index.entryBatches(path, 1)) {
            read.push(...batch);
            yield batch;
          }
        })();
        const partial = attributeChanged(lines, changed, counted);
        if (read.length < total) {
          stoppedEarly++;
          if (changed.length > 0) settledSome++;
        }
        expect(partial, `seed ${seed}, ${changed.length} lines asked`).toEqual(attribute(read, lines));
      }
    }
    expect(stoppedEarly).toBeGreaterThan(40);
    // lines the chain settled before every record was read (not only the empty ask)
    expect(settledSome).toBeGreaterThan(10);
  });

  it("gives intent blame the same rows for any range as reading every record", () => {
    for (let seed = 50; seed < 60; seed++) {
      const path = `src/b${seed}.ts`;
      const { ledger, lines } = history(seed, path);
      const index = new LedgerIndex();
      index.ingest(`${ledger.join("\n")}\n`, 1);
      const text = `${lines.join("\n")}\n`;
      for (const range of [{}, { start: 3, end: 3 }, { start: 5, end: 12 }, { start: lines.length }]) {
        expect(blameNewestFirst(index.entryBatches(path, 1), text, range), `${seed} ${JSON.stringify(range)}`).toEqual(
          blame(index.entriesFor(path), text, range),
        );
      }
    }
  });

  it("gives intent check the same findings as reading every record", () => {
    const intents = [
      "active_intents:",
      '  - { id: INT-001, name: First intent, status: IN_PROGRESS, owned_scope: ["src/**"] }',
      '  - { id: INT-002, name: Second intent, status: COMPLETE, owned_scope: ["lib/**"] }',
    ].join("\n");
    const rules = buildRules({ [INTENTS_FILE]: intents });
    const index = new LedgerIndex();
    const files = [];
    let line = 1;
    for (let seed = 100; seed < 130; seed++) {
      const path = `src/g${seed}.ts`;
      const { ledger, lines } = history(seed, path);
      if (ledger.length) index.ingest(`${ledger.join("\n")}\n`, line);
      line += ledger.length;
      const rand = seeded(seed);
      files.push({ path, changed: lines.map((_, i) => i + 1).filter(() => rand() < 0.3), read: () => lines.join("\n") });
    }
    const batched = checkChanges(files, rules, (p) => index.entryBatches(p, 1));
    const whole = checkChanges(files, rules, (p) => [[...index.entriesFor(p)]]);
    expect(batched.findings.length).toBeGreaterThan(0);
    expect(batched).toEqual(whole);
  });

  it("orders a file's records newest first by time, then ledger line, as attribution does", () => {
    const { ledger } = history(7, "src/order.ts");
    const index = new LedgerIndex();
    index.ingest(`${ledger.join("\n")}\n`, 1);
    const batches = [...index.entryBatches("src/order.ts", 1)];
    expect(batches.map((b) => b.length).slice(0, 3)).toEqual([1, 2, 4]);
    const flat: TraceEntry[] = batches.flat();
    const sorted = [...index.entriesFor("src/order.ts")].sort((a, b) => entryTime(b) - entryTime(a) || b.line - a.line);
    expect(flat.map((e) => e.line)).toEqual(sorted.map((e) => e.line));
  });
});
