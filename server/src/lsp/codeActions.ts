import { CodeActionKind, type CodeAction, type Diagnostic, type Range } from "vscode-languageserver";
import { Commands } from "@shared/commands";
import { DIAGNOSTIC_SOURCE } from "@shared/diagnosticCodes";
import { isProblem } from "../engine/gate";
import { allowedTransitions, transitionTitle } from "../engine/intents/lifecycle";
import type { Intent } from "../engine/intents/model";
import { pathToGlob } from "../engine/scope";
import type { TrackedDocument } from "./documents";
import type { SavedFindingData } from "./findings";

/**
 * Quick fixes for scope problems (docs/ARCHITECTURE.md "The language server's surface"): pick an owner (starting it when it is pending or blocked),
 * widen the active intent's scope, or exempt the file.
 */
export function scopeFixes(doc: TrackedDocument, range: Range, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const verdict = doc.verdict();
  if (!verdict || !isProblem(verdict) || doc.path === undefined) return [];
  const ours = diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && d.code === verdict.kind && !savedData(d));
  const touchesEdit = doc.edits.touchesEdited(range.start.line, range.end.line);
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

/**
 * Quick fixes for saved lines that `intent check` flags (`savedLineDiagnostics`): re-record them under an
 * in-progress intent that owns the file, amend the scope of the intent they were recorded under, or exempt
 * the file. Each settles the finding in the ledger or the rules, so the editor and `intent check` both clear.
 */
export function savedLineFixes(doc: TrackedDocument, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const ctx = doc.ctx;
  if (!ctx || doc.path === undefined) return [];
  const path = doc.path;
  const actions: CodeAction[] = [];
  const titles = new Set<string>();
  const add = (d: Diagnostic, title: string, command: string, args: unknown, preferred = false) => {
    if (titles.has(title)) return;
    titles.add(title);
    actions.push({
      title,
      kind: CodeActionKind.QuickFix,
      diagnostics: [d],
      isPreferred: preferred || undefined,
      command: { title, command, arguments: [args] },
    });
  };
  for (const d of diagnostics) {
    const data = savedData(d);
    if (!data || data.path !== path) continue;
    const lines = data.startLine === data.endLine ? `line ${data.startLine}` : `lines ${data.startLine}–${data.endLine}`;
    const verb = data.recordId ? "Re-record" : "Record";
    ctx.rules.scopes
      .owners(path)
      .filter((o) => o.status === "IN_PROGRESS" && (o.id !== data.intentId || !data.recordId))
      .forEach((owner, i) => {
        const args = { uri: doc.uri, path, startLine: data.startLine, endLine: data.endLine, intentId: owner.id, hash: data.hash };
        add(d, `${verb} ${lines} under ${owner.id} — ${owner.name}`, Commands.reRecord, args, i === 0);
      });
    if (d.code === "out-of-scope" && data.intentId)
      add(d, `Add ${path} to ${data.intentId}'s scope`, Commands.amendScope, { id: data.intentId, glob: pathToGlob(path) });
    add(d, `Add ${path} to .intentignore`, Commands.ignorePath, { path });
  }
  return actions;
}

function savedData(d: Diagnostic): SavedFindingData | undefined {
  const data = d.data as Partial<SavedFindingData> | undefined;
  return d.source === DIAGNOSTIC_SOURCE &&
    data &&
    typeof data.hash === "string" &&
    typeof data.path === "string" &&
    typeof data.startLine === "number" &&
    typeof data.endLine === "number"
    ? (data as SavedFindingData)
    : undefined;
}

/** The lifecycle moves of the intent under the cursor in active_intents.yaml. */
export function lifecycleActions(intents: readonly Intent[], offset: number): CodeAction[] {
  const intent = intents.find((i) => i.span.start <= offset && offset <= i.span.end);
  if (!intent) return [];
  return allowedTransitions(intent.status).map((to) => {
    const title = transitionTitle(intent.id, intent.status, to);
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

/** On an intent's drift diagnostic: list the lines that drifted (`intent blame` runs), changing nothing. */
export function driftActions(uri: string, diagnostics: readonly Diagnostic[]): CodeAction[] {
  return diagnostics
    .filter((d) => d.code === "intent-drift" && typeof (d.data as { id?: unknown } | undefined)?.id === "string")
    .map((d) => {
      const id = (d.data as { id: string }).id;
      const title = `List the lines that drifted from ${id}`;
      return { title, kind: CodeActionKind.QuickFix, diagnostics: [d], command: { title, command: Commands.listDrift, arguments: [{ id, uri }] } };
    });
}
