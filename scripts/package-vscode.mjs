// `npm run package`: builds the VS Code extension into <package name>-<version>.vsix. The extension and a copy of
// the server are bundled with esbuild into the package, so the .vsix needs nothing else at run time (no
// node_modules, no network). Its contributed settings are made here from shared/src/settings.ts, so their
// descriptions, enums and defaults are the server's own.
//
//   node scripts/package-vscode.mjs [--out FILE.vsix]
import { build } from "esbuild";
import { reportPageScript } from "./reportPage.mjs";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ext = join(repo, "clients", "vscode");
// a folder of this run's own: two packagings at once (the e2e tests, one per worker) never share one
mkdirSync(join(repo, ".cache"), { recursive: true });
const stage = mkdtempSync(join(repo, ".cache", "vscode-extension-"));
const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
const outArg = process.argv.indexOf("--out");
const out = outArg > 0 ? resolve(process.argv[outArg + 1]) : join(repo, `${pkg.name}-${pkg.version}.vsix`);

mkdirSync(join(stage, "dist"), { recursive: true });

const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  logLevel: "warning",
  // jsonc-parser's UMD entry hides its requires from the bundler; its ESM entry bundles cleanly
  mainFields: ["module", "main"],
  define: { __INTENT_LSP_VERSION__: JSON.stringify(pkg.version) },
  minify: true,
};
await Promise.all([
  // VS Code 1.82 runs extensions on Node 18
  build({ ...common, target: "node18", entryPoints: [join(ext, "src", "extension.ts")], outfile: join(stage, "dist", "extension.js"), external: ["vscode"] }),
  // the server runs in the extension host's Node, forked over IPC
  build({
    ...common,
    target: "node18",
    entryPoints: [join(repo, "server", "src", "main.ts")],
    outfile: join(stage, "dist", "server.js"),
    define: { ...common.define, __INTENT_REPORT_SCRIPT__: JSON.stringify(await reportPageScript()) },
  }),
  // the script of the server's worker threads, beside it (server/src/workers.ts; main.ts offers it)
  build({ ...common, target: "node18", entryPoints: [join(repo, "server", "src", "workers.ts")], outfile: join(stage, "dist", "intent-workers.js") }),
  build({ ...common, minify: false, target: "node20", entryPoints: [join(ext, "src", "configuration.ts")], outfile: join(stage, ".gen", "configuration.cjs") }),
]);
const { contributedConfiguration } = createRequire(import.meta.url)(join(stage, ".gen", "configuration.cjs"));
rmSync(join(stage, ".gen"), { recursive: true });

const manifest = JSON.parse(readFileSync(join(ext, "package.json"), "utf8"));
manifest.version = pkg.version;
manifest.contributes.configuration = contributedConfiguration();
writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
for (const file of ["README.md", "LICENSE.md", ".vscodeignore"]) copyFileSync(join(ext, file), join(stage, file));

mkdirSync(dirname(out), { recursive: true });
execFileSync(
  process.execPath,
  [join(repo, "node_modules", "@vscode", "vsce", "vsce"), "package", "--no-dependencies", "--allow-missing-repository", "--out", out],
  {
    cwd: stage,
    stdio: ["ignore", "inherit", "inherit"],
  },
);
rmSync(stage, { recursive: true, force: true });
console.log(`${out} (${(statSync(out).size / 1024).toFixed(0)} KiB)`);
