/**
 * The CLI bundle's entry point (started by launch/cli.ts): runs `intent` with this process's arguments, or,
 * started by a hook's launcher, the hook service (cli/hookService.ts, loaded only then).
 */
import { join } from "node:path";
import { SERVE_HOOKS } from "../io/hookServiceProtocol";
import { SUMMARY_WORKER } from "../io/ledger/summaryWorkers";
import { RUNS_WORKER } from "../io/runsWorkers";
import { offerWorkers, WORKERS_BUNDLE } from "../io/workerThreads";
import { runAsProgram } from "./main";

if (process.argv[2] === SERVE_HOOKS && process.argv[3]) (require("./hookService") as typeof import("./hookService")).serveHooks(process.argv[3]);
else {
  // the workers' own bundle sits beside this one (server/src/workers.ts)
  offerWorkers(join(__dirname, WORKERS_BUNDLE), [RUNS_WORKER, SUMMARY_WORKER]);
  runAsProgram();
}
