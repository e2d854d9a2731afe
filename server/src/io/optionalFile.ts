/** Reading a file that may not be there: the workspace's own files are all optional. */
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
