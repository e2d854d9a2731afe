/**
 * Selecting the intent edits count under (docs/ARCHITECTURE.md "Sessions and the active intent"): the one operation behind the editor's
 * `intent.selectIntent` / `intent.clearIntent` and `intent select`, with the same checks and the same words.
 */
import { sessionIdProblem, touchAgentSession } from "./agent/session";
import { selectRefusal, type Refusal } from "../engine/intents/lifecycle";
import type { Intent, IntentStatus } from "../engine/intents/model";
import type { PersonMetadata } from "@shared/agentTrace";
import { moveIntent } from "./intents/move";
import type { Rules } from "../engine/rules";
import { writeWorkspaceSelection } from "./sessionFiles";

interface SelectOptions {
  /** Start a PENDING or BLOCKED intent (move it to IN_PROGRESS) and select it. */
  start?: boolean;
  /** A refusal in this door's words (its commands, pickers and actions). */
  explain: (refusal: Refusal) => string;
  /** This session's own selection; absent: the workspace selection, which every session without one follows. */
  session?: string;
  /** Who selects, kept in the workspace selection. */
  by: string;
  now: Date;
  /** The person who selects, kept in the lifecycle record of a start. */
  person?: PersonMetadata;
  /** Why active_intents.yaml must not be written now (the editor: it has unsaved changes), if so. */
  intentsWriteBlocked?: () => string | undefined;
}

type SelectResult =
  | {
      ok: true;
      /** The selected intent; undefined when the selection was cleared. */
      intent: Intent | undefined;
      /** The status it had when `start` moved it to IN_PROGRESS. */
      startedFrom?: IntentStatus;
    }
  | { ok: false; reason: string };

/** Selects `id` (null: clears the selection) for the workspace or for `opts.session`. */
export async function selectIntent(root: string, rules: Rules, id: string | null, opts: SelectOptions): Promise<SelectResult> {
  const fail = (reason: string): SelectResult => ({ ok: false, reason });
  if (opts.session !== undefined) {
    const problem = sessionIdProblem(opts.session);
    if (problem) return fail(problem);
  }
  const intent = id === null ? undefined : rules.catalogue.byId.get(id);
  let startedFrom: IntentStatus | undefined;
  if (id !== null) {
    const refusal = selectRefusal(id, intent?.status, Boolean(opts.start));
    if (refusal) return fail(opts.explain(!intent && rules.intents.hasErrors ? { ...refusal, reason: `${refusal.reason} (the file has errors)` } : refusal));
    if (intent && intent.status !== "IN_PROGRESS") {
      const blocked = opts.intentsWriteBlocked?.();
      if (blocked) return fail(blocked);
      const written = await moveIntent({
        root,
        ledgerPath: rules.settings.ledgerPath,
        basedOn: rules.intentsText,
        intentId: id,
        from: intent.status,
        to: "IN_PROGRESS",
        person: opts.person,
        now: opts.now,
      });
      if (!written.ok) return fail(written.reason);
      startedFrom = intent.status;
    }
  }
  if (opts.session !== undefined) touchAgentSession(root, opts.session, { intent: id, now: opts.now });
  else writeWorkspaceSelection(root, id, opts.by, opts.now);
  return { ok: true, intent, ...(startedFrom ? { startedFrom } : {}) };
}
