/** `intent`: starts the CLI bundle (dist/intent-cli.js) from V8's code cache; see codeCache.ts. */
import { join } from "node:path";
import { isCommandName } from "../cli/commandNames";
import { runWithCodeCache } from "./codeCache";

try {
  // one cache per subcommand (and per agent for hooks); anything else shares one
  const command = isCommandName(process.argv[2] ?? "") ? process.argv[2]! : "other";
  runWithCodeCache(join(__dirname, "intent-cli.js"), command === "hook" ? `hook-${process.argv[3] ?? ""}` : command);
} catch (err) {
  // as in cli/main.ts: an agent's hook that cannot even start must block the call (exit 2), never allow it
  const hook = process.argv[2] === "hook";
  process.stderr.write(`intent: ${(err as Error)?.message ?? String(err)}${hook ? " (blocking the call)" : ""}\n`);
  process.exit(hook ? 2 : 1);
}
