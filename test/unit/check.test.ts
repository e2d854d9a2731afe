import type { Settings } from "@shared/settings";
import { describe, expect, it } from "vitest";
import {
  type ChangedFile,
  checkChanges,
  countedFindings,
  type Finding,
  intentsFileFindings,
  lineFindings,
  summarize,
  unrecordedContentFinding,
} from "../../server/src/engine/check";
import { LedgerIndex } from "../../server/src/engine/ledger/ledgerIndex";
import type { EntryContributor, TraceEntry } from "../../server/src/engine/ledger/read";
import { buildRecord, changedRanges } from "../../server/src/engine/ledger/record";
import { buildRules } from "../../server/src/engine/rules";
import { INTENTS_FILE } from "../../server/src/engine/workspaceFiles";

/**
 * The rules behind `intent check` (engine/check.ts), called with data: which changed lines are findings, at
 * which severity (a change the agent gate would deny is an error, as the gate denies it), and the counts the
 * summary prints.
 */
const CATALOGUE = `active_intents:
  - { id: APP-001, name: Build the app, status: IN_PROGRESS, owned_scope: ["src/app/**"] }
  - { id: LIB-001, name: Shared library, status: IN_PROGRESS, owned_scope: ["src/lib/**", "src/both/**"] }
  - { id: WEB-001, name: Web client, status: IN_PROGRESS, owned_scope: ["src/both/**"] }
  - { id: OLD-001, name: Old work, status: COMPLETE, owned_scope: ["src/app/**", "src/done/**"] }
  - { id: GEN-001, name: Generated code, status: PENDING, owned_scope: ["src/done/**"] }
`;

function rulesWith(severity: Partial<Settings["severity"]> = {}) {
  return buildRules({ [INTENTS_FILE]: CATALOGUE }, { severity: severity as Settings["severity"] });
}
const rules = rulesWith();

const NEXT_STEP =
  "the agent gate would deny this write now. Make it under an in-progress intent that owns the file (re-record the lines, or amend that intent's scope), or revert it.";
const COMPLETE_OLD = "OLD-001 (Old work) is COMPLETE: it is complete, so its work is closed. Select another intent, or create one for this change.";
const OUT_OF_SCOPE_APP =
  "src/app/a.ts is outside the scope of LIB-001 (Shared library): src/lib/**, src/both/**. Owned by APP-001 (IN_PROGRESS), OLD-001 (COMPLETE).";
const UNTRACED_TAIL = "and no ledger record explains it (untraced): the change was made outside intent-lsp and the agent hooks.";
const UNOWNED_TAIL = "Start or select an intent that owns it (or add the path to one's scope) and make the change under it.";

/** A ledger entry as read, for the rules that take the record explaining each line. */
function entry(recordId: string, intentId: string | undefined, contributor: EntryContributor = { type: "human" }, toolCall?: string): TraceEntry {
  return {
    recordId,
    line: 1,
    timestamp: "2026-01-01T00:00:00Z",
    path: "src/app/a.ts",
    startLine: 1,
    endLine: 1,
    contributor,
    ...(intentId ? { intentId } : {}),
    ...(toolCall ? { toolCall } : {}),
    dialect: "spec",
  } as TraceEntry;
}

/** `recordOf` for `lineFindings`: line number → entry (missing: untraced). */
const byLine = (map: Record<number, TraceEntry>) => (line: number) => map[line];

