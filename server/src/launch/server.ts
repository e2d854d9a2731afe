/**
 * `intent-lsp`: starts the language server bundle (dist/intent-server.js) from V8's code cache
 * (codeCache.ts), as `intent` starts the CLI's: an editor starts a server for every window it opens, and
 * compiling two megabytes of JavaScript costs a fifth of a restart on a small ledger. The bundle runs as the
 * main program, with this process's arguments and standard streams: the editor sees no difference.
 */
import { join } from "node:path";
import { runWithCodeCache } from "./codeCache";

// written once the first start of a build has run for a while (an editor that kills its server leaves no
// exit to write it at): by then it holds what a start compiles
runWithCodeCache(join(__dirname, "intent-server.js"), "server", process.env, { writeAfterMs: 10_000 });
