/**
 * Each figure the README's "Benchmarks" section lists, measured from outside against the built server (JSON-RPC over stdio, as
 * an editor) and the built CLI (a process, as a hook or CI job), with its baseline run interleaved in the
 * same run so that load on this shared 2-core machine hits both alike: read the ratios.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hover } from "vscode-languageserver-protocol";
import { Minimatch } from "minimatch";
import { LspClient, REPO_ROOT } from "../scripts/lspClient";
import { loadIntents } from "../server/src/engine/intents/load";
import { ScopeIndex } from "../server/src/engine/scope";
import { LINE_TIMES_BASE, LINE_TIMES_CACHE } from "../server/src/io/commitDates";
import { INSIGHT_CACHE, INSIGHT_RESULT_CACHE } from "../server/src/io/insightCache";
import { INSIGHT_RUNS_CACHE } from "../server/src/io/insightRuns";
import { cpuMsOf, memoryOf, nowMs, seeded, summarize, timeProcess } from "./measure";
import { HUGE_DOCS, INDEX_CACHE, INTENTS, intentsYaml, LEDGER, restoreWorkload, type Workload } from "./workload";

const CLI = join(REPO_ROOT, "dist/cli.js");
const NOOP_SERVER = join(REPO_ROOT, "dist/bench/noop-server.js");
const NODE = process.execPath;
/** Long enough for a cold start at 1M records on a slow, shared machine several times over. */
const START_TIMEOUT_MS = 15 * 60_000;

export interface Figure {
  id: string;
  records: number;
  /** What the table prints. */
  now: string;
  baseline: string;
  ratio: string;
  target: string;
  /** Whether the target is met; null when the figure has no target (measured only). */
  met: boolean | null;
  data: Record<string, unknown>;
}

export interface Options {
  quick: boolean;
  log: (s: string) => void;
  /** The server measured (start, hover, keystroke): this build's unless another build's is named, for an A/B. */
  serverJs?: string;
}

