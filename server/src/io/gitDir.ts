/**
 * Where a repository's git dir is, found from the files (no process): what reading HEAD and finding the
 * configuration git reads need.
 */
import { statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readRegularText } from "./regularFiles";

/** The git dir of the repository `start` is in: the nearest `.git` at or above it, a folder or a `gitdir:` file. */
export function findGitDir(start: string): string | undefined {
  let dir = resolve(start);
  for (;;) {
    const dotGit = join(dir, ".git");
    const kind = fileKind(dotGit);
    if (kind === "dir") return dotGit;
    if (kind === "file") {
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? "");
      return m ? resolve(dir, m[1]!) : undefined; // relative to the folder holding the .git file
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** A linked worktree's git dir names the main one in `commondir` (relative to itself); else it is its own. */
export function readCommonDir(gitDir: string): string {
  const common = readText(join(gitDir, "commondir"))?.trim();
  return common ? resolve(gitDir, common) : gitDir;
}

function fileKind(path: string): "dir" | "file" | undefined {
  try {
    const s = statSync(path);
    return s.isDirectory() ? "dir" : s.isFile() ? "file" : undefined;
  } catch {
    return undefined;
  }
}

export function readText(path: string): string | undefined {
  try {
    return readRegularText(path);
  } catch {
    return undefined;
  }
}
