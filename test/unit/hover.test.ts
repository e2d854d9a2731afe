import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadIntents } from "../../server/src/engine/intents/load";
import type { TraceEntry } from "../../server/src/engine/ledger/read";
import type { TrackedDocument } from "../../server/src/lsp/documents";
import { hover } from "../../server/src/lsp/hover";

/**
 * The hover's words for a saved line (docs/ARCHITECTURE.md "Hover → answer"), from the line's owner as the
 * document holds it. In process, with a document that holds only what the hover reads, so mutation testing
 * reaches the hover; the protocol tests (test/protocol/savedLines.test.ts, ledger.test.ts) ask a real server.
 */

const catalogue = loadIntents(readFileSync(join(__dirname, "../../examples/workspace/.orchestration/active_intents.yaml"), "utf8")).catalogue;
const NOW = Date.parse("2026-11-29T12:00:00Z");
const PATH = "docs/notes.md";

const entry = (e: Partial<TraceEntry>): TraceEntry =>
  ({
    recordId: "rec-1",
    line: 1,
    timestamp: "2026-11-29T11:59:50Z",
    path: PATH,
    startLine: 1,
    endLine: 1,
    contributor: { type: "human" },
    intentId: "INT-001",
    toolName: "intent-lsp",
    scope: "PASS",
    dialect: "spec",
    ...e,
  }) as TraceEntry;

/** A document whose every line is owned by `owner`; `recorded`: whether the ledger names the file. */
function documentOf(owner: unknown, recorded = true): TrackedDocument {
  return {
    path: PATH,
    ctx: { rules: { catalogue }, ledger: { hasFile: () => recorded } },
    doc: { lineCount: 3 },
    owner: () => owner,
    attributedBlocks: () => [],
    lineText: () => "- Write the onboarding guide this week.",
  } as unknown as TrackedDocument;
}

const at = (line: number) => ({ line, character: 1 });
const words = (doc: TrackedDocument, markdown = true) => (hover(doc, at(1), NOW, markdown)?.contents as { value: string } | undefined)?.value;

describe("the hover on a saved line", () => {
  it("a line recorded outside its intent's scope says so, under the intent's title", () => {
    const doc = documentOf({ kind: "traced", attribution: { entry: entry({ scope: "OUT_OF_SCOPE" }), exact: true } });
    expect(hover(doc, at(1), NOW)).toEqual({
      contents: {
        kind: "markdown",
        value: [
          "**INT-001 — Build Weather API (IN_PROGRESS)**",
          "",
          "⚠ recorded outside INT-001's scope",
          "",
          "human · just now (2026-11-29T11:59:50Z)",
          "",
          "trace `rec-1` · intent-lsp",
          "",
          "Constraints:",
          "- Use TypeScript",
          "- No new runtime dependencies",
        ].join("\n"),
      },
      range: { start: { line: 1, character: 0 }, end: { line: 1, character: 39 } },
    });
  });

  it("a line recorded in scope carries no warning; a plaintext client gets the words without markup", () => {
    const doc = documentOf({
      kind: "traced",
      attribution: { entry: entry({ intentId: "INT-003", contributor: { type: "ai", modelId: "m/x" } }), exact: false },
    });
    expect(words(doc, false)).toBe(
      [
        "INT-003 — Docs refresh (IN_PROGRESS)",
        "",
        "ai · m/x · just now (2026-11-29T11:59:50Z)",
        "",
        "trace rec-1 · intent-lsp · position as recorded (the record has no content hash to verify)",
      ].join("\n"),
    );
  });

  it("an untraced line of a file the ledger knows says untraced; of a file it never recorded, nothing", () => {
    expect(words(documentOf({ kind: "untraced" }))).toBe("**Untraced:** no ledger record covers this line.");
    expect(hover(documentOf({ kind: "untraced" }, false), at(1), NOW)).toBeNull();
    expect(hover(documentOf({ kind: "untraced" }), at(3), NOW)).toBeNull(); // past the last line
  });
});