const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v < 10 ? v.toFixed(2) : v.toFixed(0)} ms`);
const x = (v: number) => `${v >= 10 ? v.toFixed(0) : v.toFixed(2)}×`;

// --- starting the server ------------------------------------------------------------------------------

interface Started {
  client: LspClient;
  /** Spawn to the end of the server's indexing progress. */
  indexedMs: number;
  /** Spawn to the first diagnostics for a document opened right after `initialized`. */
  firstDiagnosticsMs: number;
  /** CPU time the server had used (every thread) when its indexing ended: against `indexedMs`, how busy it was. */
  indexedCpuMs: number;
}

/**
 * Starts the server on a workspace and opens `openPath` at once; resolves when the server reports the end of
 * its ledger indexing (its `$/progress`), which is when hover and attribution answer from the whole ledger.
 */
async function startServer(root: string, openPath: string, serverJs: string | undefined): Promise<Started> {
  const t0 = nowMs();
  let indexedAt = 0;
  let indexedCpuMs = Number.NaN;
  let pid: number | undefined;
  let ended: () => void = () => {};
  const indexed = new Promise<void>((resolve) => (ended = resolve));
  const client = await LspClient.start({
    root,
    ...(serverJs ? { serverJs } : {}),
    onProgress: (v) => {
      if ((v as { kind?: string }).kind === "end") {
        indexedAt = nowMs();
        if (pid !== undefined) indexedCpuMs = cpuMsOf(pid);
        ended();
      }
    },
  });
  pid = client.process.pid;
  // an end that came before the pid was known (never seen): the CPU time is read as soon as it is
  if (indexedAt !== 0 && pid !== undefined && Number.isNaN(indexedCpuMs)) indexedCpuMs = cpuMsOf(pid);
  const uri = await client.open(openPath);
  await client.waitForDiagnostics(openPath, () => client.diagnostics.has(uri), START_TIMEOUT_MS);
  const firstDiagnosticsMs = nowMs() - t0;
  await withTimeout(indexed, START_TIMEOUT_MS, `the server on ${root} never reported the end of indexing`);
  return { client, indexedMs: indexedAt - t0, firstDiagnosticsMs, indexedCpuMs };
}

async function withTimeout<T>(p: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), timeoutMs)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads the ledger and splits it into lines, in 1 MiB chunks: the floor under any indexer. */
const READ_SPLIT = `
const fs = require("fs"); const fd = fs.openSync(process.argv[1], "r"); const buf = Buffer.allocUnsafe(1 << 20);
let carry = "", lines = 0, n;
while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) { const parts = (carry + buf.toString("utf8", 0, n)).split("\\n"); carry = parts.pop(); lines += parts.length; }
if (lines < 1) process.exit(1);`;

/**
 * READ_SPLIT, then every line parsed as JSON, in one thread: what parsing the records costs any indexer that
 * reads each one (a start is compared with it in `data`, not in its ratio).
 */
const READ_PARSE = `
const fs = require("fs"); const fd = fs.openSync(process.argv[1], "r"); const buf = Buffer.allocUnsafe(1 << 20);
let carry = "", records = 0, n;
while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) {
  const parts = (carry + buf.toString("utf8", 0, n)).split("\\n"); carry = parts.pop();
  for (const p of parts) if (p !== "") { JSON.parse(p); records++; }
}
if (carry !== "") { JSON.parse(carry); records++; }
if (records < 1) process.exit(1);`;

/**
 * Hovers on the open file, one every 20 ms for `forMs` after the end of indexing: how long the editor makes a
 * request wait while it settles what it read (the saved index, the pin index, the open file's owners).
 */
async function hoversAfterIndexing(s: Started, openPath: string, forMs: number): Promise<number[]> {
  const uri = s.client.uri(openPath);
  const waits: number[] = [];
  for (const until = nowMs() + forMs; nowMs() < until; ) {
    const t0 = nowMs();
    await s.client.request<Hover | null>("textDocument/hover", { textDocument: { uri }, position: { line: 0, character: 0 } });
    waits.push(nowMs() - t0);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return waits;
}

/** Cold and warm starts to fully indexed, with the read+split baseline between them; memory after indexing. */
export async function startup(w: Workload, o: Options): Promise<Figure[]> {
  const reps = o.quick || w.records >= 1_000_000 ? 2 : 3;
  const ledger = join(w.root, LEDGER);
  const baselineMs: number[] = [];
  const cold: Started[] = [];
  const warm: Started[] = [];
  const coldMemory: { rssMb: number; peakMb: number }[] = [];
  const warmMemory: { rssMb: number; peakMb: number }[] = [];
  const afterCold: number[] = [];
  const afterWarm: number[] = [];
  // long enough for a million records' saved index and pin index to be made after the end
  const settleMs = w.records >= 1_000_000 ? 4000 : 1500;
  const readSplit = () => {
    const r = timeProcess(NODE, ["-e", READ_SPLIT, ledger]);
    if (r.status !== 0) throw new Error(`read+split baseline failed: ${r.stderr}`);
    baselineMs.push(r.ms);
  };
  // the floor under any restart: a language server that does nothing (bench/noopServer.ts), spawned and
  // answering \`initialize\`, as the client here starts every server
  const noopInitMs: number[] = [];
  const noopInit = async () => {
    const t0 = nowMs();
    const client = await LspClient.start({ root: w.root, serverJs: NOOP_SERVER });
    noopInitMs.push(nowMs() - t0);
    await client.stop();
  };
  // once: the parse is the same each time, and at a million records takes seconds
  const readParse = timeProcess(NODE, ["-e", READ_PARSE, ledger]);
  if (readParse.status !== 0) throw new Error(`read+parse baseline failed: ${readParse.stderr}`);
  o.log(`    read+split+JSON.parse in one thread ${ms(readParse.ms)} (CPU ${ms(readParse.cpuMs)})`);
  for (let i = 0; i < reps; i++) {
    readSplit();
    rmSync(join(w.root, INDEX_CACHE), { recursive: true, force: true });
    const c = await startServer(w.root, w.hotFile, o.serverJs);
    afterCold.push(...(await hoversAfterIndexing(c, w.hotFile, settleMs)));
    coldMemory.push(memoryOf(c.client.process.pid!));
    await c.client.stop();
    cold.push(c);
    o.log(
      `    cold start ${ms(c.indexedMs)} (CPU ${ms(c.indexedCpuMs)}; first diagnostics ${ms(c.firstDiagnosticsMs)}), read+split ${ms(baselineMs[baselineMs.length - 1]!)}`,
    );
    readSplit();
    await noopInit();
    const h = await startServer(w.root, w.hotFile, o.serverJs);
    afterWarm.push(...(await hoversAfterIndexing(h, w.hotFile, settleMs)));
    warmMemory.push(memoryOf(h.client.process.pid!));
    await h.client.stop();
    warm.push(h);
    o.log(
      `    warm start ${ms(h.indexedMs)} (CPU ${ms(h.indexedCpuMs)}; first diagnostics ${ms(h.firstDiagnosticsMs)}); a server doing nothing answers initialize in ${ms(noopInitMs[noopInitMs.length - 1]!)}`,
    );
  }
  const mb = w.ledgerBytes / 1e6;
  const coldS = summarize(cold.map((s) => s.indexedMs));
  const warmS = summarize(warm.map((s) => s.indexedMs));
  const coldCpu = summarize(cold.map((s) => s.indexedCpuMs));
  const warmCpu = summarize(warm.map((s) => s.indexedCpuMs));
  const base = summarize(baselineMs);
  const coldRate = mb / (coldS.p50 / 1000);
  const baseRate = mb / (base.p50 / 1000);
  const firstDiag = summarize([...cold, ...warm].map((s) => s.firstDiagnosticsMs));
  const rss = summarize(coldMemory.map((m) => m.rssMb));
  const peak = summarize(coldMemory.map((m) => m.peakMb));
  const warmRss = summarize(warmMemory.map((m) => m.rssMb));
  return [
    {
      id: "start-indexed",
      records: w.records,
      now: `${ms(coldS.p50)} (CPU ${ms(coldCpu.p50)}), ${coldRate.toFixed(0)} MB/s`,
      baseline: `read + split ${baseRate.toFixed(0)} MB/s`,
      ratio: (coldRate / baseRate).toFixed(2),
      target: "≥ 0.30",
      met: coldRate / baseRate >= 0.3,
      data: {
        ledgerMB: mb,
        cold: coldS,
        coldCpu,
        readParse: { ms: readParse.ms, cpuMs: readParse.cpuMs },
        readSplit: base,
        coldMBps: coldRate,
        readSplitMBps: baseRate,
        firstDiagnostics: firstDiag,
      },
    },
    {
      // the measure: a restart with the saved index against a process that only reads and splits
      // the ledger (the warm/cold ratio is kept in `data`)
      id: "warm-restart",
      records: w.records,
      now: `${ms(warmS.p50)} (CPU ${ms(warmCpu.p50)}; cold ${ms(coldS.p50)})`,
      baseline: `read + split ${ms(base.p50)}`,
      ratio: x(warmS.p50 / base.p50),
      target: "≤ 1.5× read + split",
      met: warmS.p50 / base.p50 <= 1.5,
      data: { warm: warmS, warmCpu, cold: coldS, readSplit: base, warmOverCold: warmS.p50 / coldS.p50, noopServerInitialize: summarize(noopInitMs) },
    },
    {
      // measured only: the first hover waits for the open file's owners, which it needs anyway
      id: "hover-after-indexing",
      records: w.records,
      now: `worst ${ms(Math.max(...afterCold))} cold, ${ms(Math.max(...afterWarm))} warm`,
      baseline: "–",
      ratio: "–",
      target: "answers while the index is saved",
      met: null,
      data: {
        afterCold: summarize(afterCold),
        afterWarm: summarize(afterWarm),
        slowestAfterCold: [...afterCold].sort((a, b) => b - a).slice(0, 5),
        slowestAfterWarm: [...afterWarm].sort((a, b) => b - a).slice(0, 5),
        settleMs,
      },
    },
    {
      id: "first-diagnostics",
      records: w.records,
      now: `${ms(firstDiag.p50)} / ${ms(firstDiag.p99)}`,
      baseline: "–",
      ratio: "–",
      target: "never waits for the ledger",
      met: null,
      data: { firstDiagnostics: firstDiag },
    },
    {
      id: "rss",
      records: w.records,
      now: `${rss.p50.toFixed(0)} MB (peak ${peak.p50.toFixed(0)} MB; warm ${warmRss.p50.toFixed(0)} MB)`,
      baseline: "(see rss-empty)",
      ratio: "–",
      target: "≤ 300 MB",
      met: rss.p50 <= 300,
      data: { rssAfterColdIndexing: rss, peakDuringCold: peak, rssAfterWarmIndexing: warmRss },
    },
  ];
}

/** The server's memory with the same rules and no ledger. */
export async function emptyMemory(w: Workload): Promise<Figure> {
  const client = await LspClient.start({ root: w.emptyRoot });
  try {
    const uri = await client.open(".orchestration/active_intents.yaml", "yaml");
    await client.waitForDiagnostics(".orchestration/active_intents.yaml", () => client.diagnostics.has(uri), 60_000);
    const m = memoryOf(client.process.pid!);
    return { id: "rss-empty", records: 0, now: `${m.rssMb.toFixed(0)} MB`, baseline: "–", ratio: "–", target: "–", met: null, data: m };
  } finally {
    await client.stop();
  }
}

// --- hover ----------------------------------------------------------------------------------------------

/**
 * Hover on the hottest file vs `git blame -L n,n` of the same line, interleaved; and, as interleaved, the
 * same hovers of a server that answers each at once with a constant (bench/noopServer.ts): the round trip
 * over stdio on this machine, which no server's hover can beat.
 */
export async function hover(w: Workload, o: Options): Promise<Figure> {
  const rounds = o.quick ? 8 : 20;
  // a p99 of fewer than a few hundred hovers is their maximum: one garbage collection would be the figure
  const perRound = 50;
  const { client } = await startServer(w.root, w.hotFile, o.serverJs);
  const noop = await LspClient.start({ root: w.root, serverJs: NOOP_SERVER });
  const rand = seeded(w.records);
  const uri = client.uri(w.hotFile);
  const hovers: number[] = [];
  const noopHovers: number[] = [];
  const blames: number[] = [];
  let traced = 0;
  let firstMs: number | undefined;
  try {
    {
      // the first hover of the document answers from owners it may still be computing: reported on its own,
      // so that the percentiles describe hovers of a document the server has ready
      const t0 = nowMs();
      await client.request<Hover | null>("textDocument/hover", { textDocument: { uri }, position: { line: 0, character: 0 } });
      firstMs = nowMs() - t0;
    }
    for (let r = 0; r < rounds; r++) {
      const line = 1 + Math.floor(rand() * w.hotFileLines);
      const b = timeProcess("git", ["blame", "-L", `${line},${line}`, "--", w.hotFile], { cwd: w.root });
      if (b.status !== 0) throw new Error(`git blame failed: ${b.stderr}`);
      blames.push(b.ms);
      for (let i = 0; i < perRound; i++) {
        const position = { line: Math.floor(rand() * w.hotFileLines), character: 0 };
        const t0 = nowMs();
        const h = await client.request<Hover | null>("textDocument/hover", { textDocument: { uri }, position });
        hovers.push(nowMs() - t0);
        if (h && JSON.stringify(h.contents).includes("trace `")) traced++;
      }
      for (let i = 0; i < perRound; i++) {
        const position = { line: Math.floor(rand() * w.hotFileLines), character: 0 };
        const t0 = nowMs();
        await noop.request<Hover | null>("textDocument/hover", { textDocument: { uri }, position });
        noopHovers.push(nowMs() - t0);
      }
    }
  } finally {
    await client.stop();
    await noop.stop();
  }
  const ours = summarize(hovers);
  const floor = summarize(noopHovers);
  const git = summarize(blames);
  o.log(
    `    a server answering every hover with a constant: ${ms(floor.p50)} / ${ms(floor.p99)} (git blame ${x(git.p50 / floor.p50)} / ${x(git.p99 / floor.p99)} slower)`,
  );
  const r50 = git.p50 / ours.p50;
  const r99 = git.p99 / ours.p99;
  return {
    id: "hover",
    records: w.records,
    now: `${ms(ours.p50)} / ${ms(ours.p99)} (first ${ms(firstMs ?? Number.NaN)})`,
    baseline: `git blame -L n,n ${ms(git.p50)} / ${ms(git.p99)}`,
    ratio: `${x(r50)} / ${x(r99)} faster`,
    target: "≥ 50× faster",
    met: r50 >= 50 && r99 >= 50,
    data: {
      hover: ours,
      constantHover: floor,
      firstHoverMs: firstMs,
      slowestHoversMs: [...hovers].sort((a, b) => b - a).slice(0, 5),
      gitBlame: git,
      tracedHovers: traced,
      hovers: hovers.length,
      file: w.hotFile,
      fileRecords: w.hotFileRecords,
    },
  };
}

