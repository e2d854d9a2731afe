import { readFileSync } from "node:fs";
import Module from "node:module";
import { join } from "node:path";
import { transformSync } from "esbuild";

/**
 * For `npm run mutate` only (vitest.mutate.config.ts): lets Node's own `require` load the server's
 * TypeScript source. The CLI loads its commands lazily with `require` (cli/main.ts), which vitest's module
 * loader does not see; compiled here, the CLI in the test process (runCliInProcess with
 * INTENT_LSP_CLI_FROM_SOURCE) runs the source Stryker has mutated rather than the build in dist/, so the
 * CLI tests that run commands in process can kill a mutant anywhere under server/src.
 */
const extensions = (Module as unknown as { _extensions: Record<string, (m: { _compile(code: string, file: string): void }, file: string) => void> })
  ._extensions;
extensions[".ts"] ??= (m, file) => {
  const { code } = transformSync(readFileSync(file, "utf8"), { loader: "ts", format: "cjs", sourcefile: file, target: "node20", sourcemap: "inline" });
  m._compile(code, file);
};

// the alias vitest.config.ts gives the shared code, for Node's resolver too
const SHARED = join(__dirname, "../../shared/src/");
const resolver = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
const resolve = resolver._resolveFilename;
resolver._resolveFilename = (request, ...rest) => resolve(request.startsWith("@shared/") ? SHARED + request.slice("@shared/".length) : request, ...rest);
