/**
 * The loaded catalogue (intents and problems) cached in the workspace's cache folder, with the exact text of
 * `active_intents.yaml` it was loaded from and the code that loaded it. Parsing the YAML on every hook call
 * and CLI run would be most of their time on a large catalogue (YAML parsing, validating every glob), while
 * the file changes rarely. A cache that does not match (another text, another build of intent-lsp, a torn or
 * foreign file) is ignored and replaced; without a cache folder the file is simply parsed.
 *
 * The cache holds the text itself rather than a hash of it: comparing two strings is exact and costs less
 * than hashing one, and a hook that hashes nothing else does not load Node's crypto module (about 4 ms). The
 * file is checked before it is trusted (io/checkedCache.ts, with FNV-1a for that reason): a flipped byte in a
 * cached scope would otherwise change what the gate allows.
 * The hook service keeps each workspace's last catalogue in memory too, under the same exact text, so that
 * its calls do not read and decode the cache file each time.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { CACHE_DIR, workspaceCacheDir } from "../cacheDir";
import { KeptPerWorkspace } from "../hookProcess";
import { type CacheKind, openCache, writeCheckedCache } from "../checkedCache";
import { readRegularBytes } from "../regularFiles";
import { loadIntents } from "../../engine/intents/load";
import { makeCatalogue, type Intent, type LoadResult, type Problem } from "../../engine/intents/model";

const CACHE_FILE = "catalogue.json";
const FORMAT = 4;
const KIND: CacheKind = { name: "catalogue", format: FORMAT, checksum: "words" };

declare const __INTENT_LSP_BUILD__: string;

/**
 * Which code loaded the catalogue, so that a rebuilt or upgraded intent-lsp never trusts what another one
 * cached: the hash of the sources the build was made from (the same for the server and the CLI, which
 * share the cache), or, running from source, this module's size and modification time.
 */
const CODE_IDENTITY = (() => {
  if (typeof __INTENT_LSP_BUILD__ === "string") return __INTENT_LSP_BUILD__;
  try {
    const st = statSync(__filename);
    return `${st.size}-${st.mtimeMs}`;
  } catch {
    return "unknown";
  }
})();

let parses = 0;

/** Catalogues this process parsed because the cache could not answer (what tests count instead of time). */
export function catalogueParses(): number {
  return parses;
}

interface Cached {
  format: number;
  code: string;
  /** The text of active_intents.yaml the catalogue was loaded from. */
  text: string;
  intents: Intent[];
  problems: Problem[];
  hasErrors: boolean;
}

/** The hook service's catalogues by workspace root, each under the text it was loaded from. */
const kept = new KeptPerWorkspace<string, LoadResult>((a, b) => a === b);

/** Loads `text` (the workspace's `active_intents.yaml` as on disk) through the cache. */
export function loadIntentsCached(root: string, text: string): LoadResult {
  return kept.get(root, text, () => loadThroughDisk(root, text));
}

function loadThroughDisk(root: string, text: string): LoadResult {
  const dir = workspaceCacheDir(root, { create: false });
  if (dir) {
    const hit = readCached(join(dir, CACHE_FILE), text);
    if (hit) return hit;
  }
  const result = loadIntents(text);
  parses++;
  const writable = dir ?? workspaceCacheDir(root, { create: true });
  if (writable)
    writeCached(root, {
      format: FORMAT,
      code: CODE_IDENTITY,
      text,
      intents: [...result.catalogue.intents],
      problems: result.problems,
      hasErrors: result.hasErrors,
    });
  return result;
}

function readCached(file: string, text: string): LoadResult | undefined {
  try {
    const payload = openCache(KIND, readRegularBytes(file));
    if (!payload) return undefined;
    const c = JSON.parse(payload.toString("utf8")) as Cached;
    if (c?.format !== FORMAT || c.code !== CODE_IDENTITY || c.text !== text || !Array.isArray(c.intents) || !Array.isArray(c.problems)) return undefined;
    return { catalogue: makeCatalogue(c.intents), problems: c.problems, hasErrors: c.hasErrors === true };
  } catch {
    return undefined;
  }
}

/** Writes the cache (when it cannot be written, the next load parses again). */
function writeCached(root: string, cached: Cached): void {
  writeCheckedCache(root, `${CACHE_DIR}/${CACHE_FILE}`, KIND, JSON.stringify(cached));
}