// --- keystrokes -----------------------------------------------------------------------------------------

/** One character typed at a random line, then the wait for that version's diagnostics; both servers in turn. */
export async function keystroke(w: Workload, doc: keyof typeof HUGE_DOCS, o: Options): Promise<Figure> {
  const keystrokes = o.quick ? 60 : 200;
  const { path, lines } = HUGE_DOCS[doc];
  const ours = (await startServer(w.root, path, o.serverJs)).client;
  const noop = await LspClient.start({ root: w.root, serverJs: NOOP_SERVER });
  const rand = seeded(lines);
  const text = readFileSync(join(w.root, path), "utf8");
  const samples = { ours: [] as number[], noop: [] as number[] };
  try {
    const uri = noop.uri(path);
    await noop.connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "typescript", version: 1, text } });
    // intent-lsp has had the document open since start; the no-op server publishes on changes only
    let version = 1;
    for (let k = 0; k < keystrokes; k++) {
      const line = Math.floor(rand() * lines);
      version++;
      for (const [name, client] of [
        ["ours", ours],
        ["noop", noop],
      ] as const) {
        const change = {
          textDocument: { uri, version },
          contentChanges: [{ range: { start: { line, character: 2 }, end: { line, character: 2 } }, text: "x" }],
        };
        const t0 = nowMs();
        await client.connection.sendNotification("textDocument/didChange", change);
        await client.waitForDiagnostics(path, () => (client.diagnostics.get(uri)?.version ?? 0) >= version, 60_000);
        samples[name].push(nowMs() - t0);
      }
    }
  } finally {
    await ours.stop();
    await noop.stop();
  }
  const a = summarize(samples.ours);
  const b = summarize(samples.noop);
  return {
    id: `keystroke-${doc}`,
    records: w.records,
    now: `p50 ${ms(a.p50)}, p99 ${ms(a.p99)}`,
    baseline: `no-op server p50 ${ms(b.p50)}, p99 ${ms(b.p99)}`,
    ratio: x(a.p99 / b.p99),
    target: "p99 ≤ 1.5×",
    met: a.p99 / b.p99 <= 1.5,
    data: { lines, ours: a, noop: b },
  };
}

// --- CLI ------------------------------------------------------------------------------------------------

function cli(w: Workload, args: string[], input?: string) {
  return timeProcess(NODE, [CLI, ...args], { cwd: w.root, ...(input === undefined ? {} : { input }), keepStdout: input !== undefined });
}

/**
 * `intent check --base BASE` against `git diff -U0 BASE`, interleaved `reps` times: the figure `id`, with
 * `data` beside the timings.
 */
function checkAgainstDiff(w: Workload, o: Options, id: string, base: string, reps: number, data: Record<string, unknown>): Figure {
  const ours: number[] = [];
  const git: number[] = [];
  for (let i = 0; i < reps; i++) {
    const g = timeProcess("git", ["diff", "-U0", base], { cwd: w.root });
    if (g.status !== 0) throw new Error(`git diff failed: ${g.stderr}`);
    git.push(g.ms);
    const c = cli(w, ["check", "--base", base, "--format", "json"]);
    if (c.status !== 0 && c.status !== 1) throw new Error(`intent check failed (${c.status}): ${c.stderr}`);
    ours.push(c.ms);
    o.log(`    intent check ${ms(c.ms)}, git diff -U0 ${ms(g.ms)}`);
  }
  const a = summarize(ours);
  const b = summarize(git);
  return {
    id,
    records: w.records,
    now: ms(a.p50),
    baseline: `git diff -U0 ${ms(b.p50)}`,
    ratio: x(a.p50 / b.p50),
    target: "≤ 3×",
    met: a.p50 / b.p50 <= 3,
    data: { ...data, check: a, gitDiff: b },
  };
}

/** `intent check` over 10k changed files vs `git diff -U0` of the same base. */
export function check(w: Workload, o: Options): Figure {
  const reps = o.quick ? 2 : w.records >= 1_000_000 ? 3 : 5;
  return checkAgainstDiff(w, o, "check", w.baseCommit, reps, { changedFiles: w.changedFiles });
}

/** The catalogue and change set of `checkCatalogue`. */
export const CHECK_CATALOGUE = { intents: 1_000, changedFiles: 2_000 } as const;

/**
 * `intent check` with a catalogue of 1,000 intents (ten globs each) over 2,000 changed files vs `git diff
 * -U0` of the same change: every twentieth source file edited in the working tree (a line added at its top,
 * spread over every module), the catalogue written over the workspace's, both put back after.
 */
export function checkCatalogue(w: Workload, o: Options): Figure {
  const files = execFileSync("git", ["ls-files", "src"], { cwd: w.root, encoding: "utf8", maxBuffer: 1 << 28 })
    .split("\n")
    .filter((f) => f.endsWith(".ts"));
  const step = Math.max(1, Math.floor(files.length / CHECK_CATALOGUE.changedFiles));
  const edited = files.filter((_, i) => i % step === 0).slice(0, CHECK_CATALOGUE.changedFiles);
  try {
    writeFileSync(join(w.root, INTENTS), intentsYaml(CHECK_CATALOGUE.intents));
    for (const f of edited) writeFileSync(join(w.root, f), `// changed by the pull request\n${readFileSync(join(w.root, f), "utf8")}`);
    // the intents file is changed too
    const data = { intents: CHECK_CATALOGUE.intents, changedFiles: edited.length + 1 };
    return checkAgainstDiff(w, o, `check-${CHECK_CATALOGUE.intents}-intents`, "HEAD", o.quick ? 2 : 5, data);
  } finally {
    restoreWorkload(w);
  }
}

/** `intent blame FILE:L` vs `git blame -L L,L FILE`. */
export function blame(w: Workload, o: Options): Figure {
  const reps = o.quick ? 3 : 5;
  const rand = seeded(w.records + 1);
  const ours: number[] = [];
  const git: number[] = [];
  // the floors under any blame from a fresh process, timed between the same runs: Node starting and doing
  // nothing, and `intent --version` (Node, the launcher and the CLI bundle from its code cache)
  const floors = { node: [] as number[], version: [] as number[] };
  for (let i = 0; i < reps; i++) {
    const line = 1 + Math.floor(rand() * w.hotFileLines);
    const g = timeProcess("git", ["blame", "-L", `${line},${line}`, "--", w.hotFile], { cwd: w.root });
    if (g.status !== 0) throw new Error(`git blame failed: ${g.stderr}`);
    git.push(g.ms);
    const c = cli(w, ["blame", `${w.hotFile}:${line}`]);
    if (c.status !== 0) throw new Error(`intent blame failed (${c.status}): ${c.stderr}`);
    ours.push(c.ms);
    floors.node.push(timeProcess(NODE, ["-e", ""], { cwd: w.root }).ms);
    floors.version.push(cli(w, ["--version"]).ms);
  }
  const a = summarize(ours);
  const b = summarize(git);
  const node = summarize(floors.node);
  const version = summarize(floors.version);
  o.log(`    blame ${ms(a.p50)}, git blame ${ms(b.p50)}; floors: node -e '' ${ms(node.p50)}, intent --version ${ms(version.p50)}`);
  return {
    id: "blame",
    records: w.records,
    now: ms(a.p50),
    baseline: `git blame ${ms(b.p50)}`,
    ratio: a.p50 <= b.p50 ? `${x(b.p50 / a.p50)} faster` : `${x(a.p50 / b.p50)} slower`,
    target: "faster than git blame",
    met: a.p50 <= b.p50,
    data: { blame: a, gitBlame: b, floors: { nodeStart: node, intentVersion: version } },
  };
}

