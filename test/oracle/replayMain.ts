import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../support/lspClient";
import { mostChanged } from "./gitHistory";
import { replayGroup } from "./groupReplay";
import { replayHistory } from "./historyReplay";
import { REPLAY_SEEDED, seededConfig } from "./configs";
import { Report } from "./report";
import { runSeed } from "./seededRun";

/**
 * `npm run test:replay`: the large seeded run, or the replay of a real git history. Prints the tables and
 * writes the JSON report. See test/oracle/README.md for the options.
 */

const USAGE = `npm run test:replay -- [options]

Seeded edit streams (default):
  --seeds N          seeds to run (default ${REPLAY_SEEDED.seeds})
  --first-seed N     first seed (default 1)
  --steps N          steps per seed (default ${REPLAY_SEEDED.steps})
  --jobs N           seeds run at once (default 2)
  --refactor-every N an agent's refactor across files (split, extraction, merge) every N steps; 0: none
                     (default ${REPLAY_SEEDED.refactorEvery})

Real git history:
  --repo PATH        a local git clone; with --file (repeatable), the paths to replay
  --own              this project's own history: its three most changed files under server/src
  --together         replay the --file paths together in one workspace, commit by commit
                     (merges left out), so that lines moved or split between them are compared with git blame -C
  --rev REV          with --together: the revision the paths are named at and the history ends at (HEAD)
  --split-by agent   with --together: a commit that adds a file and changes another of the group (a split, an
                     extraction) is replayed as an agent's, whoever made it (default: as --map says)
  --split-order paste-first|cut-first|random  the order of such an agent's writes: the new files first, or
                     the files it cut from first (default random)
  --max-commits N    the newest N commits of each file (with --together: of the group) (default 300)
  --map author|commit  authors (default; --own: commit) or commits alternately a person and an AI model
  --reload region|hunks|mixed  how the editor reloads after an agent's write (default mixed)
  --checkpoint N     compare every N commits (default 10)
  --wrong FILE       every line the equally valid readings still count wrong (intent blame), as JSON lines

Both:
  --out FILE         JSON report (default .cache/oracle/<mode>.json)
  --trace            print every step and record`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      seeds: { type: "string" },
      "first-seed": { type: "string" },
      steps: { type: "string" },
      jobs: { type: "string" },
      "refactor-every": { type: "string" },
      repo: { type: "string" },
      file: { type: "string", multiple: true },
      own: { type: "boolean" },
      together: { type: "boolean" },
      rev: { type: "string" },
      "split-by": { type: "string" },
      "split-order": { type: "string" },
      "max-commits": { type: "string" },
      map: { type: "string" },
      reload: { type: "string" },
      checkpoint: { type: "string" },
      wrong: { type: "string" },
      out: { type: "string" },
      trace: { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const log = (s: string) => console.error(s);
  const trace = values.trace ? log : undefined;
  const num = (v: string | undefined, d: number) => (v === undefined ? d : Number(v));
  let report: Report;
  let title: string;
  let mode: string;
  const started = Date.now();

  if (values.repo || values.own) {
    const repo = values.own ? REPO_ROOT : resolve(values.repo!);
    const files = values.own ? mostChanged(repo, "server/src", 3) : (values.file ?? []);
    if (!files.length) throw new Error("name the files to replay with --file PATH (paths at HEAD, relative to --repo)");
    const map = (values.map ?? (values.own ? "commit" : "author")) as "author" | "commit";
    const reload = (values.reload ?? "mixed") as "region" | "hunks" | "mixed";
    const splitOrder = (values["split-order"] ?? "random") as "paste-first" | "cut-first" | "random";
    if (
      !["author", "commit"].includes(map) ||
      !["region", "hunks", "mixed"].includes(reload) ||
      ![undefined, "agent"].includes(values["split-by"]) ||
      !["paste-first", "cut-first", "random"].includes(splitOrder)
    )
      throw new Error(USAGE);
    mode = `history-${reload}`;
    const splits = values["split-by"] ? `, splits by an agent (${splitOrder})` : "";
    title = `Real history replay: ${repo} (${files.join(", ")}), authors mapped by ${map}, editor reloads: ${reload}${splits}`;
    log(title);
    const cfg = {
      repo,
      files,
      seed: num(values["first-seed"], 1),
      maxCommits: num(values["max-commits"], 300),
      checkpointEvery: num(values.checkpoint, 10),
      map,
      reload,
      log,
      ...(trace ? { trace } : {}),
      ...(values.wrong ? { wrongOut: resolve(values.wrong) } : {}),
    };
    if (values.wrong) writeFileSync(resolve(values.wrong), "");
    report = values.together
      ? await replayGroup({ ...cfg, rev: values.rev ?? "HEAD", ...(values["split-by"] ? { splitByAgent: true } : {}), splitOrder })
      : await replayHistory(cfg);
  } else {
    const seeds = num(values.seeds, REPLAY_SEEDED.seeds);
    const first = num(values["first-seed"], 1);
    const steps = num(values.steps, REPLAY_SEEDED.steps);
    const jobs = Math.max(1, num(values.jobs, 2));
    mode = "seeded";
    title = `Seeded edit streams: ${seeds} seeds (${first}…${first + seeds - 1}) × ${steps} steps`;
    log(title);
    report = new Report();
    const queue = Array.from({ length: seeds }, (_, k) => first + k);
    const results = new Map<number, Report>();
    await Promise.all(
      Array.from({ length: jobs }, async () => {
        for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) {
          results.set(seed, await runSeed(seededConfig(REPLAY_SEEDED, seed, steps, log, trace, num(values["refactor-every"], REPLAY_SEEDED.refactorEvery))));
          log(`seed ${seed} done (${results.size}/${seeds})`);
        }
      }),
    );
    for (const seed of [...results.keys()].sort((a, b) => a - b)) report.merge(results.get(seed)!);
  }
  const dimensions = mode === "seeded" ? ["kind", "via", "order", "refactor", "refactor-tool", "confidence"] : ["via", "age", "file", "confidence"];
  const recordDimensions = mode === "seeded" ? ["kind", "via", "order", "refactor"] : ["via", "file"];
  console.log(report.render(`${title} (${((Date.now() - started) / 1000).toFixed(0)} s)`, dimensions, recordDimensions));
  const out = resolve(values.out ?? `${REPO_ROOT}/.cache/oracle/${mode}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ title, ...report.toJSON() }, null, 2));
  log(`JSON report: ${out}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
