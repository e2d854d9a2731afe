/** Command-line plumbing shared by the subcommands: parsing, errors, output. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { ProgramRunner } from "../io/program";
import { startProgress, type Progress, type ProgressTerminal } from "../io/progress";

/** An error the user can act on; printed as one line, exit code 2 for usage mistakes, 1 otherwise. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface Io {
  out(text: string): void;
  /** Writes and waits until the text is handed to the OS (the hook must know its answer got out). */
  write(text: string): Promise<void>;
  err(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** All of standard input (the hook payload). */
  readStdin(): Promise<string>;
  /** The next line of standard input (a person's answer), undefined at its end. */
  readLine?(): Promise<string | undefined>;
  /** How a program (doctor's hook probe) is run; absent, as a child process (see ProgramRunner). */
  runProgram?: ProgramRunner;
  /** Standard error as a progress line draws on it (io/progress.ts); absent, no progress is shown. */
  progress?: ProgressTerminal;
}

/**
 * The progress line of a command's long work (io/progress.ts): on a terminal only, and not under CI. What the
 * work warns of meanwhile is said on standard error once the line is gone: a line written under it would be
 * drawn over.
 */
export function progressOf(io: Io, initial: string): Progress & { warn(text: string): void } {
  const line = startProgress(io.progress, io.env, initial);
  const held: string[] = [];
  return {
    update: (text) => line.update(text),
    warn: (text) => held.push(text),
    done: () => {
      line.done();
      for (const text of held.splice(0)) io.err(text);
    },
  };
}

export interface Command {
  usage: string;
  /** The options `run` parses (with `parse`): also what shell completion offers after the command. */
  options: Options;
  run(argv: string[], io: Io): Promise<number>;
}

export type Options = NonNullable<ParseArgsConfig["options"]>;

/** `--root` is accepted by every command that works in a workspace. */
export const ROOT_OPTION = { root: { type: "string" } } as const satisfies Options;

/**
 * util.parseArgs with the errors rephrased for people: what was wrong, and where to read more.
 * `--help` is handled by the caller before this runs.
 */
export function parse<O extends Options>(command: string, argv: string[], options: O, positionals = { min: 0, max: 0 }) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: boolean; strict: true }>>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: positionals.max > 0, strict: true });
  } catch (e) {
    const msg = (e as Error).message.replace(/\. To specify a positional argument.*$/, "");
    throw new CliError(`${msg}; see \`intent ${command} --help\``, 2);
  }
  const n = parsed.positionals.length;
  if (n < positionals.min) throw new CliError(`missing argument; see \`intent ${command} --help\``, 2);
  if (n > positionals.max) throw new CliError(`unexpected argument "${parsed.positionals[positionals.max]}"; see \`intent ${command} --help\``, 2);
  return parsed;
}

export function wantsHelp(argv: string[]): boolean {
  return argv.includes("--help") || argv.includes("-h");
}