/**
 * `intent blame FILE:L` of the hot file's content at a path no record names (renamed, moved or copied there:
 * the lookup of the paths its content came from, engine/lineage.ts, over every record) vs the same file at
 * its own path, interleaved. The generated records do not pin the files' contents (their hashes are
 * invented), so the lookup finds no path and the renamed copy reads as untraced: the figure is the cost of
 * looking, the part a rename adds whatever is found.
 */
export function blameRenamed(w: Workload, o: Options): Figure {
  const reps = o.quick ? 3 : 5;
  const rand = seeded(w.records + 2);
  const renamed = w.hotFile.replace(/([^/]+)$/, "renamed-$1");
  copyFileSync(join(w.root, w.hotFile), join(w.root, renamed));
  const moved: number[] = [];
  const atHome: number[] = [];
  try {
    for (let i = 0; i < reps; i++) {
      const line = 1 + Math.floor(rand() * w.hotFileLines);
      const a = cli(w, ["blame", `${renamed}:${line}`]);
      if (a.status !== 0) throw new Error(`intent blame failed (${a.status}): ${a.stderr}`);
      moved.push(a.ms);
      const b = cli(w, ["blame", `${w.hotFile}:${line}`]);
      if (b.status !== 0) throw new Error(`intent blame failed (${b.status}): ${b.stderr}`);
      atHome.push(b.ms);
    }
  } finally {
    rmSync(join(w.root, renamed), { force: true });
  }
  return renamedVsHome("blame renamed", w, moved, atHome);
}

/** A renamed (or split) file's `intent blame` times against the same file's at home: target ≤ 1.5×. */
function renamedVsHome(id: string, w: Workload, moved: number[], atHome: number[], extra: Record<string, unknown> = {}, home = "never renamed"): Figure {
  const a = summarize(moved);
  const b = summarize(atHome);
  return {
    id,
    records: w.records,
    now: ms(a.p50),
    baseline: `${home} ${ms(b.p50)}`,
    ratio: x(a.p50 / b.p50),
    target: "≤ 1.5×",
    met: a.p50 / b.p50 <= 1.5,
    data: { renamed: a, own: b, ...extra },
  };
}

/**
 * `intent blame FILE:L` of the hot file after a committed `git mv` (git names the old path: io/gitSources.ts
 * asks `git log --follow`, then the old path's records are replayed) vs the same file at its own path before
 * the rename. The rename is committed, measured, and committed back.
 */
export function blameGitRenamed(w: Workload, o: Options): Figure {
  const reps = o.quick ? 3 : 5;
  const rand = seeded(w.records + 3);
  const renamed = w.hotFile.replace(/([^/]+)$/, "git-renamed-$1");
  const lines = Array.from({ length: reps }, () => 1 + Math.floor(rand() * w.hotFileLines));
  const git = (...args: string[]) => {
    const r = timeProcess("git", ["-c", "user.name=bench", "-c", "user.email=bench@intent-lsp.local", "-c", "commit.gpgsign=false", ...args], { cwd: w.root });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
  };
  const atHome: number[] = [];
  const moved: number[] = [];
  let traced = 0;
  for (const line of lines) {
    const b = cli(w, ["blame", `${w.hotFile}:${line}`]);
    if (b.status !== 0) throw new Error(`intent blame failed (${b.status}): ${b.stderr}`);
    atHome.push(b.ms);
  }
  // the rename's commit is taken back (not renamed back in another commit): a cached workload measured again
  // keeps the history it was generated with, so runs compare
  const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: w.root, encoding: "utf8" }).trim();
  git("mv", w.hotFile, renamed);
  git("commit", "-q", "-m", "bench: rename the hot file");
  try {
    for (const line of lines) {
      const a = timeProcess(NODE, [CLI, "blame", "--json", `${renamed}:${line}`], { cwd: w.root, keepStdout: true });
      if (a.status !== 0) throw new Error(`intent blame failed (${a.status}): ${a.stderr}`);
      if ((JSON.parse(a.stdout) as { lines: { kind: string }[] }).lines.some((l) => l.kind === "traced")) traced++;
      moved.push(a.ms);
    }
  } finally {
    execFileSync("git", ["reset", "-q", "--hard", head], { cwd: w.root });
  }
  return renamedVsHome("blame git-renamed", w, moved, atHome, { tracedAnswers: traced, answers: moved.length });
}

/**
 * `intent blame FILE:L` of a module an agent split off a file through its hooks vs the same file's before the
 * split. The generated records pin no real content, so the file is one the agent wrote (a Write of a new file
 * with the hook file's content, committed): its records explain every line, as a recorded file's do. Then the
 * cut of its second half and a Write of the new module holding it, committed: blame follows the paste's
 * `moved_lines` to the file's records (engine/lineage.ts). `movedAnswers` counts the answers that name the
 * file the lines came from. Measured, then the workspace is reset.
 */
export function blameSplit(w: Workload, o: Options): Figure {
  const reps = o.quick ? 3 : 5;
  const rand = seeded(w.records + 4);
  const file = w.hookFile.replace(/([^/]+)$/, "whole-$1");
  const module = w.hookFile.replace(/([^/]+)$/, "split-$1");
  const text = readFileSync(join(w.root, w.hookFile), "utf8");
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const half = Math.floor(lines.length / 2);
  const moved = `${lines.slice(half).join("\n")}\n`;
  const atHome: number[] = [];
  const split: number[] = [];
  let movedAnswers = 0;
  const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: w.root, encoding: "utf8" }).trim();
  const call = (event: string, tool: string, input: object, id: string, response?: object) => {
    const payload = {
      session_id: `${SESSION}-split`,
      transcript_path: join(w.root, ".orchestration/no-transcript.jsonl"),
      cwd: w.root,
      permission_mode: "default",
      hook_event_name: event,
      tool_name: tool,
      tool_input: input,
      tool_use_id: id,
      ...(response ? { tool_response: response } : {}),
    };
    const r = cli(w, ["hook", "claude-code"], JSON.stringify(payload));
    if (r.status !== 0 || r.stdout.includes('"deny"')) throw new Error(`the split's ${event} ${tool} failed (${r.status}): ${r.stdout} ${r.stderr}`);
  };
  const write = (path: string, content: string, id: string) => {
    const input = { file_path: join(w.root, path), content };
    call("PreToolUse", "Write", input, id);
    writeFileSync(join(w.root, path), content);
    call("PostToolUse", "Write", input, id, { type: "create" });
  };
  const commit = (message: string, ...paths: string[]) => {
    execFileSync("git", ["add", "--", ...paths], { cwd: w.root });
    execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@intent-lsp.local", "-c", "commit.gpgsign=false", "commit", "-q", "-m", message], {
      cwd: w.root,
    });
  };
  const picks = Array.from({ length: reps }, () => Math.floor(rand() * (lines.length - half)));
  try {
    write(file, text, "toolu_bench_split_whole");
    commit("bench: a file the agent wrote", file);
    for (const k of picks) {
      const b = cli(w, ["blame", `${file}:${half + k + 1}`]);
      if (b.status !== 0) throw new Error(`intent blame failed (${b.status}): ${b.stderr}`);
      atHome.push(b.ms);
    }
    const cut = { file_path: join(w.root, file), old_string: moved, new_string: "", replace_all: false };
    call("PreToolUse", "Edit", cut, "toolu_bench_split_cut");
    writeFileSync(join(w.root, file), text.replace(moved, ""));
    call("PostToolUse", "Edit", cut, "toolu_bench_split_cut", { filePath: cut.file_path, success: true });
    write(module, moved, "toolu_bench_split_paste");
    commit("bench: split", file, module);
    for (const k of picks) {
      const a = timeProcess(NODE, [CLI, "blame", "--json", `${module}:${k + 1}`], { cwd: w.root, keepStdout: true });
      if (a.status !== 0) throw new Error(`intent blame failed (${a.status}): ${a.stderr}`);
      if ((JSON.parse(a.stdout) as { lines: { from?: string }[] }).lines.some((l) => l.from === file)) movedAnswers++;
      split.push(a.ms);
    }
  } finally {
    execFileSync("git", ["reset", "-q", "--hard", head], { cwd: w.root });
    restoreWorkload(w);
  }
  return renamedVsHome("blame split", w, split, atHome, { movedAnswers, answers: split.length }, "never split");
}

