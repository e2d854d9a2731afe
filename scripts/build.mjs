// Bundles the server and the CLI into dist/ (one file each, dependencies included) so that
// `intent-lsp` and `intent` start fast and need nothing but Node at run time.
import { build } from "esbuild";
import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  sourcemap: "linked",
  logLevel: "warning",
  // jsonc-parser's UMD entry hides its requires from the bundler; its ESM entry bundles cleanly
  mainFields: ["module", "main"],
  define: { __INTENT_LSP_VERSION__: JSON.stringify(pkg.version) },
  banner: { js: "#!/usr/bin/env node" },
};
await Promise.all([
  build({ ...common, entryPoints: ["server/src/main.ts"], outfile: "dist/server.js" }),
  build({ ...common, entryPoints: ["server/src/cli/main.ts"], outfile: "dist/cli.js" }),
  // the `npm start` demo: a scripted editor session built from the protocol tests' client
  build({ ...common, entryPoints: ["scripts/demo.ts"], outfile: "dist/demo.js", sourcemap: false }),
]);
