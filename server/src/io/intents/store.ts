import { ownFilePath, writeOwnFile } from "../ownFiles";
import { acquireLock } from "../fileLock";
import { INTENTS_FILE } from "../../engine/workspaceFiles";
import { readOptional } from "../optionalFile";
import type { WriteResult } from "../../engine/intents/writeback";

export type StoreResult = { ok: true; text: string } | { ok: false; reason: string };

/**
 * Applies `change` to active_intents.yaml on disk, under a cross-process lock, only if the file still
 * holds `basedOn` (the text the caller's view was built from). Otherwise it refuses: somebody else changed
 * the file and overwriting would lose their work. The write is atomic (temp file + rename).
 */
export async function modifyIntentsFile(root: string, basedOn: string | undefined, change: (text: string) => WriteResult): Promise<StoreResult> {
  let path: string;
  try {
    path = ownFilePath(root, INTENTS_FILE); // where it really lands: the lock and the write go there
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  let release: (() => Promise<void>) | undefined;
  try {
    release = await acquireLock(path, { retries: { retries: 20, minTimeout: 20, maxTimeout: 200 } });
  } catch (err) {
    return { ok: false, reason: `${INTENTS_FILE} is locked by another writer (${(err as Error).message}); try again in a moment.` };
  }
  try {
    const current = readOptional(path);
    if (current === undefined) return { ok: false, reason: `${INTENTS_FILE} does not exist; create it first (see the README).` };
    if (basedOn !== undefined && current !== basedOn) {
      return {
        ok: false,
        reason: `${INTENTS_FILE} changed on disk since it was read (another editor, agent or command wrote it); nothing was written. Reload and try again.`,
      };
    }
    const result = change(current);
    if (!result.ok) return result;
    writeOwnFile(root, INTENTS_FILE, result.text);
    return { ok: true, text: result.text };
  } finally {
    await release();
  }
}
