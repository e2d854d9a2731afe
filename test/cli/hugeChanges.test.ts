import { afterEach, describe, expect, it } from "vitest";
import { commitThenRewriteEveryOtherLine } from "../support/generatedFile";
import { gitWorkspace } from "../support/gitRepository";
import { runCliInProcess } from "../support/cliRunner";
import type { TempWorkspace } from "../support/workspace";

const LINES = 300_000;

/**
 * A file changed on every other line of hundreds of thousands (a generator's output rewritten) gives as many
 * findings as changed runs: `intent check` reports each of them, as for any change, and exits as it would.
 * `intent blame` of such a file answers a row per line.
 */
describe("intent check and intent blame of files of hundreds of thousands of lines", () => {
  let ws: TempWorkspace;
  afterEach(() => ws.dispose());

  it("intent check reports every run of 150,000 changed runs, one finding each, and counts them", async () => {
    ws = gitWorkspace();
    const path = "src/api/generated.ts";
    commitThenRewriteEveryOtherLine(ws, path, LINES);
    const r = await runCliInProcess(["check"], { cwd: ws.root });
    expect(r.stderr).toBe("");
    const out = r.stdout.split("\n");
    const findings = out.filter((l) => l.startsWith(`${path}:`));
    expect(findings).toHaveLength(LINES / 2);
    expect(findings[0]).toMatch(new RegExp(`^${path}:2: information untraced-change: `));
    expect(findings.at(-1)).toMatch(new RegExp(`^${path}:${LINES}: information untraced-change: `));
    expect(out.at(-2)).toMatch(/^150000 notes in 150000 changed lines of 1 file /);
    expect(r.status).toBe(0);
  });

  it("intent blame of a 300,000-line file answers every line", async () => {
    ws = gitWorkspace();
    const path = "src/api/generated.ts";
    ws.write(path, Array.from({ length: LINES }, (_, i) => `export const g${i} = ${i};\n`).join(""));
    const r = await runCliInProcess(["blame", path], { cwd: ws.root });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const rows = r.stdout.split("\n").filter(Boolean);
    expect(rows).toHaveLength(LINES);
    expect(rows.at(-1)).toMatch(/^300000 {2}untraced +│ export const g299999 = 299999;$/);
  });
});
