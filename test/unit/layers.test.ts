import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The layering of docs/ARCHITECTURE.md, checked over the import graph: the engine's rules do no I/O and
 * know nothing of the doors; the I/O layer knows nothing of the doors either. A rule that needs the disk
 * takes what was read as an argument, and the module that reads it lives in `server/src/io/`.
 */
const SRC = resolve(__dirname, "../../server/src");

/** Modules that reach the disk, processes or locks: none of them may be imported by a rule. */
const IO_MODULES = /^(node:)?(fs|fs\/promises|child_process)$|^proper-lockfile$/;
const PROTOCOL_MODULES = /^vscode-languageserver|^vscode-jsonrpc|^vscode-uri/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Every module specifier a file imports or re-exports, static or dynamic, type-only included. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^"';]*?from\s*["']([^"']+)["']/g),
    ...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
    ...text.matchAll(/(?:^|\n)\s*import\s*["']([^"']+)["']/g),
  ];
  return specs.map((m) => m[1]!);
}

/** The layer a relative import lands in: engine, io, lsp, cli, or the file itself for other folders. */
function layerOf(fromFile: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  return relative(SRC, resolve(dirname(fromFile), spec)).split(/[\\/]/)[0];
}

function violations(layer: string, forbiddenLayers: readonly string[], forbidPackages: RegExp[]): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(join(SRC, layer))) {
    for (const spec of importsOf(file)) {
      const target = layerOf(file, spec);
      if ((target && forbiddenLayers.includes(target)) || forbidPackages.some((re) => re.test(spec))) out.push(`${relative(SRC, file)} imports ${spec}`);
    }
  }
  return out;
}

