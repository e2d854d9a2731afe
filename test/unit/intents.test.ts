import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkTransition } from "../../server/src/engine/intents/lifecycle";
import { loadIntents } from "../../server/src/engine/intents/load";
import { INTENT_STATUSES, type IntentStatus } from "../../server/src/engine/intents/model";
import { modifyIntentsFile } from "../../server/src/io/intents/store";
import { amendScope, transition } from "../../server/src/engine/intents/writeback";

const NOW = new Date("2026-11-22T10:00:00Z");

const FILE = `# Intents for the weather demo.
active_intents:
  # the API work
  - id: INT-001                 # unique
    name: Build Weather API
    status: IN_PROGRESS   # moving
    owned_scope: ["src/api/**", "test/api/**"]   # globs
    constraints: ["Use TypeScript"]
    updated_at: 2026-02-20T14:00:00Z
    tags: []

  - id: INT-002
    name: 'Auth: token refresh'
    status: PENDING
    owned_scope:
      - src/auth/**   # middleware
      - 'lib/auth/**'
    created_at: "2026-02-19T09:00:00Z"

  - {id: INT-003, name: Docs refresh, status: BLOCKED, owned_scope: [docs/**]}
`;

describe("loadIntents", () => {
  it("reads every field of the standard dialect", () => {
    const { catalogue, problems } = loadIntents(FILE);
    expect(problems).toEqual([]);
    expect(catalogue.intents.map((i) => [i.id, i.status, i.ownedScope])).toEqual([
      ["INT-001", "IN_PROGRESS", ["src/api/**", "test/api/**"]],
      ["INT-002", "PENDING", ["src/auth/**", "lib/auth/**"]],
      ["INT-003", "BLOCKED", ["docs/**"]],
    ]);
    expect(catalogue.byId.get("INT-001")!.constraints).toEqual(["Use TypeScript"]);
    expect(catalogue.byId.get("INT-001")!.line).toBe(3);
  });

  const problemAt = (text: string) =>
    loadIntents(text).problems.map((p) => `${p.severity} ${p.start.line}:${p.start.character}-${p.end.line}:${p.end.character} ${p.message}`);

  it("reports a syntax error where it is and keeps no intents", () => {
    const text = `active_intents:\n  - id: INT-001\n    owned_scope: ["src/**"\n    name: x\n`;
    const r = loadIntents(text);
    expect(r.hasErrors).toBe(true);
    expect(r.catalogue.intents).toEqual([]);
    expect(r.problems[0].message).toMatch(/^YAML syntax error: /);
    expect(r.problems[0].start.line).toBeGreaterThanOrEqual(2);
  });

  it("reports a duplicate id at the second id, keeping the first intent", () => {
    const text = `active_intents:\n  - id: INT-001\n    name: First one\n    status: PENDING\n    owned_scope: [a/**]\n  - id: INT-001\n    name: Second one\n    status: PENDING\n    owned_scope: [b/**]\n`;
    expect(problemAt(text)).toEqual(["error 5:8-5:15 Duplicate intent id INT-001 (first defined on line 2). Ids must be unique."]);
    expect(loadIntents(text).catalogue.intents.map((i) => i.name)).toEqual(["First one"]);
  });

  it("reports a bad status, a bad id, an empty scope and an invalid glob at their nodes", () => {
    const text = [
      "active_intents:",
      "  - id: INT-001",
      "    name: Bad status",
      "    status: DONE",
      "    owned_scope: [a/**]",
      "  - id: int-2",
      "    name: Bad id",
      "    status: PENDING",
      "    owned_scope: [b/**]",
      "  - id: INT-003",
      "    name: Empty scope",
      "    status: PENDING",
      "    owned_scope: []",
      "  - id: INT-004",
      "    name: Bad glob",
      "    status: PENDING",
      '    owned_scope: ["src/[abc/**", "../outside/**", "ok/**"]',
      "",
    ].join("\n");
    expect(problemAt(text)).toEqual([
      'error 3:12-3:16 INT-001: bad status "DONE"; use one of PENDING, IN_PROGRESS, COMPLETE, BLOCKED, ARCHIVED.',
      'error 5:8-5:13 Bad intent id "int-2": ids look like INT-001 (letters, dash, 3+ digits).',
      'error 12:17-12:19 INT-003: owned_scope must list at least one glob (e.g. "src/api/**").',
      'error 16:18-16:31 INT-004: invalid glob: "src/[abc/**" has an unclosed "[".',
      'error 16:33-16:48 INT-004: invalid glob: "../outside/**" leaves the workspace ("..").',
    ]);
    expect(loadIntents(text).catalogue.intents).toEqual([]);
  });

  it("reads the camelCase dialect and status aliases with warnings", () => {
    const text = `intents:\n  - id: INT-010\n    name: Old style\n    status: COMPLETED\n    ownedScope: [x/**]\n    acceptanceCriteria: [works]\n    owner: bob\n`;
    const r = loadIntents(text);
    expect(r.hasErrors).toBe(false);
    expect(r.catalogue.intents[0]).toMatchObject({ id: "INT-010", status: "COMPLETE", ownedScope: ["x/**"], acceptanceCriteria: ["works"] });
    expect(r.problems.map((p) => `${p.severity} ${p.message}`)).toEqual([
      "warning Older dialect: rename `intents:` to `active_intents:` (it is read as is for now).",
      "warning Older dialect: status COMPLETED is read as COMPLETE.",
      "warning Older dialect: `ownedScope` is read as `owned_scope`.",
      "warning Older dialect: `acceptanceCriteria` is read as `acceptance_criteria`.",
      "warning Unknown field `owner` (ignored).",
    ]);
  });

  it("reads acceptance criteria as sentences and { run, name?, timeout? } commands", () => {
    const text = [
      "active_intents:",
      "  - id: INT-001",
      "    name: Criteria",
      "    status: IN_PROGRESS",
      "    owned_scope: [a/**]",
      "    acceptance_criteria:",
      "      - The API answers in under a second",
      "      - run: npm test -- test/api",
      "        name: API tests",
      "        timeout: 120",
      "      - { run: make lint }",
      "",
    ].join("\n");
    const r = loadIntents(text);
    expect(r.problems).toEqual([]);
    const intent = r.catalogue.intents[0]!;
    expect(intent.criteria).toEqual([
      { kind: "confirm", text: "The API answers in under a second", line: 6 },
      { kind: "run", run: "npm test -- test/api", name: "API tests", timeoutSeconds: 120, line: 7 },
      { kind: "run", run: "make lint", timeoutSeconds: 600, line: 10 },
    ]);
    expect(intent.criteriaValid).toBe(true);
    expect(intent.acceptanceCriteria).toEqual(["The API answers in under a second", "API tests", "run: make lint"]);
  });

  it("reports a criterion of the wrong type, an empty run and a bad timeout as errors at their nodes, keeping the intent", () => {
    const text = [
      "active_intents:",
      "  - id: INT-001",
      "    name: Criteria",
      "    status: IN_PROGRESS",
      "    owned_scope: [a/**]",
      "    acceptance_criteria:",
      "      - [nested, list]",
      '      - run: ""',
      "      - run: make test",
      "        timeout: -5",
      "      - run: make lint",
      "        timeout: soon",
      "      - name: no command",
      "      - run: ok",
      "        retries: 3",
      "",
    ].join("\n");
    expect(problemAt(text)).toEqual([
      "error 6:8-6:22 INT-001: acceptance_criteria: expected a sentence or a mapping { run: COMMAND, name?: TEXT, timeout?: SECONDS } here.",
      "error 7:13-7:15 INT-001: acceptance_criteria: `run` must be a non-empty command (run from the workspace root by your shell).",
      "error 9:17-9:19 INT-001: acceptance_criteria: `timeout` must be a number of seconds above 0 and at most 86400 (default 600).",
      "error 11:17-11:21 INT-001: acceptance_criteria: `timeout` must be a number of seconds above 0 and at most 86400 (default 600).",
      "error 12:8-13:0 INT-001: acceptance_criteria: a criterion given as a mapping needs `run: COMMAND` (a sentence is written as plain text).",
      "warning 14:8-14:15 INT-001: acceptance_criteria: unknown key `retries` in a criterion (ignored; a criterion has run, name and timeout).",
    ]);
    const intent = loadIntents(text).catalogue.byId.get("INT-001")!;
    expect(intent.criteriaValid).toBe(false);
    expect(intent.criteria.map((c) => c.kind === "run" && c.run)).toEqual(["ok"]);
  });

  it("warns when a child's scope reaches outside its parent's", () => {
    const text = `active_intents:\n  - id: INT-001\n    name: Parent\n    status: IN_PROGRESS\n    owned_scope: [src/api/**]\n  - id: INT-002\n    name: Child\n    status: PENDING\n    parent_intent: INT-001\n    owned_scope: [src/api/v2/**, docs/**]\n`;
    expect(problemAt(text)).toEqual([`warning 8:19-8:26 INT-002: scope "docs/**" lies outside parent INT-001's scope (src/api/**).`]);
  });
});

