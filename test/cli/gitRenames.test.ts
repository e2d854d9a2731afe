import { mkdirSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LspClient } from "../support/lspClient";
import type { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { claudeWrites } from "../support/agentWrites";
import { writeTranscript } from "../support/hookPayloads";

/**
 * Renames and splits only git knows of (docs/LEDGER.md "Renames, moves and copies"): a person's `git mv`
 * with edits in the same commit, a block cut from one file into a new one, committed with no record of
 * either. No record pins the new path's content, so only git's history names the path its lines come from;
 * `intent blame` and `intent check` then give the moved lines the author they had there, as `git blame -M -C`
 * does.
 */

beforeAll(ensureBuilt);

const SONNET = "anthropic/claude-sonnet-4-5-20250929";
const OLD = "src/api/alerts.ts";
const NEW = "src/api/v2/alerts.ts";
const ALERTS = [
  "export interface Alert {",
  "  id: string;",
  "  severity: number;",
  "  message: string;",
  "}",
  "export const NONE: Alert[] = [];",
  "export function isUrgent(alert: Alert): boolean {",
  "  return alert.severity >= 3;",
  "}",
  "export function describeAlert(alert: Alert): string {",
  "  return `${alert.id}: ${alert.message}`;",
  "}",
];

type Row = { kind: string; model?: string; from?: string };

function blameRows(ws: TempWorkspace, path: string): Row[] {
  const r = runCli(["blame", path, "--json"], { cwd: ws.root });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout).lines.map((l: any) => ({ kind: l.kind, ...(l.model ? { model: l.model } : {}), ...(l.from ? { from: l.from } : {}) }));
}

function checkFindings(ws: TempWorkspace, base: string): { path: string; lines: [number, number]; code: string }[] {
  const r = runCli(["check", "--base", base, "--format", "json"], { cwd: ws.root });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout).findings.map((f: any) => ({ path: f.path, lines: [f.startLine, f.endLine], code: f.code }));
}

const sonnetFrom = (from: string): Row => ({ kind: "traced", model: SONNET, from });
const UNTRACED: Row = { kind: "untraced" };

