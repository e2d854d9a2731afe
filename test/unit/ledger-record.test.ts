import { describe, expect, it } from "vitest";
import type { TraceRecord } from "@shared/agentTrace";
import { contentHash, fileHash, lineHash } from "../../server/src/engine/hashing";
import { buildRecord, changedRanges, recordGroups, RecordInputError, type BuildRecordInput } from "../../server/src/engine/ledger/record";
import { validateRecord } from "../../server/src/io/ledger/schema";

const content = "import x from 'y';\n\nexport function f() {\n  return 1;  \n}\n";
const base: BuildRecordInput = {
  path: "src/api/weather.ts",
  content,
  ranges: [{ start_line: 3, end_line: 5 }],
  contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" },
  sessionId: "s-42",
  toolVersion: "0.1.0",
  mutationClass: "INTENT_EVOLUTION",
  preHash: fileHash("old"),
  scope: "PASS",
  intentId: "INT-001",
  revision: "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0",
  now: new Date("2026-11-22T10:00:00Z"),
};

describe("buildRecord", () => {
  it("writes a spec v0.1.0 record with our metadata", () => {
    const r = buildRecord(base);
    expect(r.version).toBe("0.1.0");
    expect(r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.timestamp).toBe("2026-11-22T10:00:00.000Z");
    expect(r.vcs).toEqual({ type: "git", revision: base.revision });
    expect(r.tool).toEqual({ name: "intent-lsp", version: "0.1.0" });
    expect(r.files).toHaveLength(1);
    const [file] = r.files;
    expect(file!.path).toBe("src/api/weather.ts");
    expect(file!.conversations).toEqual([
      {
        url: "urn:intent-lsp:session:s-42",
        contributor: { type: "ai", model_id: "anthropic/claude-sonnet-4-5" },
        ranges: [{ start_line: 3, end_line: 5, content_hash: contentHash(["export function f() {", "  return 1;", "}"]) }],
        related: [{ type: "intent", url: "urn:intent:INT-001" }],
      },
    ]);
    expect(r.metadata!["dev.intent-lsp"]).toEqual({
      intent_id: "INT-001",
      mutation_class: "INTENT_EVOLUTION",
      pre_hash: fileHash("old"),
      post_hash: fileHash(content),
      scope: "PASS",
      line_hashes: [["export function f() {", "  return 1;", "}"].map(lineHash)],
    });
    expect(r.metadata!["dev.intent-lsp"]).not.toHaveProperty("prev");
  });

  it("omits vcs without a revision, related without an intent, model_id without a model", () => {
    const r = buildRecord({ ...base, revision: undefined, intentId: null, contributor: { type: "human" } });
    expect(r).not.toHaveProperty("vcs");
    expect(r.files[0]!.conversations[0]).not.toHaveProperty("related");
    expect(r.files[0]!.conversations[0]!.contributor).toEqual({ type: "human" });
    expect(r.metadata!["dev.intent-lsp"]!.intent_id).toBeNull();
    expect(validateRecord(r)).toEqual([]);
  });

  it("gives every record a fresh uuid", () => {
    expect(buildRecord(base).id).not.toBe(buildRecord(base).id);
  });

  it("records a deletion with no ranges and a null post_hash", () => {
    const r = buildRecord({ ...base, content: null, ranges: [], mutationClass: "FILE_DELETION" });
    expect(r.files[0]!.conversations[0]!.ranges).toEqual([]);
    expect(r.metadata!["dev.intent-lsp"]!.post_hash).toBeNull();
    expect(validateRecord(r)).toEqual([]);
  });

  it("refuses ranges that do not describe the content", () => {
    expect(() => buildRecord({ ...base, ranges: [{ start_line: 5, end_line: 9 }] })).toThrow(/ends past the file's 6 line/);
    expect(() => buildRecord({ ...base, ranges: [{ start_line: 0, end_line: 1 }] })).toThrow(RecordInputError);
    expect(() => buildRecord({ ...base, ranges: [{ start_line: 3, end_line: 2 }] })).toThrow(RecordInputError);
    expect(() => buildRecord({ ...base, content: null })).toThrow(/deleted file has no lines/);
  });

  it("escapes session ids into a valid urn", () => {
    const r = buildRecord({ ...base, sessionId: "claude code/abc 1" });
    expect(r.files[0]!.conversations[0]!.url).toBe("urn:intent-lsp:session:claude%20code%2Fabc%201");
    expect(validateRecord(r)).toEqual([]);
  });
});

describe("validateRecord (ajv, draft 2020-12 + formats)", () => {
  it("accepts records from buildRecord, for every mutation class", () => {
    for (const mutationClass of ["FILE_CREATION", "AST_REFACTOR", "CONFIGURATION", "BUG_FIX", "DOCUMENTATION"] as const) {
      expect(validateRecord(buildRecord({ ...base, mutationClass }))).toEqual([]);
    }
  });

  it("rejects a broken record with JSON pointers to each problem", () => {
    const r = structuredClone(buildRecord(base)) as unknown as Record<string, any>;
    r.id = "not-a-uuid";
    r.timestamp = "yesterday";
    r.files[0].conversations[0].contributor.type = "robot";
    r.files[0].conversations[0].ranges[0].start_line = 0;
    const errors = validateRecord(r);
    expect(errors).toContain('/id: must match format "uuid"');
    expect(errors).toContain('/timestamp: must match format "date-time"');
    expect(errors.some((e) => e.startsWith("/files/0/conversations/0/contributor/type: must be equal to one of the allowed values"))).toBe(true);
    expect(errors).toContain("/files/0/conversations/0/ranges/0/start_line: must be >= 1");
  });

  it("checks each conversation url as a URI, in the built validator as from source", () => {
    const built = require("../../dist/trace-record-validator.js") as (r: unknown) => boolean;
    const withUrl = (url: string) => {
      const r = structuredClone(buildRecord(base)) as unknown as Record<string, any>;
      r.files[0].conversations[0].url = url;
      r.files[0].conversations[0].related = [{ type: "intent", url }];
      return r;
    };
    const good = ["urn:intent-lsp:session:claude-abc", `urn:intent:${encodeURIComponent("INT 7/é")}`, "https://example.com/c/1?x=2#y", "urn:other:x"];
    const bad = ["urn:intent-lsp:session:a b", "urn:intent-lsp:session:%zz", "not a uri", "https://exa mple.com", "urn:intent:é", "urn:intent:%4"];
    for (const url of good) {
      expect(validateRecord(withUrl(url)), url).toEqual([]);
      expect(built(withUrl(url)), url).toBe(true);
    }
    for (const url of bad) {
      expect(validateRecord(withUrl(url)), url).toEqual([
        '/files/0/conversations/0/url: must match format "uri"',
        '/files/0/conversations/0/related/0/url: must match format "uri"',
      ]);
      expect(built(withUrl(url)), url).toBe(false);
    }
  });

  it("reports missing required fields at the root", () => {
    expect(validateRecord({ version: "0.1.0" })).toEqual(
      expect.arrayContaining(["/: must have required property 'id'", "/: must have required property 'files'"]),
    );
    const r: Partial<TraceRecord> = buildRecord(base);
    delete r.files;
    expect(validateRecord(r)).toEqual(["/: must have required property 'files'"]);
  });
});

describe("recordGroups: a record's files all share its intent", () => {
  it("one group per intent (none being one), in the order each intent first appears, files in their own order", () => {
    const files = [
      { path: "docs/a.md", intent: "INT-003" },
      { path: "src/a.ts", intent: "INT-001" },
      { path: "tmp/x", intent: null },
      { path: "docs/b.md", intent: "INT-003" },
      { path: "tmp/y", intent: null },
    ];
    expect(recordGroups(files, (f) => f.intent).map((g) => [g.intentId, g.files.map((f) => f.path)])).toEqual([
      ["INT-003", ["docs/a.md", "docs/b.md"]],
      ["INT-001", ["src/a.ts"]],
      [null, ["tmp/x", "tmp/y"]],
    ]);
    expect(
      recordGroups(
        [
          { path: "src/a.ts", intent: "INT-001" },
          { path: "src/b.ts", intent: "INT-001" },
        ],
        (f) => f.intent,
      ),
    ).toHaveLength(1);
    expect(recordGroups([], () => null)).toEqual([]);
  });
});

describe("changedRanges", () => {
  it("sorts, dedupes and merges adjacent lines into 1-based spans", () => {
    expect(changedRanges([8, 3, 1, 2, 7, 2, 12])).toEqual([
      { start_line: 1, end_line: 3 },
      { start_line: 7, end_line: 8 },
      { start_line: 12, end_line: 12 },
    ]);
    expect(changedRanges([])).toEqual([]);
  });
  it("refuses line numbers that are not 1-based integers", () => {
    expect(() => changedRanges([0])).toThrow(/not a 1-based integer/);
    expect(() => changedRanges([1.5])).toThrow(RecordInputError);
  });
});