describe("writeback keeps the file byte for byte apart from the edit", () => {
  it("amends a flow list and bumps updated_at", () => {
    const r = amendScope(FILE, "INT-001", "docs/**", NOW);
    expect(r.ok && r.text).toBe(
      FILE.replace(`["src/api/**", "test/api/**"]   # globs`, `["src/api/**", "test/api/**", "docs/**"]   # globs`).replace(
        "updated_at: 2026-02-20T14:00:00Z",
        "updated_at: 2026-11-22T10:00:00Z",
      ),
    );
  });

  it("amends a block list in its own indentation and adds updated_at when missing", () => {
    const r = amendScope(FILE, "INT-002", "docs/auth.md", NOW);
    expect(r.ok && r.text).toBe(
      FILE.replace(`      - 'lib/auth/**'\n`, `      - 'lib/auth/**'\n      - 'docs/auth.md'\n`).replace(
        `    created_at: "2026-02-19T09:00:00Z"\n`,
        `    created_at: "2026-02-19T09:00:00Z"\n    updated_at: 2026-11-22T10:00:00Z\n`,
      ),
    );
  });

  it("amends a flow-map intent", () => {
    const r = amendScope(FILE, "INT-003", "README.md", NOW);
    expect(r.ok && r.text).toBe(FILE.replace("owned_scope: [docs/**]}", "owned_scope: [docs/**, README.md], updated_at: 2026-11-22T10:00:00Z}"));
    // the spacing before `}` stays after the new entry; a trailing comma is used, not doubled
    const spaced = "active_intents: [{ id: INT-001, name: Build API, status: IN_PROGRESS, owned_scope: [src/**] }]\n";
    const amended = amendScope(spaced, "INT-001", "lib/**", NOW);
    expect(amended.ok && amended.text).toBe(spaced.replace("[src/**] }", "[src/**, lib/**], updated_at: 2026-11-22T10:00:00Z }"));
    const comma = amendScope(spaced.replace("[src/**] }", "[src/**], }"), "INT-001", "lib/**", NOW);
    expect(comma.ok && comma.text).toBe(spaced.replace("[src/**] }", "[src/**, lib/**], updated_at: 2026-11-22T10:00:00Z }"));
  });

  it("transitions a status, keeping its comment", () => {
    const r = transition(FILE, "INT-001", "COMPLETE", NOW);
    expect(r.ok && r.text).toBe(
      FILE.replace("status: IN_PROGRESS   # moving", "status: COMPLETE   # moving").replace(
        "updated_at: 2026-02-20T14:00:00Z",
        "updated_at: 2026-11-22T10:00:00Z",
      ),
    );
  });

  it("amends a block list that is the intent's last field, adding updated_at after it; transitions keep the final newline", () => {
    const text = "active_intents:\n  - id: INT-001\n    name: Build API\n    status: IN_PROGRESS\n    owned_scope:\n      - src/api/**\n";
    const amended = amendScope(text, "INT-001", "docs/**", NOW);
    expect(amended.ok && amended.text).toBe(`${text}      - docs/**\n    updated_at: 2026-11-22T10:00:00Z\n`);
    const moved = transition(text, "INT-001", "BLOCKED", NOW);
    expect(moved.ok && moved.text).toBe(`${text.replace("IN_PROGRESS", "BLOCKED")}    updated_at: 2026-11-22T10:00:00Z\n`);
  });

  it("amends a block list whose last item carries a comment: the comment stays on its item, the new item goes below", () => {
    const text =
      "active_intents:\n  - id: INT-001\n    name: Build API\n    status: IN_PROGRESS\n    owned_scope:\n      - src/api/**   # the API\n    tags: [api]\n";
    const amended = amendScope(text, "INT-001", "docs/**", NOW);
    expect(amended.ok && amended.text).toBe(
      "active_intents:\n  - id: INT-001\n    name: Build API\n    status: IN_PROGRESS\n    owned_scope:\n      - src/api/**   # the API\n      - docs/**\n    tags: [api]\n    updated_at: 2026-11-22T10:00:00Z\n",
    );
    // the last line of the file, with no final newline
    const last = "active_intents:\n  - id: INT-001\n    name: Build API\n    status: IN_PROGRESS\n    owned_scope:\n      - src/api/**   # the API";
    const appended = amendScope(last, "INT-001", "docs/**", NOW);
    expect(appended.ok && appended.text).toBe(`${last}\n      - docs/**\n    updated_at: 2026-11-22T10:00:00Z`);
  });

  it("writes new lines with the file's own line endings (CRLF)", () => {
    const text = "active_intents:\r\n  - id: INT-001\r\n    name: Build API\r\n    status: IN_PROGRESS\r\n    owned_scope:\r\n      - src/api/**\r\n";
    const amended = amendScope(text, "INT-001", "docs/**", NOW);
    expect(amended.ok && amended.text).toBe(`${text}      - docs/**\r\n    updated_at: 2026-11-22T10:00:00Z\r\n`);
  });

  it("refuses a glob already in scope and an invalid glob", () => {
    expect(amendScope(FILE, "INT-001", "src/api/**", NOW)).toEqual({ ok: false, reason: "src/api/** is already in INT-001's scope." });
    expect(amendScope(FILE, "INT-001", "/etc/**", NOW)).toEqual({
      ok: false,
      reason: `Cannot add to INT-001's scope: "/etc/**" is absolute; scopes are workspace-relative (e.g. "src/api/**").`,
    });
    expect(amendScope(FILE, "INT-404", "x/**", NOW)).toEqual({ ok: false, reason: "No intent INT-404 in active_intents.yaml." });
  });
});