const SESSION = "bench-7f3a2c1e-0b5d-4c7e-9a41-2f6d8e9b1c30";

function claudeEdit(w: Workload, event: "PreToolUse" | "PostToolUse", oldString: string, newString: string, toolUseId: string): string {
  const file = join(w.root, w.hookFile);
  return JSON.stringify({
    session_id: SESSION,
    transcript_path: join(w.root, ".orchestration/no-transcript.jsonl"),
    cwd: w.root,
    permission_mode: "default",
    hook_event_name: event,
    tool_name: "Edit",
    tool_input: { file_path: file, old_string: oldString, new_string: newString, replace_all: false },
    tool_use_id: toolUseId,
    ...(event === "PostToolUse" ? { tool_response: { filePath: file, success: true } } : {}),
  });
}

/** Applies the edit to the hook's file as the agent would, between its pre and post hooks. */
function agentEdit(w: Workload, n: number): { oldString: string; newString: string } {
  const file = join(w.root, w.hookFile);
  const text = readFileSync(file, "utf8");
  const oldString = text.slice(0, text.indexOf("\n"));
  const newString = `export const hookEdit${n} = ${n}; // written by the benchmark's agent`;
  writeFileSync(file, newString + text.slice(oldString.length));
  return { oldString, newString };
}

/** PreToolUse and PostToolUse (an Edit that lands and is recorded) vs `node -e ''`. */
export function hooks(w: Workload, o: Options): Figure[] {
  const reps = o.quick ? 5 : 10;
  const node: number[] = [];
  const pre: number[] = [];
  const post: number[] = [];
  const outcomes = new Set<string>();
  try {
    // One untimed call of each first: after a build, the first hook compiles the CLI into its code cache and
    // parses the intents into the workspace's catalogue cache, which every later call on this machine reuses;
    // the figure is the steady state an agent's calls see.
    for (const event of ["PreToolUse", "PostToolUse"] as const) {
      const warm = cli(w, ["hook", "claude-code"], claudeEdit(w, event, "no such text", "nor this", "toolu_bench_warmup"));
      if (warm.status !== 0) throw new Error(`the warm-up ${event} failed: ${warm.stderr}`);
    }
    for (let i = 0; i < reps; i++) {
      node.push(timeProcess(NODE, ["-e", ""]).ms);
      const id = `toolu_bench_${w.records}_${i}`;
      const text = readFileSync(join(w.root, w.hookFile), "utf8");
      const first = text.slice(0, text.indexOf("\n"));
      const planned = `export const hookEdit${i} = ${i}; // written by the benchmark's agent`;
      const p = cli(w, ["hook", "claude-code"], claudeEdit(w, "PreToolUse", first, planned, id));
      if (!p.stdout.includes('"allow"')) throw new Error(`PreToolUse did not allow the benchmark's edit: ${p.stdout} ${p.stderr}`);
      pre.push(p.ms);
      const { oldString, newString } = agentEdit(w, i);
      const q = cli(w, ["hook", "claude-code"], claudeEdit(w, "PostToolUse", oldString, newString, id));
      if (q.status !== 0) throw new Error(`PostToolUse failed: ${q.stderr}`);
      outcomes.add(q.stdout.trim() || "(no output)");
      post.push(q.ms);
    }
  } finally {
    restoreWorkload(w);
  }
  const n = summarize(node);
  const a = summarize(pre);
  const b = summarize(post);
  return [
    {
      id: "hook-pre",
      records: w.records,
      now: ms(a.p50),
      baseline: `node -e '' ${ms(n.p50)}`,
      ratio: x(a.p50 / n.p50),
      target: "≤ 1.5×",
      met: a.p50 / n.p50 <= 1.5,
      data: { pre: a, node: n },
    },
    {
      id: "hook-post",
      records: w.records,
      now: ms(b.p50),
      baseline: `node -e '' ${ms(n.p50)}`,
      ratio: x(b.p50 / n.p50),
      target: "≤ 1.5×",
      met: b.p50 / n.p50 <= 1.5,
      data: { post: b, node: n, outcomes: [...outcomes] },
    },
  ];
}

const APPEND_LINE = `require("fs").appendFileSync(process.argv[1], "x".repeat(940) + "\\n")`;

/** Records appended per second by PostToolUse hooks one after another, vs node processes appending a line. */
export function appends(w: Workload, o: Options): Figure {
  const blocks = o.quick ? 2 : 4;
  const perBlock = 5;
  const scratch = join(w.root, ".orchestration/.bench-append.txt");
  let ourMs = 0;
  let baseMs = 0;
  let recorded = 0;
  try {
    // One untimed call first, as in `hooks`: the workload's ledger was just cut back to its saved length
    // (restoreWorkload), which makes the next reader rebuild the index of the whole ledger; the figure is
    // the steady state of an agent's appends, not that one rebuild.
    const warm = agentEdit(w, 999);
    const first = cli(w, ["hook", "claude-code"], claudeEdit(w, "PostToolUse", warm.oldString, warm.newString, "toolu_append_warmup"));
    if (first.status !== 0) throw new Error(`the warm-up PostToolUse failed: ${first.stderr}`);
  } catch (e) {
    restoreWorkload(w);
    throw e;
  }
  const before = readFileSync(join(w.root, LEDGER)).length;
  try {
    for (let b = 0; b < blocks; b++) {
      let t0 = nowMs();
      for (let i = 0; i < perBlock; i++) timeProcess(NODE, ["-e", APPEND_LINE, scratch]);
      baseMs += nowMs() - t0;
      t0 = nowMs();
      for (let i = 0; i < perBlock; i++) {
        const n = 1000 + b * perBlock + i;
        const { oldString, newString } = agentEdit(w, n);
        const q = cli(w, ["hook", "claude-code"], claudeEdit(w, "PostToolUse", oldString, newString, `toolu_append_${n}`));
        if (q.status !== 0) throw new Error(`PostToolUse failed: ${q.stderr}`);
      }
      ourMs += nowMs() - t0;
    }
    recorded = readFileSync(join(w.root, LEDGER)).subarray(before).toString("utf8").split("\n").filter(Boolean).length;
  } finally {
    rmSync(scratch, { force: true });
    restoreWorkload(w);
  }
  const total = blocks * perBlock;
  const ours = total / (ourMs / 1000);
  const base = total / (baseMs / 1000);
  return {
    id: "appends",
    records: w.records,
    now: `${ours.toFixed(1)} /s`,
    baseline: `node appending a line ${base.toFixed(1)} /s`,
    ratio: (ours / base).toFixed(2),
    target: "≥ 0.5",
    met: ours / base >= 0.5 && recorded === total,
    data: { hookAppendsPerSecond: ours, nodeAppendsPerSecond: base, calls: total, recorded },
  };
}

// --- glob matching -----------------------------------------------------------------------------------

const GLOB_PATHS = 50_000;
const GLOB_INTENTS = 1_000;