describe("lineFindings: a changed line's finding from the record that explains it", () => {
  it("merges adjacent lines with the same finding into one range, whatever order the lines come in", () => {
    const old = entry("r-old", "OLD-001");
    const findings = lineFindings("src/app/a.ts", [3, 1, 2], byLine({ 1: old, 2: old, 3: old }), rules);
    expect(findings).toStrictEqual([
      {
        path: "src/app/a.ts",
        startLine: 1,
        endLine: 3,
        code: "intent-not-in-progress",
        severity: "error",
        message: `${COMPLETE_OLD} Recorded from a save in the editor; ${NEXT_STEP}`,
        recordId: "r-old",
        intentId: "OLD-001",
      },
    ]);
  });

  it("starts a new range at a gap, at a line with no finding, and at a different record", () => {
    const a = entry("r-a", "OLD-001");
    const b = entry("r-b", "OLD-001");
    const ok = entry("r-ok", "APP-001");
    const findings = lineFindings("src/app/a.ts", [1, 2, 4, 5, 6, 7, 8], byLine({ 1: a, 2: a, 4: a, 5: ok, 6: a, 7: b, 8: b }), rules);
    expect(findings.map((f) => [f.startLine, f.endLine, f.recordId])).toEqual([
      [1, 2, "r-a"],
      [4, 4, "r-a"],
      [6, 6, "r-a"],
      [7, 8, "r-b"],
    ]);
  });

  it("judges each record by its own intent, and a record without one as the editor judges an edit with nothing selected", () => {
    const findings = lineFindings(
      "src/app/a.ts",
      [1, 2, 3, 4, 5],
      byLine({ 1: entry("r1", "APP-001"), 2: entry("r2", "LIB-001"), 3: entry("r3", undefined), 4: entry("r4", "OLD-001"), 5: entry("r5", "APP-001") }),
      rules,
    );
    expect(findings.map((f) => [f.startLine, f.code, f.severity, f.recordId, f.intentId])).toEqual([
      [2, "out-of-scope", "error", "r2", "LIB-001"],
      [4, "intent-not-in-progress", "error", "r4", "OLD-001"],
    ]);
    expect(findings[0]!.message).toBe(`${OUT_OF_SCOPE_APP} Recorded from a save in the editor; ${NEXT_STEP}`);
  });

  it("gives a record with no intent the no-active-intent error where no single in-progress intent owns the file, with no intentId", () => {
    const findings = lineFindings("src/both/x.ts", [1], byLine({ 1: entry("r1", undefined) }), rules);
    expect(findings).toStrictEqual([
      {
        path: "src/both/x.ts",
        startLine: 1,
        endLine: 1,
        code: "no-active-intent",
        severity: "error",
        message: `No intent selected, and several in-progress intents own src/both/x.ts. Select an intent before editing. Owned by LIB-001 (IN_PROGRESS), WEB-001 (IN_PROGRESS). Recorded from a save in the editor; ${NEXT_STEP}`,
        recordId: "r1",
      },
    ]);
  });

  it.each([
    [{ type: "human", name: "Ada" }, undefined, "a save in the editor by Ada"],
    [{ type: "human" }, undefined, "a save in the editor"],
    [{ type: "ai", modelId: "claude-x" }, undefined, "an agent's write (claude-x)"],
    [{ type: "ai" }, undefined, "an agent's write"],
    [{ type: "ai", modelId: "claude-x" }, "Bash", "an agent's shell command (Bash, claude-x), which the gate cannot stop before it runs"],
    [{ type: "ai" }, "Bash", "an agent's shell command (Bash), which the gate cannot stop before it runs"],
    [{ type: "mixed" }, undefined, "a change by people and agents together"],
    [{ type: "unknown" }, undefined, "a change by an unknown contributor"],
  ] as [EntryContributor, string | undefined, string][])("names the door a recorded change came through: %j %s", (contributor, toolCall, door) => {
    const [finding] = lineFindings("src/app/a.ts", [1], byLine({ 1: entry("r1", "OLD-001", contributor, toolCall) }), rules);
    expect(finding!.message).toBe(`${COMPLETE_OLD} Recorded from ${door}; ${NEXT_STEP}`);
  });

  it("reports an untraced line as a notice where an in-progress intent owns the file, and as an error where none does", () => {
    expect(lineFindings("src/app/a.ts", [2, 3], () => undefined, rules)).toStrictEqual([
      {
        path: "src/app/a.ts",
        startLine: 2,
        endLine: 3,
        code: "untraced-change",
        severity: "information",
        message: `src/app/a.ts changed here ${UNTRACED_TAIL}`,
      },
    ]);
    expect(lineFindings("src/done/d.ts", [1], () => undefined, rules)).toStrictEqual([
      {
        path: "src/done/d.ts",
        startLine: 1,
        endLine: 1,
        code: "unowned-change",
        severity: "error",
        message: `src/done/d.ts changed here, no ledger record explains it, and no intent in progress owns the file. It is owned by OLD-001 (COMPLETE), GEN-001 (PENDING), none in progress. ${UNOWNED_TAIL}`,
      },
    ]);
    expect(lineFindings("src/nobody.ts", [1], () => undefined, rules)[0]!.message).toBe(
      `src/nobody.ts changed here, no ledger record explains it, and no intent in progress owns the file. No intent owns it. ${UNOWNED_TAIL}`,
    );
  });

  it("keeps an untraced range apart from a recorded one next to it", () => {
    const findings = lineFindings("src/app/a.ts", [1, 2, 3], byLine({ 2: entry("r2", "OLD-001") }), rules);
    expect(findings.map((f) => [f.startLine, f.endLine, f.code])).toEqual([
      [1, 1, "untraced-change"],
      [2, 2, "intent-not-in-progress"],
      [3, 3, "untraced-change"],
    ]);
  });

  it("takes each finding's severity from the settings, and drops the codes set to off", () => {
    const custom = rulesWith({ "untraced-change": "off", "intent-not-in-progress": "warning" });
    const findings = lineFindings("src/app/a.ts", [1, 2, 3], byLine({ 2: entry("r2", "OLD-001") }), custom);
    expect(findings.map((f) => [f.startLine, f.endLine, f.code, f.severity])).toEqual([[2, 2, "intent-not-in-progress", "warning"]]);
  });

  it("has no finding for a recorded line of an exempt path", () => {
    expect(lineFindings(".orchestration/notes.md", [1], byLine({ 1: entry("r1", "OLD-001") }), rules)).toEqual([]);
  });
});

