import type { IntentStatus } from "../engine/intents/model";
import { modifyIntentsFile } from "../io/intents/store";
import { transition } from "../engine/intents/writeback";
import { CliError, parse, ROOT_OPTION, type Command } from "./args";
import { openWorkspace } from "./workspace";

/**
 * `intent start|complete|block|archive ID`: a lifecycle move written into active_intents.yaml, keeping its
 * comments and layout, refused with the lifecycle's reason when the move is not allowed (README "What it reads and writes").
 */
function lifecycleCommand(name: string, to: IntentStatus, summary: string): Command {
  return {
    usage: `intent ${name} ID [--root DIR]\n\n${summary[0]!.toUpperCase()}${summary.slice(1)}: sets its status to ${to} in .orchestration/active_intents.yaml\n(comments and formatting are kept; updated_at is bumped). Refused, with the reason, when the lifecycle does not allow it.`,
    async run(argv, io) {
      const { values, positionals } = parse(name, argv, { ...ROOT_OPTION }, { min: 1, max: 1 });
      const id = positionals[0]!;
      const ws = openWorkspace(io, values.root, { requireIntents: true });
      const from = ws.rules.catalogue.byId.get(id)?.status;
      const result = await modifyIntentsFile(ws.root, ws.rules.intentsText, (text) => transition(text, id, to, new Date()));
      if (!result.ok) throw new CliError(result.reason);
      io.out(`${id}: ${from} → ${to}\n`);
      return 0;
    },
  };
}

export const startCommand = lifecycleCommand("start", "IN_PROGRESS", "start (or resume) an intent");
export const completeCommand = lifecycleCommand("complete", "COMPLETE", "complete an intent");
export const blockCommand = lifecycleCommand("block", "BLOCKED", "block an intent");
export const archiveCommand = lifecycleCommand("archive", "ARCHIVED", "archive an intent");
