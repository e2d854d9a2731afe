// The script of `intent report`'s page (clients/report/page.ts, Chart.js bundled in), minified into one
// string: the page must open with no network, so the report embeds it. The tools' bundles (scripts/build.mjs)
// and the VS Code extension's server (scripts/package-vscode.mjs) carry it as __INTENT_REPORT_SCRIPT__
// (server/src/reportScript.ts).
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

export async function reportPageScript() {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("../clients/report/page.ts", import.meta.url))],
    bundle: true,
    platform: "browser",
    target: "es2020",
    format: "iife",
    minify: true,
    write: false,
    legalComments: "inline",
    logLevel: "warning",
  });
  return result.outputFiles[0].text;
}
