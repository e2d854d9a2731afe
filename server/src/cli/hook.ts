import { hookAnswerText } from "../engine/terminalText";
import type { HookEnvironment } from "../io/agent/events";
import { claudeCodeHook } from "./hook/claudeCode";
import { clineHook } from "./hook/cline";
import { codexHook } from "./hook/codex";
import { copilotHook } from "./hook/copilot";
import { cursorHook } from "./hook/cursor";
import { droidHook } from "./hook/droid";
import { geminiHook } from "./hook/gemini";
import { windsurfHook } from "./hook/windsurf";
import { qwenHook } from "./hook/qwen";
import { kiroHook } from "./hook/kiro";
import { gooseHook } from "./hook/goose";
import { auggieHook } from "./hook/auggie";
import { ampHook, opencodeHook } from "./hook/plugin";
import type { HookAnswer } from "./hook/payload";
import { failureAnswer } from "./hook/failures";
import { INTENT_LSP_VERSION } from "../version";
import { CliError, parse, ROOT_OPTION, type Command } from "./args";

const USAGE = `intent hook AGENT [--root DIR]

AGENT: claude-code, cursor, codex, gemini, copilot (also VS Code's agent hooks), windsurf, cline, droid,
       qwen, kiro, goose, auggie, opencode or amp

Reads one hook event (JSON) on standard input and answers in that agent's protocol (stdout, stderr and the
exit code); \`intent init --agent AGENT\` writes each agent's configuration (for OpenCode and Amp, a plugin
that runs this command). Before a write (PreToolUse, preToolUse, BeforeTool, pre_write_code, …): allow when
the session's intent owns the file and is IN_PROGRESS, otherwise deny with the reason and the next step.
Before a shell command: a snapshot of git's view of the working tree (and, where the agent can ask, a
question to the user for commands that look like they write). After a write: one Agent Trace record for the
lines it produced, with the model's id; after a shell command: one record of every file it changed, files
outside the intent reported back. Any failure denies (fail closed); see the README for each agent's
configuration. A session denied 5 times within a minute is told to stop and ask the user
(\`circuitBreaker\` in config.jsonc).`;

const AGENTS: Record<string, (payload: unknown, henv: HookEnvironment) => Promise<HookAnswer>> = {
  "claude-code": claudeCodeHook,
  cursor: cursorHook,
  codex: codexHook,
  gemini: geminiHook,
  copilot: copilotHook,
  windsurf: windsurfHook,
  cline: clineHook,
  droid: droidHook,
  qwen: qwenHook,
  kiro: kiroHook,
  goose: gooseHook,
  auggie: auggieHook,
  opencode: opencodeHook,
  amp: ampHook,
};

export const AGENT_NAMES = Object.keys(AGENTS);

export const hookCommand: Command = {
  usage: USAGE,
  options: ROOT_OPTION,
  async run(argv, io) {
    const { values, positionals } = parse("hook", argv, ROOT_OPTION, { min: 1, max: 1 });
    const agentName = positionals[0]!;
    const handle = Object.hasOwn(AGENTS, agentName) ? AGENTS[agentName] : undefined;
    if (!handle) throw new CliError(`unknown agent "${positionals[0]}"; use one of ${AGENT_NAMES.join(", ")}`, 2);

    // From here on nothing may escape as a crash: the agent would read a crash as "go ahead".
    let answer: HookAnswer;
    let payload: unknown;
    try {
      const raw = await io.readStdin();
      try {
        payload = JSON.parse(raw);
      } catch (e) {
        throw new Error(`the hook input is not JSON (${(e as Error).message}); is this command configured as a hook?`);
      }
      answer = await handle(payload, { rootOverride: values.root, env: io.env, cwd: io.cwd, toolVersion: INTENT_LSP_VERSION });
    } catch (err) {
      answer = failureAnswer(agentName, err, payload);
    }
    try {
      // the strings of the answer reach the agent's terminal: intent names and paths from the repository in them are escaped
      await io.write(hookAnswerText(answer.stdout));
      if (answer.stderr) io.err(answer.stderr);
      return answer.exitCode;
    } catch (err) {
      // stdout is gone: exit code 2 with the reason on stderr also blocks the call in Claude Code
      io.err(`intent hook: could not answer (${(err as Error).message}); blocking the call\n`);
      return 2;
    }
  },
};
