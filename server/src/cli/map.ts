import { join } from "node:path";
import { writeFileAtomic } from "../engine/atomicWrite";
import { renderIntentMap } from "../engine/intentMap";
import { INTENT_MAP_FILE, readOptional } from "../engine/workspaceFiles";
import { parse, ROOT_OPTION, type Command } from "./args";
import { openWorkspace, readLedger } from "./workspace";

const USAGE = `intent map [--root DIR]

Rebuilds ${INTENT_MAP_FILE} (intent → files, edits, last change) from the ledger. Running it again on an
unchanged ledger leaves the file untouched.`;

export const mapCommand: Command = {
  usage: USAGE,
  async run(argv, io) {
    const { values } = parse("map", argv, { ...ROOT_OPTION });
    const ws = openWorkspace(io, values.root, { requireIntents: true });
    const ledger = await readLedger(ws);
    const text = renderIntentMap(ws.rules.catalogue, ledger);
    const file = join(ws.root, INTENT_MAP_FILE);
    if (readOptional(file) === text) {
      io.out(`${INTENT_MAP_FILE} is up to date (${ws.rules.catalogue.intents.length} intents, ${ledger.recordCount} records).\n`);
      return 0;
    }
    writeFileAtomic(file, text);
    io.out(`Wrote ${INTENT_MAP_FILE} (${ws.rules.catalogue.intents.length} intents, ${ledger.recordCount} records).\n`);
    return 0;
  },
};
