import { oneLine } from "../engine/terminalText";
import type { FilePlan, FileRevert, RevertSelector } from "../engine/revert";
import { applyRevert, planRevert, revertResult } from "../io/revertPlan";
import { CliError, parse, ROOT_OPTION, type Command, type Options } from "./args";
import { unreadableWarnings } from "./blame";
import { openWorkspace, readLedger } from "./workspace";

const USAGE = `intent revert (--intent ID | --model MODEL | --session SESSION) [--since WHEN] [--dry-run | --apply] [--json] [--root DIR]

Takes back what one intent, model or session wrote, and nothing else: the lines whose owner (as \`intent
blame\` shows it) is one of its records, proven by the records' line maps (confidence exact or replayed),
are taken out, and the lines each of its changes replaced are put back where git holds the content the
change started from. Every line of its left alone is listed with the reason: since edited by someone else,
moved here from another path, or found by its content only (ambiguous). Nothing is guessed.

  --intent ID        the records made under this intent
  --model MODEL      the records of this model (anthropic/claude-sonnet-4-5, or claude-sonnet-4-5)
  --session SESSION  the records of this session (its id, or urn:intent-lsp:session:<id>)
  --since WHEN       only records made at or after WHEN (an ISO date or time: 2026-01-31, 2026-01-31T14:00Z)
  --dry-run          print the lines and the patch (\`git apply\`-able); the default
  --apply            write the files; the next save or \`intent check\` sees the change as the person's
  --json             {reverted, leftAlone, notes, patch, applied}

Exit code: 0 when records match (even if none of their lines can be reverted), 1 when no record matches,
2 for a usage mistake.`;

const OPTIONS = {
  ...ROOT_OPTION,
  intent: { type: "string" },
  model: { type: "string" },
  session: { type: "string" },
  since: { type: "string" },
  "dry-run": { type: "boolean" },
  apply: { type: "boolean" },
  json: { type: "boolean" },
} as const satisfies Options;

/** The one selector the options name, with `--since` read as a time. */
function selectorOf(values: { intent?: string; model?: string; session?: string; since?: string }): RevertSelector {
  const named = (["intent", "model", "session"] as const).filter((k) => values[k] !== undefined);
  if (named.length !== 1) {
    throw new CliError(
      named.length
        ? `--${named.join(" and --")} both given; name one contributor per revert (see \`intent revert --help\`)`
        : "name whose work to take back: --intent ID, --model MODEL or --session SESSION (see `intent revert --help`)",
      2,
    );
  }
  const key = named[0]!;
  const value = values[key]!.trim();
  if (!value) throw new CliError(`--${key} is empty; give the ${key} whose work to take back`, 2);
  let since: number | undefined;
  if (values.since !== undefined) {
    since = Date.parse(values.since);
    if (Number.isNaN(since)) throw new CliError(`--since "${values.since}" is not a date or time; give an ISO date like 2026-01-31 or 2026-01-31T14:00Z`, 2);
  }
  return { [key]: value, ...(since !== undefined ? { since } : {}) };
}

/** "3-5, 9" from [3, 4, 5, 9]. */
function lineRanges(lines: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < lines.length; ) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j]! + 1) j++;
    parts.push(i === j ? `${lines[i]}` : `${lines[i]}-${lines[j]}`);
    i = j + 1;
  }
  return parts.join(", ");
}

function listing(plans: readonly FilePlan[], reverts: readonly FileRevert[]): string {
  let out = "";
  for (const [i, plan] of plans.entries()) {
    const path = oneLine(plan.path);
    if (plan.reverted.length) out += `${path}: reverts line(s) ${lineRanges(plan.reverted)}\n`;
    for (const l of plan.leftAlone) out += `${path}:${l.line}: left alone (${l.reason}): ${oneLine(l.why)} │ ${oneLine(l.text)}\n`;
    for (const n of reverts[i]!.notes) out += `${path}:${n.line}: note: ${oneLine(n.note)}\n`;
  }
  return out;
}

export const revertCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io) {
    const { values } = parse("revert", argv, OPTIONS);
    if (values["dry-run"] && values.apply) throw new CliError("--dry-run and --apply both given; pick one (--dry-run is the default)", 2);
    const selector = selectorOf(values);
    const ws = openWorkspace(io, values.root);
    const ledger = await readLedger(ws);
    for (const warning of unreadableWarnings(ledger.unreadable(), "revert")) io.err(warning);
    const plan = planRevert(ws.root, ledger, selector);
    if (!plan.matched) {
      const [key, value] = Object.entries(selector).find(([k]) => k !== "since")!;
      throw new CliError(
        `no record of ${key} ${value}${selector.since !== undefined ? ` since ${values.since}` : ""} in the ledger of ${ws.root}; \`intent stats\` lists the intents, models and people on record`,
      );
    }
    const { files: shown, changed, patch } = plan;
    if (values.apply) applyRevert(ws.root, plan);
    if (values.json) {
      await io.write(`${JSON.stringify(revertResult(plan, values.apply === true), null, 2)}\n`);
      return 0;
    }
    io.out(
      listing(
        shown.map((s) => s.plan),
        shown.map((s) => s.revert),
      ),
    );
    if (!changed.length) {
      io.out("nothing to revert: no line of its survives as it wrote it\n");
      return 0;
    }
    if (values.apply) {
      for (const r of changed) io.out(`wrote ${oneLine(r.path)}\n`);
      io.out(
        "the change is the person's: the next save in the editor or a commit with its record explains it; `intent blame` no longer names the contributor on the reverted lines\n",
      );
      return 0;
    }
    // the patch byte for byte (git apply reads it): lines with carriage returns or tabs stay as they are
    io.out("\n");
    await io.write(patch);
    return 0;
  },
};
