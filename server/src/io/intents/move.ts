/**
 * An intent's lifecycle move as every door makes it: the status written into active_intents.yaml (comments
 * and layout kept, refused when the file changed since it was read), then one lifecycle record appended to
 * the ledger with the commit it was made at and, for COMPLETE, what was verified (docs/LEDGER.md).
 */
import type { PersonMetadata, VerificationMetadata } from "@shared/agentTrace";
import { buildLifecycleRecord } from "../../engine/ledger/lifecycle";
import type { IntentStatus } from "../../engine/intents/model";
import { transition } from "../../engine/intents/writeback";
import { INTENT_LSP_VERSION } from "../../version";
import { headRevision } from "../git";
import { appendWorkspaceRecord } from "../ledger/append";
import { modifyIntentsFile } from "./store";

export interface MoveRequest {
  root: string;
  ledgerPath: string;
  /** The intents file's text the caller judged the move on; the move is refused if it changed since. */
  basedOn: string | undefined;
  intentId: string;
  from: IntentStatus;
  to: IntentStatus;
  person?: PersonMetadata;
  verification?: VerificationMetadata;
  now?: Date;
}

/** `recorded` false: the status was written but the ledger refused the record (`warning` says why). */
export type MoveResult =
  | { ok: true; text: string; recorded: true }
  | { ok: true; text: string; recorded: false; warning: string }
  | { ok: false; reason: string };

export async function moveIntent(req: MoveRequest): Promise<MoveResult> {
  const now = req.now ?? new Date();
  const written = await modifyIntentsFile(req.root, req.basedOn, (text) => transition(text, req.intentId, req.to, now));
  if (!written.ok) return written;
  const record = buildLifecycleRecord({
    intentId: req.intentId,
    from: req.from,
    to: req.to,
    revision: headRevision(req.root),
    person: req.person,
    verification: req.verification,
    toolVersion: INTENT_LSP_VERSION,
    now,
  });
  try {
    await appendWorkspaceRecord(req.root, req.ledgerPath, record);
    return { ok: true, text: written.text, recorded: true };
  } catch (err) {
    return {
      ok: true,
      text: written.text,
      recorded: false,
      warning: `${req.intentId} moved to ${req.to}, but its lifecycle record could not be appended to the ledger (${(err as Error).message}); the move is in active_intents.yaml only.`,
    };
  }
}
