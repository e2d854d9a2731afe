/**
 * The CLI bundle's entry point (started by launch/cli.ts): runs `intent` with this process's arguments, or,
 * started by a hook's launcher, the hook service (cli/hookService.ts, loaded only then).
 */
import { SERVE_HOOKS } from "../io/hookServiceProtocol";
import { countedRuns } from "../io/insight";
import { SUMMARY_WORKER, serveSummaryWorker } from "../io/ledger/summaryWorkers";
import { RUNS_WORKER, serveRunsWorker } from "../io/runsWorkers";
import { offerWorkers } from "../io/workerThreads";
import { runAsProgram } from "./main";

if (process.argv[2] === SERVE_HOOKS && process.argv[3]) (require("./hookService") as typeof import("./hookService")).serveHooks(process.argv[3]);
else if (process.argv[2] === RUNS_WORKER) void serveRunsWorker(countedRuns);
else if (process.argv[2] === SUMMARY_WORKER) serveSummaryWorker();
else {
  // this bundle is the script of its own worker threads (the arguments above)
  offerWorkers(__filename, [RUNS_WORKER, SUMMARY_WORKER]);
  runAsProgram();
}
