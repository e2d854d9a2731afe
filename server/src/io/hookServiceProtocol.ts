/**
 * What the launcher (launch/hookClient.ts) and the hook service (cli/hookService.ts) say to each other over
 * the service's socket: the service's greeting line, then one request line, then one reply line, each JSON.
 * A module of its own so that the launcher loads none of the CLI.
 */

/** Not a command: the launcher's argument that starts the hook service instead of a command. */
export const SERVE_HOOKS = "__serve-hooks";

/**
 * The service greets each connection it accepts before it reads the call: a caller whose connection breaks
 * before the greeting knows the call never ran, and answers it itself.
 */
export const GREETING = "intent-hook-service 1\n";

export interface HookRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The caller's standard input; null when it is a terminal (nothing was piped in). */
  stdin: string | null;
}

export interface HookReply {
  stdout: string;
  stderr: string;
  code: number;
}
