import { beforeEach, describe, expect, it } from "vitest";
import { DiagnosticSeverity } from "vscode-languageserver-protocol";
import { type LspClient, line } from "../support/lspClient";
import { startInProcess } from "../support/inProcessServer";
import { stopAfterEach, TempWorkspace } from "../support/workspace";

const YAML = ".orchestration/active_intents.yaml";
const NOTES = "docs/notes.md";

const brief = (d: { range: { start: { line: number; character: number }; end: { line: number; character: number } }; code?: unknown; message: string }[]) =>
  d.map((x) => `${x.range.start.line}:${x.range.start.character}-${x.range.end.line}:${x.range.end.character} ${String(x.code)} ${x.message}`);

describe("active_intents.yaml problems", () => {
  let ws: TempWorkspace;
  let client: LspClient;
  let original: string;

  beforeEach(async () => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    original = ws.read(YAML);
    client = await startInProcess({ root: ws.root });
  });
  stopAfterEach(() => ({ client, ws }));

  /** Replaces text in the YAML buffer, as a user typing in the editor. */
  async function typeInYaml(from: string, to: string) {
    const text = client.text(YAML);
    const at = text.indexOf(from);
    expect(at).toBeGreaterThan(-1);
    const before = text.slice(0, at).split("\n");
    const start = { line: before.length - 1, character: before[before.length - 1].length };
    const endLines = (text.slice(0, at) + from).split("\n");
    const end = { line: endLines.length - 1, character: endLines[endLines.length - 1].length };
    await client.edit(YAML, { start, end }, to);
  }

  async function expectStillServing() {
    await client.open(NOTES);
    await client.setLine(NOTES, 2, "edited");
    const [d] = await client.waitForDiagnostics(NOTES, (x) => x.length === 1);
    expect(d.code).toBe("out-of-scope");
    expect(d.message).toContain("INT-001 (Build Weather API)");
  }

  it.each([
    ["a duplicate id", "id: INT-002", "id: INT-001", ["15:8-15:15 intent-schema Duplicate intent id INT-001 (first defined on line 3). Ids must be unique."]],
    [
      "a bad status",
      "status: BLOCKED",
      "status: STUCK",
      ['17:12-17:17 intent-schema INT-002: bad status "STUCK"; use one of PENDING, IN_PROGRESS, COMPLETE, BLOCKED, ARCHIVED.'],
    ],
    [
      "an invalid glob",
      `["docs/**", "README.md"]`,
      `["docs/[**", "README.md"]`,
      ['27:18-27:28 intent-schema INT-003: invalid glob: "docs/[**" has an unclosed "[".'],
    ],
  ])("%s gives a diagnostic at the offending node, and the last good intents stay in force", async (_what, from, to, expected) => {
    await client.open(YAML, "yaml");
    await typeInYaml(from, to);
    const diags = await client.waitForDiagnostics(YAML, (d) => d.length > 0);
    expect(brief(diags)).toEqual(expected.map((e) => `${e} (the last valid version of this file stays in force until this is fixed)`));
    expect(diags.every((d) => d.severity === DiagnosticSeverity.Error && d.source === "intent-lsp")).toBe(true);
    await expectStillServing();
  });

  it("a syntax error gives a diagnostic where the parser stopped, and the server keeps serving", async () => {
    await client.open(YAML, "yaml");
    await typeInYaml(`owned_scope: ["src/billing/**"]`, `owned_scope: ["src/billing/**"`);
    const diags = await client.waitForDiagnostics(YAML, (d) => d.length > 0);
    expect(diags[0].code).toBe("intent-schema");
    expect(diags[0].message).toMatch(/^YAML syntax error: /);
    expect(diags[0].range.start.line).toBeGreaterThanOrEqual(40);
    await expectStillServing();
    // fixing it clears the diagnostics
    await typeInYaml(`owned_scope: ["src/billing/**"`, `owned_scope: ["src/billing/**"]`);
    await client.waitForDiagnostics(YAML, (d) => d.length === 0);
  });

  it("reports problems in the file on disk without opening it, and clears them when fixed", async () => {
    ws.write(YAML, original.replace("status: PENDING", "status: WAITING"));
    await client.notifyWatched(YAML);
    const [d] = await client.waitForDiagnostics(YAML, (x) => x.length === 1);
    expect(brief([d])).toEqual([
      '33:12-33:19 intent-schema INT-004: bad status "WAITING"; use one of PENDING, IN_PROGRESS, COMPLETE, BLOCKED, ARCHIVED. (the last valid version of this file stays in force until this is fixed)',
    ]);
    ws.write(YAML, original);
    await client.notifyWatched(YAML);
    await client.waitForDiagnostics(YAML, (x) => x.length === 0);
  });

  it("offers the lifecycle moves of the intent under the cursor, and applies one", async () => {
    await client.open(YAML, "yaml");
    const actions = await client.codeActions(YAML, line(4, 5));
    expect(actions.map((a) => a.title)).toEqual([
      "Complete INT-001 (IN_PROGRESS → COMPLETE)",
      "Block INT-001 (IN_PROGRESS → BLOCKED)",
      "Archive INT-001 (IN_PROGRESS → ARCHIVED)",
    ]);
    await client.executeCommand(actions[1].command!.command, ...actions[1].command!.arguments!);
    const after = ws.read(YAML);
    const stamp = /updated_at: (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\n\n {2}- id: INT-002/.exec(after)![1];
    expect(Math.abs(Date.parse(stamp) - Date.now())).toBeLessThan(60_000);
    expect(after).toBe(
      original
        .replace('status: IN_PROGRESS\n    owned_scope: ["src/api/**"', 'status: BLOCKED\n    owned_scope: ["src/api/**"')
        .replace("updated_at: 2026-02-20T14:00:00Z", `updated_at: ${stamp}`),
    );
  });

  it("refuses an illegal transition with the lifecycle's reason", async () => {
    await expect(client.executeCommand("intent.transition", { id: "INT-005", to: "IN_PROGRESS" })).rejects.toThrow(
      'INT-005 cannot move from COMPLETE to IN_PROGRESS. From COMPLETE it can move to ARCHIVED. The intent picker lists the intents to select (more work is a new intent, declared in active_intents.yaml); or the code action "Archive INT-005 (COMPLETE → ARCHIVED)" on INT-005 in active_intents.yaml makes that move.',
    );
    expect(ws.read(YAML)).toBe(original);
  });

  it("never loses a change made on disk since the server read the YAML: refused, or applied on top of it", async () => {
    const theirs = original.replace("Docs refresh", "Docs refresh (v2)");
    // The server's own watcher may or may not have re-read the file when the command arrives; either way the
    // other writer's change must survive (the engine's refusal itself is exact in test/unit/intents.test.ts).
    ws.write(YAML, theirs);
    const outcome = await client.executeCommand("intent.amendScope", { id: "INT-001", glob: "docs/**" }).then(
      () => "applied",
      (err: Error) => err.message,
    );
    if (outcome === "applied") {
      expect(ws.read(YAML)).toContain("Docs refresh (v2)");
      expect(ws.read(YAML)).toContain("docs/**");
    } else {
      expect(outcome).toContain("changed on disk since it was read");
      expect(ws.read(YAML)).toBe(theirs);
    }
  });
});
