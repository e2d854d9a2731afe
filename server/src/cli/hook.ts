import type { HookEnvironment } from "../io/agent/events";
import { claudeCodeFailure, claudeCodeHook } from "./hook/claudeCode";
import { cursorFailure, cursorHook } from "./hook/cursor";
import type { HookAnswer } from "./hook/payload";
import { INTENT_LSP_VERSION } from "../version";
import { CliError, parse, ROOT_OPTION, type Command } from "./args";

const USAGE = `intent hook claude-code|cursor [--root DIR]

Reads one hook event (JSON) on standard input and answers on standard output in that agent's protocol.
Before a write (Claude Code PreToolUse; Cursor preToolUse): allow when the session's intent owns the file and
is IN_PROGRESS, otherwise deny with the reason and the next step. Shell commands that look like they write
files are put to the user ("ask"). After a write (PostToolUse; afterFileEdit): one Agent Trace record for the
lines the write produced, with the model's id. SessionStart/SessionEnd keep the session file.
Any failure denies (fail closed); see the README for the configuration snippets.`;

const AGENTS: Record<string, { handle: (payload: unknown, henv: HookEnvironment) => Promise<HookAnswer>; failure: (err: unknown, payload?: unknown) => HookAnswer }> = {
  "claude-code": { handle: claudeCodeHook, failure: claudeCodeFailure },
  cursor: { handle: cursorHook, failure: cursorFailure },
};

export const hookCommand: Command = {
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parse("hook", argv, { ...ROOT_OPTION }, { min: 1, max: 1 });
    const agent = AGENTS[positionals[0]!];
    if (!agent) throw new CliError(`unknown agent "${positionals[0]}"; use claude-code or cursor`, 2);

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
      answer = await agent.handle(payload, { rootOverride: values.root, env: io.env, toolVersion: INTENT_LSP_VERSION });
    } catch (err) {
      answer = agent.failure(err, payload);
    }
    try {
      await io.write(answer.stdout);
      if (answer.stderr) io.err(answer.stderr);
      return answer.exitCode;
    } catch (err) {
      // stdout is gone: exit code 2 with the reason on stderr also blocks the call in Claude Code
      io.err(`intent hook: could not answer (${(err as Error).message}); blocking the call\n`);
      return 2;
    }
  },
};
