import { defineConfig } from "vitest/config";
import base from "./vitest.config";

/**
 * The tests `npm run mutate` runs against each mutant: those that call the server's code in process (see
 * stryker.config.mjs). The property test and the fuzz are left out: a randomized test names no rule, and
 * mutation testing is about tests that do. INTENT_LSP_MUTATE_TESTS (comma-separated files) narrows the set
 * for a run over one module whose tests are known.
 */
const only = process.env["INTENT_LSP_MUTATE_TESTS"]?.split(",").filter(Boolean);
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: only ?? ["test/unit/**/*.test.ts", "test/cli/pieces.test.ts"],
    // the CLI tests that run commands in process run the mutated source, not dist/ (test/support/sourceRequire.ts)
    setupFiles: [...((base.test?.setupFiles as string[] | undefined) ?? []), "test/support/sourceRequire.ts"],
    env: { ...base.test?.env, INTENT_LSP_CLI_FROM_SOURCE: "1" },
    // the files above, in the forks pool as configured: not vitest.config.ts's projects, which would pick their own
    projects: undefined,
    exclude: ["test/unit/gatePaths.property.test.ts", "test/unit/vscode-extension.test.ts", "test/unit/layers.test.ts"],
  },
});
