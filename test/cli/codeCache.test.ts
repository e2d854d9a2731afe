import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { DAMAGES } from "../support/cacheDamage";
import { CLI_JS, runCli } from "../support/cliRunner";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";

/** `intent` starts from V8's code cache kept in the user's own cache folder, and never trusts another's. */
describe("the CLI's code cache", () => {
  beforeAll(ensureBuilt, 120_000);
  const dirs: string[] = [];
  const home = () => {
    const d = mkdtempSync(join(tmpdir(), "intent-lsp-xdg-"));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const cacheDir = (xdg: string) => join(xdg, "intent-lsp", "code-cache");
  const version = (xdg: string, extra: NodeJS.ProcessEnv = {}) => runCli(["--version"], { cwd: xdg, env: { XDG_CACHE_HOME: xdg, ...extra } });

  it("is written by the first run, private to the user, and gives the same answer from the second", () => {
    const xdg = home();
    const first = version(xdg);
    expect(first.status).toBe(0);
    const files = readdirSync(cacheDir(xdg));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^intent-cli-[0-9a-f]{16}-other\.bin$/);
    expect(statSync(cacheDir(xdg)).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheDir(xdg), files[0]!)).mode & 0o777).toBe(0o600);
    expect(version(xdg)).toEqual(first);
  });

  it("keeps one cache per subcommand", () => {
    const xdg = home();
    runCli(["status", "--help"], { cwd: xdg, env: { XDG_CACHE_HOME: xdg } });
    version(xdg);
    expect(readdirSync(cacheDir(xdg)).map((f) => f.replace(/-[0-9a-f]{16}-/, "-"))).toEqual(["intent-cli-other.bin", "intent-cli-status.bin"].sort());
  });

  it("is not used from a folder others may write to, and the CLI still runs", () => {
    const xdg = home();
    mkdirSync(cacheDir(xdg), { recursive: true });
    chmodSync(cacheDir(xdg), 0o777);
    const r = version(xdg);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(readdirSync(cacheDir(xdg))).toEqual([]);
  });

  it("survives a damaged cache file and replaces it", () => {
    const xdg = home();
    version(xdg);
    const [file] = readdirSync(cacheDir(xdg));
    writeFileSync(join(cacheDir(xdg), file!), "not a code cache");
    const r = version(xdg);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(statSync(join(cacheDir(xdg), file!)).size).toBeGreaterThan(1000);
  });

  // V8 checks a code cache's header (its version, flags, source and length), but a release build of Node
  // checks no checksum of what follows: a flipped bit there crashes the run, so the launcher checks its own
  /** One bit flipped in the middle byte of the file (a flip there crashes a run that trusts it). */
  const flipMiddleByte = (b: Buffer) => {
    const out = Buffer.from(b);
    out[b.length >> 1] = out[b.length >> 1]! ^ 0x01;
    return out;
  };

  it.each([...DAMAGES, { name: "with one bit flipped in its middle byte", damage: flipMiddleByte }])(
    "a cache file $name: the CLI answers as from an intact cache, and the cache is written again",
    ({ damage }) => {
      const xdg = home();
      const status = () => runCli(["status", "--help"], { cwd: xdg, env: { XDG_CACHE_HOME: xdg } });
      const intact = status();
      expect(intact).toMatchObject({ status: 0, stderr: "" });
      const [name] = readdirSync(cacheDir(xdg));
      const file = join(cacheDir(xdg), name!);
      const damaged = damage(readFileSync(file));
      if (damaged) writeFileSync(file, damaged);
      else rmSync(file);
      expect(status()).toEqual(intact);
      // written again: the next run starts from the new cache, and answers the same
      expect(readFileSync(file).equals(damaged ?? Buffer.alloc(0))).toBe(false);
      expect(status()).toEqual(intact);
    },
  );

  it("never runs a changed bundle from the cache made for it before, even at the same size and modification time", () => {
    // V8 accepts cached data for any source of the same length: a stale cache would run the old code
    const xdg = home();
    const dist = home();
    const bundle = join(dist, "intent-cli.js");
    copyFileSync(CLI_JS, join(dist, "cli.js"));
    copyFileSync(join(CLI_JS, "../intent-cli.js"), bundle);
    const stamp = new Date("2025-01-01T00:00:00Z"); // a whole second: put back exactly below, as `cp -p` or npm would
    utimesSync(bundle, stamp, stamp);
    const run = () =>
      spawnSync(process.execPath, [join(dist, "cli.js"), "--version"], { cwd: xdg, encoding: "utf8", env: { ...process.env, XDG_CACHE_HOME: xdg } });
    const first = run();
    expect(first.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(run().stdout).toBe(first.stdout); // from the cache now
    // the same bundle with another version string of the same length, its modification time put back
    const before = statSync(bundle);
    const version = first.stdout.trim().split(" ")[0]!;
    const other = version.replace(/^\d/, (d) => String((Number(d) + 1) % 10));
    const text = readFileSync(bundle, "latin1");
    expect(text.split(JSON.stringify(version)).length).toBeGreaterThan(1);
    writeFileSync(bundle, text.split(JSON.stringify(version)).join(JSON.stringify(other)), "latin1");
    utimesSync(bundle, stamp, stamp);
    expect(statSync(bundle).size).toBe(before.size);
    expect(statSync(bundle).mtimeMs).toBe(before.mtimeMs);
    expect(run().stdout).toContain(other);
    expect(readdirSync(cacheDir(xdg))).toHaveLength(2);
  });

  it("keeps at most 64 MB: a new cache pushes out the caches used least recently, and nothing else", () => {
    const xdg = home();
    const dir = cacheDir(xdg);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const day = 24 * 3600 * 1000;
    // five older builds' caches of 20 MB each (sparse), used 1 to 5 days ago
    const older = [1, 2, 3, 4, 5].map((days) => {
      const name = `intent-cli-${String(days).repeat(16)}-check.bin`;
      writeFileSync(join(dir, name), "");
      truncateSync(join(dir, name), 20 * 1024 * 1024);
      const when = new Date(Date.now() - days * day);
      utimesSync(join(dir, name), when, when);
      return name;
    });
    const abandoned = "intent-cli-aaaaaaaaaaaaaaaa-check.bin.4242.tmp";
    const fresh = "intent-cli-bbbbbbbbbbbbbbbb-check.bin.4243.tmp";
    const notOurs = "notes.txt";
    for (const name of [abandoned, fresh, notOurs]) writeFileSync(join(dir, name), "x");
    utimesSync(join(dir, abandoned), new Date(Date.now() - day), new Date(Date.now() - day));
    expect(version(xdg).status).toBe(0);
    const left = readdirSync(dir);
    const written = left.filter((f) => /^intent-cli-[0-9a-f]{16}-other\.bin$/.test(f));
    expect(written).toHaveLength(1);
    // the new cache and the three most recently used 20 MB ones fit in 64 MB; the two oldest do not
    expect(left.sort()).toEqual([...written, ...older.slice(0, 3), fresh, notOurs].sort());
    // a run that finds its cache prunes nothing
    truncateSync(join(dir, older[0]!), 40 * 1024 * 1024);
    expect(version(xdg).status).toBe(0);
    expect(readdirSync(dir)).toHaveLength(left.length);
  });

  it("is off with INTENT_LSP_CODE_CACHE=off", () => {
    const xdg = home();
    expect(version(xdg, { INTENT_LSP_CODE_CACHE: "off" }).status).toBe(0);
    expect(() => readdirSync(cacheDir(xdg))).toThrow();
  });
});

