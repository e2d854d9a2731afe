/** The user's own cache folder for intent-lsp, outside every workspace: the launcher's code cache, the hook sockets, the cache key. */
import { lstatSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The user's own cache folder for intent-lsp: `$XDG_CACHE_HOME/intent-lsp`, else `~/.cache/intent-lsp`. */
export function userCacheDir(env: NodeJS.ProcessEnv): string {
  return join(env["XDG_CACHE_HOME"] || join(homedir(), ".cache"), "intent-lsp");
}

/** A real folder (not a link) owned by this user that nobody else may write to. */
export function isPrivateDir(dir: string): boolean {
  const st = lstatSync(dir);
  const uid = process.getuid?.();
  return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
}
