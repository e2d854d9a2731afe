import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { gitTopLevel } from "./git";
import { INTENTS_FILE } from "./workspaceFiles";

/**
 * Which folder is the workspace, for commands run from a terminal, a CI job or an agent's hook: the nearest
 * folder at or above `start` that holds `.orchestration/active_intents.yaml` (so a command run in `src/api`
 * finds its workspace), else the git top level (a repository that has not declared intents yet).
 */
export interface WorkspaceRoot {
  root: string;
  /** How it was found: an explicit --root, the intents file, or git. */
  via: "given" | "intents" | "git";
}

export function findWorkspaceRoot(start: string): WorkspaceRoot | undefined {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(resolve(dir, INTENTS_FILE))) return { root: dir, via: "intents" };
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const top = isDirectory(start) ? gitTopLevel(resolve(start)) : undefined;
  return top ? { root: top, via: "git" } : undefined;
}

/** `--root DIR` when given (it must exist), else the search from `start`. */
export function resolveWorkspaceRoot(given: string | undefined, start: string): WorkspaceRoot | undefined {
  if (given !== undefined) {
    const root = resolve(given);
    if (!isDirectory(root)) throw new Error(`--root ${given}: no such directory`);
    return { root, via: "given" };
  }
  return findWorkspaceRoot(start);
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
