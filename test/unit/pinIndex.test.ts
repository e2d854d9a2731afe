import { expect, it } from "vitest";
import { FileIndex } from "../../server/src/engine/ledger/fileIndex";
import { ContentPins, PinIndex } from "../../server/src/engine/ledger/pinIndex";
import { MIXED_POST, NO_POST, type RecordRef } from "../../server/src/engine/ledger/recordRows";
import { prng } from "../support/protocolFuzz";

/**
 * The pin index's key table (open addressing in typed arrays) against the plainest reading of what it
 * answers: every row added, kept in a list, and for a key the rows listed under it then those under
 * MIXED_POST, in the order added, each record line once, a row skipped when the key's last row is of the
 * same line.
 */
function plainPins() {
  const chains = new Map<number, RecordRef[]>();
  return {
    add(post: number, offset: number, length: number, line: number) {
      if (post === NO_POST) return;
      const chain = chains.get(post) ?? [];
      if (chain.at(-1)?.line === line) return;
      chain.push({ offset, length, line });
      chains.set(post, chain);
    },
    refs(key: number): RecordRef[] {
      const seen = new Set<number>();
      return [...(chains.get(key) ?? []), ...(key === MIXED_POST ? [] : (chains.get(MIXED_POST) ?? []))].filter((r) => !seen.has(r.line) && seen.add(r.line));
    },
    keys: () => [...chains.keys()],
  };
}

it("answers as the plain reading over tens of thousands of keys, keys that share their low or high bits, and every edge key", () => {
  const rand = prng(20261130);
  for (const expected of [0, 50, 40_000]) {
    const pins = new PinIndex(expected);
    const plain = plainPins();
    const keyPool = [
      NO_POST,
      MIXED_POST,
      2,
      0xffffffff,
      0x80000000,
      0x7fffffff,
      // the same low bits and the same high bits: the table's slot comes from the high bits of a product
      ...Array.from({ length: 64 }, (_, i) => (i << 24) >>> 0),
      ...Array.from({ length: 64 }, (_, i) => i + 1000),
    ];
    let line = 0;
    for (let r = 0; r < 60_000; r++) {
      // a record names one file or several, with one post or several
      if (rand() < 0.8) line++;
      const roll = rand();
      const post = roll < 0.3 ? keyPool[Math.floor(rand() * keyPool.length)]! : roll < 0.3003 ? MIXED_POST : Math.floor(rand() * 2 ** 32);
      const ref = { offset: line * 100, length: 99, line };
      pins.add(post, ref.offset, ref.length, ref.line);
      plain.add(post, ref.offset, ref.length, ref.line);
    }
    const asked = [...keyPool, ...plain.keys().filter((_, i) => i % 7 === 0), ...Array.from({ length: 2000 }, () => Math.floor(rand() * 2 ** 32))];
    expect(plain.keys().length).toBeGreaterThan(30_000);
    const answers = (of: { refs(key: number): RecordRef[] }) => asked.map((key) => `${key}: ${JSON.stringify(of.refs(key))}`);
    const got = answers(pins);
    const want = answers(plain);
    const first = got.findIndex((g, i) => g !== want[i]);
    expect(first === -1 ? "same" : `expected ${expected}: ${got[first]} instead of ${want[first]}`).toBe("same");
  }
});

it("made a slice at a time, answers as made at once; while being made, as before; a row added meanwhile is not lost", () => {
  const rand = prng(7);
  const files = new FileIndex();
  const shared = Array.from({ length: 50 }, () => Math.floor(rand() * 2 ** 32));
  let line = 0;
  const addRow = (pins?: ContentPins) => {
    line++;
    const post = rand() < 0.2 ? shared[Math.floor(rand() * shared.length)]! : Math.floor(rand() * 2 ** 32);
    files.add(`src/f${Math.floor(rand() * 3000)}.ts`, line * 10, 9, line, post, line, "sha256:x");
    pins?.add(post, line * 10, 9, line);
    return post;
  };
  for (let i = 0; i < 250_000; i++) addRow();
  const asked = [...shared, MIXED_POST, 12345];
  const pins = new ContentPins(files);
  expect(pins.prepareStep()).toBe(true);
  // half made: answered by a scan of the rows, as when no index is begun
  const whole = PinIndex.of(files);
  for (const key of asked.slice(0, 4)) expect(pins.refs(key)).toEqual(whole.refs(key));
  // a record read meanwhile: the index is made again from the start, with it
  const late = addRow(pins);
  let steps = 1;
  while (pins.prepareStep()) steps++;
  expect(steps).toBeGreaterThan(2);
  const after = PinIndex.of(files);
  for (const key of [...asked, late]) expect(pins.refs(key), `key ${key}`).toEqual(after.refs(key));
  expect(pins.refs(late).some((r) => r.line === line)).toBe(true);
});

it("for a command line, made at the first question: that answer and every later one as made at once; none asked, none made", () => {
  const rand = prng(11);
  const files = new FileIndex();
  let line = 0;
  const addRow = (pins?: ContentPins) => {
    line++;
    const post = Math.floor(rand() * 2 ** 12);
    files.add(`src/f${Math.floor(rand() * 300)}.ts`, line * 10, 9, line, post, line, "sha256:x");
    pins?.add(post, line * 10, 9, line);
    return post;
  };
  // more rows than a slice of `prepareStep` makes: a maker that finds it all still to make says so
  for (let i = 0; i < 60_000; i++) addRow();
  // not asked: nothing made
  const idle = new ContentPins(files);
  idle.indexAtFirstQuestion();
  expect(idle.prepareStep()).toBe(true);
  // asked: the first answer is the index's, already whole
  const pins = new ContentPins(files);
  pins.indexAtFirstQuestion();
  const whole = PinIndex.of(files);
  expect(pins.refs(7)).toEqual(whole.refs(7));
  expect(pins.prepareStep()).toBe(false);
  // the scan of a reader of a few files answers alike, and leaves the index to make
  const scanned = new ContentPins(files);
  expect(scanned.refs(7)).toEqual(whole.refs(7));
  expect(scanned.prepareStep()).toBe(true);
  // a record read after: kept in the index made at the first question (listed last, where one made anew
  // lists it with its file's rows)
  const late = addRow(pins);
  const byLine = (refs: RecordRef[]) => [...refs].sort((a, b) => a.line - b.line);
  expect(byLine(pins.refs(late))).toEqual(byLine(PinIndex.of(files).refs(late)));
  expect(pins.refs(late).some((r) => r.line === line)).toBe(true);
});
