import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { CLI_JS, runCli } from "../support/cliRunner";
import { TempWorkspace } from "../support/workspace";

/**
 * Long work shows its progress on a terminal (io/progress.ts): a line on standard error, redrawn in place and
 * cleared at the end; piped, or under CI, standard error holds nothing of it. The terminal is a real
 * pseudo-terminal (`script`), the work a cold `intent stats`, `intent export` and `intent ledger compact` over
 * a ledger of 250,000 records, which takes seconds: a line shows only once work has gone on for half a second,
 * and a cold `intent stats` over 100,000 such records takes 0.5-0.9 s on a fast machine with its code cache.
 */

beforeAll(ensureBuilt);

const RECORDS = 250_000;
/** Each test runs commands that take seconds on purpose; on a machine busy with other tests, many more. */
const SLOW = 180_000;
const LEDGER = ".orchestration/agent_trace.jsonl";
const OUTSIDE = mkdtempSync(join(tmpdir(), "intent-progress-"));
const STDOUT = join(OUTSIDE, "stdout.txt");

function bigLedger(): string {
  const lines: string[] = [];
  for (let i = 0; i < RECORDS; i++)
    lines.push(
      JSON.stringify({
        version: "0.1.0",
        id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
        timestamp: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
        tool: { name: "other-tool", version: "1.0.0" },
        files: [{ path: `src/f${i % 500}.ts`, conversations: [{ contributor: { type: "ai", model_id: "acme/m" }, ranges: [{ start_line: 1, end_line: 3 }] }] }],
      }),
    );
  return `${lines.join("\n")}\n`;
}

/** The environment of a person's terminal: no CI, unless a test sets it. */
function terminalEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  if (!("CI" in extra)) delete env["CI"];
  delete env["INTENT_LSP_MODEL"];
  return env;
}

/**
 * What a command shows on a terminal as standard error (standard output goes to the file STDOUT, outside
 * the workspace): the bytes the pseudo-terminal received. The command's exit code must be 0.
 */
function onTerminal(args: string, cwd: string, env = terminalEnv()): string {
  const r = spawnSync("script", ["-qefc", `"${process.execPath}" "${CLI_JS}" ${args} > "${STDOUT}"`, "/dev/null"], { cwd, env, encoding: "utf8" });
  expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  return r.stdout;
}

/** The texts of the progress line, in the order they were drawn; the line must end cleared. */
function progressLines(terminal: string): string[] {
  expect(terminal.startsWith("\r\x1b[K"), JSON.stringify(terminal.slice(0, 80))).toBe(true);
  expect(terminal.endsWith("\r\x1b[K"), JSON.stringify(terminal.slice(-80))).toBe(true);
  return terminal.split("\r\x1b[K").filter((t) => t !== "");
}

describe("progress of long work", () => {
  let ws: TempWorkspace;
  beforeAll(() => {
    ws = new TempWorkspace({ withLedger: false });
    ws.write(LEDGER, bigLedger());
    expect(spawnSync("git", ["init", "-q"], { cwd: ws.root }).status).toBe(0);
  });
  afterAll(() => {
    ws?.dispose();
    rmSync(OUTSIDE, { recursive: true, force: true });
  });

  const cold = () => rmSync(ws.path(".orchestration/.cache"), { recursive: true, force: true });

  it(
    "a cold intent stats shows a line on a terminal, redrawn in place and cleared; its output is untouched",
    () => {
      cold();
      const shown = progressLines(onTerminal("stats --json", ws.root));
      expect(shown.some((t) => /^reading the ledger: \d+%$/.test(t))).toBe(true);
      for (const t of shown) expect(t).toMatch(/^(looking at the files.*|reading the ledger: \d+%|counting lines: file \d+ of \d+|dating .*)$/);
      cold();
      expect(JSON.parse(readFileSync(STDOUT, "utf8"))).toEqual(JSON.parse(runCli(["stats", "--json"], { cwd: ws.root, env: { CI: "" } }).stdout));
    },
    SLOW,
  );

  it(
    "intent export and intent ledger compact show theirs",
    () => {
      const exported = progressLines(onTerminal(`export --out "${join(OUTSIDE, "all.jsonl")}"`, ws.root));
      expect(exported.at(-1)).toMatch(/^exporting the ledger: \d+ records$/);
      expect(readFileSync(STDOUT, "utf8")).toBe(`Wrote ${RECORDS} records to ${relative(ws.root, join(OUTSIDE, "all.jsonl"))}.\n`);
      const compacted = progressLines(onTerminal("ledger compact --store folder --before 2026-02-01", ws.root));
      expect(compacted.length).toBeGreaterThan(0);
      for (const t of compacted)
        expect(t).toMatch(/^(compacting the ledger|waiting for the ledger's lock|reading the .*|sealing month \d+ of \d+|writing the live ledger)$/);
    },
    SLOW,
  );

  it(
    "shows nothing when standard error is not a terminal, or under CI: the same run that shows it on a terminal",
    () => {
      cold();
      expect(progressLines(onTerminal("stats", ws.root)).length).toBeGreaterThan(0);
      cold();
      const piped = runCli(["stats"], { cwd: ws.root, env: { CI: "" } });
      expect(piped.status).toBe(0);
      expect(piped.stderr).toBe("");
      cold();
      expect(onTerminal("stats", ws.root, terminalEnv({ CI: "true" }))).toBe("");
    },
    SLOW,
  );
});
