/**
 * `intent`: the CLI door to the engine (docs/CLI.md and docs/AGENTS.md). Each subcommand is its own module, loaded only when it
 * runs: an agent hook is called on every tool use, and should not pay for loading `check` or `migrate`.
 */
import { INTENT_LSP_VERSION } from "../version";
import { CliError, wantsHelp, type Command, type Io } from "./args";
import { COMMAND_NAMES, isCommandName, type CommandName } from "./commandNames";
import { readAllStdin, stdinIsTerminal, stdinStreamOpened, writeAllStdout, writeStdoutNow } from "../io/stdio";
import { failureAnswer } from "./hook/failures";
import { oneLine, terminalOutput } from "../engine/terminalText";
import type { CompletedCommand } from "../engine/shellCompletion";

interface Entry {
  summary: string;
  /** A plain require, so the bundler evaluates the module only when its command runs. */
  load: () => Command;
}

const COMMANDS: { readonly [name in CommandName]: Entry } = {
  init: {
    summary: "set the repository up: intents file, git attributes and ignores, agent hooks",
    load: () => (require("./init") as typeof import("./init")).initCommand,
  },
  doctor: {
    summary: "check the setup: hooks answering, intents valid, ledger verifying, stale locks",
    load: () => (require("./doctor") as typeof import("./doctor")).doctorCommand,
  },
  check: {
    summary: "check changed lines against the ledger and the intents (CI, pre-commit)",
    load: () => (require("./check") as typeof import("./check")).checkCommand,
  },
  blame: { summary: "show who wrote each line, under which intent", load: () => (require("./blame") as typeof import("./blame")).blameCommand },
  revert: {
    summary: "take back what one intent, model or session wrote: a patch, or --apply",
    load: () => (require("./revert") as typeof import("./revert")).revertCommand,
  },
  stats: {
    summary: "how much of the code AI wrote: by intent, model, person and folder; history",
    load: () => (require("./stats") as typeof import("./stats")).statsCommand,
  },
  report: {
    summary: "write the insight report: one self-contained HTML page with charts and the lines behind them",
    load: () => (require("./report") as typeof import("./report")).reportCommand,
  },
  hook: {
    summary: "answer an agent's hook call (claude-code, cursor, codex, gemini, copilot, windsurf, cline, droid, qwen, kiro, goose, auggie, opencode, amp)",
    load: () => (require("./hook") as typeof import("./hook")).hookCommand,
  },
  select: {
    summary: "select the active intent (workspace-wide or for one session)",
    load: () => (require("./select") as typeof import("./select")).selectCommand,
  },
  start: { summary: "start (or resume) an intent", load: () => (require("./lifecycle") as typeof import("./lifecycle")).startCommand },
  complete: { summary: "complete an intent", load: () => (require("./lifecycle") as typeof import("./lifecycle")).completeCommand },
  block: { summary: "block an intent", load: () => (require("./lifecycle") as typeof import("./lifecycle")).blockCommand },
  archive: { summary: "archive an intent", load: () => (require("./lifecycle") as typeof import("./lifecycle")).archiveCommand },
  status: {
    summary: "show the selection, the intents, YAML problems and live sessions",
    load: () => (require("./status") as typeof import("./status")).statusCommand,
  },
  context: { summary: "print the curated <intent_context> XML for an intent", load: () => (require("./context") as typeof import("./context")).contextCommand },
  verify: {
    summary: "verify the ledger: schema, torn lines, tamper-evident chain",
    load: () => (require("./verify") as typeof import("./verify")).verifyCommand,
  },
  ledger: {
    summary: "seal older ledger records into compressed segments (intent ledger compact)",
    load: () => (require("./ledger") as typeof import("./ledger")).ledgerCommand,
  },
  export: {
    summary: "write the ledger's records as plain Agent Trace JSONL, or the workspace's facts as Parquet (--format parquet)",
    load: () => (require("./ledger") as typeof import("./ledger")).exportCommand,
  },
  org: {
    summary: "an organisation's numbers from many repositories' Parquet exports (DuckDB; the SQL runs on Spark too)",
    load: () => (require("./org") as typeof import("./org")).orgCommand,
  },
  map: { summary: "rebuild .orchestration/intent_map.md from the ledger", load: () => (require("./map") as typeof import("./map")).mapCommand },
  import: {
    summary: "turn git-ai's authorship notes (refs/notes/ai) into ledger records (intent import git-ai)",
    load: () => (require("./import") as typeof import("./import")).importCommand,
  },
  migrate: {
    summary: "convert an older-dialect ledger into Agent Trace records, in a new file",
    load: () => (require("./migrate") as typeof import("./migrate")).migrateCommand,
  },
  completion: {
    summary: "print a shell completion script for intent (bash, zsh or fish)",
    load: () => (require("./completion") as typeof import("./completion")).completionCommand(completedCommands),
  },
};

