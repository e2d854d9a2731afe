/** Reading a file that may not be there: the workspace's own files are all optional. */
import { readFileSync } from "node:fs";

/** The file's text, or undefined when it (or a folder on its way) does not exist; other errors propagate. */
export function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}
