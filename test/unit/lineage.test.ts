import { describe, expect, it } from "vitest";
import { attribute } from "../../server/src/engine/attribution";
import { contentHash, fileHash, splitLines } from "../../server/src/engine/hashing";
import { diffTexts } from "../../server/src/engine/lineChange";
import { parseLedgerLines, type TraceEntry } from "../../server/src/engine/ledger/read";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { pairMoves, sourceEntries, type PathRecords } from "../../server/src/engine/lineage";

let clock = Date.UTC(2026, 10, 22, 10);
/** A record of a write of `path` from `before` to `after`, read back as the server reads it. */
function write(path: string, before: string | null, after: string, model: string | undefined, movedFrom?: string): TraceEntry[] {
  const record = buildRecord({
    path,
    content: after,
    change: diffTexts(before, after),
    contributor: model ? { type: "ai", modelId: model } : { type: "human" },
    sessionId: "lineage",
    toolVersion: "0.1.0",
    mutationClass: "INTENT_EVOLUTION",
    preHash: before === null ? null : fileHash(before),
    scope: "PASS",
    ...(movedFrom ? { movedFrom } : {}),
    now: new Date((clock += 60_000)),
  });
  return parseLedgerLines(JSON.stringify(record), 1).entries;
}

function ledgerOf(entries: readonly TraceEntry[]): PathRecords {
  return {
    entriesFor: (p) => entries.filter((e) => e.path === p),
    pathsPinning: (h) => [...new Set(entries.filter((e) => e.postHash === h).map((e) => e.path))],
  };
}

/** Each line's model (or "human", or "." when untraced), and where it was written when not here. */
function owners(path: string, entries: readonly TraceEntry[], text: string): string[] {
  const lines = splitLines(text);
  const ledger = ledgerOf(entries);
  const own = ledger.entriesFor(path);
  const all = [...own, ...sourceEntries(path, own, contentHash(lines), ledger)];
  return attribute(all, lines)
    .slice(0, text.endsWith("\n") ? lines.length - 1 : lines.length)
    .map((a) =>
      a
        ? `${a.entry.contributor.modelId ?? a.entry.contributor.type}${a.entry.path === path ? "" : ` from ${a.entry.path}`}${a.movedBy ? ` moved by ${a.movedBy.contributor.modelId ?? a.movedBy.contributor.type}` : ""}`
        : ".",
    );
}

const A = "a\nb\nc\n";

describe("lineage: a line's author follows its content across paths", () => {
  it("a path no record names, holding content another path's record pins: that path's owners", () => {
    const entries = write("src/old.ts", null, A, "sonnet");
    expect(owners("src/new.ts", entries, A)).toEqual(["sonnet from src/old.ts", "sonnet from src/old.ts", "sonnet from src/old.ts"]);
  });

  it("renamed twice, then edited at the new path: old lines keep their author, the edit is its writer's", () => {
    const entries = [...write("a.ts", null, A, "sonnet"), ...write("c.ts", "a\nb\nc\n", "a\nB\nc\n", "opus")];
    // b.ts: nothing recorded there; c.ts's record starts from content a.ts's record pins
    expect(owners("c.ts", entries, "a\nB\nc\n")).toEqual(["sonnet from a.ts", "opus", "sonnet from a.ts"]);
  });

  it("a recorded move: carried lines keep their author and name the mover, changed ones are the mover's", () => {
    const entries = [...write("a.ts", null, A, "sonnet"), ...write("b.ts", A, "a\nb2\nc\n", "codex", "a.ts")];
    expect(owners("b.ts", entries, "a\nb2\nc\n")).toEqual(["sonnet from a.ts moved by codex", "codex", "sonnet from a.ts moved by codex"]);
  });

  it("content no other path's record pins: nothing is borrowed", () => {
    const entries = write("a.ts", null, A, "sonnet");
    expect(owners("b.ts", entries, "x\ny\n")).toEqual([".", "."]);
  });
});

describe("pairMoves", () => {
  it("pairs a created file with the deleted one it shares at least half its lines with, identical content first", () => {
    const deleted = [
      { path: "a.ts", text: "1\n2\n3\n4\n" },
      { path: "b.ts", text: "1\n2\n3\n5\n" },
    ];
    expect([...pairMoves([{ path: "c.ts", text: "1\n2\n3\n5\n" }], deleted)]).toEqual([["c.ts", "b.ts"]]);
    expect([...pairMoves([{ path: "c.ts", text: "1\n2\n9\n8\n7\n" }], deleted)]).toEqual([]);
    expect([
      ...pairMoves(
        [
          { path: "c.ts", text: "1\n2\n3\n4\n" },
          { path: "d.ts", text: "1\n2\n3\n4\n" },
        ],
        deleted,
      ),
    ]).toEqual([
      ["c.ts", "a.ts"],
      ["d.ts", "b.ts"],
    ]);
  });
});
