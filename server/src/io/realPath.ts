/** Following symlinks to where a workspace path really leads: what the agent gate judges. */
import { realpathSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { toWorkspacePath } from "../engine/paths";

/**
 * Where a workspace path really leads once symlinks are followed (for the parts that exist), as a path
 * relative to the real workspace root, or undefined when a link takes it outside. An agent writing
 * `src/api/link` where `link` points at `~/.ssh` must not pass as an edit inside `src/api/**`.
 */
export function realWorkspacePath(root: string, path: string): string | undefined {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return undefined;
  }
  let existing = resolve(root, path);
  const rest: string[] = [];
  for (;;) {
    try {
      return toWorkspacePath(realRoot, resolve(realpathSync(existing), ...rest));
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return undefined;
      rest.unshift(basename(existing));
      existing = parent;
    }
  }
}
