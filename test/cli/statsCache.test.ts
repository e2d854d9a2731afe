import { existsSync, readFileSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { RACY_MS } from "../../server/src/io/insightCache";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LspClient } from "../support/lspClient";
import type { TempWorkspace } from "../support/workspace";
import { AI_LINES, counts, insightWorkspace } from "./insightWorkspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli, runCliInProcess } from "../support/cliRunner";

/**
 * `intent stats` keeps what it learnt of each file for the next run (.orchestration/.cache/insight.json, and
 * the runs and history in insight-runs.bin): its numbers stay those of `intent blame`, whatever changed since
 * (a file's bytes, the ledger, the exempt rules, a cache file lost), and a file's lines follow its content
 * across a rename as blame's do.
 */

beforeAll(ensureBuilt);

type Counts = ReturnType<typeof counts>;

function stats(ws: TempWorkspace, ...args: string[]) {
  const r = runCli(["stats", "--json", ...args], { cwd: ws.root });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as { lines: Counts; byFile: { path: string; lines: Counts }[]; history?: unknown };
}

/**
 * `intent blame`'s numbers for a file, the reference stats is held to: in this process (runCliInProcess), one
 * call per file. `intent stats` itself runs as a process, so that what one run keeps for the next is read
 * from the disk by a process that learnt nothing in memory.
 */
async function blameSum(ws: TempWorkspace, path: string): Promise<Counts> {
  const rows = JSON.parse((await runCliInProcess(["blame", path, "--json"], { cwd: ws.root })).stdout).lines as {
    author: keyof Counts;
    outOfScope?: boolean;
  }[];
  const sum = counts({ total: rows.length });
  for (const row of rows) {
    sum[row.author]++;
    if (row.outOfScope) sum.outOfScope++;
  }
  return sum;
}

const TALLIES = ".orchestration/.cache/insight.json";
const RUNS = ".orchestration/.cache/insight-runs.bin";
const RESULT = ".orchestration/.cache/insight-result.json";

/** The numbers as a run with nothing kept gives them. */
function fresh(ws: TempWorkspace, ...args: string[]) {
  rmSync(ws.path(TALLIES), { force: true });
  rmSync(ws.path(RUNS), { force: true });
  rmSync(ws.path(RESULT), { force: true });
  return stats(ws, ...args);
}

