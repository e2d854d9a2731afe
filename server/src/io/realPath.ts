/** Following symlinks to where a workspace path really leads: what the agent gate judges, and where our own files land. */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, parse, relative } from "node:path";
import { toWorkspacePath } from "../engine/paths";

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
