import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempWorkspace } from "../support/workspace";
import { insightWorkspace } from "./insightWorkspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";

/**
 * The pull request summary of `intent check`, rendered from a fixture run (./insightWorkspace.ts: an
 * agent's lines, a person's, one out of scope, lines nobody recorded) and compared with the expected
 * Markdown in fixtures/check-summary.md.
 */

beforeAll(ensureBuilt);

const EXPECTED = join(__dirname, "fixtures", "check-summary.md");

describe("intent check's pull request summary", () => {
  let ws: TempWorkspace;
  beforeAll(async () => {
    ws = await insightWorkspace();
  }, 60_000);
  afterAll(() => ws?.dispose());

  it("--format github appends it to $GITHUB_STEP_SUMMARY and still prints the annotations", () => {
    // the runner's file, outside the workspace
    const summary = join(mkdtempSync(join(tmpdir(), "intent-step-summary-")), "step_summary.md");
    writeFileSync(summary, "# earlier step\n");
    const plain = runCli(["check", "--format", "github", "--base", "HEAD"], { cwd: ws.root });
    const r = runCli(["check", "--format", "github", "--base", "HEAD"], { cwd: ws.root, env: { GITHUB_STEP_SUMMARY: summary } });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(plain.status);
    expect(r.stdout).toBe(plain.stdout);
    expect(r.stdout).toMatch(/^::error file=docs\/notes\.md,line=11,endLine=11,/m);
    expect(readFileSync(summary, "utf8")).toBe(`# earlier step\n${readFileSync(EXPECTED, "utf8")}`);
    rmSync(dirname(summary), { recursive: true, force: true });
  });

  it("--format markdown prints the same summary", () => {
    const r = runCli(["check", "--format", "markdown", "--base", "HEAD"], { cwd: ws.root });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(readFileSync(EXPECTED, "utf8"));
  });

  it("a summary file that is not a regular file is reported, not waited on", () => {
    const r = runCli(["check", "--format", "github", "--base", "HEAD"], { cwd: ws.root, env: { GITHUB_STEP_SUMMARY: ws.path("src") } });
    expect(r.stderr).toMatch(/^intent check: could not append the summary to \$GITHUB_STEP_SUMMARY \(.*\/src\): /);
  });
});
