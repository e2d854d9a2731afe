import type { CriterionCheckMetadata, VerificationMetadata } from "@shared/agentTrace";
import { personOf } from "../engine/contributor";
import { moveRefusal, refusalMessage, type NextStep, type Refusal } from "../engine/intents/lifecycle";
import { criterionText } from "../engine/intents/load";
import type { Intent, IntentStatus } from "../engine/intents/model";
import { duration, failureClause, invalidCriteriaReason, passed, runCheck, runnable, sentences, skipped, verified } from "../engine/intents/verification";
import { runCriterion } from "../io/criteria/runCriterion";
import { gitIdentity } from "../io/git";
import { moveIntent } from "../io/intents/move";
import { CliError, parse, ROOT_OPTION, type Command, type Options, type Io } from "./args";
import { openWorkspace, type CliWorkspace } from "./workspace";

/**
 * `intent start|complete|block|archive ID`: a lifecycle move written into active_intents.yaml, keeping its
 * comments and layout, refused with the lifecycle's reason when the move is not allowed (docs/INTENTS.md "What it reads
 * and writes"), and kept in the ledger as a lifecycle record (docs/LEDGER.md). `complete` verifies the
 * intent's acceptance criteria first (docs/INTENTS.md "Acceptance criteria").
 */
function lifecycleCommand(name: string, to: IntentStatus, summary: string): Command {
  return {
    usage: `intent ${name} ID [--root DIR]\n\n${summary[0]!.toUpperCase()}${summary.slice(1)}: sets its status to ${to} in .orchestration/active_intents.yaml\n(comments and formatting are kept; updated_at is bumped) and records the move in the ledger. Refused, with the reason, when the lifecycle does not allow it.`,
    options: ROOT_OPTION,
    async run(argv, io) {
      const { values, positionals } = parse(name, argv, ROOT_OPTION, { min: 1, max: 1 });
      const { ws, intent } = movable(io, values.root, positionals[0]!, to);
      await move(io, ws, intent, to);
      return 0;
    },
  };
}

/** The workspace and the intent, when the lifecycle allows moving it to `to`; a CliError with the next steps otherwise. */
function movable(io: Io, root: string | undefined, id: string, to: IntentStatus): { ws: CliWorkspace; intent: Intent } {
  const ws = openWorkspace(io, root, { requireIntents: true });
  const intent = ws.rules.catalogue.byId.get(id);
  const refusal = moveRefusal(id, intent?.status, to);
  if (refusal)
    throw new CliError(cliRefusal(!intent && ws.rules.intents.hasErrors ? { ...refusal, reason: `${refusal.reason} (the file has errors)` } : refusal));
  return { ws, intent: intent! };
}

async function move(io: Io, ws: CliWorkspace, intent: Intent, to: IntentStatus, verification?: VerificationMetadata): Promise<void> {
  const result = await moveIntent({
    root: ws.root,
    ledgerPath: ws.rules.settings.ledgerPath,
    basedOn: ws.rules.intentsText,
    intentId: intent.id,
    from: intent.status,
    to,
    person: person(ws),
    verification,
  });
  if (!result.ok) throw new CliError(result.reason);
  io.out(`${intent.id}: ${intent.status} → ${to}\n`);
  if (!result.recorded) io.err(`intent: ${result.warning}\n`);
}

const person = (ws: CliWorkspace) => personOf(ws.rules.settings.identity, gitIdentity(ws.root));

export const startCommand = lifecycleCommand("start", "IN_PROGRESS", "start (or resume) an intent");
export const blockCommand = lifecycleCommand("block", "BLOCKED", "block an intent");
export const archiveCommand = lifecycleCommand("archive", "ARCHIVED", "archive an intent");

