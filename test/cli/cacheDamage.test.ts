import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isWholeCache } from "../../server/src/io/checkedCache";
import { ensureBuilt } from "../support/builtDist";
import { DAMAGES, damageFile } from "../support/cacheDamage";
import { runCli } from "../support/cliRunner";
import { claudeEdit } from "../support/hookPayloads";
import { reportPageData } from "../support/reportPageData";
import { TempWorkspace } from "../support/workspace";
import { insightWorkspace } from "./insightWorkspace";

/**
 * A cache can never change an answer: each cache file intent-lsp keeps and later trusts, found deleted,
 * zeroed at its length, truncated, with a garbage tail or with one bit flipped, gives the answers it gives
 * intact, exit 0, and is written whole again (io/checkedCache.ts). The ledger index's own such test is in
 * test/cli/ledgerIndex.test.ts.
 */

beforeAll(ensureBuilt);

const CACHE = ".orchestration/.cache";

/** A command's exit, stderr and stdout (parsed by `answer`), compared whole between runs. */
function answer(ws: TempWorkspace, args: string[], read: (stdout: string) => unknown = JSON.parse, opts: { env?: NodeJS.ProcessEnv; input?: string } = {}) {
  const r = runCli(args, { cwd: ws.root, ...opts });
  return { status: r.status, stderr: r.stderr, answer: r.status === 0 ? read(r.stdout) : r.stdout };
}

const reportInsight = (html: string) => reportPageData(html).insight;

describe("the caches of intent stats and intent report", () => {
  let ws: TempWorkspace;
  /** Each cache file's bytes once the answers below were given with every cache intact. */
  const intact = new Map<string, Buffer>();
  const rm = (...names: string[]) => {
    for (const n of names) rmSync(ws.path(`${CACHE}/${n}`), { force: true });
  };
  const history = () => answer(ws, ["stats", "--json", "--by", "month"]);
  const plain = () => answer(ws, ["stats", "--json"]);
  const report = () => answer(ws, ["report", "--out", "-", "--by", "month"], reportInsight);
  let expected: { history: unknown; plain: unknown; report: unknown };

  beforeAll(async () => {
    ws = await insightWorkspace();
    // every cache written, then each answer given from them
    history();
    rm("insight-result.json");
    expected = { history: history(), plain: plain(), report: report() };
    rm("insight-result.json");
    expect(history()).toEqual(expected.history);
    for (const name of ["insight.json", "insight-runs.bin", "insight-result.json", "insight-lines.json"])
      intact.set(name, readFileSync(ws.path(`${CACHE}/${name}`)));
    expect(expected.history).toMatchObject({ status: 0, stderr: "", answer: { lines: { ai: 3 } } });
    expect(expected.report).toMatchObject({ status: 0, stderr: "" });
  }, 60_000);

  afterAll(() => ws?.dispose());

  /** Puts the intact file back, then damages it. */
  const damaged = (name: string, damage: (b: Buffer) => Buffer | undefined) => {
    writeFileSync(ws.path(`${CACHE}/${name}`), intact.get(name)!);
    damageFile(ws.path(`${CACHE}/${name}`), damage);
  };
  const rewritten = (name: string, kind: string) => expect(isWholeCache(readFileSync(ws.path(`${CACHE}/${name}`)), kind)).toBe(true);

  /**
   * One bit flipped in the runs' numbers (the file ends with them, RUN_FIELDS int32s each): in the last field
   * of the fourth run from the end, read as another of the file's strings, or as a string number past them.
   */
  const flipInRuns = (at: number, bit: number) => (b: Buffer) => {
    const out = Buffer.from(b);
    out[b.length - at] = out[b.length - at]! ^ bit;
    return out;
  };
  const RUNS_DAMAGES = [
    ...DAMAGES,
    { name: "with one bit flipped in a run: another string", damage: flipInRuns(100, 0x01) },
    { name: "with one bit flipped in a run: a string number past the strings", damage: flipInRuns(98, 0x40) },
  ];

  it.each(RUNS_DAMAGES)("insight-runs.bin $name: the history and the report are those of the intact cache, and it is written whole again", ({ damage }) => {
    // the kept result removed before each run, so that the runs are what the run reads
    for (const run of [history, report] as const) {
      damaged("insight-runs.bin", damage);
      rm("insight-result.json");
      expect(run()).toEqual(run === history ? expected.history : expected.report);
      expect(readFileSync(ws.path(`${CACHE}/insight-runs.bin`))).toEqual(intact.get("insight-runs.bin"));
    }
  });

  it.each(DAMAGES)("insight.json $name: plain stats and the history are those of the intact cache, and it is written whole again", ({ damage }) => {
    damaged("insight.json", damage);
    expect(plain()).toEqual(expected.plain);
    rewritten("insight.json", "insight");
    damaged("insight.json", damage);
    rm("insight-result.json");
    expect(history()).toEqual(expected.history);
    rewritten("insight.json", "insight");
  });

  it.each(DAMAGES)("insight-result.json $name: the history is that of the intact cache, and it is written whole again", ({ damage }) => {
    damaged("insight-result.json", damage);
    expect(history()).toEqual(expected.history);
    rewritten("insight-result.json", "insight-result");
  });

  /** One bit flipped in the second digit of the commit time (seconds) the walk keeps for src/auth/middleware.ts' lines: years earlier. */
  const flipTime = (b: Buffer) => {
    const out = Buffer.from(b);
    const at = b.indexOf('"src/auth/middleware.ts",-1,') + '"src/auth/middleware.ts",-1,'.length + 1;
    out[at] = out[at]! ^ 0x01;
    return out;
  };

  it.each([...DAMAGES, { name: "with one bit flipped in a commit time", damage: flipTime }])(
    "insight-lines.json $name: the history dates untraced lines as with the intact walk, which is written whole again",
    ({ damage }) => {
      // the runs (which keep their own commit times) and the result removed, so that the kept walk dates the lines
      damaged("insight-lines.json", damage);
      rm("insight-runs.bin", "insight-result.json");
      expect(history()).toEqual(expected.history);
      rewritten("insight-lines.json", "insight-lines");
    },
  );
});

