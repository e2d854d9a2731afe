import { spawnSync } from "node:child_process";

/** A program run to its end: what `intent doctor` learns from probing a hook command. */
export interface ProgramRun {
  /** The exit code; null when the program was killed (a timeout) or did not start. */
  status: number | null;
  stdout: string;
  stderr: string;
  /** Why the program could not be run or finished early (ENOENT, ETIMEDOUT, EPIPE). */
  error?: NodeJS.ErrnoException;
}

export interface ProgramOptions {
  cwd: string;
  /** Handed to the program's standard input. */
  input: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/**
 * Runs a program with an argument list, no shell, to its end. A caller that runs the CLI inside a process of
 * its own (a test of what doctor does with a workspace, not of processes) hands over one that runs `intent`
 * there too; everyone else runs a child process.
 */
export type ProgramRunner = (file: string, args: string[], options: ProgramOptions) => Promise<ProgramRun>;

export const runChildProgram: ProgramRunner = async (file, args, options) => {
  const r = spawnSync(file, args, { cwd: options.cwd, input: options.input, encoding: "utf8", env: options.env, timeout: options.timeoutMs });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", ...(r.error ? { error: r.error as NodeJS.ErrnoException } : {}) };
};
