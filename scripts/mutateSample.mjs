#!/usr/bin/env node
// `npm run mutate:sample [-- --mutants 250] [--seed 1] [--folder server/src/engine]`: the mutation score
// of a folder estimated from a random sample of its mutants, for a folder whose full run takes hours here
// (server/src/engine/: about 10,000 mutants at 3 s or more each on two cores).
//
// Every mutant StrykerJS would make in the files is listed with Stryker's own instrumenter; `--mutants` of
// them are drawn uniformly (a seeded draw: the same code and seed give the same sample); Stryker runs with
// `mutate` narrowed to each drawn mutant's exact location, with the project's configuration otherwise
// (stryker.config.mjs: the same tests, per-test coverage). A range also holds the mutants nested inside the
// drawn one, and its other mutators; Stryker tests those too, and only the drawn mutants are counted.
// Static mutants (a module's top-level values, which every test would have to run again for) are not run, as
// Stryker's `ignoreStatic` does, and are counted apart. Prints the estimated score (killed and timed out over
// the drawn mutants that ran, as Stryker counts a score) with its 95%
// interval (Wilson), and each drawn mutant that survived, so that every figure can be traced to a mutant.
// Writes reports/mutation-sample.json.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { Instrumenter } from "@stryker-mutator/instrumenter";

const ROOT = join(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    mutants: { type: "string", default: "250" },
    seed: { type: "string", default: "1" },
    folder: { type: "string", default: "server/src/engine" },
  },
});
const wanted = Number(values.mutants);
if (!Number.isInteger(wanted) || wanted < 1) throw new Error(`--mutants ${values.mutants}: give a whole number of mutants to draw`);

const files = readdirSync(join(ROOT, values.folder), { recursive: true })
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
  .map((f) => join(values.folder, f))
  .sort();
if (files.length === 0) throw new Error(`--folder ${values.folder}: no .ts file in it (relative to ${ROOT})`);
const quiet = () => false;
const logger = { isTraceEnabled: quiet, isDebugEnabled: quiet, isInfoEnabled: quiet, isWarnEnabled: quiet, isErrorEnabled: quiet, isFatalEnabled: quiet };
for (const level of ["trace", "debug", "info", "warn", "error", "fatal"]) logger[level] = () => undefined;
const { mutants } = await new Instrumenter(logger).instrument(
  files.map((name) => ({ name, content: readFileSync(join(ROOT, name), "utf8"), mutate: true })),
  { plugins: null, excludedMutations: [], ignorers: [] },
);
const all = mutants.filter((m) => !m.status);

// a seeded shuffle (mulberry32): the first `wanted` mutants are the sample
let state = Number(values.seed) >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const order = all.map((_, i) => i);
for (let i = order.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [order[i], order[j]] = [order[j], order[i]];
}
const drawn = order.slice(0, Math.min(wanted, all.length)).map((i) => all[i]);
const key = (m) =>
  `${m.fileName}:${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column} ${m.mutatorName} ${m.replacement}`;
// Stryker's ranges count lines from 1 and columns from 0, both ends included
const ranges = [
  ...new Set(drawn.map((m) => `${m.fileName}:${m.location.start.line + 1}:${m.location.start.column}-${m.location.end.line + 1}:${m.location.end.column}`)),
];
console.log(`${all.length} mutants in ${files.length} files; ${drawn.length} drawn (seed ${values.seed}); Stryker runs them and any nested inside them`);

const out = join(ROOT, "reports");
mkdirSync(out, { recursive: true });
const rangesFile = join(out, "mutation-sample-ranges.json");
writeFileSync(rangesFile, JSON.stringify(ranges));
const report = join(out, "mutation-sample-stryker.json");
rmSync(report, { force: true });
const config = join(ROOT, ".stryker-sample.config.mjs");
writeFileSync(
  config,
  `import base from "./stryker.config.mjs";
import { readFileSync } from "node:fs";
export default { ...base, mutate: JSON.parse(readFileSync(${JSON.stringify(rangesFile)}, "utf8")), incremental: false, ignoreStatic: true,
  reporters: ["json", "progress"], jsonReporter: { fileName: ${JSON.stringify(relative(ROOT, report))} } };
`,
);
try {
  const run = spawnSync(process.execPath, [join(ROOT, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run", config], { cwd: ROOT, stdio: "inherit" });
  if (run.status !== 0) throw new Error(`stryker run ended with ${run.status ?? run.signal}; its log is above`);
} finally {
  rmSync(config, { force: true });
}

const result = JSON.parse(readFileSync(report, "utf8"));
const status = new Map();
for (const [name, file] of Object.entries(result.files)) {
  for (const m of file.mutants) {
    const loc = {
      start: { line: m.location.start.line - 1, column: m.location.start.column - 1 },
      end: { line: m.location.end.line - 1, column: m.location.end.column - 1 },
    };
    status.set(key({ fileName: name, location: loc, mutatorName: m.mutatorName, replacement: m.replacement }), m);
  }
}
const counted = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Ignored: 0, other: 0 };
const survivors = [];
let missing = 0;
for (const m of drawn) {
  const r = status.get(key(m));
  if (!r) {
    missing++;
    continue;
  }
  if (r.status in counted) counted[r.status]++;
  else counted.other++;
  if (r.status === "Survived" || r.status === "NoCoverage")
    survivors.push({
      where: `${m.fileName}:${m.location.start.line + 1}:${m.location.start.column + 1}`,
      mutator: m.mutatorName,
      replacement: m.replacement,
      status: r.status,
    });
}
const n = counted.Killed + counted.Timeout + counted.Survived + counted.NoCoverage;
const p = n ? (counted.Killed + counted.Timeout) / n : Number.NaN;
// Wilson's 95% interval of a proportion
const z = 1.96;
const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const summary = {
  folder: values.folder,
  mutantsInFiles: all.length,
  drawn: drawn.length,
  seed: Number(values.seed),
  testedOfDrawn: n,
  notFoundInReport: missing,
  counts: counted,
  score: p,
  interval95: [centre - half, centre + half],
  survivors,
};
writeFileSync(join(out, "mutation-sample.json"), `${JSON.stringify(summary, null, 2)}\n`);
console.log(
  `\nmutation score of ${values.folder}/, estimated from ${n} of its ${all.length} mutants: ${pct(p)} (95%: ${pct(centre - half)}–${pct(centre + half)})`,
);
console.log(
  `killed ${counted.Killed}, timed out ${counted.Timeout}, survived ${counted.Survived}, no test covers ${counted.NoCoverage}; ` +
    `static, not run ${counted.Ignored}${counted.other ? `, other ${counted.other}` : ""}${missing ? `; ${missing} drawn not in Stryker's report (see ${report})` : ""}`,
);
for (const s of survivors) console.log(`  ${s.status.padEnd(10)} ${s.where} ${s.mutator}: ${JSON.stringify(s.replacement).slice(0, 80)}`);
