import { describe, expect, it } from "vitest";
import { migrateLedger } from "../../server/src/engine/ledger/migrate";
import { validateRecord } from "../../server/src/io/ledger/schema";
import { verifyLedger } from "../../server/src/io/ledger/verify";

const older = (id: string, related: unknown[]) =>
  JSON.stringify({
    id,
    timestamp: "2025-01-01T00:00:00Z",
    files: [
      {
        relative_path: "src/a.ts",
        conversations: [{ contributor: { entity_type: "AI", model_identifier: "claude-3-5-sonnet" }, ranges: [{ start_line: 1, end_line: 2 }], related }],
      },
    ],
  });

describe("migrateLedger", () => {
  it("reads contributors and intents as the reader does", () => {
    const r = migrateLedger(
      `${older("a", [
        { type: "specification", value: "INT-007" },
        { type: "intent", url: "urn:intent:weather%20api" },
      ])}\n`,
      validateRecord,
    );
    expect(r.skipped).toEqual([]);
    const [rec] = r.lines.map((l) => JSON.parse(l));
    expect(rec.files[0].conversations[0].contributor).toEqual({ type: "ai", model_id: "anthropic/claude-3-5-sonnet" });
    expect(rec.files[0].conversations[0].related).toEqual([
      { type: "intent", url: "urn:intent:INT-007" },
      { type: "intent", url: "urn:intent:weather%20api" },
    ]);
    expect(rec.metadata["dev.intent-lsp"].intent_id).toBe("INT-007");
  });

  it("skips and reports a record whose intent URN does not decode, and migrates the rest of the file", () => {
    const text = [
      older("a", [{ type: "intent", value: "INT-001" }]),
      older("b", [{ type: "intent", url: "urn:intent:%E0%A4%A" }]),
      "{oops",
      older("c", [{ type: "intent", value: "INT-002" }]),
      "",
    ].join("\n");
    const r = migrateLedger(text, validateRecord);
    expect(r.skipped).toEqual([
      { line: 2, reason: 'related url "urn:intent:%E0%A4%A" is not a valid intent URN (a malformed %-escape)' },
      { line: 3, reason: expect.stringMatching(/^not valid JSON/) },
    ]);
    expect(r.counts).toEqual({ spec: 0, older: 2, flat: 0, reference: 0 });
    expect(r.lines.map((l) => JSON.parse(l).metadata["dev.intent-lsp"].intent_id)).toEqual(["INT-001", "INT-002"]);
    expect(verifyLedger(`${r.lines.join("\n")}\n`)).toMatchObject({ ok: true, records: 2 }); // the chain skips the skipped line
  });
});
