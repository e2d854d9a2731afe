import { ResponseError, ErrorCodes } from "vscode-languageserver";
import { Commands, type ActiveIntentResult } from "@shared/commands";
import { join } from "node:path";
import { fileHash } from "../engine/hashing";
import { addToIntentIgnore } from "../io/intentIgnore";
import { allowedTransitions, moveRefusal, refusalMessage, selectMove, transitionTitle, type NextStep, type Refusal } from "../engine/intents/lifecycle";
import { reattributeLines } from "../io/ledger/reattribute";
import { readOptional } from "../io/optionalFile";
import { INTENT_LSP_VERSION } from "../version";
import type { Intent } from "../engine/intents/model";
import { isSafeRelative } from "../engine/paths";
import { selectIntent as select } from "../io/selection";
import { uriToPath, type TrackedDocument } from "./documents";
import { INTENT_STATUSES, type IntentStatus } from "../engine/intents/model";
import { modifyIntentsFile } from "../io/intents/store";
import { amendScope } from "../engine/intents/writeback";
import { moveIntent } from "../io/intents/move";
import { driftMessage, driftRuns, runText, type Drift } from "../engine/drift";
import { criterionText } from "../engine/intents/load";
import type { LastVerification } from "./criteria";
import type { VerificationMetadata } from "@shared/agentTrace";
import type { WorkspaceContext } from "./workspaceContext";

/** What the command handlers need from the server, and nothing more. */
export interface CommandHost {
  /** The workspace an argument refers to (by `uri`), or the only/first one. */
  context(args: Record<string, unknown>): WorkspaceContext;
  /** True when the rule file is open in the editor with text that differs from the disk. */
  hasUnsavedIntents(ctx: WorkspaceContext): boolean;
  /** True when the workspace's file at `path` (workspace-relative) is open with text that differs from the disk. */
  hasUnsavedEdits(ctx: WorkspaceContext, path: string): boolean;
  /** Re-read the rule files and selection and re-publish every diagnostic. */
  refresh(ctx: WorkspaceContext): void;
  /** The open document at `uri`, if any. */
  document(uri: string): TrackedDocument | undefined;
  /**
   * Reads the ledger's new lines and re-attributes the open documents they touch. Without it a command's
   * own `ctx.ledger.poll()` would take those lines from under the server's refresh.
   */
  pollLedger(ctx: WorkspaceContext): Promise<void>;
  /**
   * Verifies an intent's acceptance criteria before it becomes COMPLETE, as `intent complete` does: the
   * commands run with progress and cancellation, the sentences are put to the person. Throws (a refusal
   * naming the failing criterion) when one does not pass.
   */
  verify(ctx: WorkspaceContext, intent: Intent): Promise<VerificationMetadata>;
  /** Runs an intent's runnable criteria now (the person clicked "Verify"), with progress and cancellation. */
  runCriteria(ctx: WorkspaceContext, intent: Intent): Promise<LastVerification>;
  /** The intent's drift as last measured (lsp/intentHealth.ts). */
  driftOf(ctx: WorkspaceContext, id: string): Drift | undefined;
  /** Tells the person something went half-wrong (a move written whose record the ledger refused). */
  warn(message: string): void;
  now(): Date;
}

export type CommandHandler = (host: CommandHost, args: Record<string, unknown>) => Promise<unknown>;

const fail = (message: string) => new ResponseError(ErrorCodes.InvalidParams, message);

/** Accepts `{ id: "INT-001" }` or a bare `"INT-001"`, as typed by hand in an editor's command line. */
export function normalizeArgs(raw: unknown[] | undefined): Record<string, unknown> {
  const first = raw?.[0];
  if (typeof first === "string") return { id: first, ...(typeof raw?.[1] === "string" ? { to: raw[1] } : {}) };
  return first && typeof first === "object" ? (first as Record<string, unknown>) : {};
}

function requireString(args: Record<string, unknown>, key: string, example: string): string {
  const v = args[key];
  if (typeof v !== "string" || !v) throw fail(`Missing argument "${key}" (for example ${example}).`);
  return v;
}

/** Why active_intents.yaml must not be written from the editor now, if so. */
function intentsWriteBlocked(host: CommandHost, ctx: WorkspaceContext): string | undefined {
  return host.hasUnsavedIntents(ctx)
    ? "active_intents.yaml in the editor differs from the file on disk (unsaved changes, or it changed underneath); save or reload it, then try again."
    : undefined;
}

async function writeIntents(host: CommandHost, ctx: WorkspaceContext, change: Parameters<typeof modifyIntentsFile>[2]) {
  const blocked = intentsWriteBlocked(host, ctx);
  if (blocked) throw fail(blocked);
  const result = await modifyIntentsFile(ctx.root, ctx.rules.intentsText, change);
  if (!result.ok) throw fail(result.reason);
}

