/**
 * The completion scripts `intent completion bash|zsh|fish` prints, made from the CLI's own command table:
 * each subcommand with its summary and the long options it parses, so the scripts never list a command or
 * an option the CLI does not have. A word that is not an option completes as a file name (the shell's own).
 */

export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

export interface CompletedOption {
  /** The long name, without its dashes. */
  name: string;
  /** Whether a value follows it (`--out FILE`), which then completes as a file name. */
  takesValue: boolean;
}

export interface CompletedCommand {
  name: string;
  summary: string;
  options: readonly CompletedOption[];
}

/** Options every command accepts, whatever it parses. */
const HELP: CompletedOption = { name: "help", takesValue: false };
/** What `intent` alone accepts besides a command. */
const TOP_LEVEL = ["--help", "--version"];

export function completionScript(shell: CompletionShell, program: string, commands: readonly CompletedCommand[]): string {
  if (shell === "bash") return bashScript(program, commands);
  if (shell === "zsh") return zshScript(program, commands);
  return fishScript(program, commands);
}

function optionsOf(command: CompletedCommand): CompletedOption[] {
  return [...command.options, HELP];
}

/** A shell word: only letters, digits and `-_.` appear unquoted in the scripts. */
function isPlainWord(word: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(word);
}

function plainWords(commands: readonly CompletedCommand[]): void {
  for (const c of commands) {
    if (!isPlainWord(c.name)) throw new Error(`the command name "${c.name}" cannot be written into a completion script`);
    for (const o of c.options) if (!isPlainWord(o.name)) throw new Error(`the option --${o.name} of ${c.name} cannot be written into a completion script`);
  }
}

/** Text inside single quotes, for bash, zsh and fish alike (fish also reads `\'` inside them). */
function singleQuoted(text: string, shell: CompletionShell): string {
  return shell === "fish" ? `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'` : `'${text.replace(/'/g, `'\\''`)}'`;
}

function functionName(program: string): string {
  return `_${program.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

function bashScript(program: string, commands: readonly CompletedCommand[]): string {
  plainWords(commands);
  const fn = functionName(program);
  const cases = commands.map(
    (c) =>
      `    ${c.name}) options="${optionsOf(c)
        .map((o) => `--${o.name}`)
        .join(" ")}" ;;`,
  );
  return `# ${program} completion for bash. Load it in this shell:  source <(${program} completion bash)
# or for every shell: ${program} completion bash > ~/.local/share/bash-completion/completions/${program}
${fn}() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  COMPREPLY=()
  if [[ \${COMP_CWORD} -eq 1 ]]; then
    if [[ \${cur} == -* ]]; then
      COMPREPLY=($(compgen -W "${TOP_LEVEL.join(" ")}" -- "\${cur}"))
    else
      COMPREPLY=($(compgen -W "${commands.map((c) => c.name).join(" ")}" -- "\${cur}"))
    fi
    return 0
  fi
  # anything but an option completes as a file name (complete -o default)
  [[ \${cur} == -* ]] || return 0
  local options=""
  case \${COMP_WORDS[1]} in
${cases.join("\n")}
  esac
  COMPREPLY=($(compgen -W "\${options}" -- "\${cur}"))
  return 0
}
complete -o default -F ${fn} ${program}
`;
}

function zshScript(program: string, commands: readonly CompletedCommand[]): string {
  plainWords(commands);
  const fn = functionName(program);
  const described = commands.map((c) => `    ${singleQuoted(`${c.name}:${c.summary}`, "zsh")}`);
  const cases = commands.map(
    (c) =>
      `    (${c.name}) options=(${optionsOf(c)
        .map((o) => `--${o.name}`)
        .join(" ")}) ;;`,
  );
  return `#compdef ${program}
# ${program} completion for zsh. Load it in this shell:  source <(${program} completion zsh)
# or for every shell: ${program} completion zsh > "\${fpath[1]}/_${program}"
${fn}() {
  local -a commands options
  commands=(
${described.join("\n")}
  )
  if (( CURRENT == 2 )); then
    if [[ \${PREFIX} == -* ]]; then
      compadd -- ${TOP_LEVEL.join(" ")}
    else
      _describe -t commands '${program} command' commands
    fi
    return
  fi
  if [[ \${PREFIX} != -* ]]; then
    _files
    return
  fi
  case \${words[2]} in
${cases.join("\n")}
  esac
  compadd -a options
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${program}
fi
`;
}

function fishScript(program: string, commands: readonly CompletedCommand[]): string {
  plainWords(commands);
  const noCommand = `__${functionName(program).slice(1)}_no_command`;
  const lines = [
    `# ${program} completion for fish. Load it in this shell:  ${program} completion fish | source`,
    `# or for every shell: ${program} completion fish > ~/.config/fish/completions/${program}.fish`,
    `function ${noCommand}`,
    `    not __fish_seen_subcommand_from ${commands.map((c) => c.name).join(" ")}`,
    "end",
    `complete -c ${program} -e`,
    `complete -c ${program} -n ${noCommand} -f`,
    `complete -c ${program} -n ${noCommand} -l help -d 'show the commands'`,
    `complete -c ${program} -n ${noCommand} -l version -d 'show the version'`,
  ];
  for (const c of commands) lines.push(`complete -c ${program} -n ${noCommand} -a ${c.name} -d ${singleQuoted(c.summary, "fish")}`);
  for (const c of commands)
    for (const o of optionsOf(c)) lines.push(`complete -c ${program} -n "__fish_seen_subcommand_from ${c.name}" -l ${o.name}${o.takesValue ? " -r -F" : ""}`);
  return `${lines.join("\n")}\n`;
}
