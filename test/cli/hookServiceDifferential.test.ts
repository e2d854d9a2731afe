import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { runHook, type CliResult } from "../support/cliRunner";
import { ALL_AGENTS } from "../support/gatedAgents";
import { comparableRecords, generateCalls, type HookCall, MODELS, PATHS, prepare, removeTwin, SHELL, twinWorkspace, withoutRoot } from "../support/hookCalls";
import { HookServiceHarness, spawnHook } from "../support/hookServiceHarness";

/**
 * The hook service's oracle is the call's own process (docs/ARCHITECTURE.md "Hook service"): a session of
 * generated calls (every agent, pre and post, writes and shell commands, absolute and relative working
 * folders, odd paths, model variables) is replayed on twin workspaces, one answered by the service through
 * the real launcher, the other by each call's own process; every answer and both ledgers must be the same.
 * `npm test` replays a draw of 112 calls that reaches every kind of call; `npm run soak` replays 10,000.
 */

beforeAll(ensureBuilt);

const SOAK = !!process.env["INTENT_LSP_SOAK"];
/** `npm test`'s draw: a seed whose first 112 calls reach every kind of call (held by the first test below). */
const DRAW = { seed: 2153, count: 112 };
const COUNT = Number(process.env["INTENT_LSP_HOOK_CALLS"]) || (SOAK ? 10_000 : DRAW.count);
const SEED = Number(process.env["INTENT_LSP_SEED"]) || DRAW.seed;

const h = new HookServiceHarness();
afterAll(() => h.dispose());

const comparable = (ws: { root: string }, r: CliResult) => ({
  stdout: withoutRoot(ws as never, r.stdout),
  stderr: withoutRoot(ws as never, r.stderr),
  status: r.status,
});

/**
 * Independent sessions replayed side by side (each on its own twins), so that a soak uses both cores; session
 * k draws its calls from seed SEED + k. The soak's 10,000 calls are seeds 2153 to 2156, 2,500 calls each: on
 * two cores that is hours, so it may be run in shards (INTENT_LSP_SEED=2155 INTENT_LSP_HOOK_SESSIONS=2
 * INTENT_LSP_HOOK_CALLS=5000 replays seeds 2155 and 2156), the same calls as in one run.
 */
const SESSIONS = Number(process.env["INTENT_LSP_HOOK_SESSIONS"]) || (SOAK ? 4 : 1);

describe("the hook service answers as each call's own process", () => {
  it("npm test's draw reaches each agent's write and shell call, before and after, every working folder form, model, command, path and selection", () => {
    const calls = generateCalls(DRAW.seed, DRAW.count);
    const kind = (c: HookCall) => (c.label.includes(" shell ") ? "shell" : "write");
    const drawn = (f: (c: HookCall) => unknown) => [...new Set(calls.map((c) => JSON.stringify(f(c))))].sort();
    const all = (xs: readonly unknown[]) => [...new Set(xs.map((x) => JSON.stringify(x)))].sort();
    const writes = calls.filter((c) => kind(c) === "write");
    const shells = calls.filter((c) => kind(c) === "shell");
    expect(drawn((c) => `${c.agent.agent} ${kind(c)} ${c.phase}`)).toEqual(
      all(ALL_AGENTS.flatMap((a) => ["shell", "write"].flatMap((k) => ["pre", "post"].map((p) => `${a.agent} ${k} ${p}`)))),
    );
    expect(drawn((c) => `${kind(c)} ${/ cwd=(\w+) /.exec(c.label)?.[1]}`)).toEqual(
      all(["shell", "write"].flatMap((k) => ["absolute", "dot", "below"].map((f) => `${k} ${f}`))),
    );
    expect(drawn((c) => c.env["INTENT_LSP_MODEL"] ?? null)).toEqual(all(MODELS.map((m) => m ?? null)));
    expect([...new Set(shells.map((c) => JSON.parse(/ shell (".*") cwd=/.exec(c.label)![1]!)))].sort()).toEqual([...SHELL].sort());
    expect([...new Set(writes.map((c) => /^\S+ write (.*) cwd=/.exec(c.label)![1]))].sort()).toEqual([...PATHS].sort());
    expect(drawn((c) => c.select)).toEqual(all([undefined, null, "INT-002", "INT-003"]));
  });

  it(`${COUNT} generated calls (seed ${SEED}): the same answers and the same ledger`, { timeout: 60_000 + (COUNT / SESSIONS) * 3_000 }, async () => {
    const sessions = Array.from({ length: SESSIONS }, (_, k) => generateCalls(SEED + k, Math.ceil(COUNT / SESSIONS)));
    // the services stay for the whole replay (they are killed at its end): calls are refused where none answers
    // ("require"), and an environment a session's draw uses seldom may go minutes without a call in a soak
    const idle = { INTENT_LSP_HOOK_SERVICE_IDLE_MS: String(24 * 3_600_000) };
    // one service per environment the calls use, started before the calls that must reach it
    const envs = [...new Map(sessions.flat().map((c) => [JSON.stringify(c.env), c.env])).values()];
    for (const env of envs) runHook("claude-code", {}, { cwd: h.xdg, env: h.env(undefined, { ...env, ...idle }) });
    await h.services(envs.length);

    const results = await Promise.all(sessions.map((calls) => replay(calls, idle)));
    const differences = results.flatMap((r) => r.differences);
    const records = results.reduce((n, r) => n + r.records, 0);
    console.log(
      `hook service differential: ${results.reduce((n, r) => n + r.calls, 0)} calls in ${SESSIONS} sessions, ${records} records, ${differences.length} differences`,
    );
    expect(differences.slice(0, 5)).toEqual([]);
    expect(records).toBeGreaterThan(0);
  });
});

/** One session on its own twins: the calls' answers compared one by one, then the ledgers. */
async function replay(calls: ReturnType<typeof generateCalls>, idle: NodeJS.ProcessEnv) {
  const served = twinWorkspace();
  const own = twinWorkspace();
  const differences: string[] = [];
  for (const [i, call] of calls.entries()) {
    prepare(served, call);
    prepare(own, call);
    // one after the other, as an agent's calls come: the service's answer, then the own process's
    const s = await spawnHook(call.agent.agent, call.payload(served), { cwd: served.root, env: h.env("require", { ...call.env, ...idle }) });
    const o = await spawnHook(call.agent.agent, call.payload(own), { cwd: own.root, env: h.env("off", { ...call.env, ...idle }) });
    const a = comparable(served, s);
    const b = comparable(own, o);
    if (JSON.stringify(a) !== JSON.stringify(b))
      differences.push(`call ${i} (${call.label}):\n  service: ${JSON.stringify(a)}\n  own:     ${JSON.stringify(b)}`);
  }
  const ledgers = [comparableRecords(served), comparableRecords(own)];
  if (JSON.stringify(ledgers[0]) !== JSON.stringify(ledgers[1])) {
    const at = ledgers[0]!.findIndex((r, k) => JSON.stringify(r) !== JSON.stringify(ledgers[1]![k]));
    differences.push(
      `the ledgers differ: ${ledgers[0]!.length} records served, ${ledgers[1]!.length} own; record ${at}:\n  service: ${JSON.stringify(ledgers[0]![at])}\n  own:     ${JSON.stringify(ledgers[1]![at])}`,
    );
  }
  removeTwin(served);
  removeTwin(own);
  return { calls: calls.length, records: ledgers[1]!.length, differences };
}
