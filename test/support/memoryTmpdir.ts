import { mkdtempSync, readdirSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * vitest's global setup: the test run's scratch folders (os.tmpdir(), which the tests make their workspaces
 * in) go to a folder of this run's own on a memory file system when there is one with room, and are removed
 * with it when the run ends. The tests write, fsync and remove thousands of small files (every save, hook and
 * ledger append); on a disk that costs more than the code they test, and a memory file system answers every
 * call the code makes the same way (links, FIFOs, modes, times, rename, fsync), only sooner.
 * INTENT_LSP_DISK_TMPDIR keeps the disk's folder for what must outlive the run (an editor run kept for a look
 * after it failed, see test/e2e/editorRun.ts). The folder is named for the run's process: a run that was
 * killed before its end leaves its folder, in memory, and the next run removes it once that process is gone.
 */

const MEMORY_FS = "/dev/shm";
const PREFIX = "intent-lsp-tests-";
/** A container's /dev/shm may be a few megabytes: below this the run stays on the disk. */
const ROOM_BYTES = 2 * 1024 ** 3;

export default function setup(): (() => void) | undefined {
  if (process.env["INTENT_LSP_DISK_TMPDIR"]) return undefined; // a run inside a run: its parent's folder holds
  const disk = tmpdir();
  let dir: string;
  try {
    const fs = statfsSync(MEMORY_FS);
    if (fs.bavail * fs.bsize < ROOM_BYTES) return undefined;
    removeLeftovers();
    dir = mkdtempSync(join(MEMORY_FS, `${PREFIX}${process.pid}-`));
  } catch {
    return undefined; // no memory file system here, or not writable: the disk's folder serves
  }
  // set before vitest starts its workers, which inherit the environment
  process.env["INTENT_LSP_DISK_TMPDIR"] = disk;
  process.env["TMPDIR"] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** The folders of runs whose process is gone (killed before their end): what they left lies in memory. */
function removeLeftovers(): void {
  for (const name of readdirSync(MEMORY_FS)) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (pid && !running(pid)) rmSync(join(MEMORY_FS, name), { recursive: true, force: true });
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // another user's process
  }
}
