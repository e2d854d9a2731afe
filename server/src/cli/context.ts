import { CONTEXT_BUDGET_BYTES } from "../engine/context";
import { gatherIntentContext } from "../io/contextSources";
import { CliError, parse, ROOT_OPTION, type Command, type Options } from "./args";
import { openWorkspace, readLedger } from "./workspace";

const USAGE = `intent context ID [--budget BYTES] [--root DIR]

Prints the curated <intent_context> XML for an intent: its scope, constraints (inherited ones included) and
acceptance criteria, excerpts of its related specs, the files it concerns and its recent trace. It fits a
budget (default ${CONTEXT_BUDGET_BYTES} bytes): the oldest trace entries go first, then spec excerpts, then related files.`;

const OPTIONS = { ...ROOT_OPTION, budget: { type: "string" } } as const satisfies Options;

export const contextCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io) {
    const { values, positionals } = parse("context", argv, OPTIONS, { min: 1, max: 1 });
    const budget = values.budget === undefined ? CONTEXT_BUDGET_BYTES : Number(values.budget);
    if (!Number.isInteger(budget) || budget < 256) throw new CliError(`--budget ${values.budget} must be a whole number of bytes, at least 256`, 2);
    const ws = openWorkspace(io, values.root, { requireIntents: true });
    const id = positionals[0]!;
    const intent = ws.rules.catalogue.byId.get(id);
    if (!intent) throw new CliError(`no intent ${id} in active_intents.yaml; \`intent status\` lists the intents`);
    const ledger = await readLedger(ws, { partial: true });
    io.out(gatherIntentContext(ws.root, ws.rules, ledger, intent, budget).xml);
    return 0;
  },
};
