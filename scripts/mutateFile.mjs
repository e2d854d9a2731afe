#!/usr/bin/env node
// `npm run mutate:file -- server/src/io/gitRunner.ts [more files]`: mutation testing of the named files, each
// against the test files that exercise it in process (TESTS below), with Stryker's incremental mode kept per
// file (reports/mutation/<name>.incremental.json). Prints each file's counts and every mutant that survived or
// that no test reached, by line: the files listed here keep none without a written reason (`// Stryker disable
// next-line <mutators>: <why>`, see docs/DEVELOPING.md).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";

const ROOT = join(import.meta.dirname, "..");

/** Each file under this rule, and the tests that kill its mutants (fast, in process: see vitest.mutate.config.ts). */
export const TESTS = {
  "server/src/launch/hookClient.ts": ["test/unit/hookClient.test.ts", "test/cli/serveHooks.test.ts"],
  "server/src/cli/hookService.ts": ["test/unit/hookClient.test.ts", "test/cli/serveHooks.test.ts"],
  "server/src/io/hookSocket.ts": ["test/cli/hookSocket.test.ts"],
  "server/src/io/realPath.ts": ["test/unit/realPath.test.ts", "test/unit/paths.test.ts", "test/unit/ownFiles.test.ts"],
  "server/src/io/gitRunner.ts": ["test/unit/gitRunner.test.ts"],
  "server/src/engine/intents/verification.ts": ["test/unit/verification.test.ts", "test/unit/criteria.test.ts"],
  "server/src/io/criteria/runCriterion.ts": ["test/unit/criteria.test.ts"],
  "server/src/lsp/hover.ts": ["test/unit/hover.test.ts"],
  "server/src/engine/check.ts": ["test/unit/check.test.ts", "test/unit/check-batches.test.ts"],
  "server/src/io/ledger/segments.ts": ["test/cli/sealedSegments.test.ts", "test/unit/segment.test.ts", "test/unit/segmentBounds.test.ts"],
  "server/src/io/ledger/sealedRef.ts": ["test/cli/sealedRef.test.ts"],
  "server/src/engine/lineage.ts": [
    "test/unit/lineage.test.ts",
    "test/unit/agentCopies.test.ts",
    "test/unit/agentCuts.test.ts",
    "test/unit/agentPastes.test.ts",
    "test/unit/attribution.test.ts",
  ],
  "server/src/engine/insight.ts": ["test/unit/insight.test.ts", "test/unit/insightRunRows.test.ts", "test/unit/insightFigures.test.ts"],
  "server/src/io/ledger/committedLedger.ts": ["test/cli/ledgerSegments.test.ts"],
  "server/src/io/ledger/verify.ts": ["test/unit/ledger-verify.test.ts"],
  "server/src/engine/agent/toolCall.ts": ["test/unit/toolCall.test.ts", "test/unit/agent-tools.test.ts"],
  "server/src/engine/agent/toolPaths.ts": ["test/unit/toolCall.test.ts", "test/unit/agent-tools.test.ts"],
  "server/src/engine/agent/toolRuns.ts": ["test/unit/toolCall.test.ts", "test/unit/agent-tools.test.ts"],
  "server/src/engine/agent/shellPolicy.ts": [
    "test/unit/shellPolicy.test.ts",
    "test/cli/pieces.test.ts",
    "test/unit/toolCall.test.ts",
    "test/unit/agent-tools.test.ts",
  ],
};

const files = process.argv.slice(2);
const unknown = files.filter((f) => !(f in TESTS));
if (files.length === 0 || unknown.length) {
  console.error(
    `${unknown.length ? `mutate:file: no tests listed for ${unknown.join(", ")}` : "mutate:file: name the files"}; add it to TESTS in scripts/mutateFile.mjs, or run \`npm run mutate -- --mutate <file>\` against every in-process test. Listed:\n  ${Object.keys(TESTS).join("\n  ")}`,
  );
  process.exit(2);
}
let failed = 0;
for (const file of files) {
  const name = basename(file, ".ts");
  const r = spawnSync(process.execPath, [join(ROOT, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run", "stryker.file.config.mjs"], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, INTENT_LSP_MUTATE_FILES: file, INTENT_LSP_MUTATE_NAME: name, INTENT_LSP_MUTATE_TESTS: TESTS[file].join(",") },
  });
  if (r.status !== 0) {
    console.error(`mutate:file: Stryker failed on ${file} (exit ${r.status}); its log is in the lines above`);
    failed++;
    continue;
  }
  const report = JSON.parse(readFileSync(join(ROOT, `reports/mutation/${name}.json`), "utf8"));
  for (const [path, { mutants, source }] of Object.entries(report.files)) {
    const counts = {};
    for (const m of mutants) counts[m.status] = (counts[m.status] ?? 0) + 1;
    console.log(
      `${path}: ${Object.entries(counts)
        .map(([k, n]) => `${n} ${k}`)
        .join(", ")}`,
    );
    const lines = source.split("\n");
    for (const m of mutants.filter((m) => m.status === "Survived" || m.status === "NoCoverage")) {
      failed++;
      console.log(
        `  ${path}:${m.location.start.line}:${m.location.start.column} ${m.status} ${m.mutatorName} → ${JSON.stringify(m.replacement ?? "")} | ${lines[m.location.start.line - 1].trim()}`,
      );
    }
  }
}
process.exit(failed ? 1 : 0);
