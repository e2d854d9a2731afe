// Bundles the server and the CLI into dist/ (one file each, dependencies included) so that
// `intent-lsp` and `intent` start fast and need nothing but Node at run time.
import { build } from "esbuild";
import { reportPageScript } from "./reportPage.mjs";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
// Which sources this build is made of: the server and the CLI share caches that depend on the code
// (the parsed catalogue in .orchestration/.cache), and trust each other's only when built from the same.
function sourceHash(dirs) {
  const h = createHash("sha256");
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else h.update(p).update(readFileSync(p));
    }
  };
  dirs.forEach(walk);
  return h.digest("hex").slice(0, 16);
}

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  sourcemap: "linked",
  logLevel: "warning",
  // jsonc-parser's UMD entry hides its requires from the bundler; its ESM entry bundles cleanly
  mainFields: ["module", "main"],
  define: {
    __INTENT_LSP_VERSION__: JSON.stringify(pkg.version),
    __INTENT_LSP_BUILD__: JSON.stringify(sourceHash(["server/src", "shared/src", "shared/schema"])),
  },
  banner: { js: "#!/usr/bin/env node" },
  // DuckDB is a native module, loaded by the org and Parquet commands only (io/duckdb.ts), from node_modules.
  // ajv's compiler is what runs from source only (io/ledger/schema.ts compile()): every bundle carries the
  // validator generated below, so bundling the compiler would add 290 KB that every start reads and no run uses
  external: ["@duckdb/node-api", "ajv/dist/2020"],
  // the SQL the org views run ships as files that run on any engine (docs/sql/); the CLI embeds the same text
  loader: { ".sql": "text" },
};

// The Agent Trace schema's validator as code (ajv's standalone output), bundled beside the tools: compiling
// the schema at run time costs an agent's post-write hook more than the rest of its work.
// server/src/io/ledger/schema.ts loads it, and compiles the schema itself when running from source.
function traceRecordValidator() {
  const { default: Ajv2020, _ } = require("ajv/dist/2020");
  const { default: standaloneCode } = require("ajv/dist/standalone");
  const { ajvOptions } = require("../shared/schema/validatorOptions.json");
  const { traceFormats } = require("../shared/schema/traceFormats.cjs");
  // the generated code takes its formats from the same module (bundled in below)
  const ajv = new Ajv2020({ ...ajvOptions, code: { source: true, formats: _`require("../../shared/schema/traceFormats.cjs").traceFormats` } });
  for (const [name, format] of Object.entries(traceFormats)) ajv.addFormat(name, format);
  const schema = JSON.parse(readFileSync(new URL("../shared/schema/trace-record.schema.json", import.meta.url), "utf8"));
  mkdirSync("dist/generated", { recursive: true });
  writeFileSync("dist/generated/trace-record-validator.cjs", standaloneCode(ajv, ajv.compile(schema)));
  // what the bundles' free name __INTENT_LSP_VALIDATOR__ becomes (server/src/io/ledger/schema.ts)
  writeFileSync(
    "dist/generated/inject-validator.mjs",
    'import validate from "./trace-record-validator.cjs";\nexport { validate as __INTENT_LSP_VALIDATOR__ };\n',
  );
}
traceRecordValidator();

// the report page's script, defined into the server and the CLI (scripts/reportPage.mjs); the validator
// generated above, bundled into both (server/src/io/ledger/schema.ts)
const withReport = {
  ...common,
  define: { ...common.define, __INTENT_REPORT_SCRIPT__: JSON.stringify(await reportPageScript()) },
  inject: ["dist/generated/inject-validator.mjs"],
};

// `intent` is a small launcher (dist/cli.js) that runs the CLI bundle from V8's code cache: a hook is a
// fresh process on every tool call, and compiling the bundle was a fifth of its time. The launcher carries
// the bundle's SHA-256, part of its cache's name (server/src/launch/codeCache.ts), so it need not hash the
// bundle on every start.
// `intent-lsp` (dist/server.js) is the same kind of launcher for the server bundle: an editor starts a server
// for every window, and compiling the bundle costs a fifth of a restart on a small ledger.
async function bundleAndLauncher(entry, bundleFile, launcher, launcherFile) {
  await build({ ...withReport, entryPoints: [entry], outfile: bundleFile });
  const bundle = readFileSync(bundleFile);
  // Latin-1 is the launcher's fast read of an ASCII bundle; esbuild escapes every string, but not comments
  const stray = bundle.findIndex((b) => b > 0x7f);
  if (stray !== -1) {
    const line = bundle.subarray(0, stray).toString("latin1").split("\n").length;
    console.warn(`${bundleFile}:${line} holds a non-ASCII character (in a comment?): the launcher reads the bundle as UTF-8, which is slower`);
  }
  const bundleHash = createHash("sha256").update(bundle).digest("hex");
  await build({
    ...common,
    define: { ...common.define, __INTENT_BUNDLE_SHA256__: JSON.stringify(bundleHash) },
    entryPoints: [launcher],
    outfile: launcherFile,
    sourcemap: false,
  });
}

await Promise.all([
  bundleAndLauncher("server/src/main.ts", "dist/intent-server.js", "server/src/launch/server.ts", "dist/server.js"),
  bundleAndLauncher("server/src/cli/bin.ts", "dist/intent-cli.js", "server/src/launch/cli.ts", "dist/cli.js"),
  // the CLI's main() as a module, not shipped: the tests that run a command in process where the spawned
  // binary is not their subject (test/support/cliRunner.ts)
  build({ ...withReport, entryPoints: ["server/src/cli/main.ts"], outfile: "dist/intent-cli-main.js", banner: {} }),
  // the server on a pair of streams, not shipped: the protocol tests that run it in process load this bundle
  // (test/support/inProcessServer.ts), the code dist/server.js runs, rather than each transforming the sources
  build({ ...withReport, entryPoints: ["server/src/lsp/inProcess.ts"], outfile: "dist/intent-server-main.js", banner: {} }),
  // the script of every worker thread (server/src/workers.ts): a sixth of a program's bundle, so a worker
  // starts in less than half the time, which a large ledger's first read waits for
  build({ ...common, entryPoints: ["server/src/workers.ts"], outfile: "dist/intent-workers.js", banner: {} }),
  build({ ...common, entryPoints: ["dist/generated/trace-record-validator.cjs"], outfile: "dist/trace-record-validator.js", banner: {}, sourcemap: false }),
  // the `npm start` demo: a scripted editor session through the same protocol client as the tests
  build({ ...common, entryPoints: ["scripts/demo.ts"], outfile: "dist/demo.js", sourcemap: false }),
]);
rmSync("dist/generated", { recursive: true, force: true });
