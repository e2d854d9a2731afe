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
