import { describe, expect, it } from "vitest";
import { attribute, type Attributions } from "../../server/src/engine/attribution";
import { blame } from "../../server/src/engine/blame";
import { fileHash, splitLines } from "../../server/src/engine/hashing";
import { parseLedgerLines, type TraceEntry } from "../../server/src/engine/ledger/read";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { diffTexts } from "../../server/src/engine/lineChange";

/**
 * Attribution from the ledger alone, for records that carry line maps: the chain of records is replayed, so
 * every line's owner is exact whatever its content looks like.
 */

type Who = "H" | "A" | "B"; // a human, and two AI models

class History {
  text: string | null = null;
  entries: TraceEntry[] = [];
  private clock = Date.UTC(2026, 10, 23, 9);
  private line = 0;

  write(who: Who, after: string): this {
    const record = buildRecord({
      path: "f.py",
      content: after,
      change: diffTexts(this.text, after),
      mutationClass: "INTENT_EVOLUTION",
      preHash: this.text === null ? null : fileHash(this.text),
      scope: "PASS",
      contributor: who === "H" ? { type: "human" } : { type: "ai", modelId: who === "A" ? "anthropic/claude-sonnet-4-5" : "openai/gpt-5" },
      sessionId: "s",
      toolVersion: "0",
      now: new Date((this.clock += 60_000)),
    });
    this.entries.push(...parseLedgerLines(JSON.stringify(record), ++this.line).entries);
    this.text = after;
    return this;
  }

  /** A change nobody recorded (a checkout, another tool). */
  unrecorded(after: string): this {
    this.text = after;
    return this;
  }

  owners(): string {
    return show(attribute(this.entries, splitLines(this.text!)), splitLines(this.text!).length);
  }
}

function show(attrs: Attributions, n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) {
    const a = attrs[i];
    out += !a ? "." : a.entry.contributor.type === "human" ? "H" : a.entry.contributor.modelId?.startsWith("openai") ? "B" : "A";
  }
  return out;
}

const lines = (...l: string[]) => l.map((x) => `${x}\n`).join("");

describe("attribution by replaying line maps", () => {
  it("comments inserted above every line leave each original line with its writer", () => {
    const h = new History().write("H", lines("def f():", "    x = 1", "", "    return x", "}"));
    h.write("A", lines("# c", "def f():", "# c", "    x = 1", "# c", "", "# c", "    return x", "# c", "}"));
    expect(h.owners()).toBe("AHAHAHAHAH.");
  });

  it("blank and brace-only lines keep their own writers, not a look-alike's", () => {
    const h = new History().write("H", lines("{", "", "}", "{", "", "}"));
    h.write("A", lines("{", "", "}", "", "{", "", "}", "{", "", "}"));
    // the AI inserted "", "{", "", "}" after line 3; which identical lines moved is the diff's call,
    // but every line the human wrote is still the human's and the AI has exactly four
    const o = h.owners();
    expect(o.split("").filter((c) => c === "A")).toHaveLength(4);
    expect(o.split("").filter((c) => c === "H")).toHaveLength(6);
  });

  it("a 250-line paste into the middle of a 200-line block keeps both halves of the block", () => {
    const block = Array.from({ length: 200 }, (_, i) => `human line ${i}`);
    const paste = Array.from({ length: 250 }, (_, i) => `ai line ${i}`);
    const h = new History().write("H", lines(...block));
    h.write("A", lines(...block.slice(0, 100), ...paste, ...block.slice(100)));
    expect(h.owners()).toBe(`${"H".repeat(100)}${"A".repeat(250)}${"H".repeat(100)}.`);
  });

  it("reformatting keeps owners and says who reformatted", () => {
    const h = new History().write("H", lines("if (x) {", "  y();", "}"));
    h.write("A", lines("if(x){", "    y();", "}", "z();"));
    expect(h.owners()).toBe("HHHA.");
    const attrs = attribute(h.entries, splitLines(h.text!));
    expect(attrs[0]!.reformattedBy?.contributor).toEqual({ type: "ai", modelId: "anthropic/claude-sonnet-4-5" });
    expect(attrs[2]!.reformattedBy).toBeUndefined();
  });

  it("a revert belongs to the reverter; a later change keeps the chain", () => {
    const h = new History().write("H", lines("a", "b", "c"));
    h.write("A", lines("a", "B", "c"));
    h.write("H", lines("a", "b", "c")); // back to the first content: the human wrote "b" again
    expect(h.owners()).toBe("HHH.");
    h.write("B", lines("a", "b", "c", "d"));
    expect(h.owners()).toBe("HHHB.");
  });

  it("after a change nobody recorded, unchanged lines keep their owners and changed ones are untraced", () => {
    const h = new History().write("H", lines("a", "b", "c", "d"));
    h.write("A", lines("a", "X", "c", "d", "e"));
    h.unrecorded(lines("a", "X", "c", "changed", "e", "f"));
    expect(h.owners()).toBe("HAH.A..");
    // and a record after it carries on from there
    h.write("B", lines("new", "a", "X", "c", "changed", "e", "f"));
    expect(h.owners()).toBe("BHAH.A..");
  });

  it("blame rows come from the same replay", () => {
    const h = new History().write("H", lines("a", "b")).write("A", lines("a", "", "b"));
    expect(blame(h.entries, h.text!).map((r) => [r.line, r.kind, r.contributor])).toEqual([
      [1, "traced", "human"],
      [2, "traced", "ai"],
      [3, "traced", "human"],
    ]);
  });
});
