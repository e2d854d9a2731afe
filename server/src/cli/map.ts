import { regenerateIntentMap } from "../io/intentMap";
import { INTENT_MAP_FILE } from "../engine/workspaceFiles";
import { parse, ROOT_OPTION, type Command } from "./args";
import { openWorkspace, readLedger } from "./workspace";

const USAGE = `intent map [--root DIR]

Rebuilds ${INTENT_MAP_FILE} (intent → files, edits, last change) from the ledger. Running it again on an
unchanged ledger leaves the file untouched.`;

export const mapCommand: Command = {
  usage: USAGE,
  options: ROOT_OPTION,
  async run(argv, io) {
    const { values } = parse("map", argv, ROOT_OPTION);
    const ws = openWorkspace(io, values.root, { requireIntents: true });
    const ledger = await readLedger(ws);
    const { path, changed } = regenerateIntentMap(ws.root, ws.rules.catalogue, ledger);
    const counts = `${ws.rules.catalogue.intents.length} intents, ${ledger.recordCount} records`;
    io.out(changed ? `Wrote ${path} (${counts}).\n` : `${path} is up to date (${counts}).\n`);
    return 0;
  },
};
