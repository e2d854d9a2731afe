import { describe, expect, it } from "vitest";
import { isoMs } from "../../server/src/engine/isoTime";

/** `isoMs` reads toISOString's form itself and leaves everything else to Date.parse: its answer is Date.parse's. */
describe("isoMs", () => {
  const same = (text: string) => expect(Object.is(isoMs(text), Date.parse(text)), `${text}: ${isoMs(text)} vs ${Date.parse(text)}`).toBe(true);

  it("gives Date.parse's answer for every time toISOString writes, from year 0 to 9999", () => {
    // a seeded walk over the range: leap days, month ends, the epoch and the years around 0 and 9999 included
    let seed = 20_261_126;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const first = Date.parse("0000-01-01T00:00:00.000Z");
    const last = Date.parse("9999-12-31T23:59:59.999Z");
    for (let i = 0; i < 20_000; i++) same(new Date(first + Math.floor(next() * (last - first))).toISOString());
    for (const fixed of [
      "1970-01-01T00:00:00.000Z",
      "2024-02-29T23:59:59.999Z",
      "2000-02-29T12:00:00.000Z",
      "2100-02-28T00:00:00.001Z",
      "0000-01-01T00:00:00.000Z",
      "9999-12-31T23:59:59.999Z",
      "2026-11-26T20:40:03.000Z",
    ])
      same(fixed);
  });

  it("leaves any other text to Date.parse: offsets, no milliseconds, out-of-range values, not digits", () => {
    for (const other of [
      "2026-11-26T20:40:03Z",
      "2026-11-26T20:40:03.000+02:00",
      "2026-11-26T20:40:03.0000Z",
      "2026-11-26",
      "2023-02-29T00:00:00.000Z",
      "2026-04-31T00:00:00.000Z",
      "2026-13-01T00:00:00.000Z",
      "2026-00-10T00:00:00.000Z",
      "2026-01-00T00:00:00.000Z",
      "2026-01-01T24:00:00.000Z",
      "2026-01-01T23:60:00.000Z",
      "2026-01-01T23:59:60.000Z",
      "2026-01-01T2a:00:00.000Z",
      "2026-01-01 20:40:03.000Z",
      "+02026-01-01T00:00:00.000",
      "",
      "not a time at all, 24 chr",
    ])
      same(other);
  });
});
