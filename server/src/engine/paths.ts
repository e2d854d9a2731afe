import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from "node:path";

/**
 * Paths as the workspace files and the ledger hold them: relative to the workspace root, with forward
 * slashes. Every door turns what it is given (an agent's absolute path, a terminal argument, an editor's
 * command argument) into this form here, so that "inside the workspace" means the same thing everywhere.
 */

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

/** Symbolic links followed before a path is given up on as a loop (Linux's own limit). */
const MAX_LINK_HOPS = 40;

/**
 * The absolute path where a write to `path` (relative to `root`) really lands: every symbolic link on the
 * way is followed, a dangling one too — writing through a link whose target does not exist yet creates that
 * target, so it is the target that counts, not the link. Parts that do not exist are taken as written.
 * Undefined for a link loop or an unreadable root.
 */
export function landingPath(root: string, path: string): string | undefined {
  let current: string;
  try {
    current = realpathSync(root);
  } catch {
    return undefined;
  }
  const queue = (isAbsolute(path) ? relative(root, path) : path).split(/[\\/]+/);
  let hops = 0;
  let missing = false; // below a part that does not exist nothing can be a link
  while (queue.length) {
    const part = queue.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    if (!missing) {
      let st: ReturnType<typeof lstatSync> | undefined;
      try {
        st = lstatSync(next);
      } catch {
        missing = true;
      }
      if (st?.isSymbolicLink()) {
        if (++hops > MAX_LINK_HOPS) return undefined;
        let target: string;
        try {
          target = readlinkSync(next);
        } catch {
          return undefined;
        }
        queue.unshift(...target.split(/[\\/]+/));
        if (isAbsolute(target)) current = parse(target).root;
        continue;
      }
    }
    current = next;
  }
  return current;
}

/**
 * Where a workspace path really leads once symlinks are followed (dangling ones too, see `landingPath`), as
 * a path relative to the real workspace root, or undefined when it leads outside. An agent writing
 * `src/api/link` where `link` points at `~/.ssh` must not pass as an edit inside `src/api/**`.
 */
export function realWorkspacePath(root: string, path: string): string | undefined {
  const landing = landingPath(root, path);
  if (landing === undefined) return undefined;
  try {
    return toWorkspacePath(realpathSync(root), landing);
  } catch {
    return undefined;
  }
}