/** A lifecycle move as every door makes it (io/intents/move.ts): the status written, then its ledger record. */
async function moveIntents(host: CommandHost, ctx: WorkspaceContext, id: string, from: IntentStatus, to: IntentStatus, verification?: VerificationMetadata) {
  const blocked = intentsWriteBlocked(host, ctx);
  if (blocked) throw fail(blocked);
  const result = await moveIntent({
    root: ctx.root,
    ledgerPath: ctx.rules.settings.ledgerPath,
    basedOn: ctx.rules.intentsText,
    intentId: id,
    from,
    to,
    person: ctx.person(),
    verification,
    now: host.now(),
  });
  if (!result.ok) throw fail(result.reason);
  if (!result.recorded) host.warn(result.warning);
}

/**
 * A next step in the words an editor shows: the intent picker's entries (VS Code's "Select Intent…", Neovim's
 * :IntentSelect, the same server-made list) and the code actions of active_intents.yaml, never a command's
 * arguments.
 */
function editorStep(step: NextStep): string {
  switch (step.kind) {
    case "select":
      return step.start
        ? `pick "${step.start === "resume" ? "Resume" : "Start"} and select ${step.id}" in the intent picker`
        : `pick "${step.id}" in the intent picker to select it`;
    case "move":
      return `the code action "${transitionTitle(step.id, step.from, step.to)}" on ${step.id} in active_intents.yaml makes that move`;
    case "list":
      return "the intent picker lists the intents to select (more work is a new intent, declared in active_intents.yaml)";
  }
}

/** A refusal of a selection or a move, in the editor's words. */
export function editorRefusal(refusal: Refusal): string {
  return refusalMessage(refusal, editorStep);
}

/** The workspace selection, set as `intent select` sets it; `id` null clears it. */
async function selectForWorkspace(host: CommandHost, args: Record<string, unknown>, id: string | null) {
  const ctx = host.context(args);
  const result = await select(ctx.root, ctx.rules, id, {
    start: Boolean(args.start),
    explain: editorRefusal,
    by: ctx.session.id,
    person: ctx.person(),
    now: host.now(),
    intentsWriteBlocked: () => intentsWriteBlocked(host, ctx),
  });
  if (!result.ok) throw fail(result.reason);
  host.refresh(ctx);
  return { selected: id };
}

const selectIntent: CommandHandler = async (host, args) => selectForWorkspace(host, args, requireString(args, "id", `{"id":"INT-001"}`));

const clearIntent: CommandHandler = async (host, args) => selectForWorkspace(host, args, null);

const amendScopeCommand: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const id = requireString(args, "id", `{"id":"INT-001","glob":"docs/**"}`);
  const glob = requireString(args, "glob", `{"id":"INT-001","glob":"docs/**"}`);
  await writeIntents(host, ctx, (text) => amendScope(text, id, glob, host.now()));
  host.refresh(ctx);
  return { amended: id, glob };
};

const transitionCommand: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const id = requireString(args, "id", `{"id":"INT-001","to":"COMPLETE"}`);
  const to = requireString(args, "to", `{"id":"INT-001","to":"COMPLETE"}`);
  if (!(INTENT_STATUSES as readonly string[]).includes(to)) throw fail(`Unknown status ${to}; use one of ${INTENT_STATUSES.join(", ")}.`);
  const from = ctx.rules.catalogue.byId.get(id)?.status;
  const refusal = moveRefusal(id, from, to as IntentStatus);
  if (refusal) throw fail(editorRefusal(refusal));
  const verification = to === "COMPLETE" ? await host.verify(ctx, ctx.rules.catalogue.byId.get(id)!) : undefined;
  await moveIntents(host, ctx, id, from!, to as IntentStatus, verification);
  host.refresh(ctx);
  return { id, status: to };
};

/** `{id, uri}`: the person asked to verify an intent's criteria now. Nothing else starts a criterion. */
const verifyCriteria: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const id = requireString(args, "id", `{"id":"INT-001"}`);
  const intent = ctx.rules.catalogue.byId.get(id);
  if (!intent) throw fail(`No intent ${id} in active_intents.yaml.`);
  const r = await host.runCriteria(ctx, intent);
  return {
    id,
    total: r.total,
    cancelled: r.cancelled,
    failed: r.failed.map((f) => ({ criterion: criterionText(f.criterion), why: f.why, line: f.criterion.line })),
  };
};

/** `{id}`: the drifted lines of an intent, as runs `intent blame FILE:LINES` takes. */
const listDrift: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const id = requireString(args, "id", `{"id":"INT-001"}`);
  const intent = ctx.rules.catalogue.byId.get(id);
  const drift = host.driftOf(ctx, id);
  if (!intent || !drift) return { id, message: `No drift measured for ${id}.`, runs: [] };
  return { id, message: driftMessage(drift, intent.ownedScope), runs: driftRuns(drift.lines).map((r) => ({ ...r, text: runText(r) })) };
};

const ignorePath: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const path = requireString(args, "path", `{"path":"docs/notes.md"}`);
  // a line break would add another pattern to .intentignore, `..` would reach outside the workspace
  if (!isSafeRelative(path))
    throw fail(`${JSON.stringify(path)} must be a workspace-relative path (no leading /, no .., no control characters or line breaks).`);
  const added = addToIntentIgnore(ctx.root, path);
  host.refresh(ctx);
  return { ignored: path, added };
};

