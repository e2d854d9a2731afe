// The Parquet export's tables as data (server/src/engine/export/): docs/EXPORT.md says every column as the
// code defines it, rows are made from runs and ledger entries as documented, and a repository's name comes
// from its origin whatever the URL's form.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COLUMNS, EXPORT_SCHEMA_VERSION, lineRows, recordRows, TABLES } from "../../server/src/engine/export/exportTables";
import { repoNameFromUrl } from "../../server/src/engine/export/repoName";
import { parseLedgerLines } from "../../server/src/engine/ledger/read";

describe("docs/EXPORT.md", () => {
  const doc = readFileSync("docs/EXPORT.md", "utf8");
  it.each(TABLES)("documents every column of %s, with its type and meaning, in order", (table) => {
    const section = doc.split(`### \`${table}\``)[1]!.split("\n### ")[0]!;
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \| ([A-Z]+) \| (.+) \|$/gm)].map((m) => ({ name: m[1], type: m[2], doc: m[3] }));
    expect(rows[0]).toMatchObject({ name: "repo", type: "VARCHAR" });
    expect(rows.slice(1)).toEqual(COLUMNS[table].map((c) => ({ name: c.name, type: c.type, doc: c.doc })));
  });
  it("names the schema version", () => {
    expect(doc).toContain(`## The tables (schema version ${EXPORT_SCHEMA_VERSION})`);
  });
});

describe("rows", () => {
  it("a run becomes a lines row: kind named for engines, untraced runs dated by their commit, names left out when asked", () => {
    const runs = [
      {
        start: 1,
        end: 3,
        author: "ai" as const,
        intent: "INT-1",
        model: "m/x",
        traceId: "r1",
        timestamp: "2026-01-02T00:00:00.000Z",
        confidence: "exact" as const,
      },
      { start: 4, end: 4, author: "beforeAdoption" as const },
      { start: 5, end: 6, author: "untraced" as const, committed: "2026-01-01T00:00:00.000Z" },
      {
        start: 7,
        end: 7,
        author: "human" as const,
        person: "Ada",
        traceId: "r2",
        timestamp: "2026-01-03T00:00:00.000Z",
        outOfScope: true,
        confidence: "replayed" as const,
      },
      { start: 8, end: 8, author: "untraced" as const, committed: "2026-11-30T00:00:00.000Z", uncommitted: true },
    ];
    const rows = lineRows("a.ts", runs, "abc", true);
    expect(rows.map((r) => [r["kind"], r["written_at"], r["confidence"], r["out_of_scope"], r["uncommitted"]])).toEqual([
      ["ai", "2026-01-02T00:00:00.000Z", "exact", false, false],
      ["before_adoption", null, null, false, false],
      ["untraced", "2026-01-01T00:00:00.000Z", null, false, false],
      ["human", "2026-01-03T00:00:00.000Z", "replayed", true, false],
      ["untraced", null, null, false, true],
    ]);
    expect(Object.keys(rows[0]!)).toEqual(COLUMNS.lines.map((c) => c.name));
    expect(lineRows("a.ts", runs, "abc", false)[3]!["person"]).toBeNull();
  });

  it("a record of two files and three ranges is a row per file, its lines summed", () => {
    const record = {
      version: "0.1.0",
      id: "r1",
      timestamp: "2026-01-02T00:00:00.000Z",
      files: [
        {
          path: "a.ts",
          conversations: [
            {
              contributor: { type: "ai", model_id: "anthropic/claude-sonnet-4-5" },
              ranges: [
                { start_line: 1, end_line: 2 },
                { start_line: 5, end_line: 5 },
              ],
            },
          ],
        },
        { path: "b.ts", conversations: [{ contributor: { type: "ai" }, ranges: [{ start_line: 3, end_line: 9 }] }] },
      ],
    };
    const rows = recordRows(parseLedgerLines(JSON.stringify(record), 7).entries, 7, true);
    expect(rows.map((r) => [r["ledger_line"], r["path"], r["lines"], r["model"]])).toEqual([
      [7, "a.ts", 3, "anthropic/claude-sonnet-4-5"],
      [7, "b.ts", 7, null],
    ]);
    expect(Object.keys(rows[0]!)).toEqual(COLUMNS.records.map((c) => c.name));
  });
});

describe("repoNameFromUrl", () => {
  it.each([
    ["https://github.com/acme/web.git", "acme/web"],
    ["https://github.com/acme/web", "acme/web"],
    ["git@github.com:acme/web.git", "acme/web"],
    ["ssh://git@gitlab.example.com:2222/group/sub/web.git", "group/sub/web"],
    ["file:///srv/git/acme/web.git", undefined],
    ["/srv/git/web.git", undefined],
    ["not a url", undefined],
  ])("%s → %s", (url, name) => {
    expect(repoNameFromUrl(url)).toBe(name);
  });
});
