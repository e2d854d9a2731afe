/**
 * The attribution oracle (test/oracle/README.md), bounded for `npm test`: seeded random multi-author edit streams
 * driven through the built server (an editor over JSON-RPC) and `intent hook claude-code` (Claude Code
 * agents), every line's hover and `intent blame --json` compared with the true owner. The large run and
 * the real-history replay are `npm run test:replay` (test/oracle/README.md).
 *
 * Truth rules (the README has them in full):
 * - a line's owner is the last contributor who changed its text;
 * - a whitespace-only change (indentation, trailing blanks, line endings, spaces inside the line) keeps
 *   the owner;
 * - a moved block belongs to whoever moved it (as `git blame` without -M); a copied block to the copier;
 * - a revert (an earlier text of a region put back) belongs to the reverter;
 * - content follows its author across paths: a file renamed or moved (by git, the editor, an agent's shell or
 *   move tool) keeps its lines' owners, and so does a block cut or copied into another file (as
 *   `git blame -C`); a rebase or squash merge changes no line's owner (every 10th step is such a file-level
 *   step, each kind in turn: fileOps.ts);
 * - text typed and undone before a save changes nothing;
 * - an agent's write reaches intent-lsp as content only, so within a run of adjacent lines with identical
 *   text (trailing blanks aside) that such a write touched, owners are compared as a multiset; the
 *   generator only lets agents make changes a minimal line diff reads exactly as the truth has them.
 *   Everything else is compared line by line.
 *
 * Asserted: no human↔AI swap, no ledger record claiming a line its contributor did not change (nor naming
 * another contributor), hover = `intent blame` on every line asked of both after every step (whatever order
 * the step's events arrived in: arrivalOrders.ts), and at least 99.5% of compared lines correct on each surface.
 */
import { beforeAll, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { NPM_TEST, seededConfig } from "./configs";
import { FILE_OP_KINDS } from "./fileOps";
import { Report, share } from "./report";
import { runSeed } from "./seededRun";

beforeAll(ensureBuilt);

it(`keeps every line's owner through ${NPM_TEST.seeds} seeded edit streams of ${NPM_TEST.steps} steps`, async () => {
  const report = new Report();
  for (let seed = 1; seed <= NPM_TEST.seeds; seed++) report.merge(await runSeed(seededConfig(NPM_TEST, seed)));
  console.log(report.render(`Attribution oracle: ${NPM_TEST.seeds} seeds × ${NPM_TEST.steps} steps`, ["kind", "via", "order"]));

  const records = report.recordTally();
  const hover = report.tally("hover");
  const blame = report.tally("blame");
  expect({
    hoverSwaps: hover.swap,
    blameSwaps: blame.swap,
    overClaimingRecords: records.overClaiming,
    recordsNamingAnotherContributor: records.wrongContributor,
    linesWhereHoverAndBlameDisagree: report.disagreements,
  }).toEqual({ hoverSwaps: 0, blameSwaps: 0, overClaimingRecords: 0, recordsNamingAnotherContributor: 0, linesWhereHoverAndBlameDisagree: 0 });
  expect(report.bothAsked, "lines asked of hover and blame at the same moment").toBeGreaterThan(0);
  expect(
    FILE_OP_KINDS.filter((k) => !report.rows("hover", "kind").includes(k)),
    "kinds of file-level step never drawn",
  ).toEqual([]);
  expect(share(hover, "correct"), "share of hovers naming the true owner").toBeGreaterThanOrEqual(0.995);
  expect(share(blame, "correct"), "share of intent blame rows naming the true owner").toBeGreaterThanOrEqual(0.995);
}, 600_000);
