import { describe, expect, it } from "vitest";
import { compileScope, globCompilations, normalizeGlob, pathToGlob, samplePath, ScopeIndex, scopeMatches, validateGlob } from "../../server/src/engine/scope";
import { makeCatalogue, type Intent } from "../../server/src/engine/intents/model";
import { Prng } from "../oracle/prng";
import { buildRules } from "../../server/src/engine/rules";
import { INTENTS_FILE } from "../../server/src/engine/workspaceFiles";

/** Scope globs (engine/scope.ts): which are usable and why not, how they are read, and which intents own a path. */

describe("a glob that cannot be used says why", () => {
  it.each([
    ["", "the glob is empty"],
    ["  ", "the glob is empty"],
    ["/etc/**", `"/etc/**" is absolute; scopes are workspace-relative (e.g. "src/api/**")`],
    ["C:/x/**", `"C:/x/**" is absolute; scopes are workspace-relative (e.g. "src/api/**")`],
    ["src/../x", `"src/../x" leaves the workspace ("..")`],
    ["..", `".." leaves the workspace ("..")`],
    ["src/[ab", `"src/[ab" has an unclosed "["`],
    ["src/{a,b", `"src/{a,b" has an unclosed "{"`],
    ["src/a]", `"src/a]" has an unclosed "]"`],
    ["src/[a}", `"src/[a}" has an unclosed "}"`],
    ["src/{a]", `"src/{a]" has an unclosed "]"`],
    ["src/a}/**", `"src/a}/**" has an unclosed "}"`],
    ["!src/[", `"!src/[" has an unclosed "["`],
    // balanced, yet minimatch can make no pattern of it
    ["{,}", `"{,}" is not a valid glob`],
    // an exclusion is judged as the glob after its `!`
    ["!/etc/**", `"!/etc/**" is absolute; scopes are workspace-relative (e.g. "src/api/**")`],
    ["!src/../x", `"!src/../x" leaves the workspace ("..")`],
    [
      `${"*a".repeat(10)}b`,
      `"${"*a".repeat(10)}b" has 10 wildcards in one path segment ("${"*a".repeat(10)}b"); at most 2 keep matching fast: use \`**\` or split the pattern in two`,
    ],
  ])("%j: %s", (glob, why) => {
    expect(validateGlob(glob)).toBe(why);
  });

  it("usable globs, excluding ones too", () => {
    expect(["src/[a]/{b,c}/**", "ok/**", "!ok/**", "src/(a", "a/.b"].map(validateGlob)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    // a drive letter only at the start makes a glob absolute
    expect(validateGlob("src/c:/notes/**")).toBeUndefined();
  });
});

describe("how a glob is read", () => {
  it("leading ./ dropped, backslashes as slashes, a trailing slash owning what is below, spaces trimmed", () => {
    expect(["./src/", "././a", " src\\api\\ ", "src/api", "src/api/"].map(normalizeGlob)).toEqual(["src/**", "a", "src/api/**", "src/api", "src/api/**"]);
  });

  it("a path with glob characters becomes a glob matching exactly it", () => {
    expect(pathToGlob("src/app/[id]/page.tsx")).toBe("src/app/[[]id[]]/page.tsx");
    const scope = compileScope([pathToGlob("src/app/[id]/page.tsx")]);
    expect(["src/app/[id]/page.tsx", "src/app/i/page.tsx"].map((p) => scopeMatches(scope, p))).toEqual([true, false]);
  });

  it("a literal glob owns what is below it; `!` excludes; an unusable glob owns nothing", () => {
    const scope = compileScope(["lib", "src/**", "!src/gen/**", "/etc/**"]);
    expect(["lib", "lib/a/b.ts", "libx/a.ts", "src/a.ts", "src/gen/a.ts", "etc/x", "/etc/x"].map((p) => scopeMatches(scope, p))).toEqual([
      true,
      true,
      false,
      true,
      false,
      false,
      false,
    ]);
    expect(scopeMatches(compileScope(["!src/**"]), "src/a.ts")).toBe(false); // only excludes: nothing owned
  });

  it("a sample path of a glob, to check a child's scope lies inside its parent's", () => {
    expect(["src/{a,b}/[xy]*.ts", "src/**/x?.ts", "docs/", "a/b"].map(samplePath)).toEqual(["src/a/xx.ts", "src/x/xx.ts", "docs/x", "a/b"]);
    // the first choice of a brace or a class, whatever its length
    expect(["{alpha,b}/x", "[xyz]/y", "{,b}/z"].map(samplePath)).toEqual(["alpha/x", "x/y", "/z"]);
  });
});

describe("which intents own a path, every kind of glob", () => {
  const intent = (id: string, globs: string[]) => `  - { id: ${id}, name: ${id}, status: IN_PROGRESS, owned_scope: ${JSON.stringify(globs)} }`;
  const rules = buildRules({
    [INTENTS_FILE]: [
      "active_intents:",
      intent("PRE-001", ["src/api/**", "docs/*/index.md"]),
      intent("NAM-001", ["**/Makefile"]),
      intent("ANY-001", ["*.md", "{src,lib}/shared/**"]),
      intent("DOT-001", ["src/./lib/**"]),
      intent("DBL-001", ["src//web/**"]),
      intent("LIT-001", ["README.md", "lib"]),
      intent("EXC-001", ["src/**", "!src/api/**", "!**/Makefile"]),
      intent("EXT-001", ["**/*.sql"]),
    ].join("\n"),
  });
  const owners = (path: string) => rules.scopes.owners(path).map((i) => i.id);

  it.each([
    ["src/api/x.ts", ["PRE-001"]],
    ["docs/guide/index.md", ["PRE-001"]],
    ["docs/guide/other.md", []],
    ["tools/build/Makefile", ["NAM-001"]],
    ["src/Makefile", ["NAM-001"]],
    ["README.md", ["ANY-001", "LIT-001"]],
    ["README.md/inside.txt", ["LIT-001"]],
    ["lib/shared/a.ts", ["ANY-001", "LIT-001"]],
    ["src/shared/a.ts", ["ANY-001", "EXC-001"]],
    // minimatch matches a `.` segment of a glob only against the same spelling, which a judged path never has
    ["src/lib/a.ts", ["EXC-001"]],
    ["src/./lib/a.ts", ["DOT-001"]],
    // and reads `//` as `/`, in a glob and in a path alike
    ["src/web/a.ts", ["DBL-001", "EXC-001"]],
    ["src//web/a.ts", ["DBL-001", "EXC-001"]],
    ["src//api/x.ts", ["PRE-001"]],
    ["tools/build/Makefile/", ["NAM-001"]],
    ["lib/deep/er/a.ts", ["LIT-001"]],
    ["db/schema.sql", ["EXT-001"]],
    ["db/schema.sql.bak", []],
    // a name that starts with `!` is a name, not an exclusion
    ["!src/api/x.ts", []],
    // a path's `.` and `..` segments are matched only by the same segments in a glob
    ["src/api/.", []],
    ["lib/x/..", []],
    ["docs", []],
    ["x", []],
    ["nothing/here.ts", []],
  ])("%j", (path, ids) => {
    expect(owners(path)).toEqual(ids);
    // the first question to a new index is answered glob by glob, without building the index; the next through it
    const fresh = new ScopeIndex(rules.catalogue);
    expect(fresh.owners(path).map((i) => i.id)).toEqual(ids);
    expect(fresh.owners("another/question.ts").map((i) => i.id)).toEqual([]);
    const indexed = new ScopeIndex(rules.catalogue);
    indexed.owners("first/question.ts");
    expect(indexed.owners(path).map((i) => i.id)).toEqual(ids);
    // the index agrees with each intent's own scope
    expect(rules.catalogue.intents.filter((i) => rules.scopes.owns(i, path)).map((i) => i.id)).toEqual(ids);
  });

  it("two intents placed by the same file name both own it; a wildcard that may match nothing places its glob at the whole segment", () => {
    const two = buildRules({
      [INTENTS_FILE]: [
        "active_intents:",
        intent("MK-001", ["**/Makefile"]),
        intent("MK-002", ["**/Makefile"]),
        intent("VER-001", ["api/v2*/**", "api/v2*"]),
      ].join("\n"),
    });
    // the first question is answered glob by glob; from the second on, through the index of places
    expect(two.scopes.owners("first/question.ts")).toEqual([]);
    expect(two.scopes.owners("tools/Makefile").map((i) => i.id)).toEqual(["MK-001", "MK-002"]);
    // `v2*` matches `v2` itself (the star matches nothing), as minimatch says
    expect(two.scopes.owners("api/v2").map((i) => i.id)).toEqual(["VER-001"]);
    expect(two.scopes.owners("api/v2/x.ts").map((i) => i.id)).toEqual(["VER-001"]);
    expect(two.scopes.owners("api/v1").map((i) => i.id)).toEqual([]);
    // the same answers as first questions, glob by glob: a path shorter than a glob's place fits none of it
    const first = (path: string) => new ScopeIndex(two.catalogue).owners(path).map((i) => i.id);
    expect(["tools/Makefile", "api/v2", "api/v2/x.ts", "api/v1", "api"].map(first)).toEqual([["MK-001", "MK-002"], ["VER-001"], ["VER-001"], [], []]);
  });

  it("the owners it answers are the caller's to keep: asking again gives them whole", () => {
    const first = rules.scopes.owners("src/api/x.ts");
    first.length = 0;
    expect(owners("src/api/x.ts")).toEqual(["PRE-001"]);
  });
});

describe("a scope that names folders and files literally", () => {
  // compiling a glob costs an agent's hook more than the rest of judging its path: counted, never timed
  // (globs no other test here uses: compiled globs are kept for the whole process)
  it("is judged without compiling a glob, with the owner minimatch finds", () => {
    const intents = [
      { id: "API-001", ownedScope: ["pkg/core/**", "!pkg/core/generated/**", "notes/core", "pkg/core.ts"] },
      { id: "WEB-001", ownedScope: ["pkg/web/**", "pkg/web.ts"] },
      { id: "SPEC-001", ownedScope: ["**/lit.spec.ts"] },
      // unusable, so owning nothing however literal they read: absolute, and longer than a glob may be
      { id: "BAD-001", ownedScope: ["C:/pkg", `pkg/${"long".repeat(300)}`] },
    ] as unknown as Intent[];
    const cases: [string, string[]][] = [
      ["pkg/core/x.ts", ["API-001"]],
      ["pkg/core/.hidden/y.ts", ["API-001"]],
      ["pkg/core", []],
      ["pkg/core.ts", ["API-001"]],
      ["pkg/coreary/x.ts", []],
      ["pkg/core/generated/z.ts", []],
      ["notes/core", ["API-001"]],
      ["notes/core/guide.md", ["API-001"]],
      ["notes/cores.md", []],
      ["C:/pkg/x.ts", []],
      [`pkg/${"long".repeat(300)}/x.ts`, []],
    ];
    for (const [path, ids] of cases) {
      const before = globCompilations();
      expect(
        new ScopeIndex(makeCatalogue(intents)).owners(path).map((i) => i.id),
        path,
      ).toEqual(ids);
      expect(globCompilations() - before, path).toBe(0);
      // minimatch, through each intent's own compiled scope, agrees
      expect(
        intents.filter((i) => scopeMatches(compileScope(i.ownedScope), path)).map((i) => i.id),
        path,
      ).toEqual(ids);
    }
  });
});

describe("the owners the index finds are the ones every intent's own scope finds", () => {
  const LITERAL = ["src", "a", "b", "m1", "x.ts", "api", "v2", "Makefile", "b.md"];
  const WILD = ["*", "?", "v?", "m*", "*.ts", "[ab]", "[a-c]*", "x.?s", "@b", "+a"];
  const SPANNING = ["**", "{a,b}", "{src,api}", "@(a|b)", "+(x|m1)", "a**"];
  const DOTS = [".", ".."];
  const PATH_PARTS = ["src", "a", "b", "m1", "x.ts", "api", "v2", "v3", ".hidden", "b.ts", "ab", "Makefile", "b.md", "ma", "@b"];

  function glob(rand: Prng): string {
    const n = rand.int(1, 4);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = rand.next();
      parts.push(r < 0.45 ? rand.pick(LITERAL) : r < 0.75 ? rand.pick(WILD) : r < 0.95 ? rand.pick(SPANNING) : rand.pick(DOTS));
    }
    let g = parts.join(rand.next() < 0.05 ? "//" : "/");
    const r = rand.next();
    if (r < 0.05) g = `./${g}`;
    else if (r < 0.08) g = `/${g}`;
    else if (r < 0.12) g = `${g}/`;
    else if (r < 0.15) g = ` ${g.replace("/", "\\")} `;
    else if (r < 0.2) g = `${g} `;
    return rand.next() < 0.15 ? `!${g}` : g;
  }

  function path(rand: Prng): string {
    const parts = Array.from({ length: rand.int(1, 4) }, () => rand.pick(PATH_PARTS));
    const r = rand.next();
    return r < 0.03 ? parts.join("//") : r < 0.05 ? `./${parts.join("/")}` : r < 0.07 ? `${parts.join("/")}/` : parts.join("/");
  }

  it("for generated globs and paths, asked once or many times", () => {
    const rand = new Prng(20261126);
    for (let round = 0; round < 40; round++) {
      const intents = Array.from({ length: rand.int(1, 12) }, (_, i) => ({
        id: `I-${i}`,
        ownedScope: Array.from({ length: rand.int(1, 4) }, () => glob(rand)),
      })) as unknown as Intent[];
      const catalogue = makeCatalogue(intents);
      const shared = new ScopeIndex(catalogue);
      for (let p = 0; p < 60; p++) {
        const at = path(rand);
        const expected = intents.filter((i) => shared.owns(i, at)).map((i) => i.id);
        const why = `${at} against ${JSON.stringify(intents.map((i) => i.ownedScope))}`;
        expect(
          new ScopeIndex(catalogue).owners(at).map((i) => i.id),
          why,
        ).toEqual(expected);
        expect(
          shared.owners(at).map((i) => i.id),
          why,
        ).toEqual(expected);
      }
    }
  });
});