const COMPLETE_USAGE = `intent complete ID [--yes] [--skip-verify] [--root DIR]

Completes an intent once its acceptance criteria are verified: each { run: COMMAND } criterion runs from
the workspace root in your shell (one process each, killed at its timeout, default 10 minutes), and each
sentence is put to you to confirm (y/N). Only when every command exits 0 and every sentence is confirmed is
the status set to COMPLETE in .orchestration/active_intents.yaml (comments and formatting are kept) and the
verification recorded in the ledger (the criteria, exit codes, durations, who confirmed, at which commit;
\`intent status ID\` shows it). A failing criterion is named with the tail of its output, and nothing changes.

  --yes           confirm the sentences without asking (for scripts); the commands still run
  --skip-verify   complete without verifying; the ledger records that verification was skipped`;

const COMPLETE_OPTIONS = { ...ROOT_OPTION, yes: { type: "boolean" }, "skip-verify": { type: "boolean" } } as const satisfies Options;

export const completeCommand: Command = {
  usage: COMPLETE_USAGE,
  options: COMPLETE_OPTIONS,
  async run(argv, io) {
    const { values, positionals } = parse("complete", argv, COMPLETE_OPTIONS, { min: 1, max: 1 });
    const { ws, intent } = movable(io, values.root, positionals[0]!, "COMPLETE");
    if (values["skip-verify"]) {
      io.out(`Verification of ${intent.id}'s acceptance criteria skipped (--skip-verify); the ledger records that it was skipped.\n`);
      await move(io, ws, intent, "COMPLETE", skipped(person(ws)));
      return 0;
    }
    if (!intent.criteriaValid) throw new CliError(invalidCriteriaReason(intent.id));
    const checks = await verify(io, ws, intent, !!values.yes);
    await move(io, ws, intent, "COMPLETE", verified(checks, person(ws)));
    return 0;
  },
};

/** Runs the commands, then asks for the sentences; throws (changing nothing) at the first criterion that does not pass. */
async function verify(io: Io, ws: CliWorkspace, intent: Intent, yes: boolean): Promise<CriterionCheckMetadata[]> {
  const commands = runnable(intent);
  const toConfirm = sentences(intent);
  if (!commands.length && !toConfirm.length) {
    io.out(`${intent.id} has no acceptance criteria: nothing to verify.\n`);
    return [];
  }
  io.out(`Verifying ${intent.id} (${intent.name}): ${count(commands.length, "command")} to run, ${count(toConfirm.length, "sentence")} to confirm\n`);
  const checks: CriterionCheckMetadata[] = [];
  for (const [i, c] of commands.entries()) {
    const name = criterionText(c);
    io.out(`  [${i + 1}/${commands.length}] ${name}${c.name ? ` (${c.run})` : ""} …\n`);
    const outcome = await runCriterion(ws.root, c, { env: io.env });
    checks.push(runCheck(c, outcome));
    if (passed(outcome)) {
      io.out(`  ✓ ${name} (exit 0, ${duration(outcome.durationMs)})\n`);
      continue;
    }
    const why = failureClause(c, outcome);
    io.out(`  ✗ ${name} (${why})\n`);
    if (outcome.tail) io.err(`Output of "${name}" (last lines):\n${outcome.tail.replace(/^/gm, "  | ")}\n`);
    throw new CliError(
      `${intent.id} stays ${intent.status}: criterion "${name}" failed (${why}); nothing was changed. Fix it and run \`intent complete ${intent.id}\` again.`,
    );
  }
  for (const c of toConfirm) {
    let confirmed = yes;
    if (!yes) {
      io.err(`  Confirm: ${c.text} [y/N] `);
      const answer = (await io.readLine?.())?.trim().toLowerCase();
      confirmed = answer === "y" || answer === "yes";
      if (answer === undefined) io.err("\n");
    }
    if (!confirmed)
      throw new CliError(
        `${intent.id} stays ${intent.status}: "${c.text}" was not confirmed; nothing was changed. (\`--yes\` confirms the sentences for scripts.)`,
      );
    io.out(`  ✓ ${c.text} (confirmed${yes ? " by --yes" : ""})\n`);
    checks.push({ kind: "confirm", text: c.text, confirmed: true, how: yes ? "--yes" : "prompt" });
  }
  return checks;
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

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
      return step.start
        ? `\`intent select ${step.id} --start\` ${step.start === "resume" ? "resumes" : "starts"} and selects it`
        : `\`intent select ${step.id}\` selects it`;
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