describe("writeback: every shape a scope is written in, and every refusal", () => {
  const HEAD = "active_intents:\n  - id: INT-001\n    name: Build API\n    status: IN_PROGRESS\n";
  const STAMP = "    updated_at: 2026-11-22T10:00:00Z\n";
  const amended = (text: string, glob = "docs/**") => {
    const r = amendScope(text, "INT-001", glob, NOW);
    return r.ok ? r.text : r.reason;
  };

  it("a bare scalar, an empty value and an empty flow list become a flow list holding the new glob", () => {
    expect(amended(`${HEAD}    owned_scope: src/api/**\n`)).toBe(`${HEAD}    owned_scope: [src/api/**, docs/**]\n${STAMP}`);
    expect(amended(`${HEAD}    owned_scope:\n    tags: []\n`)).toBe(`${HEAD}    owned_scope: [docs/**]\n    tags: []\n${STAMP}`);
    expect(amended(`${HEAD}    owned_scope: []\n`)).toBe(`${HEAD}    owned_scope: ["docs/**"]\n${STAMP}`);
  });

  it("a new item is quoted as its neighbour is, and quoted wherever a plain one would read otherwise", () => {
    const block = (item: string) => `${HEAD}    owned_scope:\n      - ${item}\n`;
    expect(amended(block("x"))).toBe(`${block("x")}      - docs/**\n${STAMP}`); // a one-character item: its line found
    expect(amended(block("src/**"), "**/*.md")).toBe(`${block("src/**")}      - "**/*.md"\n${STAMP}`); // "*" starts an alias
    expect(amended(block("src/**"), "src/my file.ts")).toBe(`${block("src/**")}      - "src/my file.ts"\n${STAMP}`);
    expect(amended(block("'src/**'"), "docs/it's/**")).toBe(`${block("'src/**'")}      - 'docs/it''s/**'\n${STAMP}`);
  });

  it("updated_at keeps its quotes; the camelCase dialect gets updatedAt", () => {
    expect(amended(`${HEAD}    owned_scope: ["src/**"]\n    updated_at: "2026-01-01T00:00:00Z"\n`)).toBe(
      `${HEAD}    owned_scope: ["src/**", "docs/**"]\n    updated_at: "2026-11-22T10:00:00Z"\n`,
    );
    expect(amended(`${HEAD}    owned_scope: ['src/**']\n    updated_at: '2026-01-01T00:00:00Z'\n`)).toBe(
      `${HEAD}    owned_scope: ['src/**', 'docs/**']\n    updated_at: '2026-11-22T10:00:00Z'\n`,
    );
    expect(amended(`${HEAD}    ownedScope: [src/**]\n`)).toBe(`${HEAD}    ownedScope: [src/**, docs/**]\n    updatedAt: 2026-11-22T10:00:00Z\n`);
    expect(amended(`${HEAD}    ownedScope: [src/**]\n    updatedAt: 2026-01-01T00:00:00Z\n`)).toBe(
      `${HEAD}    ownedScope: [src/**, docs/**]\n    updatedAt: 2026-11-22T10:00:00Z\n`,
    );
    expect(amended(`${HEAD.replace("active_intents", "intents")}    owned_scope: [src/**]\n`)).toBe(
      `${HEAD.replace("active_intents", "intents")}    owned_scope: [src/**, docs/**]\n${STAMP}`,
    );
  });

  it("a file whose lines end in a lone CR gets its new lines ended the same way", () => {
    const cr = (t: string) => t.replace(/\n/g, "\r");
    expect(amended(cr(`${HEAD}    owned_scope:\n      - src/**\n`))).toBe(cr(`${HEAD}    owned_scope:\n      - src/**\n      - docs/**\n${STAMP}`));
    // a stray lone CR in a file of LF lines does not make it a CR file
    expect(amended(`# note\r${HEAD}    owned_scope:\n      - src/**\n`)).toBe(`# note\r${HEAD}    owned_scope:\n      - src/**\n      - docs/**\n${STAMP}`);
    const moved = transition(cr(`${HEAD}    owned_scope: [src/**]\n`), "INT-001", "BLOCKED", NOW);
    expect(moved.ok && moved.text).toBe(cr(`${HEAD.replace("IN_PROGRESS", "BLOCKED")}    owned_scope: [src/**]\n${STAMP}`));
  });

  it("refuses, saying why, what it cannot edit safely", () => {
    expect(amended(HEAD)).toBe("INT-001 has no owned_scope to amend; add one by hand.");
    // an intent the catalogue refuses (its name is too short), as a transition refuses it; the file untouched
    const invalid = `active_intents: [{ id: INT-001, name: A, status: IN_PROGRESS, owned_scope: [src/**] }]\n`;
    expect(amended(invalid)).toBe("INT-001 is not among the valid intents; active_intents.yaml has errors to fix first.");
    expect(transition(invalid, "INT-001", "BLOCKED", NOW)).toEqual({
      ok: false,
      reason: "INT-001 is not among the valid intents; active_intents.yaml has errors to fix first.",
    });
    expect(amended(`${HEAD}    owned_scope: [src/**]\n    x: ${"[".repeat(200)}${"]".repeat(200)}\n`)).toBe(
      "active_intents.yaml is nested too deeply to be edited safely; fix it first (`intent status` shows where).",
    );
    expect(amended(`${HEAD}    owned_scope: [src/**\n`)).toBe(
      "active_intents.yaml has a syntax error (Flow sequence in block collection must be sufficiently indented and end with a ] at line 6, column 1:); fix it first.",
    );
    expect(amended("active_intents: 5\n")).toBe("active_intents.yaml has no `active_intents:` list.");
    // a duplicate key makes the intent invalid: the edited text would not read back, so nothing is written
    expect(amendScope(`${HEAD}    owned_scope: [src/**]\n    tags: [a]\n    tags: [b]\n`, "INT-001", "docs/**", NOW).ok).toBe(false);
    const move = (text: string, id: string, to: IntentStatus) => {
      const r = transition(text, id, to, NOW);
      return r.ok ? r.text : r.reason;
    };
    expect(move(`${HEAD}    owned_scope: [src/**]\n`, "INT-404", "COMPLETE")).toBe("No intent INT-404 in active_intents.yaml.");
    expect(move(`${HEAD}    owned_scope: [src/**]\n  - id: bad id\n    status: NOPE\n`, "INT-404", "COMPLETE")).toBe(
      "INT-404 is not among the valid intents; active_intents.yaml has errors to fix first.",
    );
  });
});

