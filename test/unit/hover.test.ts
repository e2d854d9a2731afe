import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Position } from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
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

const INTENTS_TEXT = readFileSync(join(__dirname, "../../examples/workspace/.orchestration/active_intents.yaml"), "utf8");
const catalogue = loadIntents(INTENTS_TEXT).catalogue;
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

interface Fake {
  /** Whether the ledger names the file. */
  recorded?: boolean;
  blocks?: unknown[];
  verdict?: unknown;
  path?: string;
  ctx?: boolean;
}

/** A document whose every line is owned by `owner`. */
function documentOf(owner: unknown, recordedOr: boolean | Fake = true): TrackedDocument {
  const o: Fake = typeof recordedOr === "boolean" ? { recorded: recordedOr } : recordedOr;
  return {
    path: "path" in o ? o.path : PATH,
    ctx: o.ctx === false ? undefined : { rules: { catalogue }, ledger: { hasFile: (p: string) => p === PATH && (o.recorded ?? true) } },
    doc: { lineCount: 3 },
    owner: () => owner,
    attributedBlocks: () => o.blocks ?? [],
    verdict: () => o.verdict,
    lineText: () => "- Write the onboarding guide this week.",
  } as unknown as TrackedDocument;
}

const at = (line: number) => ({ line, character: 1 });
const words = (doc: TrackedDocument, markdown = true) => (hover(doc, at(1), NOW, markdown)?.contents as { value: string } | undefined)?.value;

describe("the hover on a saved line", () => {
  it("a line recorded outside its intent's scope says so, under the intent's title", () => {
    const doc = documentOf({ kind: "traced", attribution: { entry: entry({ scope: "OUT_OF_SCOPE" }), exact: true, anchor: "range" } });
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
          "trace `rec-1` · intent-lsp · exact",
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
      attribution: { entry: entry({ intentId: "INT-003", contributor: { type: "ai", modelId: "m/x" } }), exact: false, anchor: "position" },
    });
    expect(words(doc, false)).toBe(
      [
        "INT-003 — Docs refresh (IN_PROGRESS)",
        "",
        "ai · m/x · just now (2026-11-29T11:59:50Z)",
        "",
        "trace rec-1 · intent-lsp · inferred: position as recorded (the record has no content hash to verify)",
      ].join("\n"),
    );
  });

  it("an untraced line of a file the ledger knows says untraced; of a file it never recorded, nothing", () => {
    expect(words(documentOf({ kind: "untraced" }))).toBe("**Untraced:** no ledger record covers this line.");
    expect(hover(documentOf({ kind: "untraced" }, false), at(1), NOW)).toBeNull();
    expect(hover(documentOf({ kind: "untraced" }), at(3), NOW)).toBeNull(); // past the last line
  });
});

const traced = (e: Partial<TraceEntry>, more: Record<string, unknown> = {}) => ({
  kind: "traced",
  attribution: { entry: entry(e), exact: true, anchor: "range", ...more } as Record<string, unknown>,
});
const intent = (id: string) => catalogue.byId.get(id)!;

