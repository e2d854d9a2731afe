import { ResponseError, ErrorCodes } from "vscode-languageserver";
import { Commands, type ActiveIntentResult } from "@shared/commands";
import { addToIntentIgnore } from "../io/intentIgnore";
import { allowedTransitions } from "../engine/intents/lifecycle";
import type { Intent } from "../engine/intents/model";
import { isSafeRelative } from "../engine/paths";
import { selectIntent as select } from "../io/selection";
import { uriToPath, type TrackedDocument } from "./documents";
import { INTENT_STATUSES, type IntentStatus } from "../engine/intents/model";
import { modifyIntentsFile } from "../io/intents/store";
import { amendScope, transition } from "../engine/intents/writeback";
import type { WorkspaceContext } from "./workspaceContext";

/** What the command handlers need from the server, and nothing more. */
export interface CommandHost {
  /** The workspace an argument refers to (by `uri`), or the only/first one. */
  context(args: Record<string, unknown>): WorkspaceContext;
  /** True when the rule file is open in the editor with text that differs from the disk. */
  hasUnsavedIntents(ctx: WorkspaceContext): boolean;
  /** Re-read the rule files and selection and re-publish every diagnostic. */
  refresh(ctx: WorkspaceContext): void;
  /** The open document at `uri`, if any. */
  document(uri: string): TrackedDocument | undefined;
  /**
   * Reads the ledger's new lines and re-attributes the open documents they touch. Without it a command's
   * own `ctx.ledger.poll()` would take those lines from under the server's refresh.
   */
  pollLedger(ctx: WorkspaceContext): Promise<void>;
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
  return host.hasUnsavedIntents(ctx) ? "active_intents.yaml in the editor differs from the file on disk (unsaved changes, or it changed underneath); save or reload it, then try again." : undefined;
}

async function writeIntents(host: CommandHost, ctx: WorkspaceContext, change: Parameters<typeof modifyIntentsFile>[2]) {
  const blocked = intentsWriteBlocked(host, ctx);
  if (blocked) throw fail(blocked);
  const result = await modifyIntentsFile(ctx.root, ctx.rules.intentsText, change);
  if (!result.ok) throw fail(result.reason);
}

/** The workspace selection, set as `intent select` sets it; `id` null clears it. */
async function selectForWorkspace(host: CommandHost, args: Record<string, unknown>, id: string | null) {
  const ctx = host.context(args);
  const result = await select(ctx.root, ctx.rules, id, {
    start: Boolean(args.start),
    startHint: `pass "start": true`,
    by: ctx.session.id,
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
  await writeIntents(host, ctx, (text) => transition(text, id, to as IntentStatus, host.now()));
  host.refresh(ctx);
  return { id, status: to };
};

const ignorePath: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const path = requireString(args, "path", `{"path":"docs/notes.md"}`);
  // a line break would add another pattern to .intentignore, `..` would reach outside the workspace
  if (!isSafeRelative(path)) throw fail(`${JSON.stringify(path)} must be a workspace-relative path (no leading /, no .., no control characters or line breaks).`);
  const added = addToIntentIgnore(ctx.root, path);
  host.refresh(ctx);
  return { ignored: path, added };
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
  [Commands.ignorePath]: ignorePath,
  [Commands.listIntents]: listIntents,
  [Commands.activeIntent]: activeIntent,
};
