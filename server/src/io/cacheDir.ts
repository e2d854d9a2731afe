import { lstatSync } from "node:fs";
import { CACHE_DIR, ORCHESTRATION_DIR } from "../engine/workspaceFiles";
import { createOwnFile, ensureOwnDir, ownFilePath } from "./ownFiles";

export { CACHE_DIR };

/**
 * The workspace's cache folder as a real path, created on first use (through the own-file writer) with a
 * `.gitignore` that ignores the folder itself, so nothing in it ends up in a commit. Undefined when it
 * cannot be used safely: no `.orchestration/` (not an intent workspace: nothing is created),
 * `.orchestration` or `.cache` leads outside the workspace or through a dangling link, is not a folder, or
 * it cannot be created (a read-only checkout). Without a cache everything still works, only slower.
 */
export function workspaceCacheDir(root: string, opts: { create: boolean }): string | undefined {
  try {
    if (!lstatSync(ownFilePath(root, ORCHESTRATION_DIR, "directory")).isDirectory()) return undefined;
    const dir = ownFilePath(root, CACHE_DIR, "directory");
    if (!exists(dir)) {
      if (!opts.create) return undefined;
      ensureOwnDir(root, CACHE_DIR);
    }
    createOwnFile(root, `${CACHE_DIR}/.gitignore`, "*\n"); // exclusive: never follows a link planted there
    return dir;
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
