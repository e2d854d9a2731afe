import { fileHashSteps } from "../engine/hashing";

/**
 * Whole-file work on very large documents, done in slices so that the server keeps answering: between two
 * slices the connection handles the next message waiting (a hover, a keystroke).
 */

/** Characters hashed between two pauses: a few tens of thousands of lines. */
const HASH_SLICE_CHARS = 1 << 20;

/** Lines joined into one piece of a saved text between two pauses. */
export const JOIN_SLICE_LINES = 50_000;

/**
 * Whether whole-file work on this many characters needs slices. Smaller texts are done at once, before the
 * next message is handled, so a hover or a CodeLens request sent right after a didSave sees the save.
 */
export function needsSlices(chars: number): boolean {
  return chars > HASH_SLICE_CHARS;
}

/** `fileHash(text)`, pausing between slices (`setImmediate`) so that queued messages are handled. */
export async function hashYielding(text: string): Promise<string> {
  const steps = fileHashSteps(text, HASH_SLICE_CHARS);
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return r.value;
    await pause();
  }
}

/**
 * Lets the next message waiting be handled before going on. The connection queues the handling of its next
 * message with `setImmediate` once the current one returns, and immediates run in the order queued: a
 * single turn would come back before that message, so this waits two.
 */
export function pause(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
}