/** Paths over the catalogue's modules and beyond: sources, tests, docs, excluded generated code, strays. */
function globPaths(): string[] {
  const kinds = [
    (m: number, i: number) => `src/m${m}/f${i}.ts`,
    (m: number, i: number) => `src/m${m}/deep/er/f${i}.ts`,
    (m: number, i: number) => `test/m${m}/f${i}.test.ts`,
    (m: number, i: number) => `docs/m${m}/guide/p${i}.md`,
    (m: number, i: number) => `src/m${m}/generated/g${i}.ts`,
    (m: number) => `api/v2/m${m}/routes.ts`,
    (m: number, i: number) => `lib/x${i}/m${m}.spec.ts`,
    (m: number, i: number) => `vendor/other${m}/f${i}.js`,
  ];
  const rand = seeded(21);
  return Array.from({ length: GLOB_PATHS }, (_, i) => kinds[i % kinds.length]!(Math.floor(rand() * GLOB_INTENTS * 1.1), i));
}

/**
 * Which intents own each of 50,000 paths, over 1,000 intents' globs (10 each, the bench catalogue's), through
 * the engine's ScopeIndex as the editor, the gate and `intent check` ask it. A fresh index per run; the globs
 * are compiled once per process, as in a running server (the first run, which compiles them, is in `data`).
 * Baselines: the same count of plain minimatch matches (each path against one precompiled glob: the floor of
 * matching every path once), and codeowners-lsp's published ~8.5 ms for 50,000 paths × 1,000 CODEOWNERS
 * rules, a reference value stated by that project and not measured here.
 */
export function globs(o: Options): Figure {
  const { catalogue, hasErrors } = loadIntents(intentsYaml(GLOB_INTENTS));
  if (hasErrors || catalogue.intents.length !== GLOB_INTENTS) throw new Error("the glob benchmark's catalogue did not load");
  const paths = globPaths();
  const reps = o.quick ? 5 : 11;
  const ours: number[] = [];
  let firstMs = 0;
  let owned = 0;
  for (let r = 0; r <= reps; r++) {
    const t0 = nowMs();
    const index = new ScopeIndex(catalogue);
    let n = 0;
    for (const p of paths) if (index.owners(p).length > 0) n++;
    const t = nowMs() - t0;
    if (r === 0) {
      firstMs = t;
      owned = n;
    } else {
      ours.push(t);
      if (n !== owned) throw new Error(`glob matching owned ${n} paths, then ${owned}`);
    }
  }
  if (owned === 0 || owned === paths.length) throw new Error(`glob matching owned ${owned} of ${paths.length} paths: the workload is wrong`);
  const globsOf = paths.map((p) => new Minimatch(`${p.slice(0, p.indexOf("/"))}/**`, { dot: true }));
  const plain: number[] = [];
  for (let r = 0; r <= reps; r++) {
    const t0 = nowMs();
    let n = 0;
    for (let i = 0; i < paths.length; i++) if (globsOf[i]!.match(paths[i]!)) n++;
    const t = nowMs() - t0;
    if (n !== paths.length) throw new Error("the minimatch baseline did not match every path");
    if (r > 0) plain.push(t);
  }
  const a = summarize(ours);
  const b = summarize(plain);
  o.log(`    ScopeIndex ${ms(a.p50)} (first, compiling the globs: ${ms(firstMs)}), ${GLOB_PATHS} minimatch matches ${ms(b.p50)}`);
  return {
    id: "globs",
    records: 0,
    now: ms(a.p50),
    baseline: `${GLOB_PATHS.toLocaleString("en")} minimatch matches ${ms(b.p50)}; codeowners-lsp ~8.5 ms (published, not measured here)`,
    ratio: x(a.p50 / b.p50),
    target: "–",
    met: null,
    data: {
      paths: GLOB_PATHS,
      intents: GLOB_INTENTS,
      globs: catalogue.intents.reduce((s, i) => s + i.ownedScope.length, 0),
      ownedPaths: owned,
      scopeIndex: a,
      firstRunMs: firstMs,
      minimatch: b,
      codeownersLspPublishedMs: 8.5,
    },
  };
}

// --- a save of a huge file ------------------------------------------------------------------------------

/** The example workspace with an empty ledger and `src/api/<name>` of 1,000,000 lines, under a temporary folder. */
function hugeFileWorkspace(name: string): { root: string; big: string; lines: number } {
  const lines = 1_000_000;
  const root = mkdtempSync(join(tmpdir(), "intent-lsp-bench-huge-"));
  cpSync(join(REPO_ROOT, "examples/workspace"), root, { recursive: true });
  writeFileSync(join(root, LEDGER), "");
  const big = `src/api/${name}`;
  const body: string[] = [];
  for (let i = 0; i < lines; i++) body.push(`export const v${i} = ${i};`);
  writeFileSync(join(root, big), `${body.join("\n")}\n`);
  return { root, big, lines };
}

/** Milliseconds a hover on the example's small file takes to be answered: what a request waits. */
function hoverTimer(client: LspClient): () => Promise<number> {
  return async () => {
    const t0 = nowMs();
    await client.connection.sendRequest("textDocument/hover", { textDocument: { uri: client.uri("src/api/weather.ts") }, position: { line: 2, character: 0 } });
    return nowMs() - t0;
  };
}

/**
 * The longest the server leaves a request waiting while it takes the open of a 1,000,000-line file: hovers on
 * a small file are sent one after another from the didOpen until the big file's first diagnostics arrive, and
 * the slowest answer is the stall. Part of it is the protocol's own: the 25 MB message is decoded (JSON) in the
 * same turn. Baseline: the slowest of as many hovers afterwards. Measured only.
 */
