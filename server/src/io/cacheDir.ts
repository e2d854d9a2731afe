import { lstatSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { ORCHESTRATION_DIR } from "../engine/workspaceFiles";

/** Where intent-lsp keeps what it can rebuild (the ledger index, the compiled catalogue), relative to the root. */
export const CACHE_DIR = `${ORCHESTRATION_DIR}/.cache`;

/**
 * The workspace's cache folder as a real path, created on first use with a `.gitignore` that ignores the
 * folder itself, so nothing in it ends up in a commit. Undefined when it cannot be used safely: no
 * `.orchestration/` (not an intent workspace: nothing is created), `.orchestration` or `.cache` leads outside
 * the workspace through a symbolic link (a repository can commit such a link), or it cannot be created
 * (a read-only checkout). Without a cache everything still works, only slower.
 */
export function workspaceCacheDir(root: string, opts: { create: boolean }): string | undefined {
  try {
    const realRoot = realpathSync(root);
    const inside = (p: string) => p.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
    const orchestration = realpathSync(join(root, ORCHESTRATION_DIR));
    if (!inside(orchestration) || !lstatSync(orchestration).isDirectory()) return undefined;
    const dir = join(orchestration, ".cache");
    if (!exists(dir)) {
      if (!opts.create) return undefined;
      try {
        mkdirSync(dir);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e; // another process made it first
      }
    }
    const real = realpathSync(dir);
    if (!inside(real) || !lstatSync(real).isDirectory()) return undefined;
    try {
      // O_EXCL: never follows a link planted under that name
      writeFileSync(join(real, ".gitignore"), "*\n", { flag: "wx" });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    return real;
  } catch {
    return undefined;
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
