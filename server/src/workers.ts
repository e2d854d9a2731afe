/**
 * The worker threads' bundle (dist/intent-workers.js): the script every worker thread of `intent` and
 * `intent-lsp` runs, started with the argument that names its work (io/workerThreads.ts). It holds only what
 * the workers run, not the language server or the commands: a sixth of a program's bundle, which a worker
 * loads in less than half the time (~35 ms against ~75-100 ms on two cores).
 */
import { countedRuns } from "./io/insight";
import { SUMMARY_WORKER, serveSummaryWorker } from "./io/ledger/summaryWorkers";
import { RUNS_WORKER, serveRunsWorker } from "./io/runsWorkers";

const work = process.argv[2];
if (work === RUNS_WORKER) void serveRunsWorker(countedRuns);
else if (work === SUMMARY_WORKER) serveSummaryWorker();
else {
  process.stderr.write(`intent: this script serves intent's worker threads (${RUNS_WORKER}, ${SUMMARY_WORKER}); run \`intent\` or \`intent-lsp\` instead\n`);
  process.exitCode = 2;
}