// --- checkChanges: files from git, records from the ledger ---------------------------------------------

interface Rec {
  path: string;
  content: string | null;
  lines?: number[];
  intentId?: string;
  id: string;
  minute: number;
}

/** A ledger of real records, read back as `intent check` reads it (newest first, in batches of one). */
function ledger(records: Rec[]) {
  const index = new LedgerIndex();
  const text = records.map((r) =>
    JSON.stringify(
      buildRecord({
        path: r.path,
        content: r.content,
        ranges: changedRanges(r.lines ?? []),
        contributor: { type: "ai" },
        sessionId: "s",
        toolVersion: "0.1.0",
        mutationClass: "INTENT_EVOLUTION",
        preHash: null,
        scope: "PASS",
        intentId: r.intentId ?? null,
        now: new Date(Date.UTC(2026, 0, 1) + r.minute * 60_000),
        id: r.id,
      }),
    ),
  );
  if (text.length) index.ingest(`${text.join("\n")}\n`, 1);
  return (p: string) => index.entryBatches(p, 1);
}

const file = (path: string, content: string | undefined, changed: number[], more: Partial<ChangedFile> = {}): ChangedFile => ({
  path,
  changed,
  read: () => content,
  ...more,
});

const A = "one\ntwo\nthree\nfour\nfive\n";

