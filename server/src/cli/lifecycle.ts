import { moveRefusal, refusalMessage, type NextStep, type Refusal } from "../engine/intents/lifecycle";
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
      const refusal = moveRefusal(id, from, to);
      if (refusal) throw new CliError(cliRefusal(!from && ws.rules.intents.hasErrors ? { ...refusal, reason: `${refusal.reason} (the file has errors)` } : refusal));
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

const MOVES: Partial<Record<IntentStatus, { command: string; does: string }>> = {
  IN_PROGRESS: { command: "start", does: "starts" },
  COMPLETE: { command: "complete", does: "completes" },
  BLOCKED: { command: "block", does: "blocks" },
  ARCHIVED: { command: "archive", does: "archives" },
};

/** A next step as the command line that takes it. */
function cliStep(step: NextStep): string {
  switch (step.kind) {
    case "select":
      return step.start ? `\`intent select ${step.id} --start\` ${step.start === "resume" ? "resumes" : "starts"} and selects it` : `\`intent select ${step.id}\` selects it`;
    case "move": {
      const move = MOVES[step.to]!; // no command moves an intent back to PENDING, and no refusal suggests it
      return `\`intent ${move.command} ${step.id}\` ${step.to === "IN_PROGRESS" && step.from === "BLOCKED" ? "resumes" : move.does} it`;
    }
    case "list":
      return "`intent status` lists the intents to select (more work is a new intent, declared in .orchestration/active_intents.yaml)";
  }
}

/** A refusal of `intent select`, `start`, `complete`, … in the CLI's words: the commands that work instead. */
export function cliRefusal(refusal: Refusal): string {
  return refusalMessage(refusal, cliStep);
}
