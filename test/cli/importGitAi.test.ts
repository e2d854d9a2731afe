import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { startInProcess } from "../support/inProcessServer";
import { ledgerRecords } from "../support/ledgerFile";
import type { TempWorkspace } from "../support/workspace";

/**
 * git-ai's authorship notes (refs/notes/ai, the Git AI Standard v3) as a team that used git-ai has them:
 * notes written here in the standard's own format (its sessions form, a legacy prompt key, a known person, a
 * quoted path, unsorted ranges), attached to the commits that introduced the lines. `intent import git-ai`
 * turns them into records; `intent blame` must then name the owners the notes name, line for line.
 */

beforeAll(ensureBuilt);

const LEDGER = ".orchestration/agent_trace.jsonl";

/** A note in the standard's text format: the attestations, `---`, the metadata. */
function note(attestations: string, metadata: Record<string, unknown>): string {
  return `${attestations}---\n${JSON.stringify({ schema_version: "authorship/3.0.0", git_ai_version: "1.6.24", prompts: {}, ...metadata }, null, 2)}\n`;
}

function commitWithNote(ws: TempWorkspace, message: string, text: (sha: string) => string): string {
  git(ws.root, "add", "-A");
  git(ws.root, "commit", "-qm", message);
  const sha = git(ws.root, "rev-parse", "HEAD").trim();
  git(ws.root, "notes", "--ref=ai", "add", "-m", text(sha), sha);
  return sha;
}

const blameRows = (ws: TempWorkspace, path: string) =>
  JSON.parse(runCli(["blame", path, "--json"], { cwd: ws.root }).stdout).lines as {
    line: number;
    contributor?: string;
    model?: string;
    person?: string;
    source?: string;
    confidence?: string;
    kind: string;
  }[];

