import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadIntents } from "../../server/src/engine/intents/load";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { CLI_JS } from "../support/cliRunner";
import { claudePayload } from "../support/hookPayloads";
import { LEDGER } from "../support/ledgerFile";

/**
 * Faults between writers: several processes changing active_intents.yaml at once, eight agent hooks
 * appending to the ledger at once, and hooks killed in the middle of their append. Nothing that reports
 * success is lost, nothing is torn but what a killed writer left, and `intent verify` agrees.
 */

let faults = 0;
afterAll(() => console.log(`concurrency faults injected: ${faults}`));
beforeAll(ensureBuilt);

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI without blocking the test's event loop, so many run at once. `killAfterMs`: SIGKILL it then. */
function cliAsync(cwd: string, args: string[], input = "", killAfterMs?: number): Promise<Run> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [CLI_JS, ...args], { cwd, env: { ...process.env, INTENT_LSP_MODEL: "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const hang = setTimeout(() => child.kill("SIGKILL"), 120_000);
    const kill = killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.on("close", (status, signal) => {
      clearTimeout(hang);
      clearTimeout(kill);
      resolveRun({ status, signal, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

function ledgerLines(ws: TempWorkspace): string[] {
  return readFileSync(ws.path(LEDGER), "utf8")
    .split("\n")
    .filter((l) => l.trim());
}

describe("two writers amending active_intents.yaml at once", () => {
  it("the first writer wins; every refusal says why and changes nothing; the file and the ledger say what succeeded", async () => {
    const ws = new TempWorkspace();
    const client = await LspClient.start({ root: ws.root });
    const INTENTS = ".orchestration/active_intents.yaml";
    // a refusal names the command and the one reason a race gives: the file moved on, or stayed locked
    const refusal = (cmd: string) =>
      new RegExp(
        `^intent ${cmd}: \\.orchestration/active_intents\\.yaml (changed on disk since it was read \\(another editor, agent or command wrote it\\); nothing was written\\. Reload and try again\\.|is locked by another writer \\(.*\\); try again in a moment\\.)\n$`,
      );
    try {
      const original = ws.read(INTENTS);
      const statusBefore = (id: string) => loadIntents(original).catalogue.byId.get(id)!.status;
      const scopeBefore = loadIntents(original).catalogue.byId.get("INT-005")!.ownedScope;
      for (let round = 0; round < 4; round++) {
        const moves: [string, string, string][] = [
          ["block", "INT-001", "BLOCKED"],
          ["start", "INT-002", "IN_PROGRESS"],
          ["complete", "INT-003", "COMPLETE"],
          ["start", "INT-004", "IN_PROGRESS"],
        ];
        const globs = [`docs/round-${round}-a/**`, `docs/round-${round}-b/**`, `docs/round-${round}-c/**`];
        const recordsBefore = ledgerLines(ws).length;
        // the terminal's lifecycle moves and the editor's scope amendments, all at once
        const cli = moves.map(([cmd, id]) => cliAsync(ws.root, [cmd, id]));
        const lsp = globs.map((glob) =>
          client.executeCommand("intent.amendScope", { id: "INT-005", glob }).then(
            () => ({ ok: true as const, message: "" }),
            (e: Error) => ({ ok: false as const, message: e.message }),
          ),
        );
        const [cliRuns, lspRuns] = await Promise.all([Promise.all(cli), Promise.all(lsp)]);
        faults += moves.length + globs.length;
        const text = ws.read(INTENTS);
        const loaded = loadIntents(text);
        expect(loaded.hasErrors, JSON.stringify(loaded.problems)).toBe(false);
        // whoever takes the lock first finds the file as it read it: at least one writer wins every round
        const won = cliRuns.filter((r) => r.status === 0).length + lspRuns.filter((r) => r.ok).length;
        expect(won, `round ${round}: ${JSON.stringify({ cliRuns, lspRuns })}`).toBeGreaterThanOrEqual(1);
        cliRuns.forEach((r, i) => {
          const [cmd, id, status] = moves[i]!;
          const now = loaded.catalogue.byId.get(id)!.status;
          if (r.status === 0) {
            expect(now, `intent ${cmd} ${id} reported success`).toBe(status);
            expect(r.stderr).toBe("");
          } else {
            expect({ status: r.status, now }, `intent ${cmd} ${id} was refused`).toEqual({ status: 1, now: statusBefore(id) });
            expect(r.stderr).toMatch(refusal(cmd));
          }
        });
        const scope = loaded.catalogue.byId.get("INT-005")!.ownedScope;
        lspRuns.forEach((r, i) => {
          if (r.ok) expect(scope, `amendScope ${globs[i]} reported success`).toContain(globs[i]);
          else {
            expect(scope, `amendScope ${globs[i]} was refused`).not.toContain(globs[i]);
            expect(r.message).toMatch(/changed on disk|locked by another writer|already in/);
          }
        });
        expect(scope.filter((g) => !scopeBefore.includes(g))).toEqual(globs.filter((_, i) => lspRuns[i]!.ok));
        // the ledger holds one lifecycle record per move that reported success, and nothing for a refusal
        const lifecycle = ledgerLines(ws)
          .slice(recordsBefore)
          .map((l) => JSON.parse(l).metadata["dev.intent-lsp"])
          .filter((m) => m.lifecycle)
          .map((m) => [m.intent_id, m.lifecycle.to])
          .sort();
        const succeeded = moves.filter((_, i) => cliRuns[i]!.status === 0).map(([, id, status]) => [id, status]);
        expect(lifecycle).toEqual(succeeded.sort());
        // the next round starts from the original file again, once the server has read it
        ws.write(INTENTS, original);
        await client.notifyWatched(INTENTS);
        await expect
          .poll(
            async () => ((await client.executeCommand("intent.listIntents", {})) as { id: string; status: string }[]).find((i) => i.id === "INT-001")!.status,
            { timeout: 10_000 },
          )
          .toBe("IN_PROGRESS");
      }
      const verify = await cliAsync(ws.root, ["verify"]);
      expect(verify.status, verify.stdout + verify.stderr).toBe(0);
    } finally {
      await client.stop();
      ws.dispose();
    }
  }, 240_000);
});

describe("agent hooks appending to the ledger", () => {
  let ws: TempWorkspace;
  afterAll(() => ws?.dispose());

  const post = (file: string) =>
    JSON.stringify(
      claudePayload(ws, "PostToolUse", {
        tool_name: "Write",
        tool_input: { file_path: ws.path(file), content: readFileSync(ws.path(file), "utf8") },
        tool_response: { type: "create" },
        tool_use_id: `toolu_${file}`,
      }),
    );

  it("8 concurrent writers: no record torn, lost or duplicated, and intent verify passes", async () => {
    ws = new TempWorkspace();
    const before = ledgerLines(ws).length;
    const WRITERS = 8;
    const EACH = 10;
    const worker = async (w: number) => {
      for (let k = 0; k < EACH; k++) {
        const file = `src/api/w${w}-${k}.ts`;
        ws.write(file, `export const w${w}k${k} = ${w * 100 + k};\n`);
        const r = await cliAsync(ws.root, ["hook", "claude-code"], post(file));
        expect(r.status, r.stderr).toBe(0);
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => worker(w)));
    faults += WRITERS * EACH;
    const lines = ledgerLines(ws);
    expect(lines.length).toBe(before + WRITERS * EACH);
    const paths = lines.slice(before).map((l) => JSON.parse(l).files[0].path as string); // every line whole JSON
    expect(new Set(paths).size).toBe(WRITERS * EACH);
    const verify = await cliAsync(ws.root, ["verify"]);
    expect(verify.stdout).toMatch(new RegExp(`^${before + WRITERS * EACH} records; no problems\\.$`, "m"));
    expect(verify.status).toBe(0);
  }, 240_000);

  it("writers killed mid-append leave at most torn lines; later writers go on; nothing is duplicated", async () => {
    ws?.dispose();
    ws = new TempWorkspace();
    const before = ledgerLines(ws).length;
    const KILLED = 12;
    const killed = Array.from({ length: KILLED }, (_, i) => {
      const file = `src/api/k${i}.ts`;
      ws.write(file, `export const k${i} = ${i};\n`);
      return cliAsync(ws.root, ["hook", "claude-code"], post(file), 40 + ((i * 37) % 260)); // killed at staggered moments
    });
    const runs = await Promise.all(killed);
    faults += runs.filter((r) => r.signal === "SIGKILL").length;
    for (let i = 0; i < 4; i++) {
      const file = `src/api/after${i}.ts`;
      ws.write(file, `export const after${i} = ${i};\n`);
      const r = await cliAsync(ws.root, ["hook", "claude-code"], post(file)); // may wait out a lock a killed writer held
      expect(r.status, r.stderr).toBe(0);
    }
    const lines = ledgerLines(ws);
    const records = lines.flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
    const torn = lines.length - records.length;
    const paths = records.slice(before).map((r) => r.files[0].path as string);
    expect(new Set(paths).size).toBe(paths.length); // none twice
    for (let i = 0; i < 4; i++) expect(paths).toContain(`src/api/after${i}.ts`);
    const verify = await cliAsync(ws.root, ["verify", "--json"]);
    const report = JSON.parse(verify.stdout) as { problems: { kind: string }[] };
    expect(report.problems.filter((p) => p.kind !== "torn")).toEqual([]);
    expect(report.problems.length).toBe(torn);
  }, 240_000);
});
