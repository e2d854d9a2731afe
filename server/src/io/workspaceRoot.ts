import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { gitTopLevel } from "./git";
import { INTENTS_FILE } from "../engine/workspaceFiles";

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

/** The nearest folder at or above `start` holding the intents file; never starts a process (the editor asks). */
export function findIntentsRoot(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, INTENTS_FILE))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function findWorkspaceRoot(start: string): WorkspaceRoot | undefined {
  const intents = findIntentsRoot(start);
  if (intents) return { root: intents, via: "intents" };
  const top = isDirectory(start) ? gitTopLevel(resolve(start)) : undefined;
  return top ? { root: top, via: "git" } : undefined;
}

/** `--root DIR` when given (it must exist; a relative one is taken from `cwd`, the command's folder), else the search from `start`. */
export function resolveWorkspaceRoot(given: string | undefined, start: string, cwd: string): WorkspaceRoot | undefined {
  if (given !== undefined) {
    const root = resolve(cwd, given);
    if (!isDirectory(root)) throw new Error(`--root ${given}: no such directory`);
    return { root, via: "given" };
  }
  // against the caller's folder, never this process's own (the hook service runs in another)
  return findWorkspaceRoot(resolve(cwd, start));
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
