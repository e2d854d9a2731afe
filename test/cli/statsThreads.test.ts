import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adoptionText } from "../../server/src/engine/adoption";
import { fileHash } from "../../server/src/engine/hashing";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { diffTexts } from "../../server/src/engine/lineChange";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { git, gitAt, gitWorkspace } from "../support/gitRepository";
import { REPO_ROOT } from "../support/lspClient";
import { prng } from "../support/protocolFuzz";
import type { TempWorkspace } from "../support/workspace";

/**
 * `intent stats` and `intent report` count files in worker threads (io/runsWorkers.ts). The oracle is the
 * same command in one thread (`INTENT_LSP_THREADS=1`), on a copy of the same workspace with nothing kept:
 * every number, run and history row must be the same, and a run asked to use threads says on standard error
 * when it could not.
 */

beforeAll(ensureBuilt);

const FILES = 72;
const RECORDS = 600;
const MODELS = ["anthropic/claude-sonnet-4-5", "openai/gpt-5", "google/gemini-2.5-pro"];
/** Folders and the intent (examples/workspace's catalogue) that owns each. */
const AREAS = [
  { dir: "src/api/gen", ext: "ts", intent: "INT-001" },
  { dir: "src/auth/gen", ext: "ts", intent: "INT-002" },
  { dir: "docs/gen", ext: "md", intent: "INT-003" },
];

/**
 * A repository with a history a team builds: files two people committed before adoption (the adoption point
 * recorded), then agents and people editing them through the ledger (in scope, out of scope, under no intent),
 * with commits between; a file renamed by git, a traced file copied to a new path, part of one moved into a
 * new file, and edits nobody recorded in the working tree.
 */
function teamRepository(): TempWorkspace {
  const ws = gitWorkspace();
  const rand = prng(20261130);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  let serial = 0;
  const line = (path: string) => `export const v${serial++} = "${path.length}-${Math.floor(rand() * 1e6).toString(36)}";`;
  const files: { path: string; intent: string; lines: string[] }[] = [];
  for (let i = 0; i < FILES; i++) {
    const area = AREAS[i % AREAS.length]!;
    const path = `${area.dir}/f${i}.${area.ext}`;
    const lines = Array.from({ length: 20 + Math.floor(rand() * 30) }, () => line(path));
    files.push({ path, intent: area.intent, lines });
    ws.write(path, `${lines.join("\n")}\n`);
  }
  git(ws.root, "add", "-A");
  gitAt(ws.root, "2024-06-01T10:00:00Z", "commit", "-q", "--author=Ada Lovelace <ada@example.com>", "-m", "the code before intent-lsp");
  ws.write(".orchestration/adoption.json", adoptionText({ commit: git(ws.root, "rev-parse", "HEAD").trim(), date: "2024-06-01T10:00:00Z" }));

  const ledger: string[] = [];
  const start = Date.parse("2025-01-06T09:00:00Z");
  for (let r = 0; r < RECORDS; r++) {
    const f = files[Math.floor(rand() ** 2 * files.length)]!;
    const before = `${f.lines.join("\n")}\n`;
    for (let k = rand() < 0.8 ? 1 : 2; k > 0; k--) {
      const at = Math.floor(rand() * f.lines.length);
      const len = 1 + Math.floor(rand() * 4);
      const roll = rand();
      if (roll < 0.6) for (let i = at; i < Math.min(f.lines.length, at + len); i++) f.lines[i] = line(f.path);
      else if (roll < 0.85) f.lines.splice(at, 0, ...Array.from({ length: len }, () => line(f.path)));
      else if (f.lines.length > len + 5) f.lines.splice(at, len);
    }
    const after = `${f.lines.join("\n")}\n`;
    if (after === before) continue;
    const human = rand() < 0.25;
    const roll = rand();
    const intent = roll < 0.8 ? f.intent : roll < 0.95 ? pick(AREAS.filter((a) => a.intent !== f.intent)).intent : null;
    const record = buildRecord({
      path: f.path,
      content: after,
      change: diffTexts(before, after),
      contributor: human ? { type: "human" } : { type: "ai", modelId: pick(MODELS) },
      ...(human ? { person: { name: pick(["Ada Lovelace", "Grace Hopper"]) } } : {}),
      sessionId: `s-${Math.floor(r / 25)}`,
      toolVersion: "0.1.0",
      mutationClass: "INTENT_EVOLUTION",
      preHash: fileHash(before),
      scope: intent === f.intent ? "PASS" : intent ? "OUT_OF_SCOPE" : "NO_INTENT",
      intentId: intent,
      now: new Date(start + r * 3_600_000),
      id: `00000000-0000-4000-8000-${String(r).padStart(12, "0")}`,
    });
    ledger.push(JSON.stringify(record));
    ws.write(f.path, after);
    if (r % 75 === 74) gitAt(ws.root, new Date(start + r * 3_600_000).toISOString(), "commit", "-q", "-a", "-m", `work up to record ${r}`);
  }
  ws.write(".orchestration/agent_trace.jsonl", `${ledger.join("\n")}\n`);
  // a rename git tells, a traced file's content under a new path, half a file moved out, edits nobody recorded
  git(ws.root, "add", "-A");
  gitAt(ws.root, "2025-03-01T10:00:00Z", "commit", "-q", "-m", "the last recorded work");
  git(ws.root, "mv", files[0]!.path, "src/api/gen/renamed.ts");
  gitAt(ws.root, "2025-03-02T10:00:00Z", "commit", "-q", "-m", "rename");
  ws.write("src/api/gen/copy.ts", ws.read(files[3]!.path));
  const split = files[6]!;
  const half = Math.floor(split.lines.length / 2);
  ws.write("src/api/gen/split.ts", `${split.lines.slice(half).join("\n")}\n`);
  ws.write(split.path, `${split.lines.slice(0, half).join("\n")}\n`);
  for (const f of files.slice(9, 15)) ws.write(f.path, `// edited outside the hooks\n${ws.read(f.path)}`);
  return ws;
}

