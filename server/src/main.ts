import { join } from "node:path";
import { createConnection, ProposedFeatures } from "vscode-languageserver/node";
import { SUMMARY_WORKER } from "./io/ledger/summaryWorkers";
import { offerWorkers, WORKERS_BUNDLE } from "./io/workerThreads";
import { IntentServer } from "./lsp/server";
import { INTENT_LSP_VERSION } from "./version";

const HELP = `intent-lsp ${INTENT_LSP_VERSION} — intent scopes and Agent Trace attribution as a language server

Usage:
  intent-lsp --stdio        talk LSP over stdin/stdout (what editors use)
  intent-lsp --node-ipc     talk LSP over Node IPC (VS Code's default for Node servers)
  intent-lsp --version      print the version
  intent-lsp --help         this text

The server reads .orchestration/active_intents.yaml in each workspace folder. See the README.`;

const args = process.argv.slice(2);
if (args.includes("--version") || args.includes("-v")) {
  process.stdout.write(`${INTENT_LSP_VERSION}\n`);
} else if (args.includes("--help") || args.includes("-h")) {
  process.stdout.write(`${HELP}\n`);
} else if (
  !args.some((a) => a === "--stdio" || a === "--node-ipc" || a.startsWith("--socket") || a.startsWith("--pipe") || a.startsWith("--clientProcessId"))
) {
  process.stderr.write(`intent-lsp: choose a transport (--stdio or --node-ipc); see --help.\n`);
  process.exitCode = 2;
} else {
  // (createConnection routes console.* to the client's log, so nothing stray reaches stdout, the protocol's.)
  // A bug must not take the editor's diagnostics down with it: report and keep serving.
  process.on("unhandledRejection", (err) => console.error(`intent-lsp: unhandled rejection: ${err instanceof Error ? err.stack : String(err)}`));
  process.on("uncaughtException", (err) => console.error(`intent-lsp: uncaught exception: ${err.stack ?? err.message}`));
  // its worker threads parse a large ledger's first read; their bundle sits beside this one (workers.ts)
  offerWorkers(join(__dirname, WORKERS_BUNDLE), [SUMMARY_WORKER]);
  void IntentServer.create(createConnection(ProposedFeatures.all)).then((server) => server.listen());
}
