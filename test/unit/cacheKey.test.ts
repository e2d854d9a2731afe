import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cacheKey, forgetCacheKey } from "../../server/src/io/cacheKey";

/** The key that binds the workspace caches to this user (io/cacheKey.ts): kept privately, never taken from a file anyone else could have made. */

let dir: string | undefined;
beforeEach(forgetCacheKey);
afterEach(() => {
  forgetCacheKey();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const env = () => {
  dir = mkdtempSync(join(tmpdir(), "intent-lsp-key-"));
  return { XDG_CACHE_HOME: dir };
};

describe("cacheKey", () => {
  it("is made once, 32 random bytes only this user may read, and read back by every later process", () => {
    const e = env();
    const key = cacheKey(e);
    const file = join(dir!, "intent-lsp", "cache.key");
    expect(readFileSync(file)).toEqual(key);
    expect(key.length).toBe(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    forgetCacheKey();
    expect(cacheKey(e)).toEqual(key);
  });

  it("a key file others may read, or one in a folder others may write to, is not used: the process keeps a key of its own", () => {
    const e = env();
    const folder = join(dir!, "intent-lsp");
    mkdirSync(folder, { mode: 0o700 });
    const planted = Buffer.alloc(32, 7);
    writeFileSync(join(folder, "cache.key"), planted, { mode: 0o644 });
    chmodSync(join(folder, "cache.key"), 0o644);
    const own = cacheKey(e);
    expect(own).not.toEqual(planted);
    expect(own.length).toBe(32);
    forgetCacheKey();
    chmodSync(join(folder, "cache.key"), 0o600);
    chmodSync(folder, 0o777);
    expect(cacheKey(e)).not.toEqual(planted);
    forgetCacheKey();
    chmodSync(folder, 0o700);
    expect(cacheKey(e)).toEqual(planted);
  });
});
