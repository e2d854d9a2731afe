/** Reading a file that may not be there: the workspace's own files are all optional. */
import { existsSync, statSync } from "node:fs";
import { readRegularText } from "./regularFiles";

/**
 * The file's text, or undefined when it (or a folder on its way) does not exist; other errors propagate.
 * Anything but a regular file (a FIFO, a device) is an error, thrown at once: reading it could block or
 * never end.
 */
export function readOptional(path: string): string | undefined {
  try {
    return readRegularText(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}

/** The file's size in bytes, 0 when it cannot be read (not there yet, or replaced while asked). */
export function sizeOrZero(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Whether anything (a file, a folder, a link) is at `path`. */
export function pathExists(path: string): boolean {
  return existsSync(path);
}
