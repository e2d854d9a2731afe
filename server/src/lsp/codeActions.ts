import { CodeActionKind, type CodeAction, type Diagnostic, type Range } from "vscode-languageserver";
import { Commands } from "@shared/commands";
import { DIAGNOSTIC_SOURCE } from "@shared/diagnosticCodes";
import { isProblem } from "../engine/gate";
import { allowedTransitions, transitionVerb } from "../engine/intents/lifecycle";
import type { Intent } from "../engine/intents/model";
import { pathToGlob } from "../engine/scope";
import type { TrackedDocument } from "./documents";

/**
 * Quick fixes for scope problems (docs/ARCHITECTURE.md "The language server's surface"): pick an owner (starting it when it is pending or blocked),
 * widen the active intent's scope, or exempt the file.
 */
export function scopeFixes(doc: TrackedDocument, range: Range, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const verdict = doc.verdict();
  if (!verdict || !isProblem(verdict) || doc.path === undefined) return [];
  const ours = diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && d.code === verdict.kind);
  const touchesEdit = doc.edits.blocks().some((b) => b.start <= range.end.line && b.end >= range.start.line);
  if (!ours.length && !touchesEdit) return [];

  const path = doc.path;
  const actions: CodeAction[] = [];
  const fix = (title: string, command: string, args: unknown, preferred = false): CodeAction => ({
    title,
    kind: CodeActionKind.QuickFix,
    diagnostics: ours,
    isPreferred: preferred || undefined,
    command: { title, command, arguments: [args] },
  });

  const active = verdict.kind === "no-active-intent" ? undefined : verdict.intent;
  const owners = verdict.owners.filter((o) => o.id !== active?.id || o.status !== "IN_PROGRESS");
  let preferredGiven = false;
  for (const owner of sortOwners(owners)) {
    const title = selectTitle(owner);
    if (!title) continue;
    const start = owner.status !== "IN_PROGRESS";
    actions.push(fix(title, Commands.selectIntent, { id: owner.id, ...(start ? { start: true } : {}) }, !preferredGiven));
    preferredGiven = true;
  }
  if (active && verdict.kind === "out-of-scope") {
    actions.push(fix(`Add ${path} to ${active.id}'s scope`, Commands.amendScope, { id: active.id, glob: pathToGlob(path) }));
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : undefined;
    if (dir) actions.push(fix(`Add ${dir}/** to ${active.id}'s scope`, Commands.amendScope, { id: active.id, glob: `${pathToGlob(dir)}/**` }));
  }
  actions.push(fix(`Add ${path} to .intentignore`, Commands.ignorePath, { path }));
  return actions;
}

/** The lifecycle moves of the intent under the cursor in active_intents.yaml. */
export function lifecycleActions(intents: readonly Intent[], offset: number): CodeAction[] {
  const intent = intents.find((i) => i.span.start <= offset && offset <= i.span.end);
  if (!intent) return [];
  return allowedTransitions(intent.status).map((to) => {
    const title = `${transitionVerb(intent.status, to)} ${intent.id} (${intent.status} → ${to})`;
    return { title, kind: CodeActionKind.RefactorRewrite, command: { title, command: Commands.transition, arguments: [{ id: intent.id, to }] } };
  });
}

function selectTitle(owner: Intent): string | undefined {
  switch (owner.status) {
    case "IN_PROGRESS":
      return `Select ${owner.id} — ${owner.name}`;
    case "PENDING":
      return `Start and select ${owner.id} — ${owner.name}`;
    case "BLOCKED":
      return `Resume and select ${owner.id} — ${owner.name}`;
    default:
      return undefined; // complete and archived work is closed; selecting it cannot make an edit legal
  }
}

const STATUS_ORDER: Record<string, number> = { IN_PROGRESS: 0, PENDING: 1, BLOCKED: 2 };
const sortOwners = (owners: Intent[]) => [...owners].sort((a, b) => (STATUS_ORDER[a.status] ?? 9) - (STATUS_ORDER[b.status] ?? 9));
