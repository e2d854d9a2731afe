/**
 * The key that binds the caches intent-lsp trusts to this user on this machine. A cache file in a workspace
 * (the parsed catalogue the gate judges by, the ledger's index, the reports' caches) is checked before it is
 * trusted, but a checksum anybody can compute proves only that the bytes are whole, not that intent-lsp
 * wrote them: a repository could ship a `.orchestration/.cache/catalogue.json` whose intents own more than
 * its YAML says. Each cache's checksum is therefore keyed with 32 random bytes kept in the user's own cache
 * folder (`$XDG_CACHE_HOME/intent-lsp/cache.key`, mode 0600, in a folder nobody else may write to): a cache
 * made anywhere else never checks, and is rebuilt.
 *
 * When the key cannot be kept (no private cache folder, a read-only home), each process makes one of its
 * own: its caches are then trusted by nobody else, which costs their rebuilding, never an answer.
 */
import { closeSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { isPrivateDir, userCacheDir } from "./userCacheDir";

const KEY_BYTES = 32;
const KEY_FILE = "cache.key";

let memo: Buffer | undefined;

/** Random bytes; crypto is loaded only here, to make a key: the hooks that read one do not load it. */
function randomBytes(n: number): Buffer {
  return (require("node:crypto") as typeof import("node:crypto")).randomBytes(n);
}

/** This user's cache key (read once per process, made on first use). */
export function cacheKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  memo ??= keptKey(userCacheDir(env)) ?? randomBytes(KEY_BYTES);
  return memo;
}

/** Forgets the key read (tests that change the cache folder). */
export function forgetCacheKey(): void {
  memo = undefined;
}

function keptKey(dir: string): Buffer | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isPrivateDir(dir)) return undefined;
    const file = join(dir, KEY_FILE);
    const found = readKey(file);
    if (found) return found;
    // made whole under another name, then linked into place: a reader never sees a part of a key, and of two
    // processes making one at once, the first link wins and the other reads it
    const tmp = join(dir, `${KEY_FILE}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    const fd = openSync(tmp, "wx", 0o600);
    try {
      const key = randomBytes(KEY_BYTES);
      for (let done = 0; done < key.length; ) done += writeSync(fd, key, done);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, file);
    } catch {
      // another process linked its key first: that one is the key
    } finally {
      unlinkSync(tmp);
    }
    return readKey(file);
  } catch {
    return undefined;
  }
}

/** The key in `file` when it is a regular file of this user's holding exactly a key; undefined otherwise. */
function readKey(file: string): Buffer | undefined {
  try {
    const st = lstatSync(file);
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) return undefined;
    const key = readFileSync(file);
    return key.length === KEY_BYTES ? key : undefined;
  } catch {
    return undefined;
  }
}
