import { describe, expect, it } from "vitest";
import { parseGitAiNote } from "../../server/src/engine/ledger/gitAiNote";
import { gitAiRecords, importedId } from "../../server/src/engine/ledger/gitAiRecords";
import { validateRecord } from "../../server/src/io/ledger/schema";

/** git-ai's note format (Git AI Standard v3), as its specification's examples and real notes have it. */

const meta = (extra: Record<string, unknown>) =>
  JSON.stringify({ schema_version: "authorship/3.0.0", base_commit_sha: "7734793b", prompts: {}, ...extra }, null, 2);
const SESSION = { s_e7f2a90b31cc48: { agent_id: { tool: "claude", id: "conv_abc123def456", model: "claude-sonnet-4-5-20250514" } } };

describe("a git-ai note", () => {
  it("is read file by file, key by key, with quoted paths, unsorted ranges and CRLF line ends", () => {
    const text = `"docs/README (copy).md"\r\n  s_e7f2a90b31cc48::t_deadbeef012345 10-12,5\r\nsrc/lib.rs\r\n  s_e7f2a90b31cc48::t_0123 1-50\r\n---\r\n${meta({ sessions: SESSION })}`;
    expect(parseGitAiNote(text)).toEqual({
      schemaVersion: "authorship/3.0.0",
      files: [
        {
          path: "docs/README (copy).md",
          entries: [
            {
              key: "s_e7f2a90b31cc48::t_deadbeef012345",
              author: {
                kind: "agent",
                tool: "claude",
                model: "claude-sonnet-4-5-20250514",
                conversation: "conv_abc123def456",
                key: "s_e7f2a90b31cc48::t_deadbeef012345",
              },
              ranges: [
                [10, 12],
                [5, 5],
              ],
            },
          ],
        },
        {
          path: "src/lib.rs",
          entries: [{ key: "s_e7f2a90b31cc48::t_0123", author: expect.objectContaining({ tool: "claude" }), ranges: [[1, 50]] }],
        },
      ],
    });
  });

  it("reads legacy prompt keys (7 or 16 hex digits), known people, and a note with no attestations", () => {
    const legacy = parseGitAiNote(
      `a.ts\n  682bebb 8\n  h_31dce776f88375 9\n---\n${meta({
        prompts: { "682bebb": { agent_id: { tool: "cursor", id: "c", model: "unknown" }, messages: [] } },
        humans: { h_31dce776f88375: { author: "Developer <dev@example.com>" } },
      })}`,
    );
    expect(legacy.files[0]!.entries.map((e) => e.author)).toEqual([
      { kind: "agent", tool: "cursor", conversation: "c", key: "682bebb" },
      { kind: "person", author: "Developer <dev@example.com>", key: "h_31dce776f88375" },
    ]);
    expect(parseGitAiNote(`---\n${meta({})}`).files).toEqual([]);
  });

  it("is refused with the reason when it is not one", () => {
    expect(() => parseGitAiNote("a.ts\n  k 1-2\n")).toThrow("no `---` line between the attestations and the metadata");
    expect(() => parseGitAiNote(`a.ts\n  k 1-2\n---\n{"schema_version":"authorship/2.0.0","prompts":{}}`)).toThrow(
      'schema_version "authorship/2.0.0" is not authorship/3.0.0',
    );
    expect(() => parseGitAiNote(`a.ts\n  k 3-1\n---\n${meta({})}`)).toThrow('line 2: "3-1" is not a range of lines 1 to 5000000');
    expect(() => parseGitAiNote(`a.ts\n  k 1\n---\n${meta({})}`)).toThrow("the attestation key k names no agent in the metadata");
    expect(() => parseGitAiNote(`  k 1\n---\n${meta({})}`)).toThrow("line 1: an attestation before any file");
  });
});

describe("records from a note", () => {
  const note = parseGitAiNote(
    `src/a.ts\n  s_e7f2a90b31cc48::t_1 4,2-3\n  h_31dce776f88375 1\nsrc/gone.ts\n  s_e7f2a90b31cc48::t_1 1\n---\n${meta({ sessions: SESSION, humans: { h_31dce776f88375: { author: "Ada <ada@example.com>" } } })}`,
  );
  const at = { commit: "c".repeat(40), time: "2026-05-01T10:00:00Z", note, content: (p: string) => (p === "src/a.ts" ? "one\ntwo\nthree\nfour\n" : undefined) };

  it("are valid Agent Trace records, one per file and key, the same every time", () => {
    const { records, skipped } = gitAiRecords(at, { recordEmail: "hash" });
    expect(skipped).toEqual([`src/gone.ts: commit ${"c".repeat(12)} has no such file`]);
    expect(
      records.map((r) => [r.files[0]!.conversations[0]!.contributor, r.files[0]!.conversations[0]!.ranges.map((x) => [x.start_line, x.end_line])]),
    ).toEqual([
      [{ type: "ai", model_id: "anthropic/claude-sonnet-4-5-20250514" }, [[2, 4]]],
      [{ type: "human" }, [[1, 1]]],
    ]);
    for (const r of records) expect(validateRecord(r)).toEqual([]);
    expect(records[1]!.metadata!["dev.intent-lsp"]).toMatchObject({ person: { name: "Ada", email_hash: expect.stringMatching(/^sha256:/) } });
    expect(gitAiRecords(at, { recordEmail: "hash" })).toEqual({ records, skipped });
    expect(records[0]!.id).toBe(importedId(at.commit, "src/a.ts", "s_e7f2a90b31cc48::t_1"));
  });

  it("skip a key whose lines run past the file, naming it", () => {
    const short = { ...at, content: (p: string) => (p === "src/a.ts" ? "one\ntwo\n" : undefined) };
    expect(gitAiRecords(short, { recordEmail: "omit" }).skipped[0]).toBe(
      `src/a.ts: s_e7f2a90b31cc48::t_1 claims line 4, past the 2 lines the file has in commit ${"c".repeat(12)}`,
    );
  });
});
