// `npm run test:replay`: bundles the oracle's runner (test/oracle/replayMain.ts) into .cache/ and runs it
// with the arguments given, so it runs on plain Node 20 without a TypeScript loader.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outfile = `${root}.cache/oracle/replay.js`;
await build({
  entryPoints: [`${root}test/oracle/replayMain.ts`],
  outfile,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  sourcemap: "inline",
  logLevel: "warning",
  mainFields: ["module", "main"],
  alias: { "@shared": `${root}shared/src` },
});
const r = spawnSync(process.execPath, ["--enable-source-maps", outfile, ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(r.status ?? 1);
