// Bundles the benchmark and its no-op baseline server into dist/bench/, like scripts/build.mjs does for the
// tools, so the benchmark runs on plain Node against the built server and CLI.
import { build } from "esbuild";

const common = { bundle: true, platform: "node", target: "node20", format: "cjs", logLevel: "warning", mainFields: ["module", "main"] };
await Promise.all([
  // playwright-core (the report opened in Chromium) is loaded from node_modules, not bundled
  build({ ...common, entryPoints: ["bench/main.ts"], outfile: "dist/bench/main.js", external: ["playwright-core"] }),
  build({ ...common, entryPoints: ["bench/noopServer.ts"], outfile: "dist/bench/noop-server.js" }),
]);
