import { userInfo } from "node:os";
import { personOf } from "../engine/contributor";
import { gitIdentity } from "../io/git";
import { selectIntent } from "../io/selection";
import { CliError, parse, ROOT_OPTION, type Command, type Options } from "./args";
import { cliRefusal } from "./lifecycle";
import { openWorkspace } from "./workspace";

const USAGE = `intent select ID [--start] [--session SESSION] [--root DIR]
intent select --clear [--session SESSION] [--root DIR]

Selects the intent edits count under. Without --session this is the workspace selection: the same operation
as selecting in the editor, followed by every editor and agent that has no selection of its own. With
--session it is that session's own selection (agents: the id in \`intent status\`, e.g. claude-<id>).

  --start     start a PENDING or BLOCKED intent (move it to IN_PROGRESS) and select it
  --clear     clear the selection (a session then follows the workspace again)`;

const OPTIONS = { ...ROOT_OPTION, session: { type: "string" }, clear: { type: "boolean" }, start: { type: "boolean" } } as const satisfies Options;

export const selectCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io) {
    const { values, positionals } = parse("select", argv, OPTIONS, { min: 0, max: 1 });
    const id = positionals[0];
    if (!id && !values.clear) throw new CliError("name the intent to select (e.g. `intent select INT-001`) or pass --clear", 2);
    if (id && values.clear) throw new CliError("give an intent id or --clear, not both", 2);
    const ws = openWorkspace(io, values.root, { requireIntents: true });
    const session = values.session;
    const result = await selectIntent(ws.root, ws.rules, id ?? null, {
      start: values.start,
      explain: cliRefusal,
      session,
      by: `cli (${safeUser()})`,
      now: new Date(),
      ...(values.start ? { person: personOf(ws.rules.settings.identity, gitIdentity(ws.root)) } : {}),
    });
    if (!result.ok) throw new CliError(result.reason);
    const { intent, startedFrom } = result;
    if (intent && startedFrom) io.out(`${intent.id}: ${startedFrom} → IN_PROGRESS\n`);
    const label = intent ? `${intent.id} (${intent.name})` : undefined;
    if (session !== undefined) {
      io.out(label ? `Selected ${label} for session ${session}.\n` : `Session ${session} follows the workspace selection again.\n`);
    } else {
      io.out(
        label
          ? `Selected ${label} for the workspace; editors and agents without a selection of their own follow it.\n`
          : `Cleared the workspace selection; edits count under an intent only by auto-selection${ws.rules.settings.autoSelect ? "" : " (which is off: select an intent to edit)"}.\n`,
      );
    }
    return 0;
  },
};

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return "unknown user";
  }
}