let ws: TempWorkspace;
const copies: string[] = [];
/** A fresh copy of the workspace (nothing kept from an earlier run), run with `threads` threads. */
function run(args: string[], threads: string) {
  const dir = mkdtempSync(join(tmpdir(), "intent-threads-"));
  copies.push(dir);
  cpSync(ws.root, dir, { recursive: true });
  return runCli(args, { cwd: dir, env: { INTENT_LSP_THREADS: threads, CI: "1" } });
}

/**
 * `runs()` made within one UTC day: stats and the report place their newest period by today's date, so two
 * runs that straddle midnight (or a Monday's) are compared again, both made anew.
 */
function sameDay<T>(runs: () => T): T {
  for (;;) {
    const day = new Date().toISOString().slice(0, 10);
    const made = runs();
    if (new Date().toISOString().slice(0, 10) === day) return made;
  }
}

beforeAll(() => {
  ws = teamRepository();
}, 120_000);
afterAll(() => {
  for (const d of copies) rmSync(d, { recursive: true, force: true });
  ws?.dispose();
});

describe("intent stats in worker threads", () => {
  it("gives exactly the one-thread numbers, and they cover every kind of line", () => {
    const [one, ...many] = sameDay(() => ["1", "2", "3"].map((threads) => run(["stats", "--json"], threads)));
    expect(one!.stderr).toBe("");
    expect(one!.status).toBe(0);
    const stats = JSON.parse(one!.stdout) as { lines: Record<string, number>; byFile: { path: string; lines: Record<string, number> }[] };
    // the comparison means something only if the workspace has every kind of line, and lines that only the
    // paths a content came from explain (a git rename, a copy no record names)
    for (const kind of ["ai", "human", "untraced", "beforeAdoption", "outOfScope"]) expect(stats.lines[kind], kind).toBeGreaterThan(0);
    for (const path of ["src/api/gen/renamed.ts", "src/api/gen/copy.ts"]) {
      const file = stats.byFile.find((f) => f.path === path)!.lines;
      expect(file["ai"]! + file["human"]!, path).toBeGreaterThan(0);
    }
    for (const m of many) {
      expect({ status: m.status, stderr: m.stderr }).toEqual({ status: 0, stderr: "" });
      expect(m.stdout).toBe(one!.stdout);
    }
  }, 120_000);

  it("gives the one-thread history, its untraced lines dated by git", () => {
    const [one, many] = sameDay(() => [run(["stats", "--json", "--by", "week"], "1"), run(["stats", "--json", "--by", "week"], "3")] as const);
    expect(one.status).toBe(0);
    expect({ status: many.status, stderr: many.stderr }).toEqual({ status: 0, stderr: "" });
    expect(JSON.parse(one.stdout).history.periods.length).toBeGreaterThan(3);
    expect(many.stdout).toBe(one.stdout);
  }, 120_000);

  it("writes the one-thread report: every number and the lines behind it", () => {
    const page = (threads: string) => {
      const r = run(["report", "--out", "-"], threads);
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
      // the page says when it was made (in its data and in words, to the minute), and names the workspace's
      // folder (each run's copy has its own)
      return r.stdout
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
        .replace(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/g, "<time> UTC")
        .replace(/intent-threads-\w+/g, "<folder>");
    };
    const [one, many] = sameDay(() => [page("1"), page("3")] as const);
    expect(one).toContain('"beforeAdoption":');
    // compared whole, but shown only where they part: the page is megabytes of script
    const at = [...one].findIndex((ch, i) => ch !== many[i]);
    expect(many.length === one.length && at === -1 ? "same" : many.slice(Math.max(0, at - 200), at + 200)).toBe("same");
  }, 120_000);

  it("counts in one thread, saying why, where the ledger's index cannot be saved for the workers", () => {
    // a file where the cache folder goes: nothing can be kept, so a worker would read the whole ledger again
    const dir = mkdtempSync(join(tmpdir(), "intent-threads-"));
    copies.push(dir);
    cpSync(ws.root, dir, { recursive: true });
    rmSync(join(dir, ".orchestration/.cache"), { recursive: true, force: true });
    writeFileSync(join(dir, ".orchestration/.cache"), "");
    const [one, many] = sameDay(
      () => [run(["stats", "--json"], "1"), runCli(["stats", "--json"], { cwd: dir, env: { INTENT_LSP_THREADS: "3", CI: "1" } })] as const,
    );
    expect(many.status).toBe(0);
    expect(many.stderr).toBe(
      "intent stats: warning: INTENT_LSP_THREADS=3: the ledger's index could not be saved for the workers to open (is .orchestration/.cache a folder intent-lsp can write?); counted in one thread\n",
    );
    expect(many.stdout).toBe(one.stdout);
  }, 120_000);

  it("exports the one-thread lines to Parquet: a second export of another copy, in three threads, finds them unchanged", () => {
    const out = mkdtempSync(join(tmpdir(), "intent-threads-export-"));
    copies.push(out);
    const exportWith = (threads: string) => run(["export", "--format", "parquet", "--out", out, "--repo", "acme/team"], threads);
    const first = exportWith("1");
    expect({ status: first.status, stderr: first.stderr }).toEqual({ status: 0, stderr: "" });
    expect(first.stdout).toMatch(/lines \d+ rows/);
    // another copy: its ledger and working tree are other files, so the lines are counted again; they are the
    // same rows (the export compares a digest of them) only if the threads count exactly as one thread does
    const again = exportWith("3");
    expect({ status: again.status, stderr: again.stderr }).toEqual({ status: 0, stderr: "" });
    expect(again.stdout).toContain("lines unchanged");
  }, 120_000);

  it("refuses an INTENT_LSP_THREADS that is not a number of threads, saying what it takes", () => {
    const r = run(["stats"], "many");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('INTENT_LSP_THREADS="many": use a whole number from 1 to 64');
    expect(r.stdout).toBe("");
  });
});

describe("the runs worker", () => {
  // the script the command line offers its worker threads (cli/bin.ts)
  const bundle = join(REPO_ROOT, "dist/intent-workers.js");

  it("counts nothing when its ledger is not the one the command read, and says so", async () => {
    const worker = new Worker(bundle, {
      argv: ["__count-runs"],
      workerData: { root: ws.root, ledgerPath: ".orchestration/agent_trace.jsonl", position: "[]", adoption: false },
      stdout: true,
      stderr: true,
    });
    try {
      const first = await new Promise<{ kind: string }>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
      expect(first.kind).toBe("other-ledger");
    } finally {
      await worker.terminate();
    }
  }, 60_000);

  it("is refused when started from a shell", () => {
    const r = spawnSync(process.execPath, [bundle, "__count-runs"], { cwd: ws.root, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("is started by intent itself, in a worker thread, not from a shell");
  });
});
