import { ResponseError, ErrorCodes } from "vscode-languageserver";
import { Commands } from "@shared/commands";
import { addToIntentIgnore } from "../engine/ignore";
import { INTENT_STATUSES, type IntentStatus } from "../engine/intents/model";
import { modifyIntentsFile } from "../engine/intents/store";
import { amendScope, transition } from "../engine/intents/writeback";
import { writeWorkspaceSelection } from "../engine/sessions";
import type { TrackedDocument } from "./documents";
import type { WorkspaceContext } from "./workspace";

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

async function writeIntents(host: CommandHost, ctx: WorkspaceContext, change: Parameters<typeof modifyIntentsFile>[2]) {
  if (host.hasUnsavedIntents(ctx)) throw fail("active_intents.yaml in the editor differs from the file on disk (unsaved changes, or it changed underneath); save or reload it, then try again.");
  const result = await modifyIntentsFile(ctx.root, ctx.rules.intentsText, change);
  if (!result.ok) throw fail(result.reason);
}

const selectIntent: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const id = requireString(args, "id", `{"id":"INT-001"}`);
  const intent = ctx.rules.catalogue.byId.get(id);
  if (!intent) throw fail(`No intent ${id} in active_intents.yaml.`);
  if (intent.status !== "IN_PROGRESS") {
    if (!args.start) throw fail(`${id} is ${intent.status}; start it first (or pass "start": true to start and select it).`);
    await writeIntents(host, ctx, (text) => transition(text, id, "IN_PROGRESS", host.now()));
  }
  writeWorkspaceSelection(ctx.root, id, ctx.session.id, host.now());
  host.refresh(ctx);
  return { selected: id };
};

const clearIntent: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  writeWorkspaceSelection(ctx.root, null, ctx.session.id, host.now());
  host.refresh(ctx);
  return { selected: null };
};

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
  if (path.startsWith("/") || path.split("/").includes("..")) throw fail(`"${path}" must be a workspace-relative path.`);
  const added = addToIntentIgnore(ctx.root, path);
  host.refresh(ctx);
  return { ignored: path, added };
};

const listIntents: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  return ctx.rules.catalogue.intents.map((i) => ({
    id: i.id,
    name: i.name,
    status: i.status,
    owned_scope: i.ownedScope,
    selected: ctx.selection?.intentId === i.id,
  }));
};

export const commandHandlers: Partial<Record<string, CommandHandler>> = {
  [Commands.selectIntent]: selectIntent,
  [Commands.clearIntent]: clearIntent,
  [Commands.amendScope]: amendScopeCommand,
  [Commands.transition]: transitionCommand,
  [Commands.ignorePath]: ignorePath,
  [Commands.listIntents]: listIntents,
};
