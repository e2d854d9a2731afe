/**
 * The CLI's subcommands, in the order `intent --help` lists them. One list: the CLI's table (main.ts) must
 * have an entry for each, and the launcher (launch/cli.ts) keeps one code cache per subcommand by it.
 */
export const COMMAND_NAMES = [
  "init",
  "doctor",
  "check",
  "blame",
  "revert",
  "stats",
  "report",
  "hook",
  "select",
  "start",
  "complete",
  "block",
  "archive",
  "status",
  "context",
  "verify",
  "ledger",
  "export",
  "org",
  "import",
  "map",
  "migrate",
  "completion",
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];

export function isCommandName(name: string): name is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}
