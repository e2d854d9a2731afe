import { Minimatch } from "minimatch";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadGateContext } from "../../server/src/io/agent/writeGate";
import { CACHE_DIR } from "../../server/src/io/cacheDir";
import { judge } from "../../server/src/engine/gate";
import { catalogueParses, loadIntentsCached } from "../../server/src/io/intents/catalogueCache";
import { loadIntents } from "../../server/src/engine/intents/load";
import { buildRules } from "../../server/src/engine/rules";
import { compileScope, globCompilations, normalizeGlob, scopeMatches } from "../../server/src/engine/scope";
import { INTENTS_FILE } from "../../server/src/engine/workspaceFiles";

/** A catalogue of `n` intents; every other one a child of the one before, so parent scopes are checked too. */
function catalogue(n: number, tag: string): { text: string; globs: string[] } {
  const out = ["active_intents:"];
  const globs: string[] = [];
  for (let i = 0; i < n; i++) {
    const own = [`src/${tag}${i}/**`, `test/${tag}${i}`, `**/${tag}${i}.spec.ts`, `!src/${tag}${i}/gen/**`, `docs/${tag}${i >> 1}/*.{md,txt}`];
    globs.push(...own);
    out.push(`  - id: INT-${String(i + 1).padStart(4, "0")}`, `    name: Intent ${i}`, `    status: ${i % 3 ? "IN_PROGRESS" : "ARCHIVED"}`);
    out.push(`    owned_scope: [${own.map((g) => JSON.stringify(g)).join(", ")}]`);
    if (i % 2) out.push(`    parent_intent: INT-${String(i).padStart(4, "0")}`);
  }
  return { text: `${out.join("\n")}\n`, globs };
}

describe("compiling a catalogue", () => {
  it("compiles each glob once per process, however many times it is validated, matched or checked against a child", () => {
    const { text, globs } = catalogue(300, "once");
    const distinct = new Set(globs.map((g) => normalizeGlob(g.replace(/^!/, ""))));
    // a glob without wildcards also owns what is below it: one more pattern each
    const expected = distinct.size + [...distinct].filter((g) => !/[*?[\]{}()!+@]/.test(g)).length;
    const before = globCompilations();
    // loading validates every glob, compiling only those with braces (which may expand to nothing) and the
    // parents' globs a child's scope is checked against; the others are compiled when a path reaches them
    loadIntents(text);
    expect(globCompilations() - before).toBeLessThan(distinct.size);
    for (let round = 0; round < 3; round++) {
      const rules = buildRules({ [INTENTS_FILE]: text });
      expect(rules.intents.problems.filter((p) => p.severity === "error")).toEqual([]);
      for (let i = 0; i < 300; i += 7) judge(`src/once${i}/a.ts`, rules, undefined);
      loadIntents(text);
    }
    // each at most once: a literal glob's "/**" form only when a path reaches it
    expect(globCompilations() - before).toBeLessThanOrEqual(expected);
  });

  it("a glob without braces always makes a pattern: validating it needs no compile", () => {
    const globs = [
      "**",
      "src/**",
      "a/*.ts",
      "a?b",
      "[a-z]/x",
      "[!a]",
      "*(a|b)",
      "+(x)",
      "@(y)",
      "!(z)",
      "?(q)",
      "a\\b",
      "**/.*",
      "x/**/y",
      "[[]id[]]/p.tsx",
      "(a",
      "a)",
      "[]",
      "*",
      ".",
      "a/./b",
    ];
    for (const g of globs) expect(new Minimatch(g, { dot: true, nonegate: true, nocomment: true }).makeRe(), g).not.toBe(false);
    expect(new Minimatch("{,}", { dot: true, nonegate: true, nocomment: true }).makeRe()).toBe(false);
  });

  it("finds the same owners as testing every intent, for every kind of glob", () => {
    const { text } = catalogue(60, "own");
    const extra = [
      "active_intents:",
      '  - { id: ANY-001, name: Everything md, status: IN_PROGRESS, owned_scope: ["**/*.md"] }',
      '  - { id: BRC-001, name: Braces first, status: IN_PROGRESS, owned_scope: ["{src,lib}/own7/**"] }',
      '  - { id: DIR-001, name: Plain folder, status: IN_PROGRESS, owned_scope: ["lib/own3"] }',
      '  - { id: DBL-001, name: Double slash, status: IN_PROGRESS, owned_scope: ["src//own5/**", "./test/own9/**"] }',
      '  - { id: EXC-001, name: Only excludes, status: IN_PROGRESS, owned_scope: ["!src/**"] }',
      '  - { id: LIT-001, name: A root file, status: IN_PROGRESS, owned_scope: ["README.md", "src/own2/exact.ts", "*/own4/**"] }',
    ].join("\n");
    const rules = buildRules({ [INTENTS_FILE]: `${text}${extra.replace("active_intents:\n", "")}\n` });
    const paths = [
      "src/own7/a.ts",
      "lib/own7/b.ts",
      "lib/own3",
      "lib/own3/x/y.ts",
      "src/own5/z.ts",
      "test/own9/q.ts",
      "docs/own4/readme.md",
      "docs/own4/n.txt",
      "x/own12.spec.ts",
      "src/own1/gen/g.ts",
      "README.md",
      "sub/README.md",
      "README.md/inside.txt",
      "src/own2/exact.ts",
      "src/own2/exact.ts.bak",
      "lib/own4/k.ts",
      "nothing/here.ts",
      "src/own59/deep/er/file.ts",
    ];
    for (const path of paths) {
      const brute = rules.catalogue.intents.filter((i) => scopeMatches(compileScope(i.ownedScope), path)).map((i) => i.id);
      expect(
        rules.scopes.owners(path).map((i) => i.id),
        path,
      ).toEqual(brute);
    }
  });
});

