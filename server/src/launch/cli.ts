/**
 * `intent`: starts the CLI bundle (dist/intent-cli.js) from V8's code cache (codeCache.ts). An agent's hook
 * call goes to the hook service when one is listening (hookClient.ts), which spares it loading the bundle.
 *
 * A hook fails closed whatever breaks here: the service dying mid-call, a service that does not answer in
 * time, a folder that no longer exists, a bundle that fails to load. Each ends in the agent's own protocol's
 * denial (cli/hook/answers.ts) or in the answer the call's own process gives; never in an exit code alone,
 * which several agents read as "go ahead".
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { failureAnswerForInput } from "../cli/hook/failures";
import { hookAnswerText } from "../engine/terminalText";
import { isCommandName } from "../cli/commandNames";
import { handOverStdin, stdinIsTerminal, stdinStreamOpened, writeAllStdout } from "../io/stdio";
import { runWithCodeCache } from "./codeCache";
import { callService, serviceMode, serviceSocket, startService } from "./hookClient";

const BUNDLE = join(__dirname, "intent-cli.js");
const isHook = process.argv[2] === "hook";
/** The hook input, once this process has read it (to hand it to the service or to its own run). */
let hookInput: string | null | undefined;

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

// as in cli/main.ts: an agent's hook that cannot even start must block the call, never allow it
function blockOrFail(message: string): void {
  if (isHook) return void refuse(message);
  process.stderr.write(`intent: ${message}\n`);
  process.exit(1);
}

/** Answers the hook as failed in its agent's protocol (a denial before a tool call), then exits. */
async function refuse(message: string): Promise<void> {
  const answer = failureAnswerForInput(process.argv[3] ?? "", new Error(message), inputForRefusal());
  try {
    await writeAllStdout(hookAnswerText(answer.stdout), false);
  } finally {
    // exactly what the hook's own failure answers (cli/hook.ts): the reason is in the answer
    if (answer.stderr) process.stderr.write(answer.stderr);
    process.exit(answer.exitCode);
  }
}

/** The hook input as far as it can still be had: what was read, else what standard input still holds. */
function inputForRefusal(): string | undefined {
  if (typeof hookInput === "string") return hookInput;
  if (hookInput === null || stdinStreamOpened() || stdinIsTerminal()) return undefined;
  try {
    return readFileSync(0, "utf8");
  } catch {
    return undefined;
  }
}

async function runHook(): Promise<void> {
  const mode = serviceMode(process.env);
  let cwd: string;
  try {
    cwd = process.cwd();
  } catch (e) {
    return refuse(`the folder this hook was started in cannot be read (${(e as Error).message}); it may have been removed`);
  }
  const socket = mode === "off" ? undefined : serviceSocket(BUNDLE, process.env);
  if (!socket) {
    if (mode === "require") return refuse("INTENT_LSP_HOOK_SERVICE=require, and this environment can have no hook service");
    return runHere();
  }
  const r = await callService(socket, process.argv.slice(2), process.env, cwd);
  if (r.kind === "absent") {
    if (mode === "require") return refuse("INTENT_LSP_HOOK_SERVICE=require, and no hook service is listening");
    startService(socket, __filename, process.env);
    return runHere();
  }
  if (r.kind === "unreadable") return refuse(r.why);
  if (r.kind === "silent") {
    hookInput = r.input;
    return refuse(`the hook service took the call and gave no answer (${r.why})`);
  }
  if (r.kind === "dropped") {
    // the service no longer runs the call: this process answers it, from the input it already read
    hookInput = r.input;
    if (mode === "require") return refuse(`the hook service took the call and gave no answer (${r.why})`);
    if (r.input !== null) handOverStdin(r.input);
    return runHere();
  }
  await writeAllStdout(r.reply.stdout, false);
  if (r.reply.stderr) process.stderr.write(r.reply.stderr);
  process.exitCode = r.reply.code;
}

if (isHook) runHook().catch((err) => blockOrFail((err as Error)?.message ?? String(err)));
else runHere();