describe("intent import git-ai", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = gitWorkspace();
    ws.write(LEDGER, "");
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-qm", "empty ledger", "--allow-empty");
    // commit 1: Claude Code (sessions form) adds lines 3-5 and 8 of a new file; a person seen typing, line 7
    ws.write(
      "src/api/units.ts",
      ["// units", "", "export const C = 1;", "export const F = 2;", "export const K = 3;", "", "// typed by Ada", "export const R = 4;", ""].join("\n"),
    );
    commitWithNote(ws, "units", (sha) =>
      note("src/api/units.ts\n  s_c9883b05a2487d::t_9f8e7d6c5b4a32 8,3-5\n  h_31dce776f88375 7\n", {
        base_commit_sha: sha,
        humans: { h_31dce776f88375: { author: "Ada Lovelace <ada@example.com>" } },
        sessions: {
          s_c9883b05a2487d: {
            agent_id: { tool: "claude", id: "6ef2299e-a67f", model: "claude-sonnet-4-5-20250514" },
            human_author: "Ada Lovelace <ada@example.com>",
          },
        },
      }),
    );
    // commit 2: Cursor (a legacy prompt key) writes two lines of a file whose name has a space; lines move down in units.ts
    ws.write("docs/unit table.md", "# Units\n\n| C | F |\n|---|---|\n");
    ws.write("src/api/units.ts", `// header added by hand\n${ws.read("src/api/units.ts")}`);
    commitWithNote(ws, "table", (sha) =>
      note('"docs/unit table.md"\n  abcd1234abcd1234 3-4\n', {
        base_commit_sha: sha,
        prompts: {
          abcd1234abcd1234: {
            agent_id: { tool: "cursor", id: "conv-1", model: "gpt-5" },
            human_author: "Ada Lovelace",
            total_additions: 2,
            total_deletions: 0,
            accepted_lines: 2,
            overriden_lines: 0,
          },
        },
      }),
    );
  });
  afterEach(() => ws.dispose());

  it("names in blame the owners the notes name, wherever the lines are now; run again, writes nothing", () => {
    const r = runCli(["import", "git-ai"], { cwd: ws.root });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("Imported 3 records (7 lines) from 2 git-ai notes.\n");
    expect(r.status).toBe(0);

    // units.ts moved down by one line since the note: lines 4-6 and 9 are Claude's, 8 is Ada's
    const units = blameRows(ws, "src/api/units.ts");
    const owner = (n: number) => {
      const row = units.find((x) => x.line === n)!;
      return row.kind === "traced" ? `${row.contributor} ${row.model ?? row.person ?? ""}`.trim() : row.kind;
    };
    // the lines no note lists stay untraced: git-ai does not know who wrote them
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(owner)).toEqual([
      "untraced",
      "untraced",
      "untraced",
      "ai anthropic/claude-sonnet-4-5-20250514",
      "ai anthropic/claude-sonnet-4-5-20250514",
      "ai anthropic/claude-sonnet-4-5-20250514",
      "untraced",
      "human Ada Lovelace",
      "ai anthropic/claude-sonnet-4-5-20250514",
    ]);
    const table = blameRows(ws, "docs/unit table.md");
    expect(table.filter((x) => x.contributor === "ai").map((x) => [x.line, x.model])).toEqual([
      [3, "openai/gpt-5"],
      [4, "openai/gpt-5"],
    ]);

    // the records say where they came from
    const records = ledgerRecords(ws);
    expect(records.map((x) => x.tool)).toEqual([
      { name: "git-ai", version: "1.6.24" },
      { name: "git-ai", version: "1.6.24" },
      { name: "git-ai", version: "1.6.24" },
    ]);
    expect(
      records
        .map((x) => {
          const imported = x.metadata["dev.intent-lsp"].imported;
          return `${x.files[0].path} ${imported.from} ${imported.ref} ${imported.agent ?? "-"} ${imported.key}`;
        })
        .sort(),
    ).toEqual([
      "docs/unit table.md git-ai refs/notes/ai cursor abcd1234abcd1234",
      "src/api/units.ts git-ai refs/notes/ai - h_31dce776f88375",
      "src/api/units.ts git-ai refs/notes/ai claude s_c9883b05a2487d::t_9f8e7d6c5b4a32",
    ]);

    // how sure: the table's lines are where the note put them, in the content it hashed (exact); units.ts's moved
    // down under a line added by hand, found again by their content (inferred); the rest untraced
    expect(table.filter((x) => x.contributor === "ai").map((x) => x.confidence)).toEqual(["exact", "exact"]);
    expect(units.map((x) => x.confidence)).toEqual([
      "untraced",
      "untraced",
      "untraced",
      "inferred",
      "inferred",
      "inferred",
      "untraced",
      "inferred",
      "inferred",
    ]);

    // blame and hover name where the owner comes from: the git-ai note of the commit that introduced the line
    const first = git(ws.root, "rev-parse", "HEAD~1").trim();
    expect(units.find((x) => x.line === 4)!.source).toBe(`git-ai note of ${first.slice(0, 8)}`);
    expect(runCli(["blame", "src/api/units.ts:4"], { cwd: ws.root }).stdout).toMatch(
      new RegExp(`claude-sonnet-4-5-20250514 \\(git-ai note of ${first.slice(0, 8)}\\)`),
    );

    const before = readFileSync(ws.path(LEDGER));
    const again = runCli(["import", "git-ai"], { cwd: ws.root });
    expect(again.stdout).toBe("Nothing to import: every record of the 2 git-ai notes is in the ledger.\n");
    expect(again.status).toBe(0);
    expect(readFileSync(ws.path(LEDGER)).equals(before)).toBe(true);
  });

  it("hover names the same owner as blame, and the note it comes from", async () => {
    expect(runCli(["import", "git-ai"], { cwd: ws.root }).status).toBe(0);
    const first = git(ws.root, "rev-parse", "HEAD~1").trim();
    const client = await startInProcess({ root: ws.root });
    try {
      await client.open("src/api/units.ts");
      await client.executeCommand("intent.blame", { path: "README.md", quiet: true }); // the ledger read to its end
      await client.waitForPublishOfCurrentVersion("src/api/units.ts");
      const ai = await client.hoverText("src/api/units.ts", 3);
      expect(ai).toContain("ai · anthropic/claude-sonnet-4-5-20250514");
      expect(ai).toContain(`git-ai note of ${first.slice(0, 8)}`);
      expect(await client.hoverText("src/api/units.ts", 7)).toContain("human · Ada Lovelace");
    } finally {
      await client.stop();
    }
  });

  it("gives the same records from the same notes in another clone (all but the chain link, which is the ledger's)", () => {
    const twin = mkdtempSync(join(tmpdir(), "git-ai-twin-"));
    try {
      cpSync(ws.root, twin, { recursive: true });
      expect(runCli(["import", "git-ai"], { cwd: ws.root }).status).toBe(0);
      expect(runCli(["import", "git-ai"], { cwd: twin }).status).toBe(0);
      const unchained = (file: string) =>
        readFileSync(file, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => l.replace(/"prev":("sha256:[0-9a-f]+"|null)/, '"prev":"…"'));
      expect(unchained(join(twin, LEDGER))).toEqual(unchained(ws.path(LEDGER)));
    } finally {
      rmSync(twin, { recursive: true, force: true });
    }
  });

  it("doctor says when the notes' lines are not in the ledger, and is quiet about it once they are", () => {
    const line = (out: string) => out.split("\n").find((l) => l.includes("git-ai notes"));
    expect(line(runCli(["doctor"], { cwd: ws.root }).stdout)).toBe(
      "warning  git-ai notes: 3 records (7 lines) from the 2 notes in refs/notes/ai are not in the ledger: hover and blame show those lines as untraced",
    );
    expect(runCli(["import", "git-ai"], { cwd: ws.root }).status).toBe(0);
    expect(line(runCli(["doctor"], { cwd: ws.root }).stdout)).toBe("ok       git-ai notes: the 2 notes in refs/notes/ai are in the ledger");
  });

  it("--dry-run writes nothing; a note it cannot read is named and the rest imported", () => {
    const head = git(ws.root, "rev-parse", "HEAD~1").trim();
    git(ws.root, "notes", "--ref=ai", "add", "-f", "-m", "src/api/units.ts\n  s_x::t_y 1-2\n{not json", head);
    const dry = runCli(["import", "git-ai", "--dry-run"], { cwd: ws.root });
    expect(dry.stdout).toBe("Would import 1 record (2 lines) from 1 git-ai note.\n");
    expect(dry.stderr).toBe(`intent import: the note of ${head.slice(0, 12)} was not imported: no \`---\` line between the attestations and the metadata\n`);
    expect(readFileSync(ws.path(LEDGER), "utf8")).toBe("");
    const r = runCli(["import", "git-ai"], { cwd: ws.root });
    expect(r.status).toBe(1);
    expect(ledgerRecords(ws)).toHaveLength(1);
  });
});