describe("lifecycle", () => {
  const allowed: Record<IntentStatus, IntentStatus[]> = {
    PENDING: ["IN_PROGRESS", "ARCHIVED"],
    IN_PROGRESS: ["COMPLETE", "BLOCKED", "ARCHIVED"],
    BLOCKED: ["IN_PROGRESS", "ARCHIVED"],
    COMPLETE: ["ARCHIVED"],
    ARCHIVED: [],
  };

  it("allows exactly the table and refuses every other move with the reason", () => {
    for (const from of INTENT_STATUSES) {
      for (const to of INTENT_STATUSES) {
        const r = checkTransition("INT-001", from, to);
        if (allowed[from].includes(to)) expect(r).toEqual({ ok: true });
        else {
          expect(r.ok).toBe(false);
          const reason = (r as { reason: string }).reason;
          if (from === to) expect(reason).toBe(`INT-001 is already ${to}.`);
          else if (from === "ARCHIVED") expect(reason).toBe(`INT-001 cannot move from ARCHIVED to ${to}. ARCHIVED is terminal.`);
          else expect(reason).toBe(`INT-001 cannot move from ${from} to ${to}. From ${from} it can move to ${allowed[from].join(" or ")}.`);
        }
      }
    }
  });

  it("writeback refuses an illegal transition without touching the text", () => {
    expect(transition(FILE, "INT-002", "COMPLETE", NOW)).toEqual({
      ok: false,
      reason: "INT-002 cannot move from PENDING to COMPLETE. From PENDING it can move to IN_PROGRESS or ARCHIVED.",
    });
  });
});