/** Every command as shell completion offers it: its name, its summary and the long options it parses. */
function completedCommands(): CompletedCommand[] {
  return COMMAND_NAMES.map((name) => ({
    name,
    summary: COMMANDS[name].summary,
    options: Object.entries(COMMANDS[name].load().options).map(([option, spec]) => ({ name: option, takesValue: spec.type === "string" })),
  }));
}

function help(): string {
  const width = Math.max(...COMMAND_NAMES.map((name) => name.length));
  return `intent ${INTENT_LSP_VERSION} — intent scopes and Agent Trace attribution for terminals, agents and CI

Usage: intent <command> [options]

Commands:
${COMMAND_NAMES.map((name) => `  ${name.padEnd(width)}  ${COMMANDS[name].summary}`).join("\n")}

Every command finds the workspace from the current directory (the nearest folder holding
.orchestration/active_intents.yaml, else the git top level); --root DIR overrides.
Run \`intent <command> --help\` for a command's options.
`;
}

/**
 * What a command prints for people (`out`, `err`) goes out with its control characters escaped: a name or a
 * path from a repository or a ledger must not drive the terminal (docs/SECURITY.md "Text from a repository is shown as
 * text"). `write` is the exact answer a program reads (a hook's JSON, whose strings cli/hook.ts escapes; the
 * report page; exported records).
 */
function textIo(io: Io): Io {
  return { ...io, out: (text) => io.out(terminalOutput(text)), err: (text) => io.err(terminalOutput(text)) };
}

export async function main(argv: string[], rawIo: Io): Promise<number> {
  const io = textIo(rawIo);
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(help());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-v") {
    io.out(`${INTENT_LSP_VERSION}\n`);
    return 0;
  }
  const entry = isCommandName(name) ? COMMANDS[name] : undefined;
  if (!entry) {
    io.err(`intent: unknown command "${name}"; run \`intent --help\` for the list\n`);
    return 2;
  }
  const command = entry.load();
  if (wantsHelp(rest)) {
    io.out(`Usage: ${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // a CliError is one line but for the values it quotes, whose line breaks it shows; any other error's
    // first line says what broke
    io.err(`intent ${name}: ${err instanceof CliError ? oneLine(message) : message.split("\n")[0]}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}

/** Standard input read line by line, once a command asks the person something; closed when the command ends. */
let answers: { reader: import("node:readline").Interface; lines: AsyncIterator<string> } | undefined;

/** Whether the command wrote its answer: a failure after that must not add a second one. */
let hookAnswered = false;

function processIo(): Io {
  // whether anything went through process.stdout: the answer then follows it through the same stream
  let stdoutUsed = false;
  return {
    readLine: async () => {
      if (!answers) {
        const reader = (require("node:readline") as typeof import("node:readline")).createInterface({ input: process.stdin, terminal: false });
        answers = { reader, lines: reader[Symbol.asyncIterator]() };
      }
      const next = await answers.lines.next();
      return next.done ? undefined : next.value;
    },
    out: (text) => {
      stdoutUsed = true;
      process.stdout.write(text);
    },
    write: (text) => {
      hookAnswered = true;
      return writeAllStdout(text, stdoutUsed);
    },
    err: (text) => void process.stderr.write(text),
    progress: {
      isTTY: process.stderr.isTTY === true,
      get columns() {
        return process.stderr.columns;
      },
      write: (text) => void process.stderr.write(text),
    },
    cwd: process.cwd(),
    env: process.env,
    readStdin: async () => {
      if (stdinIsTerminal()) throw new Error("nothing on standard input: an agent pipes its hook event (JSON) into this command");
      return readAllStdin();
    },
  };
}

/** Runs `intent` as this process's program: arguments from argv, exit code set, failures reported. */
export function runAsProgram(): void {
  // For an agent's hook, exit code 2 blocks the tool call and any other failure lets it through: whatever
  // goes wrong outside the hook's own fail-closed handling (a module that fails to load, a stray exception)
  // must still block.
  // It answers in the agent's own protocol (cli/hook/answers.ts) unless the hook already answered.
  const isHook = process.argv[2] === "hook";
  const fail = (err: unknown) => {
    const message = (err as Error)?.message ?? String(err);
    if (!isHook) {
      process.stderr.write(terminalOutput(`intent: ${message}\n`));
      process.exit(1);
    }
    const answer = failureAnswer(process.argv[3] ?? "", err);
    // stdout may be gone: the exit code below still blocks where the agent reads it
    if (!hookAnswered) writeStdoutNow(answer.stdout);
    process.stderr.write(terminalOutput(`intent: ${message} (blocking the call)\n`));
    process.exit(hookAnswered ? 2 : answer.exitCode);
  };
  process.on("uncaughtException", fail);
  void main(process.argv.slice(2), processIo()).then((code) => {
    answers?.reader.close();
    // touching process.stdin would open it: only a stream that was opened needs pausing
    if (answers || stdinStreamOpened()) process.stdin.pause();
    process.exitCode = code;
  }, fail);
}
