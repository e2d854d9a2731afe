import { afterEach, describe, expect, it } from "vitest";
import { git, gitWorkspace } from "../support/gitRepository";
import { runCliInProcess } from "../support/cliRunner";
import type { TempWorkspace } from "../support/workspace";

const LINES = 300_000;

/**
 * A file changed on every other line of hundreds of thousands (a generator's output rewritten) gives as many
 * findings as changed runs: `intent check` reports each of them, as for any change, and exits as it would.
 */
describe("intent check of a file with 150,000 changed runs", () => {
  let ws: TempWorkspace;
  afterEach(() => ws.dispose());

  it("reports every run, one finding each, and counts them", async () => {
    ws = gitWorkspace();
    const path = "src/api/generated.ts";
    const line = (i: number, sign: string) => `export const g${i} = ${sign}${i};\n`;
    ws.write(path, Array.from({ length: LINES }, (_, i) => line(i, "")).join(""));
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "generated");
    ws.write(path, Array.from({ length: LINES }, (_, i) => line(i, i % 2 ? "-" : "")).join(""));
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
});
