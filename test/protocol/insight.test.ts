// The editor's side of the insight numbers: the CodeLens file summary counts a file's lines as
// `intent stats` does, and `intent.report` writes the same report as `intent report` and says where.
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeLens } from "vscode-languageserver-protocol";
import { LspClient } from "../support/lspClient";
import type { TempWorkspace } from "../support/workspace";
import { insightWorkspace } from "../cli/insightWorkspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";

beforeAll(ensureBuilt);

describe("insight in the editor", () => {
  let ws: TempWorkspace;
  let client: LspClient | undefined;
  let refreshes = 0;
  beforeAll(async () => {
    ws = await insightWorkspace();
    client = await LspClient.start({ root: ws.root });
    client.connection.onRequest("workspace/codeLens/refresh", () => {
      refreshes++;
      return null;
    });
  }, 60_000);

  /** A file's lenses once its owners are known: none before the ledger is read; the server then asks for a refresh. */
  async function lensesOnceIndexed(path: string): Promise<CodeLens[]> {
    for (;;) {
      const seen = refreshes;
      const lenses = await client!.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri: client!.uri(path) } });
      if (lenses.length) return lenses;
      await client!.waitFor(() => refreshes > seen || undefined, `a CodeLens refresh for ${path}`);
    }
  }
  afterAll(async () => {
    await client?.stop();
    ws?.dispose();
  });

  it("the CodeLens file summary shows the numbers `intent stats` gives the file", async () => {
    const stats = JSON.parse(runCli(["stats", "--json"], { cwd: ws.root }).stdout);
    for (const [path, expected] of [
      ["docs/notes.md", "1/12 lines traced · AI 0 (0%) · human 1 · untraced 11 · 1 out of scope · 1 record · INT-001"],
      ["src/api/weather.ts", "3/20 lines traced · AI 3 (15%) · human 0 · untraced 17 · 1 record · INT-001"],
    ] as const) {
      const counts = stats.byFile.find((f: { path: string }) => f.path === path).lines;
      expect(expected).toContain(`AI ${counts.ai} `);
      expect(expected).toContain(`human ${counts.human} · untraced ${counts.untraced}`);
      await client!.open(path);
      const lenses = await lensesOnceIndexed(path);
      expect(lenses[0]!.command!.title.startsWith(`${expected} · last `), lenses[0]!.command!.title).toBe(true);
    }
  });

  it("intent.report writes the report, says where, and counts what `intent stats` counts", async () => {
    const stats = JSON.parse(runCli(["stats", "--json"], { cwd: ws.root }).stdout);
    const before = client!.logs.length;
    const r = (await client!.executeCommand("intent.report", { out: "reports/insight.html" })) as { path: string; file: string; lines: unknown };
    expect(r).toEqual({ path: "reports/insight.html", file: ws.path("reports/insight.html"), lines: stats.lines });
    expect(readFileSync(r.file, "utf8")).toMatch(/^<!doctype html>/);
    await client!.waitFor(() => client!.logs.slice(before).find((m) => m.startsWith("intent-lsp: wrote the report")), "the command's answer");
    expect(client!.logs.slice(before)).toContain(
      `intent-lsp: wrote the report to ${ws.path("reports/insight.html")}: AI wrote 5% of 58 lines; 52 untraced (90%).`,
    );
    const byDefault = (await client!.executeCommand("intent.report", { quiet: true })) as { path: string };
    expect(byDefault.path).toBe(".orchestration/.cache/report.html");
    expect(existsSync(ws.path(".orchestration/.cache/report.html"))).toBe(true);
    await expect(client!.executeCommand("intent.report", { out: "/tmp/elsewhere.html" })).rejects.toThrow(/outside the workspace/);
  });
});
