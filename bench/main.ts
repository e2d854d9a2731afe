/**
 * `npm run bench [-- --quick] [-- --sizes 10k,100k,1m] [-- --only hover,check] [-- --save LABEL] [-- --server FILE]`
 *
 * Measures the figures of the README's "Benchmarks" section against the built server and CLI on generated workspaces of 10k, 100k and 1M
 * ledger records (`--quick`: 10k and 100k, fewer repetitions), and `intent stats` on a 10,000-file workspace
 * with 1M records (`stats-1m`: the full run, or `--quick` when `--only` names it: generating it takes minutes). Prints a table and writes a JSON report to
 * `.cache/bench/report.json` (`--save LABEL` also to `bench/results/LABEL.json`, to commit). Never fails on a
 * time: a figure that misses its target is printed as such; only a broken measurement exits non-zero.
 * `--server FILE`: the start, hover, keystroke and save rows measure that server (another commit's built
 * `dist/server.js`), so that two builds are compared by the same harness on the same workspaces.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../scripts/lspClient";
import {
  appends,
  blame,
  blameGitRenamed,
  blameRenamed,
  blameSplit,
  check,
  checkCatalogue,
  emptyMemory,
  globs,
  hooks,
  hover,
  keystroke,
  report as reportFigures,
  reportOpen,
  openStall,
  saveStall,
  startup,
  stats,
  STATS_LARGE,
  statsLarge,
  type Figure,
  type Options,
} from "./figures";
import { teamYear } from "./teamYear";
import { exportFigure, orgFigures } from "./org";
import { ensureWorkload } from "./workload";

const SIZES: Record<string, number> = { "10k": 10_000, "100k": 100_000, "1m": 1_000_000 };

// A node process given NODE_EXTRA_CA_CERTS parses that bundle as it starts (~50 ms here), whether it
// connects or not; none of the processes measured connects. Left set, it would be added to every node
// process, ours and the baselines alike, and hide what ours cost beside `node -e ''`: the figures are of a
// machine whose environment names no extra bundle (an empty value is none), as the tests run.
if (process.env["NODE_EXTRA_CA_CERTS"]) process.env["NODE_EXTRA_CA_CERTS"] = "";
const FIGURES = [
  "start",
  "memory",
  "hover",
  "keystroke",
  "save",
  "check",
  "blame",
  "renamed",
  "hooks",
  "appends",
  "globs",
  "stats",
  "report",
  "stats-1m",
  "team-year",
  "export",
  "org",
] as const;

function parse() {
  const { values } = parseArgs({
    options: { quick: { type: "boolean" }, sizes: { type: "string" }, only: { type: "string" }, save: { type: "string" }, server: { type: "string" } },
    allowPositionals: false,
  });
  const quick = values.quick ?? false;
  const sizes = (values.sizes ?? (quick ? "10k,100k" : "10k,100k,1m")).split(",").map((s) => {
    const n = SIZES[s.trim().toLowerCase()];
    if (!n) throw new Error(`--sizes: "${s}" is not one of ${Object.keys(SIZES).join(", ")}`);
    return n;
  });
  const only = values.only ? values.only.split(",").map((s) => s.trim()) : [...FIGURES];
  for (const f of only) if (!(FIGURES as readonly string[]).includes(f)) throw new Error(`--only: "${f}" is not one of ${FIGURES.join(", ")}`);
  // the 1M-record, 10,000-file workspace takes minutes to generate and to read once: --quick measures it only when asked by name
  if (quick && !values.only) only.splice(only.indexOf("stats-1m"), 1);
  // the organisation's tables (10 M runs, 50 M records) take minutes to generate: --quick measures them only when asked by name
  if (quick && !values.only) only.splice(only.indexOf("org"), 1);
  const server = values.server === undefined ? undefined : resolve(values.server);
  if (server !== undefined && !existsSync(server))
    throw new Error(`--server: ${server} does not exist; build that commit first (npm run build in its checkout)`);
  return { quick, sizes, only: new Set(only), save: values.save, server };
}

function table(figures: readonly Figure[]): string {
  const rows = [["figure", "records", "now", "baseline", "ratio", "target", "met"]];
  for (const f of figures)
    rows.push([f.id, f.records ? f.records.toLocaleString("en") : "–", f.now, f.baseline, f.ratio, f.target, f.met === null ? "–" : f.met ? "yes" : "NO"]);
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) => `| ${r.map((cell, c) => cell.padEnd(widths[c]!)).join(" | ")} |`;
  return [line(rows[0]!), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}

async function main(): Promise<void> {
  const args = parse();
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const o: Options = { quick: args.quick, log, ...(args.server ? { serverJs: args.server } : {}) };
  const started = Date.now();
  const figures: Figure[] = [];
  const workloads = [];
  const sizeFree = new Set<string>(["team-year", "stats-1m", "org"]);
  for (const records of [...args.only].every((f) => sizeFree.has(f)) ? [] : args.sizes) {
    const w = await ensureWorkload(REPO_ROOT, records, log);
    workloads.push(w);
    log(
      `\n${records.toLocaleString("en")} records (${(w.ledgerBytes / 1e6).toFixed(0)} MB, ${(w.ledgerBytes / records).toFixed(0)} B/record), ${w.changedFiles} changed files`,
    );
    const run = async (name: (typeof FIGURES)[number], body: () => Promise<Figure | Figure[]> | Figure | Figure[]) => {
      if (!args.only.has(name)) return;
      const t0 = Date.now();
      log(`  ${name} …`);
      const got = await body();
      figures.push(...(Array.isArray(got) ? got : [got]));
      log(`  ${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    };
    await run("start", () => startup(w, o));
    if (records === args.sizes[0]) await run("memory", () => emptyMemory(w));
    await run("hover", () => hover(w, o));
    // the keystroke path does not depend on the ledger: measured once, on the smallest workload
    if (records === args.sizes[0]) await run("keystroke", async () => [await keystroke(w, "20k", o), await keystroke(w, "200k", o)]);
    // a save's stall does not depend on the ledger either
    if (records === args.sizes[0]) await run("save", async () => [await openStall(o), await saveStall(o, false), await saveStall(o, true)]);
    await run("check", () => [check(w, o), checkCatalogue(w, o)]);
    await run("blame", () => blame(w, o));
    await run("renamed", () => [blameRenamed(w, o), blameGitRenamed(w, o), blameSplit(w, o)]);
    await run("hooks", () => hooks(w, o));
    await run("appends", () => appends(w, o));
    // matching does not depend on the ledger: measured once
    if (records === args.sizes[0]) await run("globs", () => globs(o));
    await run("stats", () => stats(w, o));
    await run("report", async () => [...reportFigures(w, o), await reportOpen(w, o)]);
    await run("export", () => exportFigure(w, o));
  }
  if (args.only.has("stats-1m")) {
    const w = await ensureWorkload(REPO_ROOT, STATS_LARGE.records, log, STATS_LARGE.files);
    log(`\nstats-1m: ${w.records.toLocaleString("en")} records over ${STATS_LARGE.files.toLocaleString("en")} files (${(w.ledgerBytes / 1e6).toFixed(0)} MB)`);
    const t0 = Date.now();
    figures.push(...statsLarge(w, o));
    log(`  stats-1m done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  if (args.only.has("org")) {
    log(`\norg (${args.quick ? "quick: 100 repositories, 5 M records" : "1,000 repositories × 10,000 runs, 50 M records"}, generated as Parquet)`);
    const t0 = Date.now();
    figures.push(...orgFigures(o));
    log(`  org done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  if (args.only.has("team-year")) {
    log(`\nteam-year (${args.quick ? "quick: 20,000 records" : "200,000 records"}; the 2.5 M-record figures are the measured rate × 2.5 M)`);
    const t0 = Date.now();
    figures.push(...teamYear(o));
    log(`  team-year done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const report = {
    when: new Date().toISOString(),
    commit: gitRevision(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memoryGB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version },
    quick: args.quick,
    seconds: (Date.now() - started) / 1000,
    workloads,
    figures,
  };
  const out = join(REPO_ROOT, ".cache/bench/report.json");
  mkdirSync(join(REPO_ROOT, ".cache/bench"), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  if (args.save) {
    mkdirSync(join(REPO_ROOT, "bench/results"), { recursive: true });
    writeFileSync(join(REPO_ROOT, `bench/results/${args.save}.json`), `${JSON.stringify(report, null, 2)}\n`);
  }
  const note =
    args.only.has("stats") && !args.only.has("stats-1m")
      ? "\nstats on 1M records over 10,000 files (target ≤ 5 s) is measured in the full run, or with --only stats-1m; the rows above are smaller ledgers.\n"
      : "";
  process.stdout.write(
    `\n${table(figures)}\n${note}\nreport: ${out}${args.save ? ` and bench/results/${args.save}.json` : ""} (${report.seconds.toFixed(0)} s)\n`,
  );
}

function gitRevision(): string | undefined {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

main().catch((err) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