describe("the cached catalogue", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "intent-lsp-catalogue-"));
    mkdirSync(join(root, ".orchestration"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("is parsed once, not on every hook call, and again only when the file changes", () => {
    const { text } = catalogue(50, "hook");
    writeFileSync(join(root, INTENTS_FILE), text);
    const before = catalogueParses();
    const first = loadGateContext(root, "s1");
    for (let i = 0; i < 4; i++) loadGateContext(root, `s${i}`);
    expect(catalogueParses() - before).toBe(1);
    expect(loadGateContext(root, "s").rules.catalogue.intents).toEqual(first.rules.catalogue.intents);

    writeFileSync(join(root, INTENTS_FILE), text.replace("name: Intent 3\n", "name: Intent three\n"));
    expect(loadGateContext(root, "s").rules.catalogue.byId.get("INT-0004")!.name).toBe("Intent three");
    expect(catalogueParses() - before).toBe(2);
  });

  it("answers exactly what parsing answers, problems included", () => {
    const text = `${catalogue(5, "same").text}  - id: bad\n    name: x\n    status: NOPE\n    owned_scope: ["/abs/**"]\n    colour: blue\n`;
    writeFileSync(join(root, INTENTS_FILE), text);
    const parsed = loadIntents(text);
    loadIntentsCached(root, text);
    const before = catalogueParses();
    const cached = loadIntentsCached(root, text);
    expect(catalogueParses()).toBe(before);
    expect(JSON.parse(JSON.stringify(cached))).toEqual(JSON.parse(JSON.stringify(parsed)));
    expect(cached.catalogue.byId.get("INT-0002")).toEqual(parsed.catalogue.byId.get("INT-0002"));
  });

  it("is ignored and replaced when damaged", () => {
    const { text } = catalogue(5, "dmg");
    loadIntentsCached(root, text);
    const file = join(root, CACHE_DIR, "catalogue.json");
    for (const damage of [
      "",
      "{",
      '{"format":1}',
      readFileSync(file, "utf8")
        .replace(/"name":"Intent 1"/, '"name":"Forged"')
        .replace(/"text":"/, '"text":"# another text\\n'),
    ]) {
      writeFileSync(file, damage);
      const before = catalogueParses();
      expect(loadIntentsCached(root, text).catalogue.byId.get("INT-0002")!.name).toBe("Intent 1");
      expect(catalogueParses() - before).toBe(1);
    }
  });
});