export async function openStall(o: Options): Promise<Figure> {
  const { root, big, lines } = hugeFileWorkspace("huge-open.ts");
  const client = await LspClient.start({ root, ...(o.serverJs ? { serverJs: o.serverJs } : {}) });
  const hoverMs = hoverTimer(client);
  try {
    await client.open("src/api/weather.ts", "typescript");
    await hoverMs();
    const uri = await client.open(big, "typescript");
    let worst = 0;
    let count = 0;
    while (!client.diagnostics.has(uri)) {
      worst = Math.max(worst, await hoverMs());
      count++;
    }
    let idle = 0;
    for (let k = 0; k < Math.max(count, 20); k++) idle = Math.max(idle, await hoverMs());
    o.log(`    open of ${lines.toLocaleString("en")} lines: longest hover wait ${ms(worst)} (${count} hovers); idle ${ms(idle)}`);
    return {
      id: "open-1m-stall",
      records: 0,
      now: `max ${ms(worst)}`,
      baseline: `idle max ${ms(idle)}`,
      ratio: x(worst / idle),
      target: "–",
      met: null,
      data: { lines, stall: worst, hovers: count, idle },
    };
  } finally {
    await client.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The longest the server leaves a request waiting while it handles the save of a 1,000,000-line file: hovers
 * on a small file are sent one after another from the didSave until `intent/saveProcessed`, and the slowest
 * answer is the stall. Baseline: the slowest of as many hovers with no save running. Measured outside git
 * (the saved file judged against the ledger's last record of it) and in a git repository (its changed lines
 * asked of git): the two take different paths after a save.
 */
export async function saveStall(o: Options, inGit: boolean): Promise<Figure> {
  const { root, big, lines } = hugeFileWorkspace("huge-save.ts");
  if (inGit) {
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@intent-lsp.local", "-c", "commit.gpgsign=false", ...args], { cwd: root });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "the workspace");
  }
  const client = await LspClient.start({ root, ...(o.serverJs ? { serverJs: o.serverJs } : {}) });
  const hoverMs = hoverTimer(client);
  try {
    await client.open("src/api/weather.ts", "typescript");
    await client.open(big, "typescript");
    await hoverMs();
    const saves = o.quick ? 1 : 3;
    const stalls: number[] = [];
    const idle: number[] = [];
    for (let s = 0; s < saves; s++) {
      await client.setLine(big, 500_000 + s, `export const changed${s} = ${s};`);
      writeFileSync(join(root, big), client.text(big));
      const seen = client.savesProcessed.length;
      await client.connection.sendNotification("textDocument/didSave", { textDocument: { uri: client.uri(big) } });
      let worst = 0;
      let count = 0;
      while (client.savesProcessed.length === seen) {
        worst = Math.max(worst, await hoverMs());
        count++;
      }
      stalls.push(worst);
      let idleWorst = 0;
      for (let k = 0; k < Math.max(count, 20); k++) idleWorst = Math.max(idleWorst, await hoverMs());
      idle.push(idleWorst);
      o.log(
        `    save of ${lines.toLocaleString("en")} lines${inGit ? " in git" : ""}: longest hover wait ${ms(worst)} (${count} hovers); idle ${ms(idleWorst)}`,
      );
    }
    const worst = Math.max(...stalls);
    const base = Math.max(...idle);
    return {
      id: inGit ? "save-1m-stall (git)" : "save-1m-stall",
      records: 0,
      now: `max ${ms(worst)}`,
      baseline: `idle max ${ms(base)}`,
      ratio: x(worst / base),
      target: "≤ 100 ms",
      met: worst <= 100,
      data: { lines, inGit, stalls, idle },
    };
  } finally {
    await client.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

// --- insight: `intent stats`, `intent report` and the report in Chromium ---------------------------------

/**
 * `intent stats` over the whole working tree vs `git ls-files | xargs wc -l` over the same files: once
 * without what an earlier run kept (`stats-cold`: every file attributed from the ledger), then as a person
 * runs it again (`stats`: the files and ledger unchanged since, as after any earlier run).
 */
export function stats(w: Workload, o: Options): Figure[] {
  // one round in --quick (what .ci/run runs): a round at 100k records reads the whole working tree
  const reps = o.quick ? 1 : 3;
  rmSync(join(w.root, INSIGHT_CACHE), { force: true });
  const wcCold = timeProcess("sh", ["-c", "git ls-files -z | xargs -0 wc -l > /dev/null"], { cwd: w.root });
  const cold = cli(w, ["stats", "--json"]);
  if (cold.status !== 0) throw new Error(`intent stats failed (${cold.status}): ${cold.stderr}`);
  o.log(`    intent stats (nothing kept) ${ms(cold.ms)} (CPU ${ms(cold.cpuMs)}), git ls-files | xargs wc -l ${ms(wcCold.ms)} (CPU ${ms(wcCold.cpuMs)})`);
  const ours: number[] = [];
  const wc: number[] = [];
  const cpu = { stats: [] as number[], wc: [] as number[] };
  for (let i = 0; i < reps; i++) {
    const g = timeProcess("sh", ["-c", "git ls-files -z | xargs -0 wc -l > /dev/null"], { cwd: w.root });
    if (g.status !== 0) throw new Error(`git ls-files | xargs wc -l failed: ${g.stderr}`);
    wc.push(g.ms);
    cpu.wc.push(g.cpuMs);
    const c = cli(w, ["stats", "--json"]);
    if (c.status !== 0) throw new Error(`intent stats failed (${c.status}): ${c.stderr}`);
    ours.push(c.ms);
    cpu.stats.push(c.cpuMs);
    o.log(`    intent stats ${ms(c.ms)} (CPU ${ms(c.cpuMs)}), git ls-files | xargs wc -l ${ms(g.ms)} (CPU ${ms(g.cpuMs)})`);
  }
  const a = summarize(ours);
  const b = summarize(wc);
  return [
    {
      id: "stats",
      records: w.records,
      now: ms(a.p50),
      baseline: `wc -l ${ms(b.p50)}`,
      ratio: x(a.p50 / b.p50),
      // the ≤ 5 s target is for 1M records over 10,000 files: `statsLarge`
      target: "≤ 2× wc -l",
      met: a.p50 / b.p50 <= 2,
      data: { stats: a, wc: b, cpu: { stats: summarize(cpu.stats), wc: summarize(cpu.wc) } },
    },
    {
      id: "stats-cold",
      records: w.records,
      now: ms(cold.ms),
      baseline: `wc -l ${ms(wcCold.ms)}`,
      ratio: x(cold.ms / wcCold.ms),
      target: "–",
      met: null,
      data: { stats: cold.ms, wc: wcCold.ms, cpu: { stats: cold.cpuMs, wc: wcCold.cpuMs } },
    },
  ];
}

/** The workspace `statsLarge` measures: 1,000,000 records over 10,000 source files. */
export const STATS_LARGE = { records: 1_000_000, files: 10_000 } as const;

/**
 * `intent stats` on a 10,000-file workspace with 1,000,000 records (target ≤ 5 s), each run beside
 * `git ls-files | xargs wc -l` over the same files: the first run on the workspace (nothing kept: the
 * ledger read and indexed, every file attributed), a run with the ledger's index kept but not what stats
 * kept (`cold`), then as a person runs it again (`warm`). Wall and CPU time: CPU is what load from other
 * work on the machine does not stretch.
 */
export function statsLarge(w: Workload, o: Options): Figure[] {
  const wc = () => {
    const g = timeProcess("sh", ["-c", "git ls-files -z | xargs -0 wc -l > /dev/null"], { cwd: w.root });
    if (g.status !== 0) throw new Error(`git ls-files | xargs wc -l failed: ${g.stderr}`);
    return g;
  };
  const run = (what: string, env: NodeJS.ProcessEnv = {}) => {
    const base = wc();
    const c = timeProcess(NODE, [CLI, "stats", "--json"], { cwd: w.root, env: { ...process.env, ...env } });
    if (c.status !== 0) throw new Error(`intent stats failed (${c.status}): ${c.stderr}`);
    o.log(`    intent stats (${what}) ${ms(c.ms)} (CPU ${ms(c.cpuMs)}), git ls-files | xargs wc -l ${ms(base.ms)} (CPU ${ms(base.cpuMs)})`);
    return { stats: c, wc: base };
  };
  // each run with nothing kept is also timed in one thread (INTENT_LSP_THREADS=1): what the worker threads
  // (io/runsWorkers.ts) save, measured in the same sitting
  const oneThread = { INTENT_LSP_THREADS: "1" };
  rmSync(join(w.root, INDEX_CACHE), { recursive: true, force: true });
  const firstOne = run("first run: nothing kept, one thread", oneThread);
  rmSync(join(w.root, INDEX_CACHE), { recursive: true, force: true });
  const first = run("first run: nothing kept");
  rmSync(join(w.root, INSIGHT_CACHE), { force: true });
  const coldOne = run("cold: the ledger's index kept, one thread", oneThread);
  rmSync(join(w.root, INSIGHT_CACHE), { force: true });
  const cold = run("cold: the ledger's index kept");
  const warm = Array.from({ length: 3 }, () => run("warm"));
  const p50 = (pick: (r: (typeof warm)[number]) => number) => summarize(warm.map(pick)).p50;
  const label = `${(w.records / 1e6).toFixed(0)}M records, ${STATS_LARGE.files.toLocaleString("en")} files`;
  const row = (id: string, now: number, nowCpu: number, base: number, baseCpu: number, target: boolean, data: Record<string, unknown>): Figure => ({
    id: `${id} (${label})`,
    records: w.records,
    now: `${ms(now)} (CPU ${ms(nowCpu)})`,
    baseline: `wc -l ${ms(base)} (CPU ${ms(baseCpu)})`,
    ratio: x(now / base),
    target: target ? "≤ 5 s" : "–",
    met: target ? now <= 5000 : null,
    data,
  });
  const one = (r: typeof first) => ({ stats: { ms: r.stats.ms, cpuMs: r.stats.cpuMs }, wc: { ms: r.wc.ms, cpuMs: r.wc.cpuMs } });
  return [
    row(
      "stats",
      p50((r) => r.stats.ms),
      p50((r) => r.stats.cpuMs),
      p50((r) => r.wc.ms),
      p50((r) => r.wc.cpuMs),
      true,
      { runs: warm.map(one) },
    ),
    row("stats-cold", cold.stats.ms, cold.stats.cpuMs, cold.wc.ms, cold.wc.cpuMs, false, { ...one(cold), oneThread: one(coldOne) }),
    {
      // nothing kept from an earlier run, the ledger's index included
      ...row("stats-first-run", first.stats.ms, first.stats.cpuMs, first.wc.ms, first.wc.cpuMs, false, { ...one(first), oneThread: one(firstOne) }),
      target: "≤ 10 s",
      met: first.stats.ms <= 10_000,
    },
  ];
}

/** What `intent stats` and `intent report` keep between runs (the walks that date untraced lines included). */
const INSIGHT_CACHES = [INSIGHT_CACHE, INSIGHT_RUNS_CACHE, INSIGHT_RESULT_CACHE, LINE_TIMES_CACHE, LINE_TIMES_BASE];

/** The walk of git's history `intent report` keeps (io/commitDates.ts): the commit it reached, and whether checked. */
function keptWalk(w: Workload): { commit?: string; checked?: boolean } {
  try {
    // the walk's JSON follows the checked envelope's line (io/checkedCache.ts)
    const text = readFileSync(join(w.root, LINE_TIMES_CACHE), "utf8");
    return JSON.parse(text.slice(text.indexOf("\n") + 1));
  } catch {
    return {};
  }
}

const headOf = (w: Workload) => execFileSync("git", ["rev-parse", "HEAD"], { cwd: w.root, encoding: "utf8" }).trim();

function walkedToHead(w: Workload): boolean {
  const kept = keptWalk(w);
  return kept.checked === true && kept.commit === headOf(w);
}

function walkState(w: Workload): string {
  const kept = keptWalk(w);
  if (!kept.commit) return "no walk of git's history kept";
  return walkedToHead(w) ? "git's history walked to HEAD" : `git's history walked to ${kept.commit.slice(0, 12)}, short of HEAD (its bound)`;
}

/**
 * `intent report` vs `intent stats` on the same workspace: with nothing kept from an earlier run
 * (`report-cold` vs `intent stats --by week`, which gives the report's numbers: every file attributed, git's
 * history walked from its start to date the untraced lines, as far as the walk's bound lets it; the plain
 * `intent stats`, which walks nothing, is logged and kept in the row's data), as run again once the walk has
 * reached HEAD (`report`, against the plain `intent stats`; the runs before that are
 * shown and kept in the cold row's data), and the first run after HEAD moved (`report-new-head`: a commit of one
 * changed line; the file it changed is counted again and its lines dated from the walk gone on by that
 * commit, every other file keeps its commit times) vs `intent stats` run again.
 */
export function report(w: Workload, o: Options): Figure[] {
  // three rounds, each command in turn, in --quick too: a ratio of single runs moves by a fifth with the
  // machine's speed (a warm round at 100k records takes under 2 s)
  const reps = o.quick ? 3 : 5;
  const run = (args: string[]) => {
    const r = cli(w, args);
    if (r.status !== 0) throw new Error(`intent ${args[0]} failed (${r.status}): ${r.stderr}`);
    return r;
  };
  const forget = () => {
    for (const f of INSIGHT_CACHES) rmSync(join(w.root, f), { force: true });
  };
  forget();
  const statsCold = run(["stats", "--json"]);
  // the same numbers as the report's (its history is per week): the same walk of git's history to date them
  forget();
  const historyCold = run(["stats", "--json", "--by", "week"]);
  forget();
  const reportCold = run(["report"]);
  o.log(
    `    intent report (nothing kept) ${ms(reportCold.ms)} (CPU ${ms(reportCold.cpuMs)}), intent stats --by week (nothing kept) ${ms(historyCold.ms)} (CPU ${ms(historyCold.cpuMs)}), intent stats (nothing kept) ${ms(statsCold.ms)} (CPU ${ms(statsCold.cpuMs)}); ${walkState(w)}`,
  );
  // A walk of git's history stopped by its bound goes on at the next run: the rows below are of a report run
  // again once the walk has reached HEAD, so the runs until then are counted and shown, not measured as warm.
  const walkRuns: number[] = [];
  while (!walkedToHead(w) && walkRuns.length < 20) {
    walkRuns.push(run(["report"]).ms);
    o.log(`    intent report, the walk going on: ${ms(walkRuns.at(-1)!)}; ${walkState(w)}`);
  }
  if (!walkedToHead(w)) throw new Error(`intent report: the walk of git's history did not reach HEAD in ${walkRuns.length + 1} runs`);
  const ours: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < reps; i++) {
    const s = run(["stats", "--json"]);
    base.push(s.ms);
    const r = run(["report"]);
    ours.push(r.ms);
    o.log(`    intent report ${ms(r.ms)} (CPU ${ms(r.cpuMs)}), intent stats ${ms(s.ms)} (CPU ${ms(s.cpuMs)})`);
  }
  // a commit of one changed line moves HEAD (as a person commits a change): undone after, so the workload
  // stays as it was. Both commands count that file again; the report also dates its lines, walking the commit
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false", ...args], { cwd: w.root });
  const changed = join(w.root, w.hotFile);
  const original = readFileSync(changed);
  writeFileSync(changed, Buffer.concat([original, Buffer.from("// bench: a line committed\n")]));
  git("commit", "-q", "-m", "bench: HEAD moves", "--", w.hotFile);
  let newHead: ReturnType<typeof run>;
  let statsThen: ReturnType<typeof run>;
  try {
    statsThen = run(["stats", "--json"]);
    newHead = run(["report"]);
    o.log(
      `    intent report (HEAD moved) ${ms(newHead.ms)} (CPU ${ms(newHead.cpuMs)}), intent stats ${ms(statsThen.ms)} (CPU ${ms(statsThen.cpuMs)}); ${walkState(w)}`,
    );
  } finally {
    git("reset", "-q", "--soft", "HEAD~1");
    git("reset", "-q", "--", w.hotFile);
    writeFileSync(changed, original);
  }
  const a = summarize(ours);
  const b = summarize(base);
  const bytes = readFileSync(join(w.root, INDEX_CACHE, "report.html")).length;
  const row = (id: string, now: number, baseline: string, against: number, data: Record<string, unknown>): Figure => ({
    id,
    records: w.records,
    now: ms(now),
    baseline,
    ratio: x(now / against),
    target: "≤ 2× stats",
    met: now / against <= 2,
    data,
  });
  return [
    row("report", a.p50, `intent stats ${ms(b.p50)}`, b.p50, { report: a, stats: b, htmlBytes: bytes }),
    row("report-cold", reportCold.ms, `stats --by week cold ${ms(historyCold.ms)}`, historyCold.ms, {
      report: { ms: reportCold.ms, cpuMs: reportCold.cpuMs },
      walkGoingOnMs: walkRuns,
      history: { ms: historyCold.ms, cpuMs: historyCold.cpuMs },
      stats: { ms: statsCold.ms, cpuMs: statsCold.cpuMs, reportRatio: reportCold.ms / statsCold.ms },
    }),
    row("report-new-head", newHead.ms, `intent stats ${ms(statsThen.ms)}`, statsThen.ms, {
      report: { ms: newHead.ms, cpuMs: newHead.cpuMs },
      stats: { ms: statsThen.ms, cpuMs: statsThen.cpuMs },
    }),
  ];
}

/** The written report opened in Chromium (Debian's, headless), from navigation to the page's script done. */
export async function reportOpen(w: Workload, o: Options): Promise<Figure> {
  const { chromium } = await import("playwright-core");
  // the Chromium the e2e tests use (Debian's, installed when missing)
  const ensured = execFileSync(join(REPO_ROOT, "test/e2e/tools/ensure-editor.sh"), ["chromium"], { encoding: "utf8" }).trim().split("\n").pop()!;
  const browser = await chromium.launch({ executablePath: ensured, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
  const times: number[] = [];
  try {
    for (let i = 0; i < (o.quick ? 2 : 3); i++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const t0 = nowMs();
      await page.goto(`file://${join(w.root, INDEX_CACHE, "report.html")}`);
      await page.locator("body[data-ready=true]").waitFor({ timeout: 60_000 });
      times.push(nowMs() - t0);
      await page.close();
      o.log(`    report opened in ${ms(times[times.length - 1]!)}`);
    }
  } finally {
    await browser.close();
  }
  const a = summarize(times);
  return { id: "report-open", records: w.records, now: ms(a.p50), baseline: "–", ratio: "–", target: "≤ 2 s", met: a.p50 <= 2000, data: { open: a } };
}