/** Code (comments and strings removed) that reaches the process or loads files at run time. */
const PROCESS_USE = /\b(require\s*\(|process\s*\.|__dirname|__filename)|\bimport\s*\(/;
const FS_MODULES = /^(node:)?(fs|fs\/promises|child_process)$/;

/** The file's code with comments and string literals blanked, so a word in prose is not taken for a call. */
function codeOf(file: string): string {
  return readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|`(?:\\.|[^`\\])*`|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, (m) =>
    m.replace(/[^\n]/g, " "),
  );
}

function processUses(layer: string): string[] {
  return sourceFiles(join(SRC, layer)).flatMap((file) =>
    codeOf(file)
      .split("\n")
      .flatMap((line, i) => (PROCESS_USE.test(line) ? [`${relative(SRC, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
}

function fsImports(layers: readonly string[]): string[] {
  return layers.flatMap((layer) =>
    sourceFiles(join(SRC, layer)).flatMap((file) =>
      importsOf(file)
        .filter((s) => FS_MODULES.test(s))
        .map((s) => `${relative(SRC, file)} imports ${s}`),
    ),
  );
}

describe("layers", () => {
  it("the engine neither loads files (require, dynamic import) nor touches the process (process.*, __dirname)", () => {
    expect(processUses("engine")).toEqual([]);
  });

  it("the doors reach the disk and processes only through io/: no node:fs or child_process in lsp/ or cli/", () => {
    expect(fsImports(["lsp", "cli"])).toEqual([]);
  });

  it("sees process use and fs imports where they are (the checks are not blind)", () => {
    expect(processUses("io").length).toBeGreaterThan(0);
    expect(fsImports(["io"]).length).toBeGreaterThan(5);
    // a use in a comment or a string is prose, not a call
    expect(PROCESS_USE.test(codeOf(join(SRC, "engine/sessions.ts")))).toBe(false);
  });

  it("the engine's rules import neither the disk, git, locks, nor the io, lsp or cli layers", () => {
    expect(violations("engine", ["io", "lsp", "cli"], [IO_MODULES, PROTOCOL_MODULES])).toEqual([]);
  });

  it("the io layer does not import the doors or the protocol", () => {
    expect(violations("io", ["lsp", "cli"], [PROTOCOL_MODULES])).toEqual([]);
  });

  it("the CLI does not import the language server", () => {
    expect(violations("cli", ["lsp"], [PROTOCOL_MODULES])).toEqual([]);
  });

  it("sees the imports it checks (a rule module that read the disk would be caught)", () => {
    // the check itself must not pass because it sees nothing: io modules do import node:fs
    const ioImports = sourceFiles(join(SRC, "io")).flatMap(importsOf);
    expect(ioImports.filter((s) => IO_MODULES.test(s)).length).toBeGreaterThan(5);
    expect(importsOf(join(SRC, "engine/ledger/read.ts")).length).toBeGreaterThan(0);
  });
});

/** A call that starts git by name: `spawn("git", …)`, `spawnSync`, `execFile`, `exec…`. */
const STARTS_GIT = /\b(spawn|spawnSync|execFile|execFileSync|exec|execSync)\s*\(\s*["'`]git\b/;
/** Loading child_process, by import or by require. */
const LOADS_CHILD_PROCESS = /from\s*["'](node:)?child_process["']|require\(\s*["'](node:)?child_process["']\s*\)/;

/**
 * The modules that start processes, each for one reason: git (through the runner that turns off every
 * program git could run for a repository), doctor's probes of hook commands, an intent's criteria in the
 * user's shell, and the hook service.
 */
const PROCESS_STARTERS = ["io/gitRunner.ts", "io/program.ts", "io/criteria/runCriterion.ts", "launch/hookClient.ts"];

/**
 * The file's text with comments and template literals blanked: an import written inside a template (the
 * source of a plugin intent-lsp writes for an agent) is text the module holds, not a module it loads.
 */
function withoutTemplates(file: string): string {
  return readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|`(?:\\.|[^`\\])*`/g, (m) => m.replace(/[^\n]/g, " "));
}

describe("git runs only through io/gitRunner.ts (docs/ARCHITECTURE.md)", () => {
  const files = sourceFiles(SRC).map((f) => ({ name: relative(SRC, f), text: withoutTemplates(f) }));

  it("no module but the runner starts git", () => {
    expect(files.filter((f) => STARTS_GIT.test(f.text)).map((f) => f.name)).toEqual(["io/gitRunner.ts"]);
  });

  it("sees a module that loads child_process, and not one that only holds the text of an import", () => {
    expect(files.find((f) => f.name === "io/program.ts")!.text).toMatch(LOADS_CHILD_PROCESS);
    expect(readFileSync(join(SRC, "io/setup/agentPlugins.ts"), "utf8")).toMatch(LOADS_CHILD_PROCESS);
    expect(files.find((f) => f.name === "io/setup/agentPlugins.ts")!.text).not.toMatch(LOADS_CHILD_PROCESS);
  });

  it("only the modules that start processes for a named reason load child_process", () => {
    expect(
      files
        .filter((f) => LOADS_CHILD_PROCESS.test(f.text))
        .map((f) => f.name)
        .sort(),
    ).toEqual([...PROCESS_STARTERS].sort());
  });
});

/** The most lines a class in server/src may span (docs/ARCHITECTURE.md "Invariants": a class owns one concern). */
const CLASS_LINE_LIMIT = 220;

/** Every class declared in `file`, with the lines its declaration spans (decorators and doc comment excluded). */
function classSpans(file: string): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      out.push({ name: `${relative(SRC, file)} ${node.name?.text ?? "(anonymous class)"}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe("class size", () => {
  const classes = sourceFiles(SRC).flatMap(classSpans);

  it(`no class in server/src spans more than ${CLASS_LINE_LIMIT} lines`, () => {
    expect(classes.filter((c) => c.lines > CLASS_LINE_LIMIT).map((c) => `${c.name}: ${c.lines} lines`)).toEqual([]);
  });

  it("counts class bodies, not files (the check is not blind)", () => {
    const server = classes.find((c) => c.name === "lsp/server.ts IntentServer");
    expect(server?.lines).toBeGreaterThan(100);
    expect(classes.length).toBeGreaterThan(40);
  });
});
