/**
 * `intent`: starts the CLI bundle (dist/intent-cli.js) from V8's code cache (codeCache.ts). An agent's hook
 * call goes to the hook service when one is listening (hookClient.ts), which spares it loading the bundle.
 */
import { join } from "node:path";
import { isCommandName } from "../cli/commandNames";
import { writeAllStdout } from "../io/stdio";
import { runWithCodeCache } from "./codeCache";
import { callService, serviceMode, serviceSocket, startService } from "./hookClient";

const BUNDLE = join(__dirname, "intent-cli.js");
const isHook = process.argv[2] === "hook";

/** Runs the command in this process. */
function runHere(): void {
  try {
    // one cache per subcommand (and per agent for hooks); anything else (the hook service too) shares one
    const command = isCommandName(process.argv[2] ?? "") ? process.argv[2]! : "other";
    runWithCodeCache(BUNDLE, command === "hook" ? `hook-${process.argv[3] ?? ""}` : command);
  } catch (err) {
    blockOrFail((err as Error)?.message ?? String(err));
  }
}

// as in cli/main.ts: an agent's hook that cannot even start must block the call (exit 2), never allow it
function blockOrFail(message: string): void {
  process.stderr.write(`intent: ${message}${isHook ? " (blocking the call)" : ""}\n`);
  process.exit(isHook ? 2 : 1);
}

async function runHook(): Promise<void> {
  const mode = serviceMode(process.env);
  const socket = mode === "off" ? undefined : serviceSocket(BUNDLE, process.env);
  if (!socket) {
    if (mode === "require") blockOrFail("INTENT_LSP_HOOK_SERVICE=require, and this environment can have no hook service");
    return runHere();
  }
  const r = await callService(socket, process.argv.slice(2), process.env, process.cwd());
  if (r.kind === "absent") {
    if (mode === "require") return blockOrFail("INTENT_LSP_HOOK_SERVICE=require, and no hook service is listening");
    startService(socket, __filename, process.env);
    return runHere();
  }
  if (r.kind === "broken") return blockOrFail(`the hook service took the call and gave no answer (${r.why})`);
  await writeAllStdout(r.reply.stdout, false);
  if (r.reply.stderr) process.stderr.write(r.reply.stderr);
  process.exitCode = r.reply.code;
}

if (isHook) runHook().catch((err) => blockOrFail((err as Error)?.message ?? String(err)));
else runHere();