/** `intent-lsp` (dist/server.js) is the same launcher for the server bundle. */
describe("the server's code cache", () => {
  beforeAll(ensureBuilt, 120_000);
  let xdg: string | undefined;
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    if (xdg) rmSync(xdg, { recursive: true, force: true });
    ws?.dispose();
    xdg = ws = undefined;
  });

  it("is written when the server leaves on the editor's exit, then started from: the next server answers the same and leaves it as it was", async () => {
    xdg = mkdtempSync(join(tmpdir(), "intent-lsp-xdg-"));
    ws = new TempWorkspace();
    const session = async () => {
      const client = await LspClient.start({ root: ws!.root, env: { XDG_CACHE_HOME: xdg } });
      await client.open("src/api/weather.ts");
      const hover = await client.hoverText("src/api/weather.ts", 9);
      const exited = new Promise<number | null>((resolve) => client.process!.once("exit", resolve));
      await client.stop();
      return { hover, code: await exited };
    };
    const first = await session();
    expect(first.code).toBe(0); // it left on "exit", not killed
    const dir = join(xdg, "intent-lsp", "code-cache");
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^intent-server-[0-9a-f]{16}-server\.bin$/);
    const written = statSync(join(dir, files[0]!)).mtimeMs;
    const second = await session();
    expect(second).toEqual(first);
    expect(readdirSync(dir)).toEqual(files);
    // a cache V8 accepted is not written again
    expect(statSync(join(dir, files[0]!)).mtimeMs).toBe(written);
  });

  it("is written while the server runs, so an editor that kills it leaves one the next server starts from", async () => {
    xdg = mkdtempSync(join(tmpdir(), "intent-lsp-xdg-"));
    ws = new TempWorkspace();
    const dir = join(xdg, "intent-lsp", "code-cache");
    const cacheFiles = () => {
      try {
        return readdirSync(dir).filter((f) => f.endsWith(".bin"));
      } catch {
        return [];
      }
    };
    const client = await LspClient.start({ root: ws.root, env: { XDG_CACHE_HOME: xdg } });
    await client.open("src/api/weather.ts");
    const hover = await client.hoverText("src/api/weather.ts", 9);
    // the fact waited for: the cache file, written once the server has run for a while (10 s after its start)
    const deadline = Date.now() + 60_000;
    while (cacheFiles().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(cacheFiles()).toHaveLength(1);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => client.process.once("exit", (_code, signal) => resolve(signal)));
    client.process.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    client.connection.dispose();
    const [file] = cacheFiles();
    const written = statSync(join(dir, file!)).mtimeMs;
    // the next server starts from it: it answers the same, and a cache V8 accepted is not written again
    const next = await LspClient.start({ root: ws.root, env: { XDG_CACHE_HOME: xdg } });
    await next.open("src/api/weather.ts");
    expect(await next.hoverText("src/api/weather.ts", 9)).toBe(hover);
    await next.stop();
    expect(cacheFiles()).toEqual([file]);
    expect(statSync(join(dir, file!)).mtimeMs).toBe(written);
  }, 90_000);
});
