/**
 * Files git is told not to look at (`git update-index --assume-unchanged` or `--skip-worktree`): git's diff
 * takes them to be as the index has them, whatever the working tree holds, and a command can set the flag
 * itself. `intent check`, the editor and the shell snapshot judge the working tree, so such files are diffed
 * by git itself through a private index made from the base (`git read-tree`), which holds no flag: git's own
 * diff of the working tree, its binary and attribute rules, line ends and rename pairing included. A file
 * a sparse checkout leaves out (skip-worktree, not in the working tree) is left to git.
 */
import { lstatSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The paths of `git ls-files -v -z` output whose entry is flagged: a lower-case tag (assume-unchanged) or
 * `S`/`s` (skip-worktree). Paths as git printed them (relative to its working directory, or with
 * `--full-name` to the repository's top).
 */
export function flaggedPaths(lsFilesV: string): string[] {
  return flaggedEntries(lsFilesV).map((e) => e.path);
}

/** The flagged entries of `git ls-files -v -z` output, and whether each is a skip-worktree one. */
function flaggedEntries(lsFilesV: string): { path: string; skipWorktree: boolean }[] {
  const out: { path: string; skipWorktree: boolean }[] = [];
  for (const entry of lsFilesV.split("\0")) {
    const tag = entry.slice(0, 1);
    if (tag !== tag.toUpperCase() || tag === "S") out.push({ path: entry.slice(2), skipWorktree: tag === "S" || tag === "s" });
  }
  return out;
}

/** The flagged paths of a workspace's listing that git is to diff: not those a sparse checkout left out. */
export function flaggedToDiff(root: string, lsFilesV: string): string[] {
  return flaggedEntries(lsFilesV)
    .filter((e) => !e.skipWorktree || lstatSync(join(root, e.path), { throwIfNoEntry: false }) !== undefined)
    .map((e) => e.path);
}

/**
 * A private index for git to diff flagged files through (`GIT_INDEX_FILE`, with pathspecs read literally),
 * in a folder of its own under the system's temporary folder; `dispose` removes it. The caller fills it from
 * the base (`git read-tree <base>`) before the diff.
 */
export function privateIndex(): { env: Record<string, string>; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "intent-lsp-index-"));
  return {
    env: { GIT_INDEX_FILE: join(dir, "index"), GIT_LITERAL_PATHSPECS: "1" },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
