import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TempWorkspace } from "../support/workspace";
import { runCli } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";

/**
 * Files git is told not to look at (io/flaggedFiles.ts), against an independent oracle: the same working
 * tree with the flag cleared, where git's own diff sees the file. `intent check` must find exactly the same
 * lines either way, for every kind of change git tells apart.
 */

const F = "src/api/weather.ts";

/** [what it is, the text committed, the text in the working tree (undefined: the file removed)]. */
const CASES: [string, string, string | undefined][] = [
  ["a line moved above one changed in its whitespace", "x\ny\n", "y \nx\n"],
  ["three lines reordered with trailing spaces", "a\nb\nc\n", "b \nc \na\n"],
  ["equal lines matched as git matches them", "a\nb\na\n", "b\na\na\n"],
  ["the final newline removed", "a\nb\n", "a\nb"],
  ["line ends turned to CRLF", "a\nb\nc\n", "a\r\nb\r\nc\r\n"],
  ["a lone CR inside a line", "a\rb\nc\nd\n", "a\rb\nc\nX\n"],
  ["a byte that is not UTF-8 changed", "a\n\xff\nc\n", "a\n\xfe\nc\n"],
  ["a NUL byte past git's first 8000 bytes", `${"x\n".repeat(5000)}\0\n`, `${"x\n".repeat(499)}y\n${"x\n".repeat(4500)}\0\n`],
  ["the file removed", "a\nb\n", undefined],
];

describe("intent check on files git is told not to look at", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = gitWorkspace();
  });
  afterEach(() => ws.dispose());

  const findings = async () =>
    JSON.parse(runCli(["check", "--format", "json"], { cwd: ws.root }).stdout).findings.map(
      (f: { path: string; startLine: number; endLine: number; code: string }) => [f.path, f.startLine, f.endLine, f.code],
    );

  it.each(CASES)("%s: the same findings as with the flag cleared", async (_, before, after) => {
    writeFileSync(ws.path(F), before, "latin1");
    git(ws.root, "add", F);
    git(ws.root, "commit", "-q", "-m", "base");
    if (after === undefined) rmSync(ws.path(F));
    else writeFileSync(ws.path(F), after, "latin1");
    const plain = await findings();
    expect(plain.length, "git sees a change").toBeGreaterThan(0);
    // a skip-worktree file that is not there is one a sparse checkout left out: git's answer stands
    for (const flag of after === undefined ? ["--assume-unchanged"] : ["--assume-unchanged", "--skip-worktree"]) {
      git(ws.root, "update-index", flag, F);
      expect(await findings(), flag).toEqual(plain);
      git(ws.root, "update-index", flag.replace("--", "--no-"), F);
    }
  });

  it("with .gitattributes: a file git treats as binary, and one with $Id$ expanded, as git reads them", async () => {
    ws.write(".gitattributes", `${ws.read(".gitattributes")}src/api/weather.ts binary\nsrc/api/forecast.ts ident\n`);
    ws.write("src/api/forecast.ts", `// $Id$\n${ws.read("src/api/forecast.ts")}`);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "attributes");
    git(ws.root, "rm", "-q", "--cached", "src/api/forecast.ts");
    git(ws.root, "checkout", "-q", "HEAD", "--", "src/api/forecast.ts"); // $Id$ expanded on checkout
    ws.write(F, `${ws.read(F)}export const more = 1;\n`);
    const plain = await findings();
    for (const path of [F, "src/api/forecast.ts"]) git(ws.root, "update-index", "--assume-unchanged", path);
    expect(await findings()).toEqual(plain);
  });

  it("a file replaced by a symbolic link", async () => {
    rmSync(ws.path(F));
    symlinkSync("forecast.ts", ws.path(F));
    const plain = await findings();
    git(ws.root, "update-index", "--assume-unchanged", F);
    expect(await findings()).toEqual(plain);
  });
});
