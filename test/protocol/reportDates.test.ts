// The editor's `intent.report` dates untraced lines as `intent report` does (one walk of git's history,
// io/commitDates.ts), and asks git in the background: while git is held, other requests are answered. The
// server is spawned from dist/ (the built server carries the report page's script) with a git of the
// test's own ahead on its PATH.
import { spawnSync } from "node:child_process";
import { gitAt } from "../support/gitRepository";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";
import { reportPageData } from "../support/reportPageData";

beforeAll(ensureBuilt);

const JANUARY = "2026-01-05T10:00:00Z";
const FEBRUARY = "2026-02-10T10:00:00Z";

const insightOf = (html: string) => reportPageData(html).insight;

describe("the editor's report dates untraced lines without holding up other requests", () => {
  let ws: TempWorkspace;
  let bin: string;
  let client: LspClient | undefined;

  beforeAll(() => {
    ws = new TempWorkspace();
    ws.write(".orchestration/agent_trace.jsonl", "");
    gitAt(ws.root, undefined, "init", "-q");
    gitAt(ws.root, undefined, "add", "-A");
    gitAt(ws.root, JANUARY, "commit", "-q", "-m", "january");
    ws.write("README.md", `${ws.read("README.md")}Second section.\nMore text.\n`);
    gitAt(ws.root, undefined, "add", "-A");
    gitAt(ws.root, FEBRUARY, "commit", "-q", "-m", "february");
    ws.write("scratch/untracked.txt", "one\ntwo\n");
    // a git that waits for a gate file before it walks the history, ahead of the real one on PATH
    bin = mkdtempSync(join(tmpdir(), "intent-git-gate-"));
    const realGit = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
    writeFileSync(
      join(bin, "git"),
      `#!/bin/sh\necho "$*" >> '${bin}/calls.log'\ncase "$*" in *" log "*" --first-parent "*) i=0; while [ ! -e '${bin}/gate' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done;; esac\nexec '${realGit}' "$@"\n`,
    );
    chmodSync(join(bin, "git"), 0o755);
  }, 60_000);

  afterAll(async () => {
    await client?.stop();
    ws?.dispose();
    rmSync(bin, { recursive: true, force: true });
  });

  it("intent.report answers other requests while git walks, then gives every untraced line its commit's date, as `intent report` does", async () => {
    // spawned: the built server has the report page's script, and its own PATH
    client = await LspClient.start({ root: ws.root, env: { PATH: `${bin}:${process.env["PATH"]}` } });
    const calls = () => (existsSync(join(bin, "calls.log")) ? readFileSync(join(bin, "calls.log"), "utf8") : "");
    const report = client.executeCommand("intent.report", { quiet: true, html: true }) as Promise<{ html: string }>;
    await client.waitFor(() => (/ log .*--first-parent /.test(calls()) ? true : undefined), "the report's walk of git's history to start");
    // git is held at the gate: the server still answers
    const intents = (await client.executeCommand("intent.listIntents", { quiet: true })) as { id: string }[];
    expect(intents.map((i) => i.id)).toContain("INT-001");
    await client.open(".orchestration/active_intents.yaml");
    expect(await client.hoverText(".orchestration/active_intents.yaml", 3, 8)).toBe(
      "**INT-001 — Build Weather API** (IN_PROGRESS)\n\nScope: `src/api/**`, `test/api/**`\n\n0 recorded edits in 0 files",
    );
    writeFileSync(join(bin, "gate"), "");
    const insight = insightOf((await report).html);

    expect(insight.history.undated).toEqual({ lines: 0, reasons: [] });
    const untraced = insight.history.periods.map((p: { period: string; inCode: { untraced: number } }) => [p.period, p.inCode.untraced]);
    expect(untraced.find((p: [string, number]) => p[0] === "2026-02-09")).toEqual(["2026-02-09", 2]);
    expect(untraced.at(-1)[1]).toBe(2);
    // one verdict: the terminal's report counts the same
    const cli = runCli(["report", "--out", "-"], { cwd: ws.root });
    expect(cli.stderr).toBe("");
    expect(insight).toEqual(insightOf(cli.stdout));
  });
});
