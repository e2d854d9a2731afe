/**
 * Starts a bundled program with V8's code cache, so a short-lived process (an agent's hook, run on every
 * tool call) does not compile the same megabyte of JavaScript again each time: about a fifth of a hook's
 * time went to compiling the bundle. Node 22 does this itself (`module.enableCompileCache`); on Node 20 it
 * takes `vm.Script`'s `cachedData`.
 *
 * The cache lives in the user's own cache folder (`$XDG_CACHE_HOME/intent-lsp` or `~/.cache/intent-lsp`),
 * never in a shared temp folder: a code cache is executable, so a folder another user could write to is not
 * used at all. Any problem with the cache (absent, stale, unwritable, rejected by V8) only costs the
 * compile it would have saved; `INTENT_LSP_CODE_CACHE=off` turns it off.
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import Module from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";

type ModuleInternals = Module & { filename: string; paths: string[]; loaded: boolean };
type ModuleStatics = typeof Module & { wrap(source: string): string; _nodeModulePaths(dir: string): string[] };

/**
 * Runs `bundle` (a CommonJS file) as the main program, from the code cache when there is a valid one.
 * `flavor` names the kind of run (the subcommand): V8 compiles functions lazily, so each kind keeps its own
 * cache holding the functions it needs, written by its first run.
 */
export function runWithCodeCache(bundle: string, flavor: string, env: NodeJS.ProcessEnv = process.env): void {
  const source = readFileSync(bundle, "utf8").replace(/^#!/, "//");
  const cacheFile = cacheFileFor(bundle, flavor, source, env);
  const cachedData = cacheFile ? readCache(cacheFile) : undefined;
  const script = new Script((Module as ModuleStatics).wrap(source), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    // at exit the cache holds every function this run compiled, not only the top level
    process.once("exit", () => writeCache(cacheFile, () => script.createCachedData()));
  }
  const mod = new Module(bundle) as ModuleInternals;
  mod.filename = bundle;
  mod.paths = (Module as ModuleStatics)._nodeModulePaths(dirname(bundle));
  const req = Object.assign((id: string) => mod.require(id), { main: mod, resolve: require.resolve, cache: require.cache });
  process.mainModule = mod;
  (script.runInThisContext() as (...args: unknown[]) => void).call(mod.exports, mod.exports, req, mod, bundle, dirname(bundle));
  mod.loaded = true;
}

/** The cache file for this bundle, Node version and architecture, or undefined when caching is off or unsafe. */
function cacheFileFor(bundle: string, flavor: string, source: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env["INTENT_LSP_CODE_CACHE"] === "off") return undefined;
  try {
    const base = env["XDG_CACHE_HOME"] || join(homedir(), ".cache");
    const dir = join(base, "intent-lsp", "code-cache");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isPrivateDir(dir)) return undefined;
    const key = createHash("sha256").update(source).update(process.version).update(process.arch).digest("hex").slice(0, 16);
    return join(dir, `${basename(bundle, ".js")}-${key}-${flavor.replace(/[^a-z-]/g, "").slice(0, 40) || "none"}.bin`);
  } catch {
    return undefined;
  }
}

/** A real folder (not a link) owned by this user that nobody else may write to. */
function isPrivateDir(dir: string): boolean {
  const st = lstatSync(dir);
  const uid = process.getuid?.();
  return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
}

function readCache(file: string): Buffer | undefined {
  try {
    const st = lstatSync(file);
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid)) return undefined;
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function writeCache(file: string, data: () => Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data(), { mode: 0o600 });
    renameSync(tmp, file); // concurrent hooks: the last complete cache wins, none is ever half-written
  } catch {
    /* a cache that cannot be written only costs the next run its compile */
  }
}
