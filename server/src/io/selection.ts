/**
 * Selecting the intent edits count under (docs/ARCHITECTURE.md "Sessions and the active intent"): the one operation behind the editor's
 * `intent.selectIntent` / `intent.clearIntent` and `intent select`, with the same checks and the same words.
 */
import { sessionIdProblem, touchAgentSession } from "./agent/session";
import type { Intent, IntentStatus } from "../engine/intents/model";
import { modifyIntentsFile } from "./intents/store";
import { transition } from "../engine/intents/writeback";
import type { Rules } from "../engine/rules";
import { writeWorkspaceSelection } from "./sessionFiles";

interface SelectOptions {
  /** Start a PENDING or BLOCKED intent (move it to IN_PROGRESS) and select it. */
  start?: boolean;
  /** How this door asks for `start` ("pass --start"), for the refusal that suggests it. */
  startHint: string;
  /** This session's own selection; absent: the workspace selection, which every session without one follows. */
  session?: string;
  /** Who selects, kept in the workspace selection. */
  by: string;
  now: Date;
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
    if (!intent) return fail(`no intent ${id} in active_intents.yaml${rules.intents.hasErrors ? " (the file has errors: `intent status` lists them)" : ""}; \`intent status\` lists the intents`);
    if (intent.status !== "IN_PROGRESS") {
      if (!opts.start) return fail(`${id} is ${intent.status}; start it first (\`intent start ${id}\`) or ${opts.startHint} to start and select it`);
      const blocked = opts.intentsWriteBlocked?.();
      if (blocked) return fail(blocked);
      const written = await modifyIntentsFile(root, rules.intentsText, (text) => transition(text, id, "IN_PROGRESS", opts.now));
      if (!written.ok) return fail(written.reason);
      startedFrom = intent.status;
    }
  }
  if (opts.session !== undefined) touchAgentSession(root, opts.session, { intent: id, now: opts.now });
  else writeWorkspaceSelection(root, id, opts.by, opts.now);
  return { ok: true, intent, ...(startedFrom ? { startedFrom } : {}) };
}
