import { COMPLETION_SHELLS, completionScript, type CompletedCommand, type CompletionShell } from "../engine/shellCompletion";
import { CliError, parse, type Command } from "./args";

const USAGE = `intent completion bash|zsh|fish

Prints a completion script for the \`intent\` command: its commands and each command's options.
  bash:  source <(intent completion bash)     (every shell: save it as ~/.local/share/bash-completion/completions/intent)
  zsh:   source <(intent completion zsh)      (every shell: save it as _intent in a folder of $fpath)
  fish:  intent completion fish | source      (every shell: save it as ~/.config/fish/completions/intent.fish)`;

/** The command, given the CLI's command table (main.ts) as the script's commands, asked only when it runs. */
export function completionCommand(commands: () => readonly CompletedCommand[]): Command {
  return {
    usage: USAGE,
    options: {},
    async run(argv, io) {
      const { positionals } = parse("completion", argv, {}, { min: 1, max: 1 });
      const shell = positionals[0]!;
      if (!(COMPLETION_SHELLS as readonly string[]).includes(shell))
        throw new CliError(`no completion for the shell "${shell}"; the shells are ${COMPLETION_SHELLS.join(", ")}`, 2);
      await io.write(completionScript(shell as CompletionShell, "intent", commands()));
      return 0;
    },
  };
}