describe("modifyIntentsFile", () => {
  const setup = () => {
    const root = mkdtempSync(join(tmpdir(), "intent-store-"));
    mkdirSync(join(root, ".orchestration"));
    writeFileSync(join(root, ".orchestration/active_intents.yaml"), FILE);
    return root;
  };

  it("writes the change when the file is as it was read", async () => {
    const root = setup();
    const r = await modifyIntentsFile(root, FILE, (t) => transition(t, "INT-002", "IN_PROGRESS", NOW));
    expect(r.ok).toBe(true);
    expect(readFileSync(join(root, ".orchestration/active_intents.yaml"), "utf8")).toContain("status: IN_PROGRESS\n    owned_scope:\n      - src/auth/**");
    rmSync(root, { recursive: true });
  });

  it("refuses, writing nothing, when someone changed the file since it was read", async () => {
    const root = setup();
    const theirs = FILE.replace("Build Weather API", "Build Weather API v2");
    writeFileSync(join(root, ".orchestration/active_intents.yaml"), theirs);
    const r = await modifyIntentsFile(root, FILE, (t) => amendScope(t, "INT-001", "docs/**", NOW));
    expect(r).toEqual({
      ok: false,
      reason:
        ".orchestration/active_intents.yaml changed on disk since it was read (another editor, agent or command wrote it); nothing was written. Reload and try again.",
    });
    expect(readFileSync(join(root, ".orchestration/active_intents.yaml"), "utf8")).toBe(theirs);
    rmSync(root, { recursive: true });
  });
});
