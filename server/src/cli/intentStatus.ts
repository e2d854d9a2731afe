import { oneLine } from "../engine/terminalText";
import type { CriterionCheckMetadata, PersonMetadata } from "@shared/agentTrace";
import { criterionText } from "../engine/intents/load";
import { duration, seconds } from "../engine/intents/verification";
import { lastMove, type LifecycleEvent } from "../engine/ledger/lifecycle";
import { WorkspaceLifecycle } from "../io/intents/lifecycleLog";
import { refreshSealedCopy } from "../io/ledger/segments";
import { driftBase, driftMessage, driftRuns, runText } from "../engine/drift";
import { measureDrift } from "../io/drift";
import { CliError } from "./args";
import { readLedger, type CliWorkspace } from "./workspace";
import { appendAll } from "../engine/appendAll";

/**
 * `intent status ID`: one intent, its acceptance criteria, and its lifecycle as the ledger keeps it: the
 * commit it started at, and its completion with what was verified (docs/INTENTS.md "Acceptance criteria").
 */
export async function intentStatusReport(ws: CliWorkspace, id: string) {
  const intent = ws.rules.catalogue.byId.get(id);
  if (!intent)
    throw new CliError(
      `no intent ${id} in active_intents.yaml${ws.rules.intents.hasErrors ? " (the file has errors; `intent status` shows them)" : ""}; \`intent status\` lists the intents`,
    );
  // the moves of the sealed history too: a compaction seals them with every other record (a segment this
  // clone lacks is an error that says how to fetch it, not a history without the intent's start)
  refreshSealedCopy(ws.root, ws.rules.settings.ledgerPath);
  const events = (await new WorkspaceLifecycle(ws.root, () => ws.rules.settings.ledgerPath).read()).filter((e) => e.intentId === id);
  const base = driftBase(intent, events);
  const ledger = base ? await readLedger(ws) : undefined;
  const drift = ledger ? await measureDrift(ws.root, ws.rules, intent, events, (p) => ledger.entryBatches(p)) : undefined;
  return {
    intent,
    events,
    started: lastMove(events, id, "IN_PROGRESS"),
    completed: intent.status === "COMPLETE" ? lastMove(events, id, "COMPLETE") : undefined,
    base,
    drift,
  };
}

export type IntentStatusReport = Awaited<ReturnType<typeof intentStatusReport>>;

export function intentStatusJson(r: IntentStatusReport) {
  const { intent, events } = r;
  return {
    id: intent.id,
    name: intent.name,
    status: intent.status,
    owned_scope: intent.ownedScope,
    acceptance_criteria: intent.criteria.map((c) =>
      c.kind === "run" ? { run: c.run, name: criterionText(c), timeout: c.timeoutSeconds } : { confirm: c.text },
    ),
    drift: r.drift ? { since: r.drift.since, revision: r.drift.revision, changed: r.drift.changed, not_under: r.drift.notUnder, lines: r.drift.lines } : null,
    lifecycle: events.map((e) => ({
      from: e.from,
      to: e.to,
      at: e.at,
      revision: e.revision ?? null,
      by: e.person?.name ?? null,
      ...(e.verification ? { verification: e.verification } : {}),
    })),
  };
}

export function intentStatusText(r: IntentStatusReport): string {
  const { intent } = r;
  const out = [`${oneLine(intent.id)} — ${oneLine(intent.name)}`, `Status: ${intent.status}`, `Scope: ${intent.ownedScope.map(oneLine).join(", ")}`];
  out.push("Acceptance criteria:");
  if (!intent.criteria.length) out.push("  (none)");
  for (const c of intent.criteria)
    out.push(
      c.kind === "run"
        ? `  - ${oneLine(criterionText(c))} (run: ${oneLine(c.run)}; timeout ${seconds(c.timeoutSeconds)})`
        : `  - ${oneLine(c.text)} (a person confirms)`,
    );
  if (!intent.criteriaValid) out.push("  (some criteria have errors: `intent status` shows where)");
  out.push(r.started ? `Started: ${moveLine(r.started)}` : "Started: no lifecycle record in the ledger");
  if (r.completed) {
    out.push(`Completed: ${moveLine(r.completed)}`);
    out.push(...verificationLines(r.completed));
  } else if (intent.status === "COMPLETE") {
    out.push("Completed: no lifecycle record in the ledger (completed without `intent complete`, or before it recorded moves)");
  }
  if (r.drift) {
    out.push(`Drift: ${driftMessage(r.drift, intent.ownedScope)}`);
    appendAll(
      out,
      driftRuns(r.drift.lines).map((run) => `  ${runText(run)}`),
    ).push("  (`intent blame FILE:LINES` shows who wrote them)");
  } else if (r.base) {
    out.push(
      `Drift: none: no line in its scope changed${r.base.since === "completed" ? " after its completion" : " under another intent or with no record since it started"} (commit ${r.base.revision.slice(0, 12)})`,
    );
  }
  return `${out.join("\n")}\n`;
}

function moveLine(e: LifecycleEvent): string {
  return `${e.at}${e.revision ? ` at commit ${e.revision.slice(0, 12)}` : " (no commit)"}${by(e.person)}`;
}

const by = (p: PersonMetadata | undefined) => (p?.name ? ` by ${oneLine(p.name)}` : "");

function verificationLines(e: LifecycleEvent): string[] {
  const v = e.verification;
  if (!v) return ["  Verification: none recorded"];
  if (v.result === "skipped") return [`  Verification: skipped (--skip-verify)${by(v.confirmed_by)}`];
  if (!v.criteria.length) return ["  Verification: no acceptance criteria to verify"];
  return [`  Verification: passed${by(v.confirmed_by)}`, ...v.criteria.map(checkLine)];
}

function checkLine(c: CriterionCheckMetadata): string {
  if (c.kind === "run") return `    ✓ ${oneLine(c.name)} — exit ${c.exit_code} in ${duration(c.duration_ms)} (run: ${oneLine(c.run)})`;
  return `    ✓ ${oneLine(c.text)} — confirmed${c.how === "--yes" ? " by --yes" : c.how === "editor" ? " in the editor" : ""}`;
}
