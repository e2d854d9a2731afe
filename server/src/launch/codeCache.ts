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
 *
 * V8 checks only that cached data was made by the same V8 with the same flags for a source of the same
 * length, so the cache's name must change whenever the bundle's text does. Hashing the megabyte of text on
 * every start cost a hook more than anything else the launcher does; the name is made instead of the
 * SHA-256 of the bundle that the build computed and wrote into this launcher, and of the bundle file's
 * identity as the kernel reports it: device, inode, size, and the modification and status-change times in
 * nanoseconds. Any write to the file changes its status-change time, which no tool can set back (`cp -p`,
 * `tar` and npm restore the modification time only), and replacing the file changes its inode or that time:
 * a cache is only ever used with the very file, unchanged, that the run which made it read. The build's hash
 * covers a file system whose clock is too coarse to tell two builds apart within the same tick.
 */
import { isAscii } from "node:buffer";
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import Module from "node:module";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";
import { fnv1a64 } from "../engine/fnv1a64";
import { wordChecksum } from "../engine/wordChecksum";
import { isPrivateDir, userCacheDir } from "../io/userCacheDir";

/** The SHA-256 of the bundle this launcher was built with (scripts/build.mjs); absent outside a build. */
declare const __INTENT_BUNDLE_SHA256__: string | undefined;

type ModuleInternals = Module & { filename: string; paths: string[]; loaded: boolean };
type ModuleStatics = typeof Module & { wrap(source: string): string; _nodeModulePaths(dir: string): string[] };

/**
 * Runs `bundle` (a CommonJS file) as the main program, from the code cache when there is a valid one.
 * `flavor` names the kind of run (the subcommand): V8 compiles functions lazily, so each kind keeps its own
 * cache holding the functions it needs, written by its first run.
 */
export function runWithCodeCache(bundle: string, flavor: string, env: NodeJS.ProcessEnv = process.env, opts: { writeAfterMs?: number } = {}): void {
  // the file's identity first: a change after this only ever makes a cache under a name no later run uses
  const identity = fileIdentity(bundle);
  const source = readSource(bundle).replace(/^#!/, "//");
  const cacheFile = identity === undefined ? undefined : cacheFileFor(bundle, flavor, identity, env);
  const cachedData = cacheFile ? readCache(cacheFile) : undefined;
  const script = new Script((Module as ModuleStatics).wrap(source), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    // at exit the cache holds every function this run compiled, not only the top level; a long-lived
    // process (the server) also writes it once `writeAfterMs` after its start, in case it never exits on its own
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      writeCache(cacheFile, () => script.createCachedData());
    };
    process.once("exit", write);
    if (opts.writeAfterMs !== undefined) setTimeout(write, opts.writeAfterMs).unref();
  }
  const mod = new Module(bundle) as ModuleInternals;
  mod.filename = bundle;
  mod.paths = (Module as ModuleStatics)._nodeModulePaths(dirname(bundle));
  const deferred = new Map<string, object>();
  const load = (id: string) => {
    const name = id.startsWith("node:") ? id.slice(5) : id;
    if (!DEFERRED.has(name)) return mod.require(id);
    let stand = deferred.get(name);
    if (!stand) {
      stand = loadedOnUse(() => mod.require(id) as object);
      deferred.set(name, stand);
    }
    return stand;
  };
  const req = Object.assign(load, { main: mod, resolve: require.resolve, cache: require.cache });
  process.mainModule = mod;
  (script.runInThisContext() as (...args: unknown[]) => void).call(mod.exports, mod.exports, req, mod, bundle, dirname(bundle));
  mod.loaded = true;
}

/**
 * Node's own modules that the bundle requires when it starts, for code that many runs never reach (a hook
 * call rarely runs git, compresses or reads a file asynchronously, and a heartbeat hashes nothing), and that
 * cost a short run several milliseconds to load (child_process brings net and dgram, crypto the streams):
 * each is handed over as a stand-in that loads the module at its first use. Each exports a plain object,
 * used through its properties.
 */
const DEFERRED = new Set(["child_process", "zlib", "fs/promises", "crypto"]);

/** An object that behaves as the one `load` returns, loaded the first time anything about it is asked. */
function loadedOnUse(load: () => object): object {
  let real: object | undefined;
  const it = () => (real ??= load());
  return new Proxy(
    {},
    {
      get: (_, key) => Reflect.get(it(), key),
      has: (_, key) => Reflect.has(it(), key),
      set: (_, key, value) => Reflect.set(it(), key, value),
      deleteProperty: (_, key) => Reflect.deleteProperty(it(), key),
      defineProperty: (_, key, desc) => Reflect.defineProperty(it(), key, desc),
      ownKeys: () => Reflect.ownKeys(it()),
      // reported configurable: a proxy may not call a property non-configurable that its own target lacks
      getOwnPropertyDescriptor: (_, key) => {
        const desc = Reflect.getOwnPropertyDescriptor(it(), key);
        return desc && { ...desc, configurable: true };
      },
      getPrototypeOf: () => Reflect.getPrototypeOf(it()),
    },
  );
}

/** The bundle's text. An ASCII file (what esbuild writes) is read as Latin-1: the same text, without UTF-8 decoding. */
function readSource(bundle: string): string {
  const bytes = readFileSync(bundle);
  return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
}

