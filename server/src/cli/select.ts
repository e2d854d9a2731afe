import { userInfo } from "node:os";
import { clientOfSession } from "../engine/hooks/agentSession";
import { modifyIntentsFile } from "../engine/intents/store";
import { transition } from "../engine/intents/writeback";
import { newSessionRecord, readSession, writeSession, writeWorkspaceSelection } from "../engine/sessions";
import { CliError, parse, ROOT_OPTION, type Command } from "./args";
import { openWorkspace } from "./workspace";

const USAGE = `intent select ID [--start] [--session SESSION] [--root DIR]
intent select --clear [--session SESSION] [--root DIR]

Selects the intent edits count under. Without --session this is the workspace selection: the same operation
as selecting in the editor, followed by every editor and agent that has no selection of its own. With
--session it is that session's own selection (agents: the id in \`intent status\`, e.g. claude-<id>).

  --start     start a PENDING or BLOCKED intent (move it to IN_PROGRESS) and select it
  --clear     clear the selection (a session then follows the workspace again)`;

export const selectCommand: Command = {
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parse(
      "select",
      argv,
      { ...ROOT_OPTION, session: { type: "string" }, clear: { type: "boolean" }, start: { type: "boolean" } },
      { min: 0, max: 1 },
    );
    const id = positionals[0];
    if (!id && !values.clear) throw new CliError("name the intent to select (e.g. `intent select INT-001`) or pass --clear", 2);
    if (id && values.clear) throw new CliError("give an intent id or --clear, not both", 2);
    const ws = openWorkspace(io, values.root, { requireIntents: true });
    const by = `cli (${safeUser()})`;

    if (id) {
      const intent = ws.rules.catalogue.byId.get(id);
      if (!intent) throw new CliError(`no intent ${id} in active_intents.yaml${ws.rules.intents.hasErrors ? " (the file has errors: `intent status` lists them)" : ""}; \`intent status\` lists the intents`);
      if (intent.status !== "IN_PROGRESS") {
        if (!values.start) throw new CliError(`${id} is ${intent.status}; start it first (\`intent start ${id}\`) or pass --start to start and select it`);
        const result = await modifyIntentsFile(ws.root, ws.rules.intentsText, (text) => transition(text, id, "IN_PROGRESS", new Date()));
        if (!result.ok) throw new CliError(result.reason);
        io.out(`${id}: ${intent.status} → IN_PROGRESS\n`);
      }
    }
    const intentId = id ?? null;
    const label = id ? `${id} (${ws.rules.catalogue.byId.get(id)!.name})` : undefined;

    if (values.session) {
      const existing = readSession(ws.root, values.session);
      const record = existing ?? { ...newSessionRecord(values.session, clientOfSession(values.session)), pid: 0 };
      writeSession(ws.root, { ...record, intent: intentId, heartbeat: new Date().toISOString() });
      io.out(label ? `Selected ${label} for session ${values.session}.\n` : `Session ${values.session} follows the workspace selection again.\n`);
      return 0;
    }
    writeWorkspaceSelection(ws.root, intentId, by);
    io.out(
      label
        ? `Selected ${label} for the workspace; editors and agents without a selection of their own follow it.\n`
        : `Cleared the workspace selection; edits count under an intent only by auto-selection${ws.rules.settings.autoSelect ? "" : " (which is off: select an intent to edit)"}.\n`,
    );
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
