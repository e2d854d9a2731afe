import { afterAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { inProcessServer, spawnedServer, type ServerUnderTest } from "../support/inProcessServer";
import { ProtocolFuzz } from "../support/protocolFuzz";
import { TempWorkspace } from "../support/workspace";

/**
 * The protocol fuzz (see test/support/protocolFuzz.ts for what is sent and the six oracles). `npm test`
 * runs 600 seeded sequences in process and 30 against the spawned dist/server.js; `npm run soak`
 * (INTENT_LSP_SOAK=1) runs 10,000 and 1,000 from the same first seed. A failure names the seed of the sequence that broke an oracle.
 */
const SOAK = process.env["INTENT_LSP_SOAK"] === "1";
const IN_PROCESS = Number(process.env["INTENT_LSP_FUZZ_SEQUENCES"] ?? (SOAK ? 10_000 : 600));
const SPAWNED = SOAK ? 1_000 : 30;
/** Sequences per server: each batch starts a fresh server on a fresh copy of the example workspace. */
const BATCH = 250;
const BASE_SEED = Number(process.env["INTENT_LSP_FUZZ_SEED"] ?? 20_260_101);

const totals: { name: string; stats: ProtocolFuzz["stats"] }[] = [];

async function run(count: number, start: (root: string, onPublish: (p: unknown) => void) => Promise<ServerUnderTest>, seedOffset: number) {
  const all: ProtocolFuzz[] = [];
  for (let first = 0; first < count; first += BATCH) {
    const ws = new TempWorkspace();
    const fuzz = new ProtocolFuzz(ws.root);
    fuzz.server = await start(ws.root, fuzz.onPublish);
    try {
      for (let i = first; i < Math.min(count, first + BATCH); i++) {
        await fuzz.sequence(BASE_SEED + seedOffset + i);
        if (fuzz.violations.length) {
          if (process.env["INTENT_LSP_FUZZ_TRACE"] === "1") console.log(fuzz.trace.join("\n"));
          break;
        }
      }
      expect(fuzz.server.alive(), fuzz.server.stderr()).toBe(true);
    } finally {
      await fuzz.server.stop();
      ws.dispose();
    }
    all.push(fuzz);
    expect(fuzz.violations, JSON.stringify(fuzz.violations.slice(0, 5), null, 1)).toEqual([]);
  }
  const sum = (k: keyof ProtocolFuzz["stats"]) => all.reduce((n, f) => n + f.stats[k], 0);
  return {
    sequences: sum("sequences"),
    notifications: sum("notifications"),
    requests: sum("requests"),
    errorsAnswered: sum("errorsAnswered"),
    publishes: sum("publishes"),
    rangesChecked: sum("rangesChecked"),
    viewsCompared: sum("viewsCompared"),
    ownersCompared: sum("ownersCompared"),
  };
}

describe("protocol fuzz: the server keeps serving, answers, publishes ranges inside the document, and sees what the editor sees", () => {
  afterAll(() => {
    for (const t of totals) console.log(`fuzz ${t.name}: ${JSON.stringify(t.stats)}`);
  });

  it(`${IN_PROCESS} sequences against the server in process`, { timeout: (SOAK ? 3_600 : 600) * 1000 }, async () => {
    const stats = await run(IN_PROCESS, inProcessServer, 0);
    totals.push({ name: "in process", stats });
    expect(stats.sequences).toBe(IN_PROCESS);
    expect(stats.viewsCompared).toBeGreaterThan(IN_PROCESS / 2);
    expect(stats.ownersCompared).toBeGreaterThan(IN_PROCESS / 10);
  });

  it(`${SPAWNED} sequences against dist/server.js over stdio`, { timeout: (SOAK ? 1_800 : 300) * 1000 }, async () => {
    await ensureBuilt();
    const stats = await run(SPAWNED, spawnedServer, 1_000_000);
    totals.push({ name: "spawned", stats });
    expect(stats.sequences).toBe(SPAWNED);
  });
});