/** What the cache's name is made of for this bundle file (see the top of this module); undefined when it cannot be read. */
export function fileIdentity(bundle: string): string | undefined {
  try {
    const st = statSync(bundle, { bigint: true });
    const build = typeof __INTENT_BUNDLE_SHA256__ === "string" ? __INTENT_BUNDLE_SHA256__ : "unbuilt";
    return [build, st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs, process.version, process.arch].join(":");
  } catch {
    return undefined;
  }
}

/** The cache file for this bundle file, Node version and architecture, or undefined when caching is off or unsafe. */
function cacheFileFor(bundle: string, flavor: string, identity: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env["INTENT_LSP_CODE_CACHE"] === "off") return undefined;
  try {
    const dir = join(userCacheDir(env), "code-cache");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isPrivateDir(dir)) return undefined;
    const key = fnv1a64(identity);
    return join(dir, `${basename(bundle, ".js")}-${key}-${flavor.replace(/[^a-z-]/g, "").slice(0, 40) || "none"}.bin`);
  } catch {
    return undefined;
  }
}

export { isPrivateDir, userCacheDir };

function readCache(file: string): Buffer | undefined {
  try {
    const st = lstatSync(file);
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid)) return undefined;
    return openCodeCache(readFileSync(file));
  } catch {
    return undefined;
  }
}

/**
 * A code cache file: CACHE_MAGIC, the checksum of V8's data (engine/wordChecksum.ts, 16 hex digits), its
 * length (u32), then the data, 8-byte aligned. V8 checks the header of its data (version, flags, source,
 * length) but a release build of Node checks no checksum of the rest: a flipped bit there crashes the run
 * (or runs other code) on every start until the file is removed, so the launcher checks its own.
 */
const CACHE_MAGIC = Buffer.from("ILC1", "latin1");
const CACHE_HEADER = 24;

/** V8's data in a code cache file, when the file is whole; undefined for anything else. */
function openCodeCache(bytes: Buffer): Buffer | undefined {
  if (bytes.length < CACHE_HEADER || !bytes.subarray(0, 4).equals(CACHE_MAGIC)) return undefined;
  const data = bytes.subarray(CACHE_HEADER);
  if (bytes.readUInt32LE(20) !== data.length) return undefined;
  return bytes.toString("latin1", 4, 20) === wordChecksum(data) ? data : undefined;
}

function writeCache(file: string, data: () => Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const bytes = data();
    const header = Buffer.alloc(CACHE_HEADER);
    CACHE_MAGIC.copy(header, 0);
    header.write(wordChecksum(bytes), 4, "latin1");
    header.writeUInt32LE(bytes.length, 20);
    const fd = openSync(tmp, "w", 0o600);
    try {
      for (const part of [header, bytes]) for (let done = 0; done < part.length; ) done += writeSync(fd, part, done);
      fsyncSync(fd); // flushed before the rename: a crash leaves the old cache or the new one, not zeroes
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file); // concurrent hooks: the last complete cache wins, none is ever half-written
  } catch {
    /* a cache that cannot be written only costs the next run its compile */
  }
  try {
    pruneCaches(dirname(file), file, Date.now());
  } catch {
    /* a folder that cannot be listed is pruned by a later write */
  }
}

/**
 * The most bytes the cache folder keeps: each build of the CLI makes its own caches (about half a megabyte
 * for each subcommand run), so a user who updates, or keeps several versions, would otherwise collect them
 * for ever. About four builds' worth of every subcommand.
 */
export const MAX_CACHE_BYTES = 64 * 1024 * 1024;
/** A temporary file older than this was left by a run killed while writing its cache. */
const ABANDONED_TMP_MS = 60 * 60 * 1000;
const CACHE_NAME = /^[a-z-]+-[0-9a-f]{16}-[a-z-]+\.bin$/;
const TMP_NAME = /^[a-z-]+-[0-9a-f]{16}-[a-z-]+\.bin\.\d+\.tmp$/;

/**
 * Keeps the folder within `MAX_CACHE_BYTES`: the caches used least recently go first (the later of the
 * access and modification times: the kernel's relatime updates the access time of a file read at least
 * daily), never `keep`, the one just written. Runs only after a cache was written (a new build or
 * subcommand), never on a run that found its cache. Only files named as this module names them are touched.
 */
export function pruneCaches(dir: string, keep: string, now: number, maxBytes = MAX_CACHE_BYTES): void {
  const caches: { path: string; size: number; used: number }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === keep) continue;
    const isTmp = TMP_NAME.test(name);
    if (!isTmp && !CACHE_NAME.test(name)) continue;
    const st = lstatSync(path);
    if (!st.isFile()) continue;
    if (isTmp) {
      if (now - st.mtimeMs > ABANDONED_TMP_MS) unlinkSync(path);
      continue;
    }
    caches.push({ path, size: st.size, used: Math.max(st.atimeMs, st.mtimeMs) });
  }
  let total = lstatSync(keep).size;
  for (const c of caches.sort((a, b) => b.used - a.used)) {
    total += c.size;
    if (total > maxBytes) unlinkSync(c.path);
  }
}
