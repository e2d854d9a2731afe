import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { REPO_ROOT } from "./lspClient";

/** The built server and CLI in dist/: what the protocol, CLI and e2e tests run. */

function newestSource(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    newest = Math.max(newest, s.isDirectory() ? newestSource(p) : s.mtimeMs);
  }
  return newest;
}

/** Builds dist/ when it is older than the sources (`npm test` builds first; this covers running one file). */
export async function ensureBuilt(): Promise<void> {
  const stale = () => {
    const built = Math.min(
      ...[
        "dist/cli.js",
        "dist/intent-cli.js",
        "dist/intent-cli-main.js",
        "dist/intent-server-main.js",
        "dist/intent-server.js",
        "dist/intent-workers.js",
        "dist/server.js",
      ].map((f) => (existsSync(join(REPO_ROOT, f)) ? statSync(join(REPO_ROOT, f)).mtimeMs : 0)),
    );
    return built < Math.max(newestSource(join(REPO_ROOT, "server/src")), newestSource(join(REPO_ROOT, "shared/src")));
  };
  if (!stale()) return;
  // test files run in parallel workers: one builds, the others wait for it
  const release = await lockfile.lock(join(REPO_ROOT, "package.json"), {
    realpath: false,
    stale: 60_000,
    retries: { retries: 600, minTimeout: 100, maxTimeout: 200 },
  });
  try {
    if (!stale()) return;
    const r = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: REPO_ROOT, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`build failed: ${r.stderr}`);
  } finally {
    await release();
  }
}