describe("checkChanges: the findings and counts of `intent check`", () => {
  it("attributes changed lines to their records and judges each by its record's intent", () => {
    const batches = ledger([
      { path: "src/app/a.ts", content: A, lines: [1, 2, 3, 4, 5], intentId: "APP-001", id: "r-all", minute: 0 },
      { path: "src/app/a.ts", content: A, lines: [5], intentId: "OLD-001", id: "r-five", minute: 1 },
    ]);
    const result = checkChanges([file("src/app/a.ts", A, [2, 5])], rules, batches);
    expect(result).toStrictEqual({
      findings: [
        {
          path: "src/app/a.ts",
          startLine: 5,
          endLine: 5,
          code: "intent-not-in-progress",
          severity: "error",
          message: `${COMPLETE_OLD} Recorded from an agent's write; ${NEXT_STEP}`,
          recordId: "r-five",
          intentId: "OLD-001",
        },
      ],
      checkedFiles: 1,
      checkedLines: 2,
    });
  });

  it("counts changed and removed lines of every checked file, and skips unchanged, exempt and vanished files", () => {
    const result = checkChanges(
      [
        file("src/app/a.ts", A, [1, 2], {
          removed: [
            { after: 3, count: 2 },
            { after: 4, count: 3 },
          ],
        }),
        file("src/app/b.ts", A, []),
        file("src/app/r.ts", A, [], { removed: [{ after: 1, count: 4 }] }),
        file(".orchestration/notes.md", A, [1]),
        file(".orchestration/old.md", undefined, [], { whole: "deleted" }),
        file("src/app/gone.ts", undefined, [1]),
        file("src/app/bin.png", undefined, [], { whole: "binary" }),
      ],
      rules,
      ledger([]),
    );
    expect([result.checkedFiles, result.checkedLines]).toEqual([3, 12]);
    expect(result.findings.map((f) => [f.path, f.startLine, f.code])).toEqual([
      ["src/app/a.ts", 1, "untraced-change"],
      ["src/app/a.ts", 4, "untraced-change"],
      ["src/app/a.ts", 5, "untraced-change"],
      ["src/app/r.ts", 2, "untraced-change"],
      ["src/app/bin.png", 1, "untraced-change"],
    ]);
  });

  it("orders a file's findings by line, removals among changed lines", () => {
    const result = checkChanges(
      [
        file("src/done/d.ts", A, [3, 4], {
          removed: [
            { after: 0, count: 1 },
            { after: 4, count: 2 },
          ],
        }),
      ],
      rules,
      ledger([]),
    );
    expect(result.findings.map((f) => [f.startLine, f.endLine])).toEqual([
      [1, 1],
      [3, 4],
      [5, 5],
    ]);
    expect(result.findings.map((f) => f.message)).toEqual([
      `src/done/d.ts: 1 line removed at the top, no ledger record explains it, and no intent in progress owns the file. It is owned by OLD-001 (COMPLETE), GEN-001 (PENDING), none in progress. ${UNOWNED_TAIL}`,
      `src/done/d.ts changed here, no ledger record explains it, and no intent in progress owns the file. It is owned by OLD-001 (COMPLETE), GEN-001 (PENDING), none in progress. ${UNOWNED_TAIL}`,
      `src/done/d.ts: 2 lines removed after line 4, no ledger record explains it, and no intent in progress owns the file. It is owned by OLD-001 (COMPLETE), GEN-001 (PENDING), none in progress. ${UNOWNED_TAIL}`,
    ]);
    expect(result.findings.map((f) => f.severity)).toEqual(["error", "error", "error"]);
  });

  it("points a removal at the line now in its place: the line after it, the last line when at the end, line 1 in an empty file", () => {
    const at = (content: string, after: number) =>
      checkChanges([file("src/app/a.ts", content, [], { removed: [{ after, count: 1 }] })], rules, ledger([])).findings.map((f) => [f.startLine, f.endLine]);
    expect(at(A, 2)).toEqual([[3, 3]]);
    expect(at(A, 5)).toEqual([[5, 5]]);
    expect(at(A, 9)).toEqual([[5, 5]]);
    expect(at("", 0)).toEqual([[1, 1]]);
    expect(at("", 3)).toEqual([[1, 1]]);
  });

  it("words an untraced removal as a notice where an in-progress intent owns the file", () => {
    const [finding] = checkChanges([file("src/app/a.ts", A, [], { removed: [{ after: 2, count: 1 }] })], rules, ledger([])).findings;
    expect(finding).toStrictEqual({
      path: "src/app/a.ts",
      startLine: 3,
      endLine: 3,
      code: "untraced-change",
      severity: "information",
      message: `src/app/a.ts: 1 line removed after line 2, ${UNTRACED_TAIL}`,
    });
  });

  it("explains removed lines by the newest record that wrote the content as it is now", () => {
    const batches = ledger([
      { path: "src/app/a.ts", content: A, lines: [1], intentId: "LIB-001", id: "r-older", minute: 0 },
      { path: "src/app/a.ts", content: "else\n", lines: [1], intentId: "APP-001", id: "r-other", minute: 1 },
      { path: "src/app/a.ts", content: A, lines: [1], intentId: "OLD-001", id: "r-newer", minute: 2 },
      { path: "src/app/a.ts", content: "more\n", lines: [1], intentId: "APP-001", id: "r-newest", minute: 3 },
    ]);
    const result = checkChanges([file("src/app/a.ts", A, [], { removed: [{ after: 1, count: 2 }] })], rules, batches);
    expect(result.findings).toStrictEqual([
      {
        path: "src/app/a.ts",
        startLine: 2,
        endLine: 2,
        code: "intent-not-in-progress",
        severity: "error",
        message: `src/app/a.ts: 2 lines removed after line 1. ${COMPLETE_OLD} Recorded from an agent's write; ${NEXT_STEP}`,
        recordId: "r-newer",
        intentId: "OLD-001",
      },
    ]);
  });

  it("has no finding for a removal its record's intent allows, nor for one whose code is off", () => {
    const allowed = ledger([{ path: "src/app/a.ts", content: A, lines: [1], intentId: "APP-001", id: "r1", minute: 0 }]);
    expect(checkChanges([file("src/app/a.ts", A, [], { removed: [{ after: 1, count: 2 }] })], rules, allowed).findings).toEqual([]);
    const off = rulesWith({ "unowned-change": "off" });
    const result = checkChanges([file("src/nobody.ts", A, [], { removed: [{ after: 1, count: 2 }] })], off, ledger([]));
    expect(result).toEqual({ findings: [], checkedFiles: 1, checkedLines: 2 });
  });

  it("judges a record with no intent, explaining a removal, as an edit with nothing selected", () => {
    const batches = ledger([{ path: "src/both/x.ts", content: A, lines: [1], id: "r1", minute: 0 }]);
    const [finding] = checkChanges([file("src/both/x.ts", A, [], { removed: [{ after: 1, count: 1 }] })], rules, batches).findings;
    expect(finding).toStrictEqual({
      path: "src/both/x.ts",
      startLine: 2,
      endLine: 2,
      code: "no-active-intent",
      severity: "error",
      message: `src/both/x.ts: 1 line removed after line 1. No intent selected, and several in-progress intents own src/both/x.ts. Select an intent before editing. Owned by LIB-001 (IN_PROGRESS), WEB-001 (IN_PROGRESS). Recorded from an agent's write; ${NEXT_STEP}`,
      recordId: "r1",
    });
  });

  it("explains a deleted file by the newest record that deleted it", () => {
    const batches = ledger([
      { path: "src/app/a.ts", content: null, intentId: "LIB-001", id: "r-del-old", minute: 0 },
      { path: "src/app/a.ts", content: A, lines: [1], intentId: "APP-001", id: "r-write", minute: 1 },
      { path: "src/app/a.ts", content: null, intentId: "OLD-001", id: "r-del", minute: 2 },
    ]);
    const result = checkChanges([file("src/app/a.ts", undefined, [], { whole: "deleted" })], rules, batches);
    expect(result).toStrictEqual({
      findings: [
        {
          path: "src/app/a.ts",
          startLine: 1,
          endLine: 1,
          code: "intent-not-in-progress",
          severity: "error",
          message: `src/app/a.ts: the file was deleted. ${COMPLETE_OLD} Recorded from an agent's write; ${NEXT_STEP}`,
          recordId: "r-del",
          intentId: "OLD-001",
        },
      ],
      checkedFiles: 1,
      checkedLines: 1,
    });
    const allowed = ledger([{ path: "src/app/a.ts", content: null, intentId: "APP-001", id: "r-del", minute: 0 }]);
    expect(checkChanges([file("src/app/a.ts", undefined, [], { whole: "deleted" })], rules, allowed).findings).toEqual([]);
  });

  it("reports a file deleted after its last recorded write as a deletion no record explains", () => {
    const batches = ledger([{ path: "src/app/a.ts", content: A, lines: [1, 2, 3, 4, 5], intentId: "APP-001", id: "r-write", minute: 0 }]);
    expect(checkChanges([file("src/app/a.ts", undefined, [], { whole: "deleted" })], rules, batches).findings).toStrictEqual([
      {
        path: "src/app/a.ts",
        startLine: 1,
        endLine: 1,
        code: "untraced-change",
        severity: "information",
        message: `src/app/a.ts: the file was deleted, ${UNTRACED_TAIL}`,
      },
    ]);
  });

  it("reports a deletion and a binary file no record explains at line 1", () => {
    const batches = ledger([{ path: "src/done/d.ts", content: null, intentId: "APP-001", id: "r-del", minute: 0 }]);
    const result = checkChanges(
      [file("src/done/d.ts", undefined, [], { whole: "binary" }), file("src/nobody.ts", undefined, [], { whole: "deleted" })],
      rules,
      (p) => (p === "src/nobody.ts" ? [] : batches(p)),
    );
    expect(result.findings).toStrictEqual([
      {
        path: "src/done/d.ts",
        startLine: 1,
        endLine: 1,
        code: "unowned-change",
        severity: "error",
        message: `src/done/d.ts: the file was replaced by binary (non-text) content, no ledger record explains it, and no intent in progress owns the file. It is owned by OLD-001 (COMPLETE), GEN-001 (PENDING), none in progress. ${UNOWNED_TAIL}`,
      },
      {
        path: "src/nobody.ts",
        startLine: 1,
        endLine: 1,
        code: "unowned-change",
        severity: "error",
        message: `src/nobody.ts: the file was deleted, no ledger record explains it, and no intent in progress owns the file. No intent owns it. ${UNOWNED_TAIL}`,
      },
    ]);
    expect([result.checkedFiles, result.checkedLines]).toEqual([2, 2]);
  });

  it("drops a deleted file's finding whose code is off, and still counts the file", () => {
    const off = rulesWith({ "unowned-change": "off" });
    expect(checkChanges([file("src/nobody.ts", undefined, [], { whole: "deleted" })], off, ledger([]))).toEqual({
      findings: [],
      checkedFiles: 1,
      checkedLines: 1,
    });
  });

  it("treats a changed line past the end of the content as untraced", () => {
    const batches = ledger([{ path: "src/app/a.ts", content: "one\ntwo", lines: [1, 2], intentId: "OLD-001", id: "r1", minute: 0 }]);
    const result = checkChanges([file("src/app/a.ts", "one\ntwo", [2, 3])], rules, batches);
    expect(result.findings.map((f) => [f.startLine, f.code])).toEqual([
      [2, "intent-not-in-progress"],
      [3, "untraced-change"],
    ]);
  });
});

