// `npm run mutate:file -- <source file>…` (scripts/mutateFile.mjs): mutation testing of a few files against the
// tests known to run them in process, each file's results kept apart. stryker.config.mjs is the rest.
import base from "./stryker.config.mjs";

const name = process.env["INTENT_LSP_MUTATE_NAME"] ?? "file";
export default {
  ...base,
  mutate: (process.env["INTENT_LSP_MUTATE_FILES"] ?? "").split(",").filter(Boolean),
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  reporters: ["clear-text", "json", "progress"],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  // a module's top-level values: every test would have to run again for each, and none is a rule
  ignoreStatic: true,
  // the tests named for a file are fast unit and in-process tests: a mutant that makes them wait is a hang
  timeoutMS: 5_000,
  tempDirName: `.stryker-tmp-${name}`,
};
