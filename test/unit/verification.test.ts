import { describe, expect, it } from "vitest";
import type { Criterion } from "../../server/src/engine/intents/model";
import { duration, invalidCriteriaReason, outputTail, runnable, seconds, sentences, skipped, verified } from "../../server/src/engine/intents/verification";

/**
 * The completion contract's words and records (docs/INTENTS.md "Acceptance criteria"): which criteria run and
 * which a person confirms, what the ledger keeps with COMPLETE, and how durations and output tails read in
 * `intent complete` and `intent status`. test/unit/criteria.test.ts judges how a command ended.
 */

const run = (cmd: string): Criterion => ({ kind: "run", run: cmd, timeoutSeconds: 600 }) as Criterion;
const confirm = (text: string): Criterion => ({ kind: "confirm", text }) as Criterion;

describe("the criteria an intent declares", () => {
  const criteria = [run("npm test"), confirm("Docs updated"), run("npm run lint"), confirm("Reviewed")];

  it("commands run in the order declared, and only commands", () => {
    expect(runnable({ criteria })).toEqual([run("npm test"), run("npm run lint")]);
  });

  it("sentences are put to the person in the order declared, and only sentences", () => {
    expect(sentences({ criteria })).toEqual([confirm("Docs updated"), confirm("Reviewed")]);
  });
});

describe("the verification recorded with COMPLETE", () => {
  const checks = [{ kind: "confirm" as const, text: "Docs updated", confirmed: true, how: "prompt" as const }];
  const ada = { name: "Ada Lovelace" };

  it("a verified intent records passed, its checks and who confirmed them", () => {
    expect(verified(checks, ada)).toEqual({ result: "passed", criteria: checks, confirmed_by: ada });
  });

  it("with no person known, no confirmed_by at all", () => {
    expect(verified(checks, undefined)).toStrictEqual({ result: "passed", criteria: checks });
  });

  it("a skipped verification records skipped and no checks, with who skipped it when known", () => {
    expect(skipped(ada)).toEqual({ result: "skipped", criteria: [], confirmed_by: ada });
    expect(skipped(undefined)).toStrictEqual({ result: "skipped", criteria: [] });
  });

  it("criteria with errors refuse with what to do", () => {
    expect(invalidCriteriaReason("INT-007")).toBe(
      "INT-007's acceptance_criteria have errors (`intent status` shows where), so they cannot be verified; fix them first. Nothing was run or changed.",
    );
  });
});

describe("the tail of a command's output", () => {
  it("keeps the last 20 lines, without trailing blank lines", () => {
    const text = `${Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join("\n")}\n\n \n`;
    expect(outputTail(text)).toBe(Array.from({ length: 20 }, (_, i) => `line ${i + 6}`).join("\n"));
  });

  it("reads CRLF and lone CR line ends as line ends", () => {
    expect(outputTail("one\r\ntwo\rthree\r\n", 2)).toBe("two\nthree");
  });
});

describe("durations as people read them", () => {
  it.each([
    [0.4, "0 ms"],
    [850.4, "850 ms"],
    [999, "999 ms"],
    [1000, "1 s"],
    [12_345, "12.3 s"],
    [59_900, "59.9 s"],
    [60_000, "1 min"],
    [119_600, "2 min"],
    [185_000, "3 min 5 s"],
    [3_600_000, "60 min"],
  ])("%s ms reads %s", (ms, words) => {
    expect(duration(ms)).toBe(words);
  });

  it.each([
    [5, "5 s"],
    [59, "59 s"],
    [60, "1 min"],
    [90, "1 min 30 s"],
    [119.7, "2 min"],
    [600, "10 min"],
    [3725, "62 min 5 s"],
  ])("a timeout of %s seconds reads %s", (s, words) => {
    expect(seconds(s)).toBe(words);
  });
});
