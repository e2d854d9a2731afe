/**
 * Notifications intent-lsp sends besides the protocol's own. Clients may ignore them; they exist so that a
 * client (or a test) can wait for a fact instead of a delay.
 */

/** Sent once a `textDocument/didSave` has been handled completely: recorded (or not) and attributed. */
export const SAVE_PROCESSED = "intent/saveProcessed";

export interface SaveProcessedParams {
  uri: string;
  /** The document version that was saved. */
  version: number;
  /** The id of the ledger record the save appended; null when none was due or it could not be written. */
  recordId: string | null;
}

/** Sent once a `workspace/didRenameFiles` has been recorded (docs/LEDGER.md "Renames, moves and copies"). */
export const RENAMES_PROCESSED = "intent/renamesProcessed";

export interface RenamesProcessedParams {
  files: { oldUri: string; newUri: string }[];
  /** The ids of the records appended, one per renamed file that is recorded. */
  recordIds: string[];
}

/**
 * Sent by a client just before the `textDocument/didChange` that makes `version` of `uri`, when that change
 * is not the person's typing though the editor reports it as theirs (docs/AGENTS.md "Edits inside the
 * editor"): the lines it produces are recorded with an `unknown` contributor and the reason's sentence.
 */
export const CHANGE_ORIGIN = "intent/changeOrigin";

/** Why a change is not the person's typing; the sentence each stands for is the server's (server/src/engine/untypedLines.ts). */
export type UntypedReason = "not-focused" | "inserted-at-once";

export interface ChangeOriginParams {
  uri: string;
  version: number;
  reason: UntypedReason;
}
