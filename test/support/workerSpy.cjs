// Preloaded (NODE_OPTIONS=--require) into a command a test runs: appends to the file named by
// INTENT_LSP_TEST_WORKER_LOG, so that a test can see the work really went to threads that could do it:
// - for each worker thread the command starts, "started <its argument>" and "script <the file it runs>";
// - for each summary a worker sends back, "summary";
// - for each worker that fails, "failed <why>": its script missing or broken, or a summary worker that ended
//   by itself (the reader only ever terminates them, which ends them with code 1).
const { appendFileSync } = require("node:fs");
const threads = require("node:worker_threads");

const log = process.env.INTENT_LSP_TEST_WORKER_LOG;
if (log && threads.isMainThread) {
  const Original = threads.Worker;
  threads.Worker = class extends Original {
    constructor(script, options) {
      super(script, options);
      appendFileSync(log, `started ${options?.argv?.[0] ?? ""}\nscript ${require("node:path").basename(String(script))}\n`);
      this.on("message", (m) => {
        if (m && typeof m === "object" && "summary" in m) appendFileSync(log, "summary\n");
      });
      this.on("error", (e) => appendFileSync(log, `failed ${String(e?.message ?? e).split("\n")[0]}\n`));
      if (options?.argv?.[0] === "__summarize-ledger")
        this.on("exit", (code) => {
          if (code !== 1) appendFileSync(log, `failed: the summary worker ended by itself (exit code ${code})\n`);
        });
    }
  };
}
