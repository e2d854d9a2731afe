import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * vitest's global setup: the test run's scratch folders (os.tmpdir(), which the tests make their workspaces
 * in) go to a folder of this run's own on a memory file system when there is one with room, and are removed
 * with it when the run ends. The tests write, fsync and remove thousands of small files (every save, hook and
 * ledger append); on a disk that costs more than the code they test, and a memory file system answers every
 * call the code makes the same way (links, FIFOs, modes, times, rename, fsync), only sooner.
 * INTENT_LSP_DISK_TMPDIR keeps the disk's folder for what must outlive the run (an editor run kept for a look
 * after it failed, see test/e2e/editorRun.ts).
 */

const MEMORY_FS = "/dev/shm";
/** A container's /dev/shm may be a few megabytes: below this the run stays on the disk. */
const ROOM_BYTES = 2 * 1024 ** 3;

export default function setup(): (() => void) | undefined {
  if (process.env["INTENT_LSP_DISK_TMPDIR"]) return undefined; // a run inside a run: its parent's folder holds
  const disk = tmpdir();
  let dir: string;
  try {
    const fs = statfsSync(MEMORY_FS);
    if (fs.bavail * fs.bsize < ROOM_BYTES) return undefined;
    dir = mkdtempSync(join(MEMORY_FS, "intent-lsp-tests-"));
  } catch {
    return undefined; // no memory file system here, or not writable: the disk's folder serves
  }
  // set before vitest starts its workers, which inherit the environment
  process.env["INTENT_LSP_DISK_TMPDIR"] = disk;
  process.env["TMPDIR"] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