describe("unrecordedContentFinding: a file checked without git", () => {
  const HASH = "sha256:0123456789abcdef0123456789abcdef";
  const OTHER = "sha256:fedcba9876543210fedcba9876543210";

  it("has no finding for a file never recorded, deleted in its last record, or holding its last recorded content", () => {
    expect(unrecordedContentFinding("src/app/a.ts", 3, HASH, undefined, rules)).toBeUndefined();
    expect(unrecordedContentFinding("src/app/a.ts", 3, HASH, null, rules)).toBeUndefined();
    expect(unrecordedContentFinding("src/app/a.ts", 3, HASH, HASH, rules)).toBeUndefined();
  });

  it("reports a file that differs over all its lines, with both hashes shortened", () => {
    expect(unrecordedContentFinding("src/done/d.ts", 7, HASH, OTHER, rules)).toStrictEqual({
      path: "src/done/d.ts",
      startLine: 1,
      endLine: 7,
      code: "unowned-change",
      severity: "error",
      message: `src/done/d.ts: the file differs from what the ledger last recorded (sha256:fedcba987654; on disk: sha256:0123456789ab); without git, which lines changed is not known, no ledger record explains it, and no intent in progress owns the file. It is owned by OLD-001 (COMPLETE), GEN-001 (PENDING), none in progress. ${UNOWNED_TAIL}`,
    });
  });

  it("covers line 1 of an empty file, and shortens a hash without an algorithm to its first 12 digits", () => {
    const finding = unrecordedContentFinding("src/app/a.ts", 0, "0123456789abcdef", "fedcba9876543210", rules);
    expect(finding).toStrictEqual({
      path: "src/app/a.ts",
      startLine: 1,
      endLine: 1,
      code: "untraced-change",
      severity: "information",
      message: `src/app/a.ts: the file differs from what the ledger last recorded (fedcba987654; on disk: 0123456789ab); without git, which lines changed is not known, ${UNTRACED_TAIL}`,
    });
  });

  it("has no finding when its code is off", () => {
    expect(unrecordedContentFinding("src/app/a.ts", 3, HASH, OTHER, rulesWith({ "untraced-change": "off" }))).toBeUndefined();
  });
});