describe("the hover on a line", () => {
  it.each([
    ["allowed, auto-selected", { kind: "allowed", intent: intent("INT-003"), auto: true }, " under INT-003 — Docs refresh (IN_PROGRESS) (auto-selected)"],
    ["allowed under the selected intent", { kind: "allowed", intent: intent("INT-003"), auto: false }, " under INT-003 — Docs refresh (IN_PROGRESS)"],
    ["out of scope", { kind: "out-of-scope", intent: intent("INT-001"), owners: [intent("INT-003")] }, ""],
    ["not judged yet", undefined, ""],
  ])("an edited line (%s) says it is recorded when saved, and under which intent", (_, verdict, under) => {
    // a file the ledger has never recorded: an edit is still worth a word
    expect(words(documentOf({ kind: "edited" }, { recorded: false, verdict }))).toBe(`**Edited, not saved yet.** It will be recorded${under} when you save.`);
  });

  it("while the ledger is read: indexing, never untraced", () => {
    expect(words(documentOf({ kind: "indexing" }, false))).toBe(
      "**Indexing the ledger…** Who wrote this line is shown as soon as the trace ledger has been read.",
    );
  });

  it("an untraced line of a file this server has attributed blocks in says untraced", () => {
    expect(words(documentOf({ kind: "untraced" }, { recorded: false, blocks: [{}] }), false)).toBe("Untraced: no ledger record covers this line.");
  });

  it("no hover without a workspace, or for a document outside it", () => {
    expect(hover(documentOf(traced({}), { ctx: false }), at(1), NOW)).toBeNull();
    expect(hover(documentOf(traced({}), { path: undefined }), at(1), NOW)).toBeNull();
    expect(hover(documentOf({ kind: "untraced" }, { recorded: false }), at(1), NOW, false)).toBeNull();
  });

  it("a record under no intent, outside scope: the warning names no intent, and no constraints follow", () => {
    expect(words(documentOf(traced({ intentId: undefined, scope: "OUT_OF_SCOPE", toolName: undefined })))).toBe(
      ["**no intent**", "", "⚠ recorded outside its intent's scope", "", "human · just now (2026-11-29T11:59:50Z)", "", "trace `rec-1` · exact"].join("\n"),
    );
  });

  it("a record under an intent no longer declared says so, with no constraints", () => {
    expect(words(documentOf(traced({ intentId: "INT-099", timestamp: "2026-11-29T09:00:00Z" })))).toBe(
      ["**INT-099 (not in active_intents.yaml)**", "", "human · 3 h ago (2026-11-29T09:00:00Z)", "", "trace `rec-1` · intent-lsp · exact"].join("\n"),
    );
  });

  it("a line written in another path says where from, and who moved it; a reformat keeps the writer", () => {
    const mover = entry({ recordId: "rec-2", contributor: { type: "human", name: "Ada" }, timestamp: "2026-11-29T11:30:00Z" });
    const reformatter = entry({ recordId: "rec-3", contributor: { type: "ai", modelId: "m/fmt" }, timestamp: "2026-11-29T11:50:00Z" });
    const owner = traced(
      { intentId: "INT-003", path: "docs/old.md", contributor: { type: "ai", modelId: "m/x" } },
      { movedBy: mover, reformattedBy: reformatter },
    );
    const lines = [
      "INT-003 — Docs refresh (IN_PROGRESS)",
      "",
      "ai · m/x · just now (2026-11-29T11:59:50Z)",
      "",
      "moved by human · Ada from `docs/old.md` (2026-11-29T11:30:00Z)",
      "",
      "reformatted by ai · m/fmt · 10 min ago (whitespace only; the line is still ai · m/x's)",
      "",
      "trace `rec-1` · intent-lsp · moved",
    ];
    expect(words(documentOf(owner))).toBe([`**${lines[0]}**`, ...lines.slice(1)].join("\n"));
    expect(words(documentOf(owner), false)).toBe(lines.map((l) => l.replace(/`/g, "")).join("\n"));
    const { movedBy: _, ...copied } = owner.attribution;
    expect(words(documentOf({ kind: "traced", attribution: copied }))).toContain("\n\nfrom `docs/old.md` (renamed, moved or copied here)\n\n");
  });
});

describe("the hover in active_intents.yaml: an intent's footprint", () => {
  const text = TextDocument.create("file:///w/.orchestration/active_intents.yaml", "yaml", 1, INTENTS_TEXT);
  type Ledger = { files?: string[]; edits?: number; last?: TraceEntry };

  function intentsDocument(byIntent: Record<string, Ledger>): TrackedDocument {
    return {
      path: ".orchestration/active_intents.yaml",
      ctx: {
        rules: { catalogue },
        ledger: {
          filesFor: (id: string) => [...(byIntent[id]?.files ?? [])],
          editCount: (id: string) => byIntent[id]?.edits ?? 0,
          lastChange: (id: string) => byIntent[id]?.last,
        },
      },
      doc: { lineCount: text.lineCount, offsetAt: (p: Position) => text.offsetAt(p) },
    } as unknown as TrackedDocument;
  }
  const footprint = (doc: TrackedDocument, offset: number, markdown = true) =>
    (hover(doc, text.positionAt(offset), NOW, markdown)?.contents as { kind: string; value: string } | undefined) ?? null;

  const last = entry({ path: "src/api/b.ts", contributor: { type: "ai", modelId: "m/x" }, timestamp: "2026-11-29T11:50:00Z" });
  const ledger = { "INT-001": { files: ["src/api/b.ts", "src/api/a.ts"], edits: 3, last }, "INT-002": { files: ["src/auth/x.ts"], edits: 9 } };
  const int1 = intent("INT-001").span;

  it("names the intent, its scope, its edits and files, from the first character of its entry to the last", () => {
    const value = [
      "**INT-001 — Build Weather API** (IN_PROGRESS)",
      "",
      "Scope: `src/api/**`, `test/api/**`",
      "",
      "3 recorded edits in 2 files · last change 10 min ago by ai · m/x in `src/api/b.ts`",
      "",
      "- `src/api/a.ts`",
      "- `src/api/b.ts`",
    ].join("\n");
    const doc = intentsDocument(ledger);
    expect(footprint(doc, int1.start)).toEqual({ kind: "markdown", value });
    expect(footprint(doc, int1.end)).toEqual({ kind: "markdown", value });
  });

  it("a plaintext client gets the scope's globs as written", () => {
    expect(footprint(intentsDocument(ledger), int1.start, false)).toEqual({
      kind: "plaintext",
      value: [
        "INT-001 — Build Weather API (IN_PROGRESS)",
        "",
        "Scope: src/api/**, test/api/**",
        "",
        "3 recorded edits in 2 files · last change 10 min ago by ai · m/x in src/api/b.ts",
        "",
        "- src/api/a.ts",
        "- src/api/b.ts",
      ].join("\n"),
    });
  });

  it("an intent with no recorded edit, and outside every intent's entry no hover", () => {
    const doc = intentsDocument(ledger);
    expect(footprint(doc, intent("INT-004").span.start)?.value).toBe(
      ["**INT-004 — Onboarding guide** (PENDING)", "", "Scope: `docs/notes.md`, `docs/guide/**`", "", "0 recorded edits in 0 files"].join("\n"),
    );
    expect(footprint(doc, intent("INT-002").span.start)?.value).toContain("\n\n9 recorded edits in 1 files\n\n- `src/auth/x.ts`");
    expect(footprint(doc, int1.start - 1)).toBeNull();
    expect(footprint(doc, int1.end + 1)).toBeNull();
  });

  it.each([
    [20, []],
    [23, ["- … and 3 more"]],
  ])("of %s files, the first 20 are listed", (n, more) => {
    const files = Array.from({ length: n }, (_, i) => `src/api/f${String(i).padStart(2, "0")}.ts`);
    const value = footprint(intentsDocument({ "INT-001": { files: [...files].reverse(), edits: n } }), int1.start)?.value;
    expect(value?.split("\n").slice(6)).toEqual([...files.slice(0, 20).map((f) => `- \`${f}\``), ...more]);
  });
});