describe("renames and splits git knows of and no record pins", () => {
  let ws: TempWorkspace;
  let client: LspClient | undefined;
  afterEach(async () => {
    await client?.stop();
    client = undefined;
    ws.dispose();
  });

  /** The agent writes alerts.ts, committed; `onBranch`: on a feature branch, so that main is `intent check`'s base. */
  function agentWroteAlerts(onBranch = false): void {
    ws = gitWorkspace();
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    if (onBranch) git(ws.root, "checkout", "-q", "-b", "feature");
    claudeWrites(ws, OLD, `${ALERTS.join("\n")}\n`);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "alerts");
  }

  /** A person's `git mv` and an edit of line 3, one commit. */
  function renameWithEdit(): string[] {
    mkdirSync(ws.path("src/api/v2"), { recursive: true });
    git(ws.root, "mv", OLD, NEW);
    const edited = ALERTS.map((l) => (l === "  severity: number;" ? "  severity: 1 | 2 | 3;" : l));
    ws.write(NEW, `${edited.join("\n")}\n`);
    git(ws.root, "commit", "-q", "-am", "move alerts to v2, severities");
    return edited;
  }

  it("git mv with an edit in the same commit: blame keeps the agent on every line the person did not change", () => {
    agentWroteAlerts();
    renameWithEdit();
    expect(blameRows(ws, NEW)).toEqual(ALERTS.map((l) => (l === "  severity: number;" ? UNTRACED : sonnetFrom(OLD))));
  });

  it("git mv with edits, then an agent's recorded change of the new path: git's content of the rename is where the record starts, so a line it re-indents keeps its owner, in blame, the editor and intent check", async () => {
    agentWroteAlerts(true);
    // the person renames and adds a function above, one commit nobody recorded
    mkdirSync(ws.path("src/api/v2"), { recursive: true });
    git(ws.root, "mv", OLD, NEW);
    const NONE_FN = ["export function none(): Alert[] {", "  return [];", "}"];
    ws.write(NEW, `${[...NONE_FN, ...ALERTS].join("\n")}\n`);
    git(ws.root, "commit", "-q", "-am", "move alerts to v2, none()");
    // the agent re-indents isUrgent's body and rewrites describeAlert's, recorded
    const reindented = "      return alert.severity >= 3;";
    const rewritten = "  return `[${alert.severity}] ${alert.id}: ${alert.message}`;";
    const next = [...NONE_FN, ...ALERTS].map((l) =>
      l === "  return alert.severity >= 3;" ? reindented : l === "  return `${alert.id}: ${alert.message}`;" ? rewritten : l,
    );
    claudeWrites(ws, NEW, `${next.join("\n")}\n`);
    const rows = blameRows(ws, NEW);
    expect(rows).toEqual([
      UNTRACED,
      UNTRACED,
      UNTRACED,
      ...ALERTS.map((l) => (l === "  return `${alert.id}: ${alert.message}`;" ? { kind: "traced", model: SONNET } : sonnetFrom(OLD))),
    ]);
    // the editor asks git in the background, then says the same: the rename's three new lines are the only finding
    client = await LspClient.start({ root: ws.root });
    await client.open(NEW);
    const diagnostics = await client.waitForDiagnostics(NEW, (d) => d.length === 1 && d[0]!.range.start.line === 0 && d[0]!.range.end.line === 2);
    expect(diagnostics.map((d) => d.code)).toEqual(["untraced-change"]);
    // and intent check over the branch reports the same lines, and nothing on the re-indented one
    expect(checkFindings(ws, "main").filter((f) => f.path === NEW)).toEqual([{ path: NEW, lines: [1, 3], code: "untraced-change" }]);
    for (let line = 0; line < rows.length; line++) {
      const hover = await client.hoverText(NEW, line);
      if (rows[line]!.kind === "untraced") expect(hover, `line ${line + 1}`).not.toContain(SONNET);
      else expect(hover, `line ${line + 1}`).toContain(`ai · ${SONNET}`);
    }
  });

  it("renamed twice with edits: blame follows both renames", () => {
    agentWroteAlerts();
    renameWithEdit();
    git(ws.root, "mv", NEW, "src/api/v2/alert.ts");
    ws.write("src/api/v2/alert.ts", `// alerts\n${ws.read("src/api/v2/alert.ts")}`);
    git(ws.root, "commit", "-q", "-am", "rename again, header");
    expect(blameRows(ws, "src/api/v2/alert.ts")).toEqual([UNTRACED, ...ALERTS.map((l) => (l === "  severity: number;" ? UNTRACED : sonnetFrom(OLD)))]);
  });

  /** A person cuts the two functions out of alerts.ts into a new urgency.ts (with an import above), one commit. */
  function splitFunctions(): void {
    const moved = ALERTS.slice(6);
    ws.write(OLD, `${ALERTS.slice(0, 6).join("\n")}\n`);
    ws.write("src/api/urgency.ts", `import type { Alert } from "./alerts";\n${moved.join("\n")}\n`);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "split urgency out of alerts");
  }

  it("a block cut from one file into a new one in one commit: blame of the new file keeps the agent on the moved lines", () => {
    agentWroteAlerts();
    splitFunctions();
    expect(blameRows(ws, "src/api/urgency.ts")).toEqual([UNTRACED, ...ALERTS.slice(6).map(() => sonnetFrom(OLD))]);
    expect(blameRows(ws, OLD)).toEqual(ALERTS.slice(0, 6).map(() => ({ kind: "traced", model: SONNET })));
  });

  it("a block cut into a new file that is mostly new text (git sees no copy): the commit that added it names the source", () => {
    agentWroteAlerts();
    const moved = ALERTS.slice(6);
    const added = Array.from({ length: 16 }, (_, i) => `export const LEVEL_${i} = ${i * 7}; // severity level ${i} of the scale`);
    ws.write(OLD, `${ALERTS.slice(0, 6).join("\n")}\n`);
    ws.write("src/api/urgency.ts", `${added.join("\n")}\n${moved.join("\n")}\n`);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "levels, and urgency out of alerts");
    // below git's 50% similarity: `git log --follow` shows the path added, not copied
    expect(git(ws.root, "log", "--follow", "-M", "--name-status", "--format=", "--", "src/api/urgency.ts").trim()).toBe("A\tsrc/api/urgency.ts");
    expect(blameRows(ws, "src/api/urgency.ts")).toEqual([...added.map(() => UNTRACED), ...moved.map(() => sonnetFrom(OLD))]);
  });

  it("intent check over a branch that renamed a file with edits: only the edited line is a finding", () => {
    agentWroteAlerts(true);
    renameWithEdit();
    // the old path never was on main: the branch's diff shows the new path wholly added
    expect(checkFindings(ws, "main").filter((f) => f.path !== ".orchestration/agent_trace.jsonl")).toEqual([
      { path: NEW, lines: [3, 3], code: "untraced-change" },
    ]);
  });

  it("intent check over a branch that split a file: no finding on the moved lines", () => {
    agentWroteAlerts();
    git(ws.root, "checkout", "-q", "-b", "feature");
    splitFunctions();
    const findings = checkFindings(ws, "main");
    expect(findings.filter((f) => f.path === "src/api/urgency.ts")).toEqual([{ path: "src/api/urgency.ts", lines: [1, 1], code: "untraced-change" }]);
  });

  it("intent check of a split not yet committed (the working tree against HEAD): no finding on the moved lines", () => {
    agentWroteAlerts();
    const moved = ALERTS.slice(6);
    ws.write(OLD, `${ALERTS.slice(0, 6).join("\n")}\n`);
    ws.write("src/api/urgency.ts", `import type { Alert } from "./alerts";\n${moved.join("\n")}\n`);
    const findings = checkFindings(ws, "HEAD");
    expect(findings.filter((f) => f.path === "src/api/urgency.ts")).toEqual([{ path: "src/api/urgency.ts", lines: [1, 1], code: "untraced-change" }]);
  });

  it("the editor, opening a file renamed with edits on a branch: its findings and hover say what intent check and intent blame say", async () => {
    agentWroteAlerts(true);
    renameWithEdit();
    client = await LspClient.start({ root: ws.root });
    await client.open(NEW);
    // git answers in the background: the document is attributed again once it has
    const diagnostics = await client.waitForDiagnostics(NEW, (d) => d.length === 1 && d[0]!.range.start.line === 2);
    expect(diagnostics.map((d) => [d.range.start.line, d.range.end.line, d.code])).toEqual([[2, 2, "untraced-change"]]);
    for (let line = 0; line < ALERTS.length; line++) {
      const hover = await client.hoverText(NEW, line);
      if (line === 2) expect(hover).not.toContain(SONNET);
      else expect(hover, `line ${line + 1}`).toContain(`ai · ${SONNET}`);
    }
  });
});
