/**
 * The filter drivers git could run in a repository: every `[filter "name"]` in the configuration files git
 * reads there (system, global, the repository's, its worktree's, and every file they include, whatever the
 * include's condition) and in the environment's `git -c` settings. Read from the files, never by starting
 * git: the agent hooks ask on every call, and a `git config` process per call would double their cost. Each
 * file's names are kept while its size and modification time stay the same.
 */
import { statSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { filterNamesInKeys, type GitConfigNames, gitConfigNames } from "../engine/gitConfigText";
import { findGitDir, readCommonDir, readText } from "./gitDir";

/** Includes followed at most this deep, as git itself stops (it fails past 10). */
const MAX_INCLUDE_DEPTH = 10;

const known = new Map<string, { stamp: string; names: GitConfigNames }>();

/** What the configuration files say of their filter drivers. */
export interface FilterDrivers {
  /** Names of the drivers the files and the environment define. */
  names: string[];
  /**
   * Why the files alone cannot tell every driver (an include of a path only git can resolve, `~user/`):
   * the caller then asks git for the names it reads.
   */
  unsure?: string;
}

/** The filter drivers any configuration git reads in `cwd` defines (none outside a repository). */
export function filterDriverNames(cwd: string, env: NodeJS.ProcessEnv): FilterDrivers {
  const names = new Set<string>(filterNamesInKeys(envConfigKeys(env)));
  const home = env["HOME"] || homedir();
  const seen = new Set<string>();
  let unsure: string | undefined;
  const visit = (file: string, depth: number) => {
    if (seen.has(file) || depth > MAX_INCLUDE_DEPTH) return;
    seen.add(file);
    const found = namesOf(file);
    if (!found) return;
    for (const n of found.filters) names.add(n);
    for (const inc of found.includes) {
      const path = includedPath(file, inc, home);
      if (path === undefined) unsure ??= `${file} includes ${JSON.stringify(inc)}`;
      else visit(path, depth + 1);
    }
  };
  for (const file of configFiles(cwd, env, home)) visit(file, 0);
  return unsure === undefined ? { names: [...names] } : { names: [...names], unsure };
}

/** The configuration files git reads for a repository at `cwd`, in no particular order. */
function configFiles(cwd: string, env: NodeJS.ProcessEnv, home: string): string[] {
  const files: string[] = [];
  // the system file is under git's install prefix: the prefixes git is installed under most often
  if (!env["GIT_CONFIG_NOSYSTEM"]) files.push(env["GIT_CONFIG_SYSTEM"] || "/etc/gitconfig", "/usr/local/etc/gitconfig", "/opt/homebrew/etc/gitconfig");
  if (env["GIT_CONFIG_GLOBAL"]) files.push(env["GIT_CONFIG_GLOBAL"]);
  else files.push(join(home, ".gitconfig"), join(env["XDG_CONFIG_HOME"] || join(home, ".config"), "git", "config"));
  const gitDir = env["GIT_DIR"] ? resolve(cwd, env["GIT_DIR"]) : findGitDir(cwd);
  if (gitDir) {
    const common = env["GIT_COMMON_DIR"] ? resolve(cwd, env["GIT_COMMON_DIR"]) : readCommonDir(gitDir);
    files.push(join(common, "config"), join(gitDir, "config.worktree"), join(common, "config.worktree"));
  }
  return files;
}

/**
 * An include's file: `~/` from home, `~user/` from this user's home when it names this user, a relative
 * path from the including file's folder; undefined for another user's `~user/`, whose home only the
 * system's user database knows.
 */
function includedPath(from: string, written: string, home: string): string | undefined {
  if (written.startsWith("~/")) return join(home, written.slice(2));
  if (written.startsWith("~")) {
    const slash = written.indexOf("/");
    const user = slash < 0 ? written.slice(1) : written.slice(1, slash);
    const self = currentUser();
    if (!self || user !== self.username) return undefined;
    return join(self.homedir, slash < 0 ? "" : written.slice(slash + 1));
  }
  return isAbsolute(written) ? written : resolve(dirname(from), written);
}

function currentUser(): { username: string; homedir: string } | undefined {
  try {
    return userInfo();
  } catch {
    return undefined; // no entry for this user id in the user database
  }
}

function namesOf(file: string): GitConfigNames | undefined {
  let stamp: string;
  try {
    const s = statSync(file);
    stamp = `${s.size}:${s.mtimeMs}:${s.ino}`;
  } catch {
    known.delete(file);
    return undefined;
  }
  const cached = known.get(file);
  if (cached?.stamp === stamp) return cached.names;
  const text = readText(file);
  if (text === undefined) return undefined;
  const names = gitConfigNames(text);
  known.set(file, { stamp, names });
  return names;
}

/** Keys of settings a parent git passes down (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_KEY_<n>`). */
function envConfigKeys(env: NodeJS.ProcessEnv): string[] {
  const keys: string[] = [];
  // each setting is one or two single-quoted words: 'key'='value' or 'key=value'
  for (const m of (env["GIT_CONFIG_PARAMETERS"] ?? "").matchAll(/'((?:[^']|'\\'')*)'/g)) keys.push(m[1]!.split("=")[0]!);
  const count = Number(env["GIT_CONFIG_COUNT"] ?? 0);
  for (let i = 0; i < count && i < 1000; i++) keys.push(env[`GIT_CONFIG_KEY_${i}`] ?? "");
  return keys;
}