/**
 * Re-records saved lines under an intent that owns the file (the quick fix for a line recorded out of scope,
 * under an intent not in progress, or not recorded at all): one appended re-attribution record.
 * `{path, startLine, endLine, intentId, hash?, uri?}`; `hash`: the content the lines are numbered in.
 */
const reRecord: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const example = `{"path":"docs/notes.md","startLine":3,"endLine":4,"intentId":"INT-003"}`;
  const path = requireString(args, "path", example);
  const intentId = requireString(args, "intentId", example);
  const [startLine, endLine] = [args.startLine, args.endLine];
  if (typeof startLine !== "number" || typeof endLine !== "number") throw fail(`Missing arguments "startLine" and "endLine" (for example ${example}).`);
  if (!isSafeRelative(path))
    throw fail(`${JSON.stringify(path)} must be a workspace-relative path (no leading /, no .., no control characters or line breaks).`);
  const text = readOptional(join(ctx.root, path));
  if (text === undefined) throw fail(`${path} cannot be read in ${ctx.root}; save it and try again.`);
  if (typeof args.hash === "string" && fileHash(text) !== args.hash)
    throw fail(`${path} changed on disk since these lines were checked; save or reload it and try again.`);
  await host.pollLedger(ctx);
  let id: string;
  try {
    id = await reattributeLines({
      root: ctx.root,
      ledgerPath: ctx.ledger.ledgerPath,
      path,
      text,
      startLine,
      endLine,
      intentId,
      rules: ctx.rules,
      entries: ctx.ledger.entriesFor(path),
      contributor: ctx.rules.settings.contributor,
      person: ctx.person(),
      sessionId: ctx.session.id,
      toolVersion: INTENT_LSP_VERSION,
    });
  } catch (err) {
    throw fail((err as Error).message);
  }
  await host.pollLedger(ctx);
  // our own record for content the document already has: its owners must be taken from the ledger again
  const doc = typeof args.uri === "string" ? host.document(args.uri) : undefined;
  if (doc?.path === path) doc.ledgerChanged(doc.ledgerEntries(), true);
  host.refresh(ctx);
  return { recordId: id, path, startLine, endLine, intentId };
};

const listIntents: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  await host.pollLedger(ctx);
  return ctx.rules.catalogue.intents.map((i) => ({
    id: i.id,
    name: i.name,
    status: i.status,
    owned_scope: i.ownedScope,
    selected: ctx.selection?.intentId === i.id,
    // the files the ledger records under it and the moves it may make, for an editor's intent tree
    files: ctx.ledger.filesFor(i.id).sort(),
    transitions: allowedTransitions(i.status),
    // how the intent pickers offer it (select, start or resume and select); null: not offered, its work is closed
    selectAs: selectMove(i.status) ?? null,
  }));
};

const brief = (i: Intent) => ({ id: i.id, name: i.name, status: i.status });

/** Which intent an edit to the file at `uri` counts under, and why: what a status bar shows. */
const activeIntent: CommandHandler = async (host, args): Promise<ActiveIntentResult> => {
  const ctx = host.context(args);
  const uri = typeof args.uri === "string" ? args.uri : undefined;
  const fsPath = uri ? uriToPath(uri) : undefined;
  const path = (uri && host.document(uri)?.path) ?? (fsPath ? ctx.relativePath(fsPath) : undefined);
  const selected = ctx.selection ? ctx.rules.catalogue.byId.get(ctx.selection.intentId) : undefined;
  const bySelection = { intent: selected ? brief(selected) : null, how: selected ? ("selected" as const) : ("none" as const) };
  if (path === undefined) return { path: null, ...bySelection, problem: null, exempt: false, owners: [] };
  const owners = ctx.rules.scopes.owners(path).map((i) => i.id);
  const v = ctx.judge(path);
  switch (v.kind) {
    case "exempt":
      return { path, ...bySelection, problem: null, exempt: true, owners };
    case "allowed":
      return { path, intent: brief(v.intent), how: v.auto ? "auto-selected" : "selected", problem: null, exempt: false, owners };
    case "no-active-intent":
      return { path, intent: null, how: "none", problem: v.kind, exempt: false, owners };
    default:
      return { path, intent: brief(v.intent), how: "selected", problem: v.kind, exempt: false, owners };
  }
};

export const commandHandlers: Partial<Record<string, CommandHandler>> = {
  [Commands.selectIntent]: selectIntent,
  [Commands.clearIntent]: clearIntent,
  [Commands.amendScope]: amendScopeCommand,
  [Commands.transition]: transitionCommand,
  [Commands.verifyCriteria]: verifyCriteria,
  [Commands.listDrift]: listDrift,
  [Commands.ignorePath]: ignorePath,
  [Commands.listIntents]: listIntents,
  [Commands.activeIntent]: activeIntent,
  [Commands.reRecord]: reRecord,
};