describe("the parsed catalogue the hooks and the CLI share", () => {
  let ws: TempWorkspace;
  let intact: Buffer;
  const FILE = `${CACHE}/catalogue.json`;
  /** Each hook in its own process, so that the catalogue comes from the disk and not a hook service's memory. */
  const OWN_PROCESS = { INTENT_LSP_HOOK_SERVICE: "off" };
  const pre = (path: string, before: string) =>
    answer(ws, ["hook", "claude-code"], (s) => s, {
      env: OWN_PROCESS,
      input: JSON.stringify(claudeEdit(ws, "PreToolUse", path, before, `${before} // edited`)),
    });
  const answers = () => ({
    inScope: pre("src/api/weather.ts", "  city: string;"),
    outOfScope: pre("docs/notes.md", "# Notes"),
    status: answer(ws, ["status"], (s) => s),
  });
  let expected: ReturnType<typeof answers>;

  beforeAll(() => {
    ws = new TempWorkspace();
    ws.select("INT-001");
    expected = answers();
    intact = readFileSync(ws.path(FILE));
    expect(expected.inScope.answer).toContain('"permissionDecision":"allow"');
    expect(expected.outOfScope.answer).toContain('"permissionDecision":"deny"');
  });

  afterAll(() => ws?.dispose());

  /** One bit flipped in the cached intents' first scope (`src/api/**` read as `src/` + "`pi/**"), the text it was loaded from unchanged. */
  const flipScope = (b: Buffer) => {
    const out = Buffer.from(b);
    const at = b.lastIndexOf('"src/api/**"') + '"src/'.length;
    out[at] = out[at]! ^ 0x01;
    return out;
  };

  it.each([...DAMAGES, { name: "with one bit flipped in a cached scope", damage: flipScope }])(
    "catalogue.json $name: the gate and intent status answer as with it intact, and it is written whole again",
    ({ damage }) => {
      writeFileSync(ws.path(FILE), intact);
      damageFile(ws.path(FILE), damage);
      expect(answers()).toEqual(expected);
      expect(readFileSync(ws.path(FILE))).toEqual(intact);
    },
  );
});
