import { describe, expect, it } from "vitest";
import { IgnoreRules } from "../../server/src/engine/ignore";
import { loadIntents } from "../../server/src/engine/intents/load";
import { amendScope, transition } from "../../server/src/engine/intents/writeback";
import { lineStarts, positionAt } from "../../server/src/engine/lines";
import { jsonNestingProblem, MAX_NESTING, yamlNestingProblem } from "../../server/src/engine/nesting";
import { braceExpansionSize, patternCostProblem } from "../../server/src/engine/patternLimits";
import { validateGlob } from "../../server/src/engine/scope";
import { parseConfig } from "../../server/src/engine/settings";

const NOW = new Date("2026-11-22T10:00:00Z");
const GOOD = `active_intents:
  - id: INT-001
    name: Build Weather API
    status: IN_PROGRESS
    owned_scope: ["src/api/**"]
    bogus: 1
`;

describe("deeply nested rule files are reported where they go too deep, never parsed into a stack overflow", () => {
  const yamlBombs: [string, string, { line: number; character: number }][] = [
    ["flow brackets (40 KB)", `active_intents: ${"[".repeat(20_000)}${"]".repeat(20_000)}`, { line: 0, character: 16 + MAX_NESTING - 1 }], // the key is one level,
    ["flow mappings", `active_intents: ${"{a: ".repeat(30_000)}`, { line: 0, character: 16 + 4 * (MAX_NESTING - 1) }],
    ["compact block sequences", `${"- ".repeat(20_000)}x`, { line: 0, character: 2 * MAX_NESTING }],
    ["indented mappings", Array.from({ length: 400 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n"), { line: MAX_NESTING, character: MAX_NESTING + 3 }],
  ];
  for (const [what, text, at] of yamlBombs) {
    it(`active_intents.yaml: ${what}`, () => {
      const r = loadIntents(text);
      expect(r.hasErrors).toBe(true);
      expect(r.catalogue.intents).toEqual([]);
      expect(r.problems).toHaveLength(1);
      expect(r.problems[0]!.message).toMatch(/^active_intents\.yaml is nested more than 64 levels deep here/);
      expect(r.problems[0]!.start).toEqual(at);
    });
  }

  it("the same bound for config.jsonc (100 KB of brackets), at the bracket past the limit", () => {
    const text = `{"exempt": ${"[".repeat(50_000)}${"]".repeat(50_000)}}`;
    const r = parseConfig(text);
    expect(r.values).toEqual({});
    expect(r.problems).toEqual([
      {
        message: `config.jsonc is nested more than 64 levels deep here (lists and mappings inside each other); this file needs only a few levels, so nothing in it is read until the nesting is removed`,
        span: { start: 11 + MAX_NESTING - 1, end: 11 + MAX_NESTING },
      },
    ]);
    expect(jsonNestingProblem(`{"a": "${"[".repeat(10_000)}"} // ${"{".repeat(10_000)}`)).toBeUndefined(); // brackets in strings and comments
  });

  it("brackets and dashes in quotes, block scalars, comments and plain scalars are not nesting", () => {
    const text = `active_intents:
  - id: INT-001
    name: 'Bob''s [${"[".repeat(100)} thing'
    status: IN_PROGRESS # ${"[".repeat(100)}
    description: |
      ${"- ".repeat(100)}
      ${"{".repeat(100)}
    owned_scope:
      - src/app/[id]/**
      - "${"{".repeat(100)}x${"}".repeat(100)}"
`;
    expect(yamlNestingProblem(text)).toBeUndefined();
  });

  it("refuses to edit a file nested too deeply, instead of overflowing", () => {
    const text = `${GOOD}x: ${"[".repeat(5_000)}`;
    expect(amendScope(text, "INT-001", "docs/**", NOW)).toMatchObject({ ok: false });
    expect(transition(text, "INT-001", "COMPLETE", NOW)).toMatchObject({ ok: false });
  });
});

describe("line breaks and byte-order marks", () => {
  it("lone-CR line breaks: the YAML is read line by line and problems sit on their own lines", () => {
    for (const text of [GOOD, GOOD.replace(/\n/g, "\r"), GOOD.replace(/\n/g, "\r\n")]) {
      const r = loadIntents(text);
      expect(r.catalogue.intents.map((i) => i.id)).toEqual(["INT-001"]);
      expect(r.problems.map((p) => [p.message, p.start, p.end])).toEqual([
        ["Unknown field `bogus` (ignored).", { line: 5, character: 4 }, { line: 5, character: 9 }],
      ]);
    }
  });

  it("an amend of a lone-CR file keeps its line breaks", () => {
    const text = GOOD.replace(/\n/g, "\r").replace(`owned_scope: ["src/api/**"]`, "owned_scope:\r      - src/api/**");
    const r = amendScope(text, "INT-001", "docs/**", NOW);
    expect(r).toMatchObject({ ok: true });
    if (r.ok) {
      expect(r.text).not.toContain("\n");
      expect(loadIntents(r.text).catalogue.byId.get("INT-001")!.ownedScope).toEqual(["src/api/**", "docs/**"]);
    }
  });

  it("a byte-order mark does not make config.jsonc a syntax error", () => {
    expect(parseConfig(`\uFEFF{ "autoSelect": false }`)).toEqual({ values: { autoSelect: false }, problems: [] });
  });
});

describe("costly patterns are refused where they are written", () => {
  it("limits: length, wildcards per segment, `**` segments, brace expansion, control characters", () => {
    expect(patternCostProblem("a".repeat(1025), { braces: false })).toMatch(/is 1025 characters long; a pattern may have at most 1024$/);
    expect(patternCostProblem(`${"*a".repeat(3)}b`, { braces: false })).toMatch(/has 3 wildcards in one path segment/);
    expect(patternCostProblem("**/a/**/b/**/c", { braces: false })).toMatch(/has 3 `\*\*` segments/);
    expect(patternCostProblem("{1..100000}", { braces: true })).toMatch(/expands to 100000 alternatives/);
    expect(patternCostProblem("{1..100000}", { braces: false })).toBeUndefined(); // gitignore has no braces
    expect(patternCostProblem("docs\n!src/**", { braces: false })).toMatch(/holds a control character/);
    for (const ok of ["src/**", "**/*.test.{ts,tsx}", "**/node_modules/**", "src/*-*.ts", "a/**/b/**", ".orchestration/**", "src/app/[id]/**"]) {
      expect(patternCostProblem(ok, { braces: true }), ok).toBeUndefined();
    }
    expect(braceExpansionSize("{a,b}{c,d}{e,{f,g}}")).toBe(12);
    expect(braceExpansionSize("{a..z}{0..9}")).toBe(260);
  });

  it("owned_scope: an intent with such a glob gets intent-schema at the glob, not a hang or a thrown regex error", () => {
    for (const glob of [`${"*a".repeat(25)}b`, "{1..1000000}", `${"a*".repeat(20_000)}`, "**/**/**/**/x"]) {
      expect(validateGlob(glob), glob.slice(0, 20)).toBeDefined();
      const r = loadIntents(GOOD.replace(`["src/api/**"]`, JSON.stringify(["src/api/**", glob])));
      const p = r.problems.find((x) => x.severity === "error")!;
      expect(p.message).toMatch(/^INT-001: invalid glob: /);
      expect(p.start).toEqual({ line: 4, character: 31 });
    }
  });

  it("exempt: a costly pattern is settings-invalid at the pattern, dropped, and the others stay in force", () => {
    const text = `{\n  "exempt": [\n    "docs/**",\n    "${"*a".repeat(20)}b"\n  ]\n}`;
    const r = parseConfig(text);
    expect(r.values.exempt).toEqual(["docs/**"]);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]!.message).toMatch(/^config\.jsonc: "exempt" pattern 2 is not used: .* has 20 wildcards in one path segment/);
    expect(text.slice(r.problems[0]!.span.start, r.problems[0]!.span.end)).toBe(`"${"*a".repeat(20)}b"`);
  });

  it("IgnoreRules leaves out what would hang or throw, wherever the pattern comes from", () => {
    const rules = new IgnoreRules({
      exempt: ["docs/**", `${"*a".repeat(20)}b`, "q".repeat(100_000)],
      rootIgnore: `build/\n${"a*".repeat(20_000)}\n`,
      orchestrationIgnore: "**/**/**/**/x",
    });
    expect(rules.ignores("docs/a.md")).toBe(true);
    expect(rules.ignores("build/x.js")).toBe(true);
    expect(rules.ignores(`${"a".repeat(200)}/${"a".repeat(200)}`)).toBe(false);
  });
});

describe("positions of problems", () => {
  it("an offset inside a CRLF line break is the end of its line, never past it", () => {
    const text = "ab\r\ncd\rx\n";
    const starts = lineStarts(text);
    expect([2, 3, 4, 6, 7, 9].map((o) => positionAt(starts, o, text))).toEqual([
      { line: 0, character: 2 },
      { line: 0, character: 2 },
      { line: 1, character: 0 },
      { line: 1, character: 2 },
      { line: 2, character: 0 },
      { line: 3, character: 0 },
    ]);
  });
});
