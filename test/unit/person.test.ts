// The person a human save names: resolved from the settings and git (personOf), written only for a person's
// record (buildRecord), and read back only onto human contributors (parseLedgerLines).
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { personOf } from "../../server/src/engine/contributor";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { parseLedgerLines } from "../../server/src/engine/ledger/read";

const git = { name: "Ada Lovelace", email: " Ada@Example.com " };
const file = {
  path: "a.ts",
  content: "x\n",
  ranges: [{ start_line: 1, end_line: 1 }],
  mutationClass: "FILE_CREATION" as const,
  preHash: null,
  scope: "PASS" as const,
  sessionId: "s",
  toolVersion: "0",
};

describe("the person of a human save", () => {
  it("settings win over git field by field; the email is kept as recordEmail says", () => {
    const hash = `sha256:${createHash("sha256").update("ada@example.com").digest("hex")}`;
    expect(personOf({ recordEmail: "hash" }, git)).toEqual({ name: "Ada Lovelace", email_hash: hash });
    expect(personOf({ recordEmail: "plain", name: "Grace Hopper" }, git)).toEqual({ name: "Grace Hopper", email: "Ada@Example.com" });
    expect(personOf({ recordEmail: "omit" }, git)).toEqual({ name: "Ada Lovelace" });
    expect(personOf({ recordEmail: "hash", name: "  " }, {})).toBeUndefined();
    expect(personOf({ recordEmail: "omit", name: "Ada\nLovelace" }, {})).toEqual({ name: "Ada Lovelace" });
  });

  it("is written for a person's record only, and read onto its human contributors only", () => {
    const human = buildRecord({ ...file, contributor: { type: "human" }, person: { name: "Ada Lovelace" } });
    const ai = buildRecord({ ...file, contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" }, person: { name: "Ada Lovelace" } });
    expect(human.metadata?.["dev.intent-lsp"]?.person).toEqual({ name: "Ada Lovelace" });
    expect(ai.metadata?.["dev.intent-lsp"]?.person).toBeUndefined();
    // a record of another writer that puts a person next to an AI contributor does not name the AI
    const forged = JSON.parse(JSON.stringify(ai));
    forged.metadata["dev.intent-lsp"].person = { name: "Ada Lovelace" };
    const entries = parseLedgerLines([JSON.stringify(human), JSON.stringify(forged)].join("\n"), 1).entries;
    expect(entries.map((e) => e.contributor)).toEqual([
      { type: "human", name: "Ada Lovelace" },
      { type: "ai", modelId: "anthropic/claude-sonnet-4-5" },
    ]);
  });
});
