import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { buildLifecycleRecord, lifecycleEvents, type LifecycleEvent } from "../../server/src/engine/ledger/lifecycle";
import { LifecycleLog } from "../../server/src/io/intents/lifecycleLog";
import { agentRecordLine } from "../support/recordLines";

/**
 * The followed log (bytes searched for the lifecycle mark, read in chunks, only what was appended) against
 * the plain reading: the whole ledger decoded and every line parsed (`readLifecycleEvents`).
 */

/** The plain reading: the whole file decoded, every line parsed. */
function readLifecycleEvents(root: string, path: string): LifecycleEvent[] {
  let text = "";
  try {
    text = readFileSync(join(root, path), "utf8");
  } catch {
    /* no ledger: no moves */
  }
  return lifecycleEvents(text.split("\n"));
}

const LEDGER = ".orchestration/agent_trace.jsonl";
let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "intent-lsp-lifecycle-"));
  mkdirSync(join(root, ".orchestration"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const move = (i: number, name = `Person ${i}`) =>
  JSON.stringify(
    buildLifecycleRecord({
      intentId: `INT-00${i % 3}`,
      from: "PENDING",
      to: i % 2 ? "IN_PROGRESS" : "COMPLETE",
      person: { name },
      toolVersion: "0.1.0",
      now: new Date(Date.UTC(2026, 0, 1, 0, i)),
      id: `00000000-0000-4000-a000-${String(i).padStart(12, "0")}`,
    }),
  );
const edit = (i: number) =>
  agentRecordLine(`src/f${i}.ts`, `line ${i}\n`, {
    now: new Date(Date.UTC(2026, 0, 1, 1, i)),
    id: `00000000-0000-4000-b000-${String(i).padStart(12, "0")}`,
  });

it("reads every move the plain reading finds, whatever the chunk size, as the ledger grows and is replaced", async () => {
  const path = join(root, LEDGER);
  const logs = [64, 700, 1 << 20].map((chunk) => new LifecycleLog(root, () => LEDGER, chunk));
  const same = async () => {
    const plain = readLifecycleEvents(root, LEDGER);
    for (const log of logs) expect(await log.read()).toEqual(plain);
    return plain;
  };
  expect(await same()).toEqual([]); // no ledger yet
  // moves among edits, a name with characters of several bytes, a line that is not JSON but holds the mark,
  // bytes that are not UTF-8 on a line of their own, and a mark split by no line end
  writeFileSync(path, `${[edit(1), move(1), edit(2), move(2, "Zoë Ångström 🚀"), '{"lifecycle" not json', edit(3)].join("\n")}\n`);
  appendFileSync(path, Buffer.from([0xe2, 0x82, 0x0a, 0xff, 0x0a]));
  expect((await same()).map((e) => e.person?.name)).toEqual(["Person 1", "Zoë Ångström 🚀"]);
  // a move being appended is read once its line is whole
  const half = move(3).slice(0, 40);
  appendFileSync(path, half);
  expect((await same()).length).toBe(2);
  appendFileSync(path, `${move(3).slice(40)}\n${edit(4)}\n${move(4)}\n`);
  expect((await same()).length).toBe(4);
  // a ledger replaced by a shorter one, then by one of the same length with another head
  writeFileSync(path, `${move(5)}\n`);
  expect((await same()).map((e) => e.at)).toEqual(["2026-01-01T00:05:00.000Z"]);
  writeFileSync(path, `${move(7)}\n`);
  expect(readFileSync(path).length).toBe(move(5).length + 1);
  expect((await same()).map((e) => e.at)).toEqual(["2026-01-01T00:07:00.000Z"]);
});

it("reads a chunk at a time without holding the event loop, and reads that overlap give what one read gives", async () => {
  const path = join(root, LEDGER);
  writeFileSync(path, `${Array.from({ length: 200 }, (_, i) => (i % 20 === 0 ? move(i) : edit(i))).join("\n")}\n`);
  const log = new LifecycleLog(root, () => LEDGER, 700);
  let readDone = false;
  const turned = new Promise<boolean>((resolve) => setImmediate(() => resolve(readDone)));
  const first = log.read().then((events) => {
    readDone = true;
    return events;
  });
  // a second read asked while the first is under way, after another move is appended
  appendFileSync(path, `${move(300)}\n`);
  const second = log.read();
  expect(await turned).toBe(false); // the event loop turned while the first read went through the chunks
  const plain = readLifecycleEvents(root, LEDGER);
  expect(plain.length).toBe(11);
  const got = await first;
  expect(got).toEqual(plain.slice(0, got.length));
  expect(got.length).toBeGreaterThanOrEqual(10);
  expect(await second).toEqual(plain);
});

it("forgets moves cut from the ledger's end or lost with the ledger, and never changes an answer given", async () => {
  const path = join(root, LEDGER);
  const log = new LifecycleLog(root, () => LEDGER, 700);
  writeFileSync(path, `${[edit(1), move(1), edit(2), move(2)].join("\n")}\n`);
  const both = await log.read();
  expect(both.length).toBe(2);
  appendFileSync(path, `${move(5)}\n`);
  expect((await log.read()).length).toBe(3);
  expect(both.length).toBe(2); // an answer given stays as it was
  // cut back to its first moves (a rollback of the last appends): the same head, fewer bytes
  writeFileSync(path, `${[edit(1), move(1)].join("\n")}\n`);
  expect(await log.read()).toEqual(readLifecycleEvents(root, LEDGER));
  expect((await log.read()).length).toBe(1);
  appendFileSync(path, `${move(3)}\n`);
  expect((await log.read()).length).toBe(2);
  expect(both.map((e) => e.at)).toEqual(["2026-01-01T00:01:00.000Z", "2026-01-01T00:02:00.000Z"]);
  rmSync(path);
  expect(await log.read()).toEqual([]);
});
