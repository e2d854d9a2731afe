import { describe, expect, it } from "vitest";
import { CUT_TTL_MS, cutOf, MAX_CUTS } from "../../server/src/engine/agent/cuts";
import { keepPastes, pastedBack, pasteLess, pasteOf, type Paste } from "../../server/src/engine/agent/pastes";
import { diffTexts } from "../../server/src/engine/lineChange";

/** A session's pastes written before their cut, and the cut that gives them back (engine/agent/pastes.ts). */

const BLOCK = ["export function urgent(a: Alert): boolean {", "  return a.severity >= 3;", "}"];
const KEPT = ["export const LIMIT = 42;", "export const FLOOR = 7;"];
const MINE = ["// urgent alerts, split out of alerts.ts by the agent", ""];
const text = (lines: readonly string[]) => `${lines.join("\n")}\n`;
const NOW = Date.UTC(2026, 10, 26, 10);
const pinnedAll = () => true;
const ALERTS_BEFORE = text(["// alerts", ...BLOCK, ...KEPT]);
const ALERTS_AFTER = text(["// alerts", ...KEPT]);
const cut = (at = NOW) => cutOf("src/alerts.ts", "sha256:alerts", ALERTS_BEFORE, diffTexts(ALERTS_BEFORE, ALERTS_AFTER), at)!;

/** The agent writes src/urgent.ts (new) holding its own two lines and the block. */
function pasted(at = NOW): Paste {
  const after = text([...MINE, ...BLOCK]);
  return pasteOf("src/urgent.ts", "sha256:urgent", null, after, diffTexts(null, after), undefined, at)!;
}

describe("pasteOf: the lines a write inserted that a later cut may claim", () => {
  it("keeps the inserted runs long enough to be a moved block, numbered in the content after the write", () => {
    expect(pasted()).toEqual({ path: "src/urgent.ts", hash: "sha256:urgent", blocks: [{ start: 0, lines: [...MINE, ...BLOCK] }], at: NOW });
  });

  it("leaves out a block the file held before (moved within it); inserted lines are kept, whatever explained them", () => {
    const before = text([...BLOCK, "// a", "// b", "// c", "// d"]);
    const after = text(["// a", "// b", "// c", "// d", ...BLOCK]);
    expect(pasteOf("src/u.ts", "h2", before, after, diffTexts(before, after), undefined, NOW)).toBeUndefined();
    // lines a cut explained at the write stay claimable by a later cut, which names where they live now
    const fresh = text(BLOCK);
    expect(pasteOf("src/u.ts", "h3", null, fresh, diffTexts(null, fresh), undefined, NOW)?.blocks).toEqual([{ start: 0, lines: BLOCK }]);
  });

  it("carries an earlier paste into the same content to where the write left its lines", () => {
    const first = pasted();
    const before = text([...MINE, ...BLOCK]);
    const after = text(["import { Alert } from './alert';", "", ...MINE, ...BLOCK]);
    const next = pasteOf("src/urgent.ts", "sha256:urgent2", before, after, diffTexts(before, after), first, NOW + 1)!;
    // the two new lines (one distinctive) join the carried ones in one run
    expect(next.blocks).toEqual([{ start: 0, lines: ["import { Alert } from './alert';", "", ...MINE, ...BLOCK] }]);
    expect(next.hash).toBe("sha256:urgent2");
  });
});

describe("pastedBack: a later cut gives the pasted block its owners", () => {
  it("the block cut from the other file's recorded content is found where it was pasted", () => {
    expect(pastedBack([pasted()], [cut()], NOW, pinnedAll)).toEqual([
      { paste: pasted(), movedIn: [{ from: "src/alerts.ts", preHash: "sha256:alerts", runs: [{ oldStart: 1, newStart: 2, length: 3 }] }] },
    ]);
  });

  it("nothing for a cut no record pins, a paste or cut past the TTL, or a cut of the pasted file itself", () => {
    expect(pastedBack([pasted()], [cut()], NOW, () => false)).toEqual([]);
    expect(pastedBack([pasted(NOW - CUT_TTL_MS)], [cut()], NOW, pinnedAll)).toEqual([]);
    expect(pastedBack([pasted()], [cut(NOW - CUT_TTL_MS)], NOW, pinnedAll)).toEqual([]);
    expect(pastedBack([{ ...pasted(), path: "src/alerts.ts" }], [cut()], NOW, pinnedAll)).toEqual([]);
  });

  it("a cut of other text claims nothing", () => {
    const other = text(["// other", "export const unrelated = compute(alpha, beta);", "export const more = 2;", "// end"]);
    const c = cutOf("src/other.ts", "h", other, diffTexts(other, text(["// other", "// end"])), NOW)!;
    expect(pastedBack([pasted()], [c], NOW, pinnedAll)).toEqual([]);
  });

  it("the lines claimed are matched no more; what is left stays a paste while it is a block", () => {
    const [{ movedIn }] = pastedBack([pasted()], [cut()], NOW, pinnedAll);
    // the agent's own two lines are left: a comment of 40 letters and digits and a blank line, still a block
    expect(pasteLess(pasted(), movedIn)).toEqual({ ...pasted(), blocks: [{ start: 0, lines: MINE }] });
    expect(pasteLess({ ...pasted(), blocks: [{ start: 2, lines: BLOCK }] }, movedIn)).toBeUndefined();
  });
});

describe("keepPastes: a session's pastes stay bounded", () => {
  it("one per path (the newest, which carried the older one's lines), none older than the TTL, none of a path written since", () => {
    const older = { ...pasted(NOW - 1000), hash: "sha256:old" };
    expect(keepPastes([older], [pasted()], NOW, ["src/urgent.ts"])).toEqual([pasted()]);
    expect(keepPastes([older], [], NOW, ["src/urgent.ts"])).toEqual([]);
    expect(keepPastes([pasted(NOW - CUT_TTL_MS - 1)], [], NOW, [])).toEqual([]);
    const many = Array.from({ length: MAX_CUTS + 3 }, (_, k) => ({ ...pasted(NOW - k), path: `src/f${k}.ts` }));
    expect(keepPastes([], many, NOW, []).length).toBe(MAX_CUTS);
  });
});
