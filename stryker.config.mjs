// Mutation testing (`npm run mutate`): too slow for CI on two cores, so it is run by hand before closing a
// change to the rules, the gate or the hook flow, and its score goes into the closing note.
//
// Mutants are switched on per test run inside the test process, so only tests that call the server's code
// in process can kill one: the unit tests and the CLI tests that import the pieces under the CLI. The CLI and
// protocol tests that run dist/ would need a rebuild per mutant. Each mutant runs only the tests that
// covered it (coverageAnalysis "perTest"). `npm run mutate -- --mutate server/src/engine/gate.ts` narrows
// the run to one file.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  // related: false, because the CLI tests reach much of the source through Node's require (test/support/sourceRequire.ts),
  // which vitest's import graph does not see; per-test coverage still picks the tests that run each mutant
  vitest: { configFile: "vitest.mutate.config.ts", related: false },
  checkers: [],
  // vitest does not type-check, and the `// @ts-nocheck` Stryker would add shifts the lines of the example
  // workspace's files that tests copy and check line by line
  disableTypeChecks: false,
  coverageAnalysis: "perTest",
  // the engine (rules, verdicts, numbers) and the pieces with an in-process unit test: the agent's writes,
  // the hook adapters, a criterion's runner (test/unit/criteria.test.ts) and the hover (test/unit/hover.test.ts)
  mutate: [
    "server/src/engine/**/*.ts",
    "server/src/io/agent/**/*.ts",
    "server/src/cli/hook/**/*.ts",
    "server/src/io/criteria/runCriterion.ts",
    "server/src/lsp/hover.ts",
    // the hook service and what it stands on: test/unit/hookClient.test.ts and test/cli/hookSocket.test.ts (in
    // process; name them in INTENT_LSP_MUTATE_TESTS), the git runner, the sealed segments and real paths
    "server/src/launch/hookClient.ts",
    "server/src/cli/hookService.ts",
    "server/src/io/hookSocket.ts",
    "server/src/io/realPath.ts",
    "server/src/io/gitRunner.ts",
    "server/src/io/ledger/segments.ts",
    "server/src/io/ledger/sealedRef.ts",
  ],
  // two shared cores: one test process at a time
  concurrency: 1,
  // only mutants whose code or covering tests changed since the last run are tested again
  incremental: true,
  incrementalFile: "reports/stryker-incremental.json",
  // the built validator is kept: a unit test checks it against the source (run `npm run build` first); clients/
  // too, for a CLI test that builds dist/ in the sandbox; .cache holds the editors the end-to-end tests install
  ignorePatterns: ["dist/*", "!dist/trace-record-validator.js", "bench", "reports", ".stryker-tmp", ".cache", "coverage", "*.vsix", "*.tgz"],
  reporters: ["clear-text", "progress", "html"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  // the first run of every chosen test, with coverage, can take longer than Stryker's 5 minutes when CLI tests are in it
  dryRunTimeoutMinutes: 30,
  timeoutMS: 20_000,
  timeoutFactor: 2,
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
