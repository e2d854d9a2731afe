/**
 * Paths as the workspace files and the ledger hold them: relative to the workspace root, with forward
 * slashes. Every door turns what it is given (an agent's absolute path, a terminal argument, an editor's
 * command argument) into this form here, so that "inside the workspace" means the same thing everywhere.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";

/**
 * The workspace-relative POSIX path of `path` (absolute, or relative to `root`), or undefined when it lies
 * outside `root` or is `root` itself. Only a whole `..` segment leaves the root: a file named `..foo` is inside.
 */
export function toWorkspacePath(root: string, path: string): string | undefined {
  const abs = isAbsolute(path) ? path : resolve(root, path);
  const rel = relative(root, abs);
  // `relative` answers with an absolute path when there is no relative one (another drive on Windows)
  if (!rel || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return sep === "/" ? rel : rel.split(sep).join("/");
}

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const DRIVE = /^[A-Za-z]:/;

/**
 * Whether `p` can be written into a workspace file as a path (a line of `.intentignore`, a setting) without
 * leaving the workspace or changing the file's meaning: not empty, not absolute (`/x`, `\x`, `C:`), no `..`
 * segment, and no control characters (a line break would start another pattern).
 */
export function isSafeRelative(p: string): boolean {
  if (p === "" || CONTROL_CHARS.test(p)) return false;
  if (p.startsWith("/") || p.startsWith("\\") || DRIVE.test(p)) return false;
  return !p.split(/[\\/]/).includes("..");
}