/** Waits until a file was last changed longer ago than its times take to prove it unchanged (RACY_MS). */
async function untilSettled(ws: TempWorkspace, path: string): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    const st = statSync(ws.path(path));
    if (Math.max(st.mtimeMs, st.ctimeMs) < Date.now() - RACY_MS - 100) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${path} kept changing`);
}

/** What a cache file holds: the bytes after its checked envelope's line (io/checkedCache.ts). */
const payloadOf = (bytes: Buffer) => bytes.subarray(bytes.indexOf(0x0a) + 1);

/** Whether the tallies' file keeps `path` with the times that prove it unchanged (io/insightCache.ts: dev -1 is none). */
const provenByTimes = (ws: TempWorkspace, path: string) =>
  (JSON.parse(payloadOf(readFileSync(ws.path(TALLIES))).toString("utf8")).files as (string | number)[][]).find((f) => f[0] === path)![2] !== -1;

const fileLines = (s: { byFile: { path: string; lines: Counts }[] }, path: string) => s.byFile.find((f) => f.path === path)?.lines;

describe("intent stats from one run to the next", () => {
  let ws: TempWorkspace;

  beforeAll(async () => {
    ws = await insightWorkspace();
  }, 60_000);

  afterAll(() => ws?.dispose());

  it("counts a renamed file's lines as `intent blame` does: they follow the content", async () => {
    renameSync(ws.path("src/api/forecast.ts"), ws.path("src/api/forecast-renamed.ts"));
    const s = stats(ws);
    expect(fileLines(s, "src/api/forecast.ts")).toBeUndefined();
    expect(fileLines(s, "src/api/forecast-renamed.ts")).toEqual(counts({ total: 12, human: 2, untraced: 10 }));
    for (const f of s.byFile) expect(f.lines, f.path).toEqual(await blameSum(ws, f.path));
    renameSync(ws.path("src/api/forecast-renamed.ts"), ws.path("src/api/forecast.ts"));
  });

  it("gives the same numbers from what the last run learnt, and sees an edit that keeps the size and a new record", async () => {
    const first = stats(ws, "--by", "day");
    expect(existsSync(ws.path(".orchestration/.cache/insight.json"))).toBe(true);
    expect(stats(ws, "--by", "day")).toEqual(first);
    for (const f of first.byFile) expect(f.lines, f.path).toEqual(await blameSum(ws, f.path));

    // one of the AI's lines rewritten by hand, to a line of the same length: the file's size is unchanged
    const edited = AI_LINES[2]!.replace("fetchedAt", "fetchedOn");
    expect(edited).toHaveLength(AI_LINES[2]!.length);
    ws.write("src/api/weather.ts", ws.read("src/api/weather.ts").replace(AI_LINES[2]!, edited));
    const afterEdit = stats(ws);
    expect(fileLines(afterEdit, "src/api/weather.ts")).toEqual(counts({ total: 20, ai: 2, untraced: 18 }));
    expect(afterEdit.lines.ai).toBe(first.lines.ai - 1);

    // a person's save through the editor appends a record: the ledger changed, so everything is counted again
    const client = await LspClient.start({ root: ws.root });
    try {
      await client.open("src/api/forecast.ts");
      await client.insertLines("src/api/forecast.ts", 1, ["// hours and days"]);
      await client.save("src/api/forecast.ts");
    } finally {
      await client.stop();
    }
    const afterSave = stats(ws);
    expect(fileLines(afterSave, "src/api/forecast.ts")).toEqual(counts({ total: 13, human: 3, untraced: 10 }));
    expect(afterSave.lines.human).toBe(first.lines.human + 1);
    for (const f of afterSave.byFile) expect(f.lines, f.path).toEqual(await blameSum(ws, f.path));
  });

  it("gives the history from what was kept, even when a plain run kept only the tallies of an edited file", () => {
    const history = fresh(ws, "--by", "day");
    const plain = fresh(ws);
    expect(existsSync(ws.path(RUNS))).toBe(true);
    expect(stats(ws, "--by", "day")).toEqual(history);
    expect(stats(ws)).toEqual(plain);

    // the runs and history lost: a plain run still counts from the tallies, and the history is read again
    rmSync(ws.path(RUNS));
    expect(stats(ws)).toEqual(plain);
    expect(stats(ws, "--by", "day")).toEqual(history);

    // lost again, then a file edited: the plain run counts that file from the ledger and keeps the history whole
    rmSync(ws.path(RUNS));
    ws.write("src/billing/export.ts", `${ws.read("src/billing/export.ts")}// one more line\n`);
    const edited = stats(ws);
    expect(fileLines(edited, "src/billing/export.ts")).toEqual(counts({ total: 4, untraced: 4 }));
    const editedHistory = stats(ws, "--by", "day");
    expect(editedHistory).toEqual(fresh(ws, "--by", "day"));
    // the records' history is unchanged; the line added by hand is untraced and not committed: in the code today
    type Row = { period: string; inCode: { untraced: number } };
    const periods = (s: typeof history) => (s.history as { periods: Row[] }).periods;
    const withoutInCode = (s: typeof history) => periods(s).map(({ inCode: _, ...row }) => row);
    expect(withoutInCode(editedHistory)).toEqual(withoutInCode(history));
    const today = new Date().toISOString().slice(0, 10);
    const untracedToday = (s: typeof history) => periods(s).find((p) => p.period === today)!.inCode.untraced;
    expect(untracedToday(editedHistory)).toBe(untracedToday(history) + 1);
    expect(stats(ws)).toEqual(edited);
  });

  it("a history run again with nothing changed gives the kept result, and keeps the times that prove a file unchanged", async () => {
    const path = "src/billing/export.ts";
    ws.write(path, `${ws.read(path)}// written just now\n`);
    const history = stats(ws, "--by", "day");
    // written too shortly before the run for its times to prove it unchanged
    expect(provenByTimes(ws, path)).toBe(false);
    await untilSettled(ws, path);
    // the kept result (its inputs the same); the file read to prove its bytes, and its times kept beside
    expect(stats(ws, "--by", "day")).toEqual(history);
    expect(provenByTimes(ws, path)).toBe(true);
    expect(stats(ws, "--by", "day")).toEqual(history);
  });

  it("reads a torn or damaged runs file as none: the history is counted again, the same", () => {
    const history = fresh(ws, "--by", "day");
    const kept = readFileSync(ws.path(RUNS));
    expect(kept.length).toBeGreaterThan(64);
    // cut inside the numbers, cut inside the header, a header whose count does not fit the numbers (each run
    // without the kept result, which would give the history without reading the runs)
    truncateSync(ws.path(RUNS), kept.length - 5);
    rmSync(ws.path(RESULT));
    expect(stats(ws, "--by", "day")).toEqual(history);
    expect(readFileSync(ws.path(RUNS))).toEqual(kept);
    truncateSync(ws.path(RUNS), 10);
    rmSync(ws.path(RESULT));
    expect(stats(ws, "--by", "day")).toEqual(history);
    // the same damage inside the checked envelope, its line left as it is
    const at = kept.length - payloadOf(kept).length;
    const header = kept.readUInt32LE(at);
    const text = kept.toString("utf8", at + 4, at + 4 + header);
    // the last digit of the count changed: the same length, another count
    const more = text.replace(/"ints":(\d*)(\d)/, (_, head: string, last: string) => `"ints":${head}${(Number(last) + 1) % 10}`);
    expect(more).not.toBe(text);
    writeFileSync(ws.path(RUNS), Buffer.concat([kept.subarray(0, at + 4), Buffer.from(more), kept.subarray(at + 4 + header)]));
    rmSync(ws.path(RESULT));
    expect(stats(ws, "--by", "day")).toEqual(history);
    // a header of another shape (its files' list under another name), the same length
    const shape = text.replace('"files":[', '"filez":[');
    expect(shape).not.toBe(text);
    writeFileSync(ws.path(RUNS), Buffer.concat([kept.subarray(0, at + 4), Buffer.from(shape), kept.subarray(at + 4 + header)]));
    rmSync(ws.path(RESULT));
    expect(stats(ws, "--by", "day")).toEqual(history);
    expect(readFileSync(ws.path(RUNS))).toEqual(kept);
  });

  it("leaves out a file made exempt since the last run, and counts it again once it is not", () => {
    const before = stats(ws);
    const lines = fileLines(before, "src/billing/export.ts")!;
    expect(lines.total).toBeGreaterThan(0);
    const rules = ws.read(".intentignore");
    ws.write(".intentignore", `${rules}src/billing/\n`);
    const exempt = stats(ws);
    expect(fileLines(exempt, "src/billing/export.ts")).toBeUndefined();
    expect(exempt.lines.total).toBe(before.lines.total - lines.total);
    expect(stats(ws)).toEqual(exempt);
    ws.write(".intentignore", rules);
    expect(stats(ws)).toEqual(before);
  });
});