describe("intentsFileFindings: a broken catalogue fails CI as it stops the gate", () => {
  const BROKEN = `active_intents:
  - id: APP-001
    name: Build the app
    status: IN_PROGRESS
    owned_scope: ["src/app/**"]
    colour: blue
  - id: BAD-001
    name: No status
    owned_scope: ["src/bad/**"]
`;

  it("reports each problem at its YAML node, errors at the configured severity and warnings as warnings", () => {
    const problems = buildRules({ [INTENTS_FILE]: BROKEN }).intents.problems;
    expect(problems.map((p) => p.severity).sort()).toEqual(["error", "warning"]);
    const expected = (errorSeverity: string) =>
      problems.map((p) => ({
        path: INTENTS_FILE,
        startLine: p.start.line + 1,
        endLine: p.end.line + 1,
        column: p.start.character + 1,
        code: "intent-schema",
        severity: p.severity === "error" ? errorSeverity : "warning",
        message: p.message,
      }));
    const findings = intentsFileFindings(buildRules({ [INTENTS_FILE]: BROKEN }));
    expect(findings).toStrictEqual(expected("error"));
    expect(findings.find((f) => f.severity === "warning")).toMatchObject({ startLine: 6, endLine: 6, column: 5, message: "Unknown field `colour` (ignored)." });
    expect(intentsFileFindings(buildRules({ [INTENTS_FILE]: BROKEN }, { severity: { "intent-schema": "hint" } as Settings["severity"] }))).toStrictEqual(
      expected("hint"),
    );
  });

  it("has none when the code is off or the file is sound", () => {
    expect(intentsFileFindings(buildRules({ [INTENTS_FILE]: BROKEN }, { severity: { "intent-schema": "off" } as Settings["severity"] }))).toEqual([]);
    expect(intentsFileFindings(rules)).toEqual([]);
  });
});

describe("summarize and countedFindings: the numbers in the summary", () => {
  const finding = (severity: Finding["severity"]): Finding => ({ path: "a", startLine: 1, endLine: 1, code: "untraced-change", severity, message: "m" });
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

  it("counts findings by severity", () => {
    const findings = ["error", "warning", "error", "hint", "information", "error", "hint"].map((s) => finding(s as Finding["severity"]));
    expect(summarize(findings)).toStrictEqual({ error: 3, warning: 1, information: 1, hint: 2 });
    expect(summarize([])).toStrictEqual({ error: 0, warning: 0, information: 0, hint: 0 });
  });

  it.each([
    [["error", "warning", "error", "hint", "information", "error", "hint"], "3 errors, 1 warning, 1 note, 2 hints"],
    [["error"], "1 error"],
    [["warning", "warning"], "2 warnings"],
    [["information", "information"], "2 notes"],
    [["hint"], "1 hint"],
    [["information", "error"], "1 error, 1 note"],
    [[], "No findings"],
  ])("words %j as %s", (severities, text) => {
    expect(
      countedFindings(
        severities.map((s) => finding(s as Finding["severity"])),
        plural,
      ),
    ).toBe(text);
  });
});
